"""Response comments inside other pages: the counts on a run's page, and the threads of an
item's answers on the reconciliation page; both only for those who may read them."""

from django import template

from scoring.discussion import selectors as reads

register = template.Library()


@register.simple_tag(takes_context=True)
def response_comment_counts(context, experiment, rows):
    """{response pk: comments} for the responses of these (sheet, item, response) rows, or None
    when the reader may not see response comments."""
    request = context["request"]
    if not reads.may_see_response_comments(
        experiment, request.user, getattr(request, "membership", None)
    ):
        return None
    pks = [response.pk for _sheet, _item, response in rows if response is not None]
    return reads.comment_counts(experiment, pks)


@register.filter
def count_of(counts, pk):
    return (counts or {}).get(pk, 0)


@register.inclusion_tag("scoring/partials/_answer_discussions.html", takes_context=True)
def answer_discussions(context, experiment, position):
    request = context["request"]
    if not reads.may_see_response_comments(
        experiment, request.user, getattr(request, "membership", None)
    ):
        return {"responses": None}
    responses = reads.item_responses(experiment, position)
    counts = reads.comment_counts(experiment, [r.pk for r in responses])
    return {
        "experiment": experiment,
        "responses": [(r, counts.get(r.pk, 0)) for r in responses],
        "n_comments": sum(counts.values()),
    }
