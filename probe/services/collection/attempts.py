"""What a collector stores of each result: the Attempt row, and the message of a final error."""

from __future__ import annotations

import time

from django.utils.translation import gettext as _

from adapters import ConfigurationError

from ...models import Attempt, Run
from .sender import Result
from .units import setting, storable


def attempt_row(run: Run, item_pk, number: int, result: Result) -> Attempt:
    completion, error = result.completion, result.error
    if completion is not None:
        return Attempt(
            run=run,
            item_id=item_pk,
            number=number,
            outcome=completion.outcome,
            http_status=completion.http_status,
            latency_ms=completion.latency_ms,
            request_id=(completion.request_id or "")[:200],
            finish_reason=(completion.finish_reason or "")[:60],
            input_tokens=completion.input_tokens,
            output_tokens=completion.output_tokens,
            reasoning_tokens=completion.reasoning_tokens,
            text=storable(completion.text),
            raw_body=storable(completion.raw_body),
            request_sent=completion.request_sent,
        )
    return Attempt(
        run=run,
        item_id=item_pk,
        number=number,
        outcome=Attempt.Outcome.FATAL if result.final else Attempt.Outcome.RETRYABLE,
        http_status=error.status,
        latency_ms=getattr(error, "latency_ms", None),
        request_id=(error.request_id or "")[:200],
        error_kind=(error.kind or "")[:60],
        error_message=storable(error.message),
        retry_after=error.retry_after,
        raw_body=storable(error.body),
        request_sent=error.request_sent,
    )


def final_message(result: Result) -> str:
    error, unit = result.error, result.unit
    message = error.message
    if isinstance(error, ConfigurationError) or not error.retryable:
        return message
    window = setting("PROBE_UNIT_RETRY_SECONDS")
    failing_for = unit.waited
    if unit.failing_since is not None:
        failing_for = max(failing_for, time.monotonic() - unit.failing_since)
    if error.retry_after is not None and failing_for + error.retry_after > window:
        message += " " + _(
            "(The server asked to wait %(wait)d s, past the %(window)d s this collector retries "
            "a request for; retry it later.)"
        ) % {"wait": error.retry_after, "window": window}
    else:
        message += " " + _("(Gave up after %(n)d attempts in %(s)d s.)") % {
            "n": unit.retried + 1,
            "s": round(failing_for),
        }
    return message
