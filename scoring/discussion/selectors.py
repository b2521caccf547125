"""Reads for response comments: who may read them (only those who may see which model wrote
the response) and a response's thread."""

from django.db.models import Count

from probe.access import is_blinded
from probe.models import Experiment, Membership, Response
from probe.selectors.discussion import Thread, comment_views
from scoring.models import ResponseComment


def may_see_response_comments(experiment: Experiment, user, membership: Membership | None) -> bool:
    """A response comment may name the model or compare sheets: for the members who have
    revealed the experiment, or who are not blind to it at all (a lead or viewer who does not
    score it). Everyone else is answered 404."""
    return membership is not None and not is_blinded(experiment, user, membership)


def response_of(experiment: Experiment, response_pk: int) -> Response | None:
    return (
        Response.objects.filter(pk=response_pk, run__experiment=experiment)
        .select_related("run", "item")
        .first()
    )


def response_thread(response: Response, user) -> Thread:
    comments = ResponseComment.objects.filter(response=response).select_related("author")
    return Thread(comments=comment_views(comments, user))


def comment_counts(experiment: Experiment, response_pks) -> dict[int, int]:
    """How many comments (not deleted) each of these responses has."""
    rows = (
        ResponseComment.objects.filter(
            experiment=experiment, response_id__in=list(response_pks), deleted_at=None
        )
        .values("response_id")
        .annotate(n=Count("pk"))
        .values_list("response_id", "n")
    )
    return dict(rows)


def item_responses(experiment: Experiment, position: int) -> list[Response]:
    """The responses to one item, ordered by their answer (not by run: the reconciliation page
    stays anonymous), for the threads listed under it."""
    return sorted(
        Response.objects.filter(run__experiment=experiment, item__position=position).select_related(
            "item"
        ),
        key=lambda r: ((r.answer or "").casefold(), r.pk),
    )
