"""Response comments, the writes. A mention of a member who may not read the comment (still
blind to the experiment) is refused, naming them."""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from probe.models import Membership, Response
from probe.selectors.discussion import display_name
from probe.services.discussion import clean_text, mentions_check, mentions_notify
from scoring.discussion.selectors import may_see_response_comments
from scoring.models import ResponseComment


def _refusal(experiment):
    def refusal(member: Membership) -> str | None:
        if may_see_response_comments(experiment, member.user, member):
            return None
        return _(
            "%(name)s has not revealed this experiment and may not read comments on its "
            "answers: remove the mention of @%(username)s to post."
        ) % {"name": display_name(member.user), "username": member.user.get_username()}

    return refusal


def response_comment_url(comment: ResponseComment) -> str:
    url = reverse(
        "scoring:response_comments",
        kwargs={"experiment_pk": comment.experiment_id, "response_pk": comment.response_id},
    )
    return f"{url}#comment-{comment.pk}"


def response_comment_create(*, response: Response, user, text: str) -> ResponseComment:
    experiment = response.run.experiment
    text = clean_text(text)
    users = mentions_check(
        team=experiment.team, text=text, author=user, refusal=_refusal(experiment)
    )
    with transaction.atomic():
        comment = ResponseComment.objects.create(
            response=response, experiment=experiment, author=user, text=text
        )
        mentions_notify(
            users=users,
            author=user,
            place=experiment.name,
            url=response_comment_url(comment),
            key=f"mention:response:{comment.pk}",
        )
    return comment


def response_comment_edit(*, comment: ResponseComment, user, text: str) -> ResponseComment:
    if not comment.editable_by(user):
        raise ValidationError({"text": _("This comment can no longer be edited.")})
    experiment = comment.experiment
    text = clean_text(text)
    users = mentions_check(
        team=experiment.team, text=text, author=user, refusal=_refusal(experiment)
    )
    with transaction.atomic():
        comment.text = text
        comment.edited_at = timezone.now()
        comment.save(update_fields=["text", "edited_at"])
        mentions_notify(
            users=users,
            author=user,
            place=experiment.name,
            url=response_comment_url(comment),
            key=f"mention:response:{comment.pk}",
        )
    return comment
