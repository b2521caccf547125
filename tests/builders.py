"""Builders of the data the tests and the benchmarks work on: banks, and experiments whose runs
are collected (every run answered every item), with judgements made in bulk.

One module for both. The tests import it as ``tests.builders``; the scripts in bench/ put the
project root on sys.path (``bench/_setup.django_setup``) and import it the same way once Django
is set up. It imports the models, so it needs Django set up first: the suites that run without
Django (adapters, parser) never import it.

Rows are written with bulk_create, a few queries per table whatever the size, so a three-item
experiment in a test and a 100,000-response one in a benchmark are made the same way. What a
test needs to be real goes through the product's services: an experiment created (and started)
from a bank with ``service_experiment``; a scorer's decisions with tests/scoring/factories.py.

An experiment is described by its items (``snapshot_items``) and one ``Sheet`` per run: the
run's configuration and repeat, and its answer to each item, either as (answer, confidence)
pairs or as a string of ``LETTERS`` (one per item, saying what the model did).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model

from probe import prompts
from probe.models import (
    Attempt,
    Bank,
    Block,
    Experiment,
    ExperimentItem,
    Item,
    KeyEntry,
    Membership,
    ModelConfig,
    PromptVersion,
    Response,
    Run,
    Team,
)
from probe.services import experiments as experiment_services
from scoring.models import Assignment, Judgement

BATCH = 5000
PASSWORD = "bench-password-1"

# What the model did, one letter per item, and so what the scorer will decide
# (tests/scoring/factories.score_all):
#     C  correct, HIGH        m  correct, MEDIUM      c  correct, LOW
#     W  wrong, HIGH          M  wrong, MEDIUM        H  wrong, LOW (hedged)
#     A  UNKNOWN (abstained; AA scheme: not attempted)
#     P  a partial answer (AA scheme; the scorer sets the bucket directly)
LETTERS = {
    "C": ("key", "HIGH"),
    "m": ("key", "MEDIUM"),
    "c": ("key", "LOW"),
    "W": ("wrong", "HIGH"),
    "M": ("wrong", "MEDIUM"),
    "H": ("wrong", "LOW"),
    "A": ("UNKNOWN", ""),
    "P": ("partial", "MEDIUM"),
}


# --- teams, configurations, banks ---------------------------------------------------------------


def team_with_members(name: str, members: dict[str, str], *, slug: str = "") -> tuple[Team, dict]:
    """A team (made, or found by its slug) and its members: {username: role}; a user who exists
    already joins as they are. Returns (team, {username: user})."""
    team, _ = Team.objects.get_or_create(slug=slug or name.lower(), defaults={"name": name})
    users = {}
    for username, role in members.items():
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            user = get_user_model().objects.create_user(username, password=PASSWORD)
        Membership.objects.get_or_create(team=team, user=user, defaults={"role": role})
        users[username] = user
    return team, users


def prompt_version(team: Team, *, name: str = "Bench", text: str = "Answer closed-book."):
    prompt, _ = PromptVersion.objects.get_or_create(
        team=team, name=name, defaults={"text": text, "content_hash": prompts.content_hash(text)}
    )
    return prompt


def model_configs(team: Team, labels: Iterable[str], **fields) -> list[ModelConfig]:
    """One configuration per label; fields: the other ModelConfig fields, each a value or a
    function of the label's index."""
    return ModelConfig.objects.bulk_create(
        ModelConfig(
            team=team,
            label=label,
            **{k: v(n) if callable(v) else v for k, v in fields.items()},
        )
        for n, label in enumerate(labels)
    )


def bulk_bank(
    team: Team,
    *,
    name: str,
    n_items: int,
    item: Callable[[int, int], dict],
    key: Callable[[int], dict | None],
    block_title: str = "Topic {code}",
    codes: str = "ABCDE",
    description: str = "",
) -> tuple[Bank, list[Item]]:
    """A bank of n_items shared evenly by the blocks ``codes``. item(block index, index in the
    block) gives an item's fields (question, ...); key(index in the bank) a key entry's fields,
    or None for an item without a key."""
    bank = Bank.objects.create(team=team, name=name, description=description)
    blocks = Block.objects.bulk_create(
        Block(bank=bank, code=code, title=block_title.format(code=code), order=n)
        for n, code in enumerate(codes, start=1)
    )
    per_block = n_items // len(blocks)
    items = Item.objects.bulk_create(
        [
            Item(block=block, order=i + 1, **item(b, i))
            for b, block in enumerate(blocks)
            for i in range(per_block)
        ],
        batch_size=2000,
    )
    entries = ((k, key(k)) for k in range(len(items)))
    KeyEntry.objects.bulk_create(
        [KeyEntry(item=items[k], **fields) for k, fields in entries if fields is not None],
        batch_size=2000,
    )
    return bank, items


