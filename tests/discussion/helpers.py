"""What the discussion tests share: the scored experiment's items tied to the bank's, reveals,
and comments written through the services the pages use."""

from django.urls import reverse
from django.utils import timezone

from probe.models import ExperimentItem, Membership, Response
from scoring.queue import services as queue
from tests.scoring.factories import judge_everything

# What a lead who has revealed might write: an answer of one sheet and a configuration's name.
AFTER_REVEAL_TEXT = "Acme-second-config-label answered Retry-Later here, the other one did not"
BLIND_TEXT = "The key should accept the status code alone, blind-comment-7c2e"


def tie_items(world) -> None:
    """The scored experiment's items come from the bank's (as an experiment's snapshot does)."""
    for position, item in enumerate(world.items, start=1):
        ExperimentItem.objects.filter(experiment=world.scored, position=position).update(
            source_item=item
        )


def membership(world, kind):
    return Membership.objects.get(team=world.team, user=world.users[kind])


def start(world, kind):
    return queue.assignment_start(experiment=world.scored, user=world.users[kind])


def reveal(world, kind):
    assignment = start(world, kind)
    judge_everything(assignment)
    queue.assignment_reveal(assignment=assignment)
    assignment.refresh_from_db()
    assert assignment.revealed_at is not None
    return assignment


def unreveal(assignment) -> None:
    assignment.revealed_at = None
    assignment.save(update_fields=["revealed_at"])


def a_response(world) -> Response:
    return Response.objects.filter(run__experiment=world.scored).order_by("pk").first()


def thread_url(item) -> str:
    return reverse("probe:key_comments", kwargs={"item_pk": item.pk})


def response_url(world, response) -> str:
    return reverse(
        "scoring:response_comments",
        kwargs={"experiment_pk": world.scored.pk, "response_pk": response.pk},
    )


def long_ago(comment, minutes=60) -> None:
    type(comment).objects.filter(pk=comment.pk).update(
        created=timezone.now() - timezone.timedelta(minutes=minutes)
    )
    comment.refresh_from_db()
