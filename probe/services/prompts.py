"""Prompt versions: create, new version on edit, delete while unused, the defaults, and diffs.

A version's text never changes once it exists: "editing" writes the next version of the same
name with the edited version as its parent. A version that an experiment used cannot be deleted
(the foreign key PROTECTs it as well); an unused one can.
"""

import difflib
import re
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import ProtectedError
from django.utils.translation import gettext as _

from .. import prompts
from ..models import AuditEvent, PromptVersion, Team
from .audit import audit_record

SUBJECT = "prompt version"
_WORD = re.compile(r"\s+|\S+")


def normalise_text(text: str) -> str:
    """The text as stored and hashed: newlines as LF, no leading or trailing blank space.

    Browsers send a textarea's lines with CRLF; without this the same words typed twice would
    hash differently depending on where they were typed.
    """
    return text.replace("\r\n", "\n").replace("\r", "\n").strip()


def _clean_text(text: str) -> str:
    text = normalise_text(text)
    if not text:
        raise ValidationError({"text": _("The instruction text cannot be empty.")})
    return text


def _refuse_identical(team: Team, name: str, text: str) -> None:
    same = (
        PromptVersion.objects.filter(team=team, name=name, content_hash=prompts.content_hash(text))
        .order_by("version")
        .first()
    )
    if same is not None:
        raise ValidationError(
            {
                "text": _(
                    "No change: this text is identical to %(version)s (hash %(hash)s). "
                    "A new version needs different text."
                )
                % {"version": same, "hash": same.short_hash}
            }
        )


@transaction.atomic
def prompt_create(
    *, team: Team, user, name: str, text: str, language: str = "en", note: str = ""
) -> PromptVersion:
    """Version 1 of a new prompt name in the team."""
    name = name.strip()
    if not name:
        raise ValidationError({"name": _("Give the prompt a name.")})
    text = _clean_text(text)
    if PromptVersion.objects.filter(team=team, name=name).exists():
        raise ValidationError(
            {
                "name": _(
                    "This team already has a prompt called “%(name)s”. Edit it to make a new "
                    "version, or choose another name."
                )
                % {"name": name}
            }
        )
    try:
        with transaction.atomic():
            version = PromptVersion.objects.create(
                team=team,
                name=name,
                version=1,
                language=language,
                text=text,
                content_hash=prompts.content_hash(text),
                note=note.strip()[:300],
                created_by=user if user is not None and user.is_authenticated else None,
            )
    except IntegrityError:
        # Someone else created the same name a moment ago.
        raise ValidationError(
            {
                "name": _("A prompt called “%(name)s” was just created. Reload the list.")
                % {"name": name}
            }
        ) from None
    audit_record(
        team=team,
        user=user,
        action=AuditEvent.Action.CREATE,
        subject=SUBJECT,
        summary=str(version),
        details={"hash": version.content_hash, "language": language},
    )
    return version


@transaction.atomic
def prompt_new_version(
    *, prompt: PromptVersion, user, text: str, note: str, language: str | None = None
) -> PromptVersion:
    """The edit of `prompt`: the next version of its name, with `prompt` as its parent.

    `prompt` itself never changes. Text identical to any version of the same name is refused.
    """
    text = _clean_text(text)
    note = note.strip()
    if not note:
        raise ValidationError({"note": _("Say briefly what changed, for the version history.")})
    team = prompt.team
    # Two editors saving at once must get versions n+1 and n+2, not a clash: lock the team's
    # row, then read the latest version in a statement that starts after the lock is held (under
    # READ COMMITTED it sees the other editor's committed version). Where rows cannot be locked
    # (SQLite serialises writers anyway), the unique constraint turns a clash into the error below.
    Team.objects.select_for_update().filter(pk=team.pk).values_list("pk", flat=True).first()
    latest = (
        PromptVersion.objects.filter(team=team, name=prompt.name)
        .order_by("-version")
        .values_list("version", flat=True)
        .first()
    ) or prompt.version
    _refuse_identical(team, prompt.name, text)
    try:
        with transaction.atomic():
            version = PromptVersion.objects.create(
                team=team,
                name=prompt.name,
                version=latest + 1,
                language=language or prompt.language,
                text=text,
                content_hash=prompts.content_hash(text),
                parent=prompt,
                note=note[:300],
                created_by=user if user is not None and user.is_authenticated else None,
            )
    except IntegrityError:
        raise ValidationError(
            _(
                "Someone saved a new version of this prompt at the same moment. Reload and try again."
            )
        ) from None
    audit_record(
        team=team,
        user=user,
        action=AuditEvent.Action.CREATE,
        subject=SUBJECT,
        summary=str(version),
        details={"parent": str(prompt), "hash": version.content_hash, "note": version.note},
    )
    return version


