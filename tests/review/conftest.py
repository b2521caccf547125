"""Experiments for the key review and reconciliation tests, and Chromium (the browser suite's
set-up) for the one browser test here."""

from itertools import groupby

from tests.browser.conftest import (  # noqa: F401 (fixtures and the hook, for this folder too)
    browser_context_args,
    browser_type_launch_args,
    pytest_collection_modifyitems,
)


def build_experiment(world, *, sheets, keys, name="Reviewed", blocks=None):
    """A collected experiment. ``sheets``: [(config, repeat, [(answer, confidence), ...]), ...];
    ``keys``: the key of each item; ``blocks``: the block code of each item (default all "A")."""
    from tests import builders

    codes = blocks or ["A"] * len(keys)
    return world.collected_experiment(
        [builders.Sheet(config, answers, repeat) for config, repeat, answers in sheets],
        items=builders.snapshot_items(
            len(keys),
            question=f"{name} question {{n}}?",
            key=keys,
            blocks=[(code, f"Block {code}", len(list(run))) for code, run in groupby(codes)],
        ),
        name=name,
        attempt_text="sheet",
    ).experiment
