"""An item the key review judged ambiguous drops out of a scorer's own report too."""

from scoring import services
from scoring.report import scorer_report
from tests.scoring.factories import key_decision


def test_a_dropped_item_leaves_the_scorers_report(world):
    assignment = services.assignment_start(experiment=world.scored, user=world.users["scorer"])
    for position in (1, 2, 3):
        from scoring.selectors import queue_item

        for group in queue_item(assignment, position).groups:
            if not group.decided:
                services.judgement_decide(
                    assignment=assignment,
                    responses=[m.response for m in group.members],
                    verdict="correct",
                )
    before = scorer_report(assignment)
    assert before.n_items == 3
    key_decision(
        world.scored,
        2,
        world.users["owner"],
        outcome="ambiguous",
        source="RFC 9110",
        note="two readings",
    )
    after = scorer_report(assignment)
    assert after.n_items == 2
    assert sum(run.counts.correct for c in after.configs for run in c.runs) == (
        sum(run.counts.correct for c in before.configs for run in c.runs) - 2
    )
