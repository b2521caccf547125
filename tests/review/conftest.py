"""Helpers for the key review and reconciliation tests, and Chromium for the one browser test."""

import os
import shutil

import pytest

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = next(
    (
        path
        for path in [
            os.environ.get("CHROMIUM_PATH", ""),
            "/usr/bin/chromium",
            "/usr/bin/chromium-browser",
            shutil.which("chromium") or "",
        ]
        if path and os.path.exists(path)
    ),
    None,
)
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def pytest_collection_modifyitems(config, items):
    if CHROMIUM is not None:
        return
    if os.environ.get("CI"):
        raise pytest.UsageError("CI needs Chromium for the browser tests: apt-get install chromium")
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(pytest.mark.skip(reason="no Chromium found (set CHROMIUM_PATH)"))


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": ARGS, "headless": True}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1366, "height": 900}, "locale": "en-GB"}


def build_experiment(world, *, sheets, keys, name="Reviewed", blocks=None):
    """A collected experiment. ``sheets``: [(config, repeat, [(answer, confidence), ...]), ...];
    ``keys``: the key of each item; ``blocks``: the block code of each item (default all "A")."""
    from probe.models import Attempt, Experiment, Response, Run
    from tests.probe import factories

    experiment = factories.ExperimentFactory(
        team=world.team,
        bank=world.bank,
        prompt_version=world.prompt,
        name=name,
        status=Experiment.Status.COLLECTED,
        repeats=max(r for _c, r, _s in sheets),
    )
    blocks = blocks or ["A"] * len(keys)
    items = [
        factories.ExperimentItemFactory(
            experiment=experiment,
            position=i + 1,
            block_code=blocks[i],
            block_title=f"Block {blocks[i]}",
            question=f"{name} question {i + 1}?",
            key_answer=key,
        )
        for i, key in enumerate(keys)
    ]
    for order, (config, repeat, sheet) in enumerate(sheets, start=1):
        run = factories.RunFactory(
            experiment=experiment,
            model_config=config,
            repeat=repeat,
            order=order,
            status=Run.Status.COLLECTED,
        )
        attempt = Attempt.objects.create(
            run=run, outcome="complete", text="sheet", raw_body="sheet"
        )
        for item, (answer, confidence) in zip(items, sheet, strict=True):
            Response.objects.create(
                run=run,
                item=item,
                attempt=attempt,
                answer=answer,
                confidence=confidence,
                abstained=answer == "UNKNOWN",
            )
    return experiment


def responses_in_order(experiment):
    """Responses by run order, then item position: unit 1, 2, ... of the tests' tables."""
    from probe.models import Response

    return list(
        Response.objects.filter(run__experiment=experiment).order_by("run__order", "item__position")
    )


def judge(assignment, buckets: dict):
    """Set each response's bucket directly (a scorer pressing 1-4), through judgement_decide."""
    from scoring import services

    for response, bucket in buckets.items():
        services.judgement_decide(assignment=assignment, responses=[response], bucket=bucket)


def judge_everything(assignment, bucket="correct"):
    """Judge every response this scorer has not judged yet (UNKNOWNs stay at their preset)."""
    from probe.models import Response

    open_responses = Response.objects.filter(run__experiment=assignment.experiment).exclude(
        judgements__assignment=assignment
    )
    judge(assignment, {r: bucket for r in open_responses})
