"""Real experiments for the report tests: runs, responses, judgements made through the services.

A sheet is written as one letter per item (tests.builders.LETTERS), saying what the model did
and so what the scorer will decide (tests.scoring.factories.score_all):

    C  correct, HIGH        m  correct, MEDIUM      c  correct, LOW
    W  wrong, HIGH          M  wrong, MEDIUM        H  wrong, LOW (hedged)
    A  UNKNOWN (abstained; AA scheme: not attempted)
    P  a partial answer (AA scheme; the scorer sets the bucket directly)

so "C" * 20 + "W" * 8 + "H" * 2 is the worked example in docs/design.md.
"""

import pytest

from probe.models import ModelConfig
from scoring.schemes import FourBucketScheme
from tests import builders


def build(
    world,
    sheets: dict,
    *,
    name: str = "Report probe",
    blocks: list[tuple[str, str, int]] | None = None,
    scheme: str = FourBucketScheme.key,
    noise_floor: float | None = None,
    providers: dict | None = None,
    issues: dict | None = None,
) -> builders.Collected:
    """sheets: {(config label, repeat): "letters"}; blocks: [(code, title, n_items)], in order.

    providers: {label: provider} (default "openai"; "simulator" makes a simulated configuration).
    issues: {(label, repeat): {item position: [issue codes]}}.
    """
    from tests.probe import factories

    n_items = len(next(iter(sheets.values())))
    providers, issues = providers or {}, issues or {}
    configs = {}
    for label, _repeat in sheets:
        if label not in configs:
            configs[label] = ModelConfig.objects.filter(team=world.team, label=label).first() or (
                factories.ModelConfigFactory(
                    team=world.team,
                    label=label,
                    provider=providers.get(label, "openai"),
                    model_name=f"model-of-{label}",
                )
            )
    return world.collected_experiment(
        [
            builders.Sheet(configs[label], letters, repeat, issues.get((label, repeat), {}))
            for (label, repeat), letters in sheets.items()
        ],
        items=builders.snapshot_items(
            n_items,
            question="Report question {n}?",
            blocks=blocks or [("A", "HTTP semantics", n_items)],
        ),
        name=name,
        scheme=scheme,
        noise_floor=noise_floor,
        attempt_text="(sheet)",
        raw_body="{}",
    )


@pytest.fixture
def scorer(world):
    return world.users["scorer"]