@transaction.atomic
def prompt_delete(*, prompt: PromptVersion, user) -> None:
    """Delete an unused version; one that an experiment used stays forever."""
    if prompt.experiments.exists():
        raise ValidationError(
            _("%(version)s was used by an experiment, so it can never be deleted.")
            % {"version": prompt}
        )
    summary, details = str(prompt), {"hash": prompt.content_hash}
    try:
        with transaction.atomic():
            prompt.delete()
    except ProtectedError:
        # An experiment was created with it between the check and the delete.
        raise ValidationError(
            _("%(version)s was used by an experiment, so it can never be deleted.")
            % {"version": summary}
        ) from None
    audit_record(
        team=prompt.team,
        user=user,
        action=AuditEvent.Action.DELETE,
        subject=SUBJECT,
        summary=summary,
        details=details,
    )


def prompt_defaults_ensure(*, team: Team) -> list[PromptVersion]:
    """Version 1 of each default prompt (English, Japanese) for a team that has none of its name.

    Safe to call on every visit and from several requests at once. Returns the versions created.
    """
    created = []
    for language, text in prompts.DEFAULT_PROMPTS.items():
        name = prompts.DEFAULT_PROMPT_NAME[language]
        if PromptVersion.objects.filter(team=team, name=name).exists():
            continue
        try:
            with transaction.atomic():
                version, made = PromptVersion.objects.get_or_create(
                    team=team,
                    name=name,
                    version=1,
                    defaults={
                        "language": language,
                        "text": text,
                        "content_hash": prompts.content_hash(text),
                        "note": prompts.DEFAULT_PROMPT_NOTE[language],
                    },
                )
        except IntegrityError:
            continue  # another request created it between the check and the insert
        if made:
            created.append(version)
    return created


# Diffs ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Segment:
    text: str
    changed: bool = False


@dataclass(frozen=True)
class DiffRow:
    """One row of a side-by-side diff; a side is None where the other side has a line alone."""

    kind: str  # "equal" | "delete" | "insert" | "replace"
    old_number: int | None
    old: tuple[Segment, ...] | None
    new_number: int | None
    new: tuple[Segment, ...] | None


@dataclass(frozen=True)
class PromptDiff:
    rows: list[DiffRow]
    added: int
    removed: int

    @property
    def identical(self) -> bool:
        return not self.added and not self.removed


def _words(line: str) -> list[str]:
    # Words and the runs of space between them, so joining the pieces gives the line back.
    return _WORD.findall(line)


def _word_diff(old: str, new: str) -> tuple[tuple[Segment, ...], tuple[Segment, ...]]:
    """Both lines cut into unchanged and changed runs of words, for highlighting within a line."""
    a, b = _words(old), _words(new)
    left: list[Segment] = []
    right: list[Segment] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            left.append(Segment("".join(a[i1:i2])))
            right.append(Segment("".join(b[j1:j2])))
        else:
            if i2 > i1:
                left.append(Segment("".join(a[i1:i2]), changed=True))
            if j2 > j1:
                right.append(Segment("".join(b[j1:j2]), changed=True))
    return _merged(left), _merged(right)


def _merged(segments: list[Segment]) -> tuple[Segment, ...]:
    """Neighbouring changes joined, across a space between them, so a phrase reads as one change."""
    out: list[Segment] = []
    for index, segment in enumerate(segments):
        bridge = (
            not segment.changed
            and not segment.text.strip()
            and out
            and out[-1].changed
            and index + 1 < len(segments)
            and segments[index + 1].changed
        )
        if (segment.changed or bridge) and out and out[-1].changed:
            out[-1] = Segment(out[-1].text + segment.text, changed=True)
        elif segment.text:
            out.append(segment)
    return tuple(out)


def prompt_diff(old_text: str, new_text: str) -> PromptDiff:
    """A line diff of two texts (difflib), as rows for a side-by-side table."""
    old_lines, new_lines = old_text.split("\n"), new_text.split("\n")
    rows: list[DiffRow] = []
    added = removed = 0
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for offset in range(i2 - i1):
                line = old_lines[i1 + offset]
                rows.append(
                    DiffRow(
                        "equal",
                        i1 + offset + 1,
                        (Segment(line),),
                        j1 + offset + 1,
                        (Segment(line),),
                    )
                )
            continue
        removed += i2 - i1
        added += j2 - j1
        for offset in range(max(i2 - i1, j2 - j1)):
            i, j = i1 + offset, j1 + offset
            has_old, has_new = i < i2, j < j2
            if has_old and has_new:
                left, right = _word_diff(old_lines[i], new_lines[j])
                rows.append(DiffRow("replace", i + 1, left, j + 1, right))
            elif has_old:
                rows.append(DiffRow("delete", i + 1, (Segment(old_lines[i], True),), None, None))
            else:
                rows.append(DiffRow("insert", None, None, j + 1, (Segment(new_lines[j], True),)))
    return PromptDiff(rows=rows, added=added, removed=removed)
