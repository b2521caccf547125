"""Reads for discussion: who is blind to a bank, the mentions in a text, and what of a thread a
user may see. The rules are in docs/discussion.md."""

import re
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.db.models import Q

from ..access import can_see_bank_key, is_blinded
from ..models import Bank, Experiment, Item, KeyEntryComment, Membership, Team

# "@alice", "@bob.smith": not inside a word or an e-mail address (alice@example.org).
MENTION = re.compile(r"(?<![\w@.+-])@([\w][\w.+-]*)")


def mentioned_names(text: str) -> list[str]:
    """The usernames a text mentions, in order, each once (a final full stop is punctuation)."""
    names: list[str] = []
    for match in MENTION.finditer(text or ""):
        name = match.group(1).rstrip(".")
        if name and name.lower() not in (n.lower() for n in names):
            names.append(name)
    return names


def mentioned_members(team: Team, text: str) -> list[Membership]:
    """The team's members the text mentions (by username, regardless of case)."""
    names = mentioned_names(text)
    if not names:
        return []
    query = Q()
    for name in names:
        query |= Q(user__username__iexact=name)
    return list(
        Membership.objects.filter(query, team=team, user__is_active=True).select_related("user")
    )


def display_name(user) -> str:
    if user is None:
        return ""
    return user.get_full_name() or user.get_username()


def mention_candidates(team: Team, query: str, *, limit: int = 8) -> list:
    """Active members whose username or name starts with the query, for the completion list."""
    query = (query or "").lstrip("@").strip()
    users = get_user_model().objects.filter(memberships__team=team, is_active=True)
    if query:
        users = users.filter(
            Q(username__istartswith=query)
            | Q(first_name__istartswith=query)
            | Q(last_name__istartswith=query)
        )
    return list(users.order_by("username")[:limit])


def _experiments_with_answers(bank: Bank):
    return Experiment.objects.filter(bank=bank, runs__responses__isnull=False).distinct()


def blind_to_bank(bank: Bank, user, membership: Membership | None) -> bool:
    """Whether this user cannot yet tell which model wrote which sheet of some experiment of
    the bank that has answers (a scorer before their reveal)."""
    return any(is_blinded(e, user, membership) for e in _experiments_with_answers(bank))


def sees_every_model_of_bank(bank: Bank, user, membership: Membership | None) -> bool:
    """Whether nothing this user writes now could be blind: they may see which model wrote
    which sheet of at least one experiment of the bank. A comment they write is then hidden from
    anyone still blind."""
    return any(not is_blinded(e, user, membership) for e in _experiments_with_answers(bank))


def written_blind_now(bank: Bank, user, membership: Membership | None) -> bool:
    return not sees_every_model_of_bank(bank, user, membership)


def may_see_key_comments(membership: Membership | None) -> bool:
    """A comment on a key entry shows the key: for the members who may see the bank's key."""
    return can_see_bank_key(membership)


@dataclass
class CommentView:
    comment: object
    author: str
    can_edit: bool
    can_delete: bool


@dataclass
class Thread:
    comments: list[CommentView] = field(default_factory=list)
    # The viewer reads blind: comments written after a reveal, if any, are hidden from them. Said
    # on every thread a blind reader opens, whether or not it holds such comments: saying it only
    # where one is hidden would tell on which items someone commented after seeing the answers.
    hidden_after_reveal: bool = False

    @property
    def count(self) -> int:
        return sum(1 for c in self.comments if not c.comment.deleted)


def comment_views(comments, user) -> list[CommentView]:
    return [
        CommentView(
            comment=c,
            author=display_name(c.author),
            can_edit=c.editable_by(user),
            can_delete=c.deletable_by(user),
        )
        for c in comments
    ]


def key_thread(item: Item, user, membership: Membership | None, *, blind=None) -> Thread:
    """The key entry's thread as this user may read it (``blind``: blind_to_bank, when the
    caller knows it already)."""
    comments = list(KeyEntryComment.objects.filter(item=item).select_related("author"))
    hidden = False
    if blind is None:
        blind = blind_to_bank(item.block.bank, user, membership)
    if blind:
        comments = [c for c in comments if c.written_blind]
        hidden = True
    return Thread(comments=comment_views(comments, user), hidden_after_reveal=hidden)
