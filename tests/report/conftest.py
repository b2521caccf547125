"""Real experiments for the report tests: runs, responses, judgements made through the services.

A sheet is written as one letter per item, saying what the model did and so what the scorer will
decide:

    C  correct, HIGH        m  correct, MEDIUM      c  correct, LOW
    W  wrong, HIGH          M  wrong, MEDIUM        H  wrong, LOW (hedged)
    A  UNKNOWN (abstained; AA scheme: not attempted)
    P  a partial answer (AA scheme; the scorer sets the bucket directly)

so "C" * 20 + "W" * 8 + "H" * 2 is the worked example in docs/design.md.
"""

from dataclasses import dataclass, field

import pytest

from probe.models import Attempt, Experiment, ModelConfig, Response, Run
from scoring import services
from scoring.models import Assignment, Bucket

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


@dataclass
class Built:
    experiment: Experiment
    configs: dict  # label -> ModelConfig
    runs: dict = field(default_factory=dict)  # (label, repeat) -> Run


def build(
    world,
    sheets: dict,
    *,
    name: str = "Report probe",
    blocks: list[tuple[str, str, int]] | None = None,
    scheme: str = Experiment.Scheme.FOUR,
    noise_floor: float | None = None,
    providers: dict | None = None,
    issues: dict | None = None,
) -> Built:
    """sheets: {(config label, repeat): "letters"}; blocks: [(code, title, n_items)], in order.

    providers: {label: provider} (default "openai"; "simulator" makes a simulated configuration).
    issues: {(label, repeat): {item position: [issue codes]}}.
    """
    from tests.probe import factories

    n_items = len(next(iter(sheets.values())))
    blocks = blocks or [("A", "HTTP semantics", n_items)]
    assert sum(b[2] for b in blocks) == n_items
    experiment = factories.ExperimentFactory(
        team=world.team,
        bank=world.bank,
        prompt_version=world.prompt,
        name=name,
        status=Experiment.Status.COLLECTED,
        scheme=scheme,
        noise_floor=noise_floor,
        repeats=max(repeat for _, repeat in sheets),
    )
    items = []
    position = 0
    for code, title, count in blocks:
        for _ in range(count):
            position += 1
            items.append(
                factories.ExperimentItemFactory(
                    experiment=experiment,
                    position=position,
                    block_code=code,
                    block_title=title,
                    question=f"Report question {position}?",
                    key_answer=f"key {position}",
                )
            )
    providers = providers or {}
    configs = {}
    built = Built(experiment, configs)
    for order, ((label, repeat), letters) in enumerate(sheets.items(), start=1):
        assert len(letters) == n_items, (label, repeat)
        if label not in configs:
            configs[label] = ModelConfig.objects.filter(team=world.team, label=label).first() or (
                factories.ModelConfigFactory(
                    team=world.team,
                    label=label,
                    provider=providers.get(label, "openai"),
                    model_name=f"model-of-{label}",
                )
            )
        run = factories.RunFactory(
            experiment=experiment,
            model_config=configs[label],
            repeat=repeat,
            order=order,
            status=Run.Status.COLLECTED,
        )
        built.runs[(label, repeat)] = run
        attempt = Attempt.objects.create(run=run, outcome="complete", text="(sheet)", raw_body="{}")
        run_issues = (issues or {}).get((label, repeat), {})
        for item, letter in zip(items, letters, strict=True):
            kind, confidence = LETTERS[letter]
            answer = {
                "key": f"key {item.position}",
                "wrong": f"wrong {item.position} {label} {repeat}",
                "partial": f"partial {item.position} {label} {repeat}",
                "UNKNOWN": "UNKNOWN",
            }[kind]
            Response.objects.create(
                run=run,
                item=item,
                attempt=attempt,
                answer=answer,
                confidence=confidence,
                abstained=answer == "UNKNOWN",
                issues=run_issues.get(item.position, []),
            )
    return built


def score_all(experiment: Experiment, user, *, reveal: bool = True) -> Assignment:
    """Start an assignment and decide every response the way its answer says, via the services."""
    assignment = services.assignment_start(experiment=experiment, user=user)
    responses = Response.objects.filter(run__experiment=experiment).exclude(answer="UNKNOWN")
    by_kind: dict[tuple[int, str], list[Response]] = {}
    for response in responses.select_related("item"):
        kind = response.answer.split(" ")[0]
        by_kind.setdefault((response.item.position, kind), []).append(response)
    for (_position, kind), group in sorted(by_kind.items()):
        if kind == "key":
            services.judgement_decide(assignment=assignment, responses=group, verdict="correct")
        elif kind == "wrong":
            services.judgement_decide(assignment=assignment, responses=group, verdict="wrong")
        else:
            services.judgement_decide(assignment=assignment, responses=group, bucket=Bucket.PARTIAL)
    if reveal:
        services.assignment_reveal(assignment=assignment)
    assignment.refresh_from_db()
    return assignment


@pytest.fixture
def scorer(world):
    return world.users["scorer"]
