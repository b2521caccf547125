"""Follow-up experiments ("Run again"): items, prompt, configurations and included runs."""

import pytest
from django.core.exceptions import ValidationError

from probe.models import Experiment, Item, Response, Run
from scoring.comparison import followups
from scoring.review.services import key_decision_create
from tests import builders
from tests.probe import factories

pytestmark = pytest.mark.django_db


def _snapshot(experiment):
    return [
        (i.position, i.question, i.key_answer, i.source_item_id)
        for i in experiment.items.order_by("position")
    ]


def _collected(world):
    """world.experiment with every run collected: one reply per item, as a provider gave it."""
    return builders.collect_runs(
        world.experiment,
        world.runs,
        lambda run, item: (f"answer {item.position} of repeat {run.repeat}", "HIGH"),
        raw_body='{"model": "x"}',
    )


def test_snapshot_follow_up_has_the_same_items_with_the_key_in_force(world):
    origin = _collected(world)
    first = origin.items.get(position=1)
    key_decision_create(
        item=first,
        user=world.users["editor"],
        outcome="amended",
        source="RFC 6585 section 4",
        new_answer="429",
    )
    follow_up = followups.experiment_follow_up(origin=origin, user=world.users["editor"])
    before, after = _snapshot(origin), _snapshot(follow_up)
    assert [row[:2] + row[3:] for row in after] == [row[:2] + row[3:] for row in before]
    assert after[0][2] == "429"  # the amended key, not the snapshot's
    assert after[1][2] == before[1][2]
    assert follow_up.follows == origin
    assert follow_up.prompt_version == origin.prompt_version
    assert follow_up.status == Experiment.Status.READY
    assert follow_up.mode == origin.mode and follow_up.scheme == origin.scheme
    assert sorted((r.model_config_id, r.repeat) for r in follow_up.runs.all()) == sorted(
        (r.model_config_id, r.repeat) for r in origin.runs.all()
    )
    assert not Response.objects.filter(run__experiment=follow_up).exists()


def test_current_items_list_every_difference_before_anything_is_made(world):
    origin = _collected(world)
    world.items[0].question = "Which status code means Too Many Requests (RFC 6585)?"
    world.items[0].save()
    key = world.items[1].key_entry
    key.answer = "Retry-After header"
    key.save()
    world.items[2].retired = True
    world.items[2].save()
    added = factories.ItemFactory(block=world.blocks[1], question="A new question?", order=9)
    plan = followups.followup_plan(origin=origin, source=followups.CURRENT)
    assert [c.question for c in plan.question_changed] == [world.items[0].question]
    assert plan.question_changed[0].was == "Which status code means Too Many Requests?"
    assert [(c.position, c.was) for c in plan.key_changed] == [(2, "Retry-After (keyed)")]
    assert [c.question for c in plan.removed] == ["Which version added match?"]
    assert [c.question for c in plan.added] == [added.question]
    n_experiments = Experiment.objects.count()
    follow_up = followups.experiment_follow_up(
        origin=origin, user=world.users["editor"], source=followups.CURRENT
    )
    assert Experiment.objects.count() == n_experiments + 1
    assert [q for _p, q, _k, _s in _snapshot(follow_up)] == [
        world.items[0].question,
        world.items[1].question,
        added.question,
    ]


def test_snapshot_plan_has_no_difference(world):
    plan = followups.followup_plan(origin=world.experiment, source=followups.SNAPSHOT)
    assert plan.unchanged and len(plan.items) == 3


def test_an_included_run_is_copied_as_it_was_and_not_collected_again(world):
    origin = _collected(world)
    kept = world.runs[0]
    new_config = factories.ModelConfigFactory(team=world.team, label="A new model")
    follow_up = followups.experiment_follow_up(
        origin=origin,
        user=world.users["editor"],
        configs=[world.config, new_config],
        include_runs=[kept],
    )
    runs = {(r.model_config_id, r.repeat): r for r in follow_up.runs.all()}
    assert set(runs) == {
        (world.config.pk, 1),
        (world.config.pk, 2),
        (new_config.pk, 1),
        (new_config.pk, 2),
    }
    copy = runs[(world.config.pk, kept.repeat)]
    assert copy.included_from == kept and copy.status == Run.Status.COLLECTED
    assert [r.status for k, r in runs.items() if k != (world.config.pk, 1)] == [
        Run.Status.PENDING
    ] * 3
    old = {(r.item.position, r.answer, r.confidence) for r in kept.responses.select_related("item")}
    new = {(r.item.position, r.answer, r.confidence) for r in copy.responses.select_related("item")}
    assert new == old and len(new) == 3
    assert all(r.item.experiment_id == follow_up.pk for r in copy.responses.all())
    assert [a.raw_body for a in copy.attempts.all()] == [a.raw_body for a in kept.attempts.all()]
    # Starting the follow-up queues only the runs without answers.
    from probe.services.experiments import experiment_start

    experiment_start(experiment=follow_up, user=world.users["editor"], queue=False)
    copy.refresh_from_db()
    assert copy.status == Run.Status.COLLECTED
    assert follow_up.runs.filter(status=Run.Status.QUEUED).count() == 3
    # The origin is untouched.
    assert kept.responses.count() == 3


