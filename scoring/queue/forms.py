"""What the blind queue's pages send, read and checked: the decide, note and dispute forms (the
page's fallback without its script), the jump to an item, and the page's batch of queued
decisions (JSON)."""

import json
import re

from django import forms
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring.queue import decisions

# A key the page names a queued decision by: a UUID, or any short run of these characters.
DECISION_KEY = re.compile(r"^[A-Za-z0-9_-]{8,64}$")


class TokensField(forms.CharField):
    """The opaque names of an answer group's members, comma-separated: a list."""

    def __init__(self, **kwargs):
        super().__init__(required=False, **kwargs)

    def to_python(self, value):
        return [t for t in str(value or "").split(",") if t]


class GroupForm(forms.Form):
    tokens = TokensField()

    @property
    def tokens_text(self) -> str:
        return ",".join(self.cleaned_data["tokens"])


class DecideForm(GroupForm):
    """One decision on a group: C or W (verdict), or a bucket chosen directly; ``confirmed``
    once the scorer has answered the confident-wrong question."""

    verdict = forms.CharField(required=False)
    bucket = forms.CharField(required=False)
    confirmed = forms.CharField(required=False)

    def clean_confirmed(self) -> bool:
        return self.cleaned_data.get("confirmed") == "1"


class NoteForm(GroupForm):
    note = forms.CharField(required=False, strip=False)


class DisputeForm(GroupForm):
    note = forms.CharField(required=False, strip=False)


class PositionForm(forms.Form):
    """Where the scorer is (the page says so when it shows an item by itself)."""

    position = forms.IntegerField(min_value=1)


def read_form(form_class, data) -> forms.Form:
    """The form, bound and cleaned: every field is optional, so it is always valid; what is
    wrong with a value is the service's to say."""
    form = form_class(data)
    form.is_valid()
    return form


def jump_target(value: str, n_items: int) -> tuple[int | None, str]:
    """The overview's "go to item": (position, "") or (None, what is wrong)."""
    value = value.strip()
    if not value:
        return None, ""
    if value.isdigit() and 1 <= int(value) <= n_items:
        return int(value), ""
    return None, _("There is no item %(n)s: the items are numbered 1 to %(total)s.") % {
        "n": value,
        "total": n_items,
    }


class BatchError(ValueError):
    """The batch cannot be read: nothing of it is saved."""


def decision_batch(body: bytes, *, confirm_off: bool) -> tuple[list, bool]:
    """The page's queued decisions from the request body, in order, each checked; and whether
    the scorer turned the confident-wrong confirmation off for the session in one of them.
    Raises BatchError with what is wrong."""
    unreadable = _("The page sent no decisions it could read: nothing was saved.")
    try:
        payload = json.loads(body or b"{}")
    except ValueError:
        payload = None
    batch = payload.get("decisions") if isinstance(payload, dict) else None
    if not isinstance(batch, list) or not 1 <= len(batch) <= decisions.BATCH_LIMIT:
        raise BatchError(unreadable)
    now = timezone.now()
    queued, turned_off = [], False
    for raw in batch:
        # Turned off with a confirmed decision: off for it and for every decision after it.
        if (
            isinstance(raw, dict)
            and raw.get("confirmed") is True
            and raw.get("confirm_off") is True
        ):
            turned_off = True
        queued.append(_queued(raw, now, confirm_off or turned_off))
    return queued, turned_off


def _queued(raw, now, confirm_off: bool) -> decisions.QueuedDecision:
    if not isinstance(raw, dict) or not DECISION_KEY.match(str(raw.get("key", ""))):
        raise BatchError(_("A decision came without a valid key: nothing was saved."))
    if raw.get("op") == "undo":
        return decisions.QueuedDecision(key=raw["key"], op="undo")
    position = raw.get("position")
    if not isinstance(position, int) or position < 1:
        raise BatchError(_("A decision names no item: nothing was saved."))
    decided_at = decisions.browser_time(raw.get("decided_at"), now=now) or now
    shown_at = decisions.browser_time(raw.get("shown_at"), now=now)
    expect = raw.get("expect", "*")
    return decisions.QueuedDecision(
        key=raw["key"],
        position=position,
        tokens=[t for t in str(raw.get("tokens", "")).split(",") if t],
        verdict=str(raw.get("verdict", "")),
        bucket=str(raw.get("bucket", "")),
        confirmed=raw.get("confirmed") is True,
        expect=None if expect == "*" else str(expect),
        key_seen=str(raw.get("key_seen", "")),
        blind=raw.get("blind") is True,
        confirm_off=confirm_off,
        decided_at=decided_at,
        shown_at=min(shown_at, decided_at) if shown_at else None,
    )
