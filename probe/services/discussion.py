"""Discussion, the writes: comments on a key entry, and the mentions they make (notified
through the notification service). Response comments are scoring's (scoring.discussion)."""

from collections.abc import Callable

from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from ..models import Experiment, Item, KeyEntryComment, Membership, Team
from ..selectors import discussion as reads
from . import notifications

MAX_LENGTH = 4000


def clean_text(text: str) -> str:
    text = (text or "").strip()
    if not text:
        raise ValidationError({"text": _("Write something first.")})
    if len(text) > MAX_LENGTH:
        raise ValidationError(
            {"text": _("A comment is at most %(n)s characters long.") % {"n": MAX_LENGTH}}
        )
    return text


def mentions_check(
    *, team: Team, text: str, author, refusal: Callable[[Membership], str | None]
) -> list:
    """The users the text mentions who should hear of it; a mention of a member who may not read
    the comment is refused, naming them (``refusal`` says why, or None when they may)."""
    users, refused = [], []
    for member in reads.mentioned_members(team, text):
        if member.user_id == author.pk:
            continue
        reason = refusal(member)
        if reason:
            refused.append(reason)
        else:
            users.append(member.user)
    if refused:
        raise ValidationError({"text": refused})
    return users


def mentions_notify(*, users, author, place: str, url: str, key: str) -> int:
    return notifications.notify_mention(
        users=users, actor=reads.display_name(author), place=place, url=url, key=key
    )


def _key_refusal(item: Item, written_blind: bool):
    bank = item.block.bank

    def refusal(member: Membership) -> str | None:
        name = reads.display_name(member.user)
        if not reads.may_see_key_comments(member):
            return _(
                "%(name)s cannot read comments on the key (only editors and owners see the key): "
                "remove the mention of @%(username)s to post."
            ) % {"name": name, "username": member.user.get_username()}
        if not written_blind and reads.blind_to_bank(bank, member.user, member):
            return _(
                "%(name)s is still scoring blind and will not see this comment until their "
                "reveal: remove the mention of @%(username)s to post."
            ) % {"name": name, "username": member.user.get_username()}
        return None

    return refusal


def key_comment_url(comment: KeyEntryComment) -> str:
    return reverse("probe:key_comments", kwargs={"item_pk": comment.item_id}) + (
        f"#comment-{comment.pk}"
    )


def _place(item: Item, experiment: Experiment | None) -> str:
    return experiment.name if experiment is not None else item.block.bank.name


def key_comment_create(
    *,
    item: Item,
    user,
    membership: Membership,
    text: str,
    experiment: Experiment | None = None,
) -> KeyEntryComment:
    """A comment on the item's key entry; ``written_blind`` is recorded now."""
    text = clean_text(text)
    bank = item.block.bank
    blind = reads.written_blind_now(bank, user, membership)
    users = mentions_check(
        team=bank.team, text=text, author=user, refusal=_key_refusal(item, blind)
    )
    with transaction.atomic():
        comment = KeyEntryComment.objects.create(
            item=item, author=user, text=text, experiment=experiment, written_blind=blind
        )
        mentions_notify(
            users=users,
            author=user,
            place=_place(item, experiment),
            url=key_comment_url(comment),
            key=f"mention:key:{comment.pk}",
        )
    return comment


def key_comment_edit(
    *, comment: KeyEntryComment, user, membership: Membership, text: str
) -> KeyEntryComment:
    """The author changes their comment within the edit window. An edit made after a reveal
    makes the comment one written after the reveal."""
    if not comment.editable_by(user):
        raise ValidationError({"text": _("This comment can no longer be edited.")})
    text = clean_text(text)
    item = comment.item
    blind = comment.written_blind and reads.written_blind_now(item.block.bank, user, membership)
    users = mentions_check(
        team=item.block.bank.team, text=text, author=user, refusal=_key_refusal(item, blind)
    )
    with transaction.atomic():
        comment.text = text
        comment.written_blind = blind
        comment.edited_at = timezone.now()
        comment.save(update_fields=["text", "written_blind", "edited_at"])
        mentions_notify(
            users=users,
            author=user,
            place=_place(item, comment.experiment),
            url=key_comment_url(comment),
            key=f"mention:key:{comment.pk}",
        )
    return comment


def comment_delete(*, comment, user) -> None:
    """The author deletes their comment: it stays in its thread as "deleted", without its text."""
    if not comment.deletable_by(user):
        raise ValidationError(_("Only its author can delete a comment."))
    comment.text = ""
    comment.deleted_at = timezone.now()
    comment.save(update_fields=["text", "deleted_at"])