@pytest.mark.parametrize(
    "change,message",
    [
        ("prompt", "another prompt version"),
        ("not_collected", "not collected"),
        ("new_item", "was not asked"),
    ],
)
def test_a_run_that_cannot_stand_as_it_is_is_refused_and_nothing_is_made(world, change, message):
    origin = _collected(world)
    run = world.runs[0]
    kwargs = {"origin": origin, "user": world.users["editor"], "include_runs": [run]}
    if change == "prompt":
        kwargs["prompt_version"] = factories.PromptVersionFactory(team=world.team, name="Tuned")
    elif change == "not_collected":
        run.status = Run.Status.FAILED
        run.save()
    else:
        factories.ItemFactory(block=world.blocks[0], question="Asked only now?", order=5)
        kwargs["source"] = followups.CURRENT
    before = Experiment.objects.count()
    with pytest.raises(ValidationError) as error:
        followups.experiment_follow_up(**kwargs)
    assert message in str(error.value)
    assert Experiment.objects.count() == before


def test_another_experiments_run_cannot_be_included(world):
    origin = _collected(world)
    stranger = world.scored.runs.first()
    with pytest.raises(ValidationError, match="Only runs of the earlier experiment"):
        followups.experiment_follow_up(
            origin=origin, user=world.users["editor"], include_runs=[stranger]
        )


def test_more_repeats_and_fewer_configurations(world):
    origin = _collected(world)
    other = factories.ModelConfigFactory(team=world.team, label="Only this one")
    follow_up = followups.experiment_follow_up(
        origin=origin, user=world.users["editor"], configs=[other], repeats=3, seed=7
    )
    assert sorted((r.model_config_id, r.repeat) for r in follow_up.runs.all()) == [
        (other.pk, 1),
        (other.pk, 2),
        (other.pk, 3),
    ]
    assert follow_up.seed == 7 and follow_up.repeats == 3
    assert sorted(r.order for r in follow_up.runs.all()) == [1, 2, 3]


def test_a_deleted_bank_leaves_the_snapshot(world):
    origin = _collected(world)
    Item.objects.filter(block__bank=world.bank).delete()
    world.bank.delete()
    origin.refresh_from_db()
    with pytest.raises(ValidationError, match="only its snapshot"):
        followups.followup_plan(origin=origin, source=followups.CURRENT)
    follow_up = followups.experiment_follow_up(origin=origin, user=world.users["editor"])
    assert follow_up.items.count() == 3 and follow_up.bank is None


@pytest.mark.parametrize("source", [followups.SNAPSHOT, followups.CURRENT])
def test_a_follow_up_keeps_every_fact_of_the_snapshot(world, source):
    """Topic, kind of answer and item version travel like the question and the key."""
    from probe.services.experiments import SNAPSHOT_FIELDS

    item = world.items[0]
    item.topic = "Rate limits"
    item.answer_kind = "number"
    item.save()
    origin = followups.experiment_follow_up(
        origin=world.experiment, user=world.users["editor"], source=followups.CURRENT
    )
    first = origin.items.get(position=1)
    assert (first.topic, first.answer_kind) == ("Rate limits", "number")
    assert first.item_version == Item.objects.get(pk=item.pk).version
    again = followups.experiment_follow_up(origin=origin, user=world.users["editor"], source=source)
    copied = again.items.get(position=1)
    assert {f: getattr(copied, f) for f in SNAPSHOT_FIELDS} == {
        f: getattr(first, f) for f in SNAPSHOT_FIELDS
    }


def _origin_with_final_buckets(n_items: int, name: str):
    """A collected experiment of n_items x 2 runs whose bank items are known (a follow-up and
    the carry match item versions by them), every response with its final bucket."""
    from probe.models import Block, ExperimentItem
    from scoring.models import FinalBucket

    experiment, user = builders.standalone_experiment(
        n_items=n_items,
        n_configs=2,
        repeats=1,
        answer_for=lambda i, r: (f"answer {i} r{r}", "HIGH"),
        team_name=name,
        scorer=f"{name}-scorer",
    )
    block = Block.objects.create(bank=experiment.bank, code="Z", title="Linked")
    bank_items = Item.objects.bulk_create(
        Item(block=block, question=f"Question {i + 1}?", order=i + 1) for i in range(n_items)
    )
    snapshot = list(ExperimentItem.objects.filter(experiment=experiment).order_by("position"))
    for item, bank_item in zip(snapshot, bank_items, strict=True):
        item.source_item = bank_item
    ExperimentItem.objects.bulk_update(snapshot, ["source_item"])
    FinalBucket.objects.bulk_create(
        FinalBucket(response_id=pk, bucket="correct", unanimous=True)
        for pk in Response.objects.filter(run__experiment=experiment).values_list("pk", flat=True)
    )
    return experiment, user


def test_run_again_takes_as_many_queries_for_500_items_as_for_50():
    """The copy of the included runs and the carry of their buckets are bulk statements: no
    query per item or response, so the count does not grow with the experiment."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from probe.services.experiments import experiment_start
    from scoring.queue import carry

    counts = []
    for n_items in (50, 500):
        origin, user = _origin_with_final_buckets(n_items, f"Linear {n_items}")
        runs = list(origin.runs.all())
        with CaptureQueriesContext(connection) as made:
            again = followups.experiment_follow_up(origin=origin, user=user, include_runs=runs)
            again = experiment_start(experiment=again, user=user, queue=False)
        with CaptureQueriesContext(connection) as carried:
            assert carry.carry_sync(experiment=again) == 2 * n_items
        assert Response.objects.filter(run__experiment=again).count() == 2 * n_items
        assert again.status == Experiment.Status.COLLECTED
        counts.append((len(made), len(carried)))
    assert counts[0] == counts[1], counts
