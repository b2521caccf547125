"""The agreement figures are computed once per state of the participants' judgements and kept in
the cache: a page loaded again reads them (no query of the judgements themselves), and a changed
judgement, a re-check sent back or a judgement undone gives new figures at once."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring.agreement import report as agreement_report
from scoring.models import Judgement
from scoring.queue import services
from tests.scoring.factories import judge

from .test_agreement import SCORER_A, SCORER_B, scored_by  # noqa: F401  (a fixture)

C, W = "correct", "confident_wrong"


def judgement_reads(ctx) -> int:
    """Queries that read the judgements' buckets (the figures' one query), not the version."""
    return sum(
        1 for q in ctx.captured_queries if "string_agg" in q["sql"] or "group_concat" in q["sql"]
    )


def test_figures_come_from_the_cache_until_a_judgement_changes(scored_by):  # noqa: F811
    experiment, units, score = scored_by
    a = score("scorer", SCORER_A)
    score("editor", SCORER_B)
    first = agreement_report.agreement_report(experiment)
    with CaptureQueriesContext(connection) as ctx:
        again = agreement_report.agreement_report(experiment)
    assert judgement_reads(ctx) == 0
    assert again.overall == first.overall and again.blocks == first.blocks
    assert [p.table for p in again.pairs] == [p.table for p in first.pairs]

    # Scorer A moves response 6 (C W -> W W): one more agreement, new figures at once.
    judge(a, {units[5]: W})
    with CaptureQueriesContext(connection) as ctx:
        changed = agreement_report.agreement_report(experiment)
    assert judgement_reads(ctx) == 1
    assert changed.overall.percent == pytest.approx(10 / 12)
    assert changed.pairs[0].table.agreements == first.pairs[0].table.agreements + 1

    # A key amendment sends judgements back (a queryset update, no save()): counted at once.
    Judgement.objects.filter(assignment=a, response=units[0]).update(needs_recheck=True)
    assert agreement_report.agreement_report(experiment).awaiting == 1


def test_an_undone_judgement_is_not_served_from_the_cache(scored_by):  # noqa: F811
    experiment, units, score = scored_by
    a = score("scorer", SCORER_A)
    score("editor", SCORER_B)
    assert agreement_report.agreement_report(experiment) is not None
    services.judgement_undo(assignment=a)  # the last decision: response 12, Correct
    # Scorer A has not judged every response any more: fewer than two participants.
    assert agreement_report.agreement_report(experiment) is None
    judge(a, {units[11]: W})  # judged again, now a disagreement with B's Correct
    again = agreement_report.agreement_report(experiment)
    assert again.overall.percent == pytest.approx(8 / 12)
