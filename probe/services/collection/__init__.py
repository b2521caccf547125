"""Collection: a run's units sent concurrently, leases and the sweep, pasted replies, parsing,
and the status roll-up.

A unit is what one request carries: the whole sheet of a run (sheet mode) or one item of a run
(per-item mode). `run_collect` collects a whole run: it takes the run's lease, sends the units
from an asyncio loop in a thread of its own (at most the configuration's limit at once, each
holding a slot of the provider's shared limit), and writes attempts and responses in batches
from the calling thread. The Celery task (probe/tasks.py) and the `collect` command both call
it, so a terminal collection is the same code as a worker's. `sweep_stale_runs` queues again
what nothing works on; `run_health` says what a run is doing, for the pages.

Idempotent: a unit that has its responses is done; a unit whose provider call already
succeeded is parsed from the stored attempt and never asked again; responses are written under
the (run, item) unique constraint; one task at a time holds a run. Every HTTP attempt is an
Attempt row with its raw body and the request as sent (without the key). Parsing is a view over
the stored text and can be redone (`run_reparse`). Before anything is sent, the adapter checks
the run's settings again (the same check as when the configuration was saved).

Modules: `units` (what is sent, and the collection settings), `dispatch` (queueing the task),
`lease`, `sender` (the asyncio sending thread, and the retry window of a unit), `runner` (the
collector), `attempts` (what is stored of each result), `parsing`, `manual`
(pasted replies), `rollup` and `sweep` (with `run_health`).
"""

from .attempts import attempt_row, final_message
from .dispatch import COLLECT_RUN_TASK, queue_run, send_run
from .lease import (
    Leases,
    lease_holder_live,
    lease_release,
    lease_renew,
    lease_take,
    renew_every,
)
from .manual import MAX_PASTE_CHARS, run_paste
from .parsing import parse_attempt, response_row, run_reparse, store_from_attempt
from .rollup import experiment_rollup, run_rollup, runs_with_failed_units
from .runner import (
    RunCollector,
    collect_unit_sync,
    fail_run_unexpectedly,
    run_collect,
)
from .sender import Result, Sender, Unit, unit_retry_delay
from .sweep import RunHealth, run_health, sweep_stale_runs
from .units import (
    ACTIVE,
    COLLECTION_DEFAULTS,
    FLUSH_BATCH,
    FLUSH_SECONDS,
    RENEW_AT_MOST_EVERY,
    SLOT_POLL,
    STORE_BACKOFF,
    api_key_for,
    attempt_number,
    experiment_prompts,
    fail_run,
    latest_success,
    request_for,
    run_units,
    seed_for,
    setting,
    simulation_key_for,
    storable,
    unit_prompt,
)

__all__ = [
    "ACTIVE",
    "Leases",
    "COLLECTION_DEFAULTS",
    "COLLECT_RUN_TASK",
    "FLUSH_BATCH",
    "FLUSH_SECONDS",
    "MAX_PASTE_CHARS",
    "RENEW_AT_MOST_EVERY",
    "SLOT_POLL",
    "STORE_BACKOFF",
    "Result",
    "RunCollector",
    "RunHealth",
    "Sender",
    "Unit",
    "api_key_for",
    "attempt_number",
    "attempt_row",
    "collect_unit_sync",
    "experiment_prompts",
    "experiment_rollup",
    "fail_run",
    "fail_run_unexpectedly",
    "final_message",
    "latest_success",
    "lease_holder_live",
    "lease_release",
    "lease_renew",
    "lease_take",
    "parse_attempt",
    "queue_run",
    "request_for",
    "renew_every",
    "response_row",
    "run_collect",
    "run_health",
    "run_paste",
    "run_reparse",
    "run_rollup",
    "run_units",
    "runs_with_failed_units",
    "seed_for",
    "send_run",
    "setting",
    "simulation_key_for",
    "storable",
    "store_from_attempt",
    "sweep_stale_runs",
    "unit_prompt",
    "unit_retry_delay",
]