# --- collected experiments ----------------------------------------------------------------------


@dataclass(frozen=True)
class SnapshotItem:
    """An experiment's item as the snapshot keeps it."""

    question: str
    key_answer: str = ""
    block_code: str = "A"
    block_title: str = "Block A"
    key_flagged: bool = False
    source_item: Item | None = None


def even_blocks(n_items: int, codes: str = "ABCDE") -> list[tuple[str, str, int]]:
    """n_items shared by the blocks in order (item i in block codes[i * len(codes) // n])."""
    counts = Counter(i * len(codes) // n_items for i in range(n_items))
    return [(codes[b], f"Block {codes[b]}", counts[b]) for b in sorted(counts)]


def snapshot_items(
    n_items: int,
    *,
    question: str = "Question {n}?",
    key: str | Sequence[str] = "key {n}",
    blocks: Sequence[tuple[str, str, int]] | None = None,
    flagged: Callable[[int], bool] = lambda index: False,
    source_items: Sequence[Item] | None = None,
) -> list[SnapshotItem]:
    """Items 1..n_items: question and key are formats of the position n (key may also be the
    list of keys); blocks [(code, title, count)] in order (default: all in "A. Block A");
    flagged(index) says which keys are flagged; source_items, the bank items they were taken
    from."""
    blocks = blocks or [("A", "Block A", n_items)]
    assert sum(count for _code, _title, count in blocks) == n_items, (blocks, n_items)
    in_block = [(code, title) for code, title, count in blocks for _ in range(count)]
    keys = [key.format(n=n) for n in range(1, n_items + 1)] if isinstance(key, str) else key
    return [
        SnapshotItem(
            question=question.format(n=i + 1),
            key_answer=keys[i],
            block_code=in_block[i][0],
            block_title=in_block[i][1],
            key_flagged=flagged(i),
            source_item=source_items[i] if source_items else None,
        )
        for i in range(n_items)
    ]


@dataclass
class Sheet:
    """One run: its configuration, its repeat, its answers to the items in order ((answer,
    confidence) pairs, or LETTERS) and the issues the parser found ({position: [codes]})."""

    config: ModelConfig
    answers: Sequence[tuple[str, str]] | str
    repeat: int = 1
    issues: dict[int, list[str]] = field(default_factory=dict)

    def pairs(self) -> list[tuple[str, str]]:
        if not isinstance(self.answers, str):
            return list(self.answers)
        label, repeat = self.config.label, self.repeat
        texts = {
            "key": "key {n}",
            "wrong": f"wrong {{n}} {label} {repeat}",
            "partial": f"partial {{n}} {label} {repeat}",
            "UNKNOWN": "UNKNOWN",
        }
        return [
            (texts[LETTERS[letter][0]].format(n=n), LETTERS[letter][1])
            for n, letter in enumerate(self.answers, start=1)
        ]


@dataclass
class Collected:
    experiment: Experiment
    items: list[ExperimentItem]
    runs: dict  # (configuration label, repeat) -> Run, in run order
    configs: dict  # label -> ModelConfig


def sheet_text(answers: Sequence[tuple[str, str]]) -> str:
    """A well-formed sheet: answers = [(answer, confidence), ...] for items 1..N."""
    return "\n".join(f"{n}. ANSWER: {a}\nCONFIDENCE: {c}" for n, (a, c) in enumerate(answers, 1))


def collected_experiment(
    *,
    team: Team,
    bank: Bank | None,
    prompt: PromptVersion,
    items: Sequence[SnapshotItem],
    sheets: Sequence[Sheet],
    name: str = "Collected",
    mode: str = Experiment.Mode.SHEET,
    attempt_text: str | None = None,
    raw_body: str | None = None,
    attempt_fields: Callable[[int], dict] | None = None,
    **fields,
) -> Collected:
    """A collected experiment: a run per sheet, in order, and a response per run and item.

    mode "sheet": one attempt per run; "item": one per run and item. attempt_text and raw_body
    are what each attempt keeps (default: the sheet's text, for both); attempt_fields(n), the
    n-th attempt's other fields (http_status, latency_ms, ...). fields: the experiment's other
    fields (scheme, noise_floor, seed, status, ...); repeats defaults to the sheets' highest."""
    fields.setdefault("repeats", max(sheet.repeat for sheet in sheets))
    fields.setdefault("seed", 12345)
    fields.setdefault("status", Experiment.Status.COLLECTED)
    experiment = Experiment.objects.create(
        team=team,
        name=name,
        bank=bank,
        bank_name=bank.name if bank else "",
        prompt_version=prompt,
        mode=mode,
        **fields,
    )
    snapshot = ExperimentItem.objects.bulk_create(
        ExperimentItem(experiment=experiment, position=n, **vars(item))
        for n, item in enumerate(items, start=1)
    )
    runs = Run.objects.bulk_create(
        Run(
            experiment=experiment,
            model_config=sheet.config,
            repeat=sheet.repeat,
            order=order,
            status=Run.Status.COLLECTED,
            config_snapshot=sheet.config.settings_snapshot(),
        )
        for order, sheet in enumerate(sheets, start=1)
    )
    answers = {run.pk: sheet for run, sheet in zip(runs, sheets, strict=True)}
    pairs = {pk: sheet.pairs() for pk, sheet in answers.items()}
    for run in runs:
        assert len(pairs[run.pk]) == len(snapshot), (run.model_config.label, run.repeat)
    add_responses(
        runs,
        snapshot,
        lambda run, item: pairs[run.pk][item.position - 1],
        per_item=mode == Experiment.Mode.ITEM,
        attempt_text=attempt_text,
        raw_body=raw_body,
        attempt_fields=attempt_fields,
        issues=lambda run, item: answers[run.pk].issues.get(item.position, []),
    )
    return Collected(
        experiment,
        snapshot,
        {(run.model_config.label, run.repeat): run for run in runs},
        {sheet.config.label: sheet.config for sheet in sheets},
    )


def add_responses(
    runs: Sequence[Run],
    items: Sequence[ExperimentItem],
    answer: Callable[[Run, ExperimentItem], tuple[str, str]],
    *,
    per_item: bool = False,
    attempt_text: str | None = None,
    raw_body: str | None = None,
    attempt_fields: Callable[[int], dict] | None = None,
    issues: Callable[[Run, ExperimentItem], list] = lambda run, item: [],
) -> None:
    """Each run's answer to each item: an attempt per run (per run and item if per_item), and
    the responses, answer(run, item) = (answer, confidence); "UNKNOWN" abstains."""
    pairs = {run.pk: [answer(run, item) for item in items] for run in runs}
    if per_item:
        units = [
            (run, item, "ANSWER: {}\nCONFIDENCE: {}".format(*pairs[run.pk][n]))
            for run in runs
            for n, item in enumerate(items)
        ]
    else:
        units = [(run, None, sheet_text(pairs[run.pk])) for run in runs]
    if attempt_text is not None:
        units = [(run, item, attempt_text) for run, item, _text in units]
    attempts = Attempt.objects.bulk_create(
        (
            Attempt(
                run=run,
                item=item,
                outcome=Attempt.Outcome.COMPLETE,
                text=text,
                raw_body=text if raw_body is None else raw_body,
                **(attempt_fields(n) if attempt_fields else {}),
            )
            for n, (run, item, text) in enumerate(units)
        ),
        batch_size=BATCH,
    )
    attempt_of = {(a.run_id, a.item_id if per_item else None): a for a in attempts}
    batch = []
    for run in runs:
        for item, (answer_text, confidence) in zip(items, pairs[run.pk], strict=True):
            batch.append(
                Response(
                    run=run,
                    item=item,
                    attempt=attempt_of[(run.pk, item.pk if per_item else None)],
                    answer=answer_text,
                    confidence=confidence,
                    abstained=answer_text == "UNKNOWN",
                    issues=issues(run, item),
                )
            )
            if len(batch) >= BATCH:
                Response.objects.bulk_create(batch)
                batch = []
    Response.objects.bulk_create(batch)


def standalone_experiment(
    *,
    n_items: int,
    n_configs: int,
    repeats: int,
    answer_for: Callable[[int, int], tuple[str, str]],
    team_name: str = "Bench",
    scorer: str = "bench-scorer",
    prompt_text: str = "Answer closed-book.",
    **collected,
) -> tuple[Experiment, object]:
    """A collected experiment of a team of its own (and its scorer): n_items in five blocks (one
    key in 17 flagged), n_configs configurations (one in 3 simulated) x repeats runs, and
    answer_for(item index, run index) -> (answer, confidence); one answer in 23 has a parser
    issue. collected: collected_experiment's other arguments. Returns (experiment, scorer)."""
    team, users = team_with_members(team_name, {scorer: "scorer"})
    configs = model_configs(
        team,
        [f"config {c:02d}" for c in range(n_configs)],
        provider=lambda c: "simulator" if c % 3 == 0 else "openai",
        model_name=lambda c: f"model-{c:02d}",
    )
    sheets = []
    for c, config in enumerate(configs):
        for r in range(repeats):
            run = c * repeats + r
            answers = [answer_for(i, run) for i in range(n_items)]
            issues = {i + 1: ["markdown"] for i in range(n_items) if (i + run) % 23 == 0}
            sheets.append(Sheet(config, answers, r + 1, issues))
    collected.setdefault("seed", 1)
    collected.setdefault("attempt_text", "(bench)")
    collected.setdefault("raw_body", "{}")
    built = collected_experiment(
        team=team,
        bank=Bank.objects.create(team=team, name="Bench bank"),
        prompt=prompt_version(team, text=prompt_text),
        items=snapshot_items(n_items, blocks=even_blocks(n_items), flagged=lambda i: i % 17 == 0),
        sheets=sheets,
        name="Bench experiment",
        repeats=repeats,
        **collected,
    )
    return built.experiment, users[scorer]


def collect_runs(
    experiment: Experiment,
    runs: Sequence[Run],
    answer: Callable[[Run, ExperimentItem], tuple[str, str]],
    **attempts,
) -> Experiment:
    """The runs (of an experiment made some other way) answer every item, as add_responses, and
    are collected, and so is the experiment (the objects given are updated too)."""
    items = list(experiment.items.order_by("position"))
    add_responses(runs, items, answer, **attempts)
    for run in runs:
        run.status = Run.Status.COLLECTED
        run.save(update_fields=["status"])
    experiment.status = Experiment.Status.COLLECTED
    experiment.save(update_fields=["status"])
    return experiment


def service_experiment(
    *,
    team: Team,
    user,
    bank: Bank,
    prompt: PromptVersion,
    configs: Sequence[ModelConfig],
    repeats: int = 1,
    mode: str = "sheet",
    seed: int = 7,
    start: bool = True,
) -> Experiment:
    """An experiment on a bank, created (and started, queue=False) through the services."""
    experiment = experiment_services.experiment_create(
        team=team,
        user=user,
        bank=bank,
        prompt_version=prompt,
        configs=list(configs),
        repeats=repeats,
        mode=mode,
        seed=seed,
    )
    if start:
        experiment = experiment_services.experiment_start(
            experiment=experiment, user=user, queue=False
        )
    return experiment


# --- judgements in bulk -------------------------------------------------------------------------


@dataclass(frozen=True)
class Unit:
    """A response as bulk_judgements sees it."""

    index: int  # its place among the responses judged (run, then item position)
    run_index: int  # its run's place in the run order, from 0
    position: int  # its item's
    abstained: bool
    confidence: str


def bulk_judgements(
    assignment: Assignment,
    bucket_for: Callable[[Unit], str],
    *,
    unblinded: Callable[[Unit], bool] = lambda unit: False,
    **response_filter,
) -> int:
    """A judgement by the assignment's scorer of each response of its experiment not judged yet
    (response_filter narrows them: item__position__lt=...), in the bucket bucket_for(unit) says;
    an abstention's verdict is the preset. Returns how many were made."""
    experiment = assignment.experiment
    run_index = {
        pk: i for i, pk in enumerate(experiment.runs.order_by("order").values_list("pk", flat=True))
    }
    rows = (
        Response.objects.filter(run__experiment=experiment, **response_filter)
        .exclude(judgements__assignment=assignment)
        .values_list("pk", "run_id", "item__position", "abstained", "confidence")
    )
    batch, made = [], 0
    for n, (pk, run_id, position, abstained, confidence) in enumerate(rows.iterator(BATCH)):
        unit = Unit(n, run_index[run_id], position, abstained, confidence)
        bucket = bucket_for(unit)
        verdict = "preset" if abstained else ("correct" if bucket == "correct" else "wrong")
        batch.append(
            Judgement(
                assignment=assignment,
                response_id=pk,
                bucket=bucket,
                verdict=verdict,
                unblinded=unblinded(unit),
            )
        )
        if len(batch) >= BATCH:
            made += len(Judgement.objects.bulk_create(batch))
            batch = []
    return made + len(Judgement.objects.bulk_create(batch))
