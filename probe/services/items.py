"""Item and key-entry writes (create, edit, move, retire; the key entry and its revisions), each
recorded in the audit log."""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from ..models import AnswerKind, AuditEvent, Block, Item, ItemVersion, KeyEntry, KeyEntryRevision
from .audit import audit_record
from .changes import UNCHANGED, changed, next_order, swap_in_order

A = AuditEvent.Action


def _check_question(question: str) -> str:
    question = question.strip()
    if not question:
        raise ValidationError({"question": _("The question cannot be empty.")})
    return question


@transaction.atomic
def item_create(
    *,
    block: Block,
    user,
    question: str,
    answer_format: str = "",
    key_answer: str = "",
    flagged: bool = False,
    flag_note: str = "",
    sources: list[str] | None = None,
) -> Item:
    item = Item.objects.create(
        block=block,
        question=_check_question(question),
        answer_format=answer_format.strip(),
        order=next_order(block.items.all()),
    )
    if key_answer.strip():
        KeyEntry.objects.create(
            item=item,
            answer=key_answer.strip(),
            flagged=flagged,
            flag_note=flag_note.strip(),
            sources=sources or [],
        )
    audit_record(
        team=block.bank.team,
        user=user,
        bank=block.bank,
        action=A.CREATE,
        subject="item",
        summary=item.question[:200],
        details={"block": block.code},
    )
    return item


def _new_version(item: Item, user, *, question: str, answer_format: str, key_answer: str) -> None:
    """Keep the item as it was (question, format, key answer) and move it to its next version.

    Experiments are untouched: each keeps the snapshot it took, with the version it took."""
    ItemVersion.objects.create(
        item=item,
        version=item.version,
        question=question,
        answer_format=answer_format,
        key_answer=key_answer,
        changed_by=user if user is not None and user.is_authenticated else None,
    )
    item.version += 1
    Item.objects.filter(pk=item.pk).update(version=item.version)


def _key_answer(item: Item) -> str:
    entry = KeyEntry.objects.filter(item=item).only("answer").first()
    return entry.answer if entry else ""


def _check_kind(answer_kind: str) -> str:
    answer_kind = (answer_kind or "").strip()
    if answer_kind and answer_kind not in AnswerKind.values:
        raise ValidationError({"answer_kind": _("Choose one of the answer formats.")})
    return answer_kind


@transaction.atomic
def item_update(
    *,
    item: Item,
    user,
    question: str,
    answer_format: str,
    topic: str | None = None,
    answer_kind: str | None = None,
) -> Item:
    """Change an item; a new question makes a new version (the old one is kept).

    ``topic`` and ``answer_kind`` None: left as they are."""
    before = {"question": item.question, "answer_format": item.answer_format}
    data = {"question": _check_question(question), "answer_format": answer_format.strip()}
    if topic is not None:
        data["topic"] = topic.strip()[:200]
    if answer_kind is not None:
        data["answer_kind"] = _check_kind(answer_kind)
    changes = changed(item, data)
    if "question" in changes:
        _new_version(item, user, **before, key_answer=_key_answer(item))
    if changes:
        item.save()
        bank = item.block.bank
        audit_record(
            team=bank.team,
            user=user,
            bank=bank,
            action=A.UPDATE,
            subject="item",
            summary=item.question[:200],
            details={"changes": changes},
        )
    return item


@transaction.atomic
def item_delete(*, item: Item, user) -> None:
    bank = item.block.bank
    audit_record(
        team=bank.team,
        user=user,
        bank=bank,
        action=A.DELETE,
        subject="item",
        summary=item.question[:200],
    )
    item.delete()


def _swap_with_neighbour(item: Item, direction: str) -> bool:
    """Move an item one place within its block by swapping orders with its neighbour: two rows
    read and written, whatever the block's size (a bank may hold 10,000 items)."""
    Block.objects.select_for_update().filter(pk=item.block_id).first()  # one mover at a time
    item.refresh_from_db(fields=["order"])
    siblings = Item.objects.filter(block_id=item.block_id).exclude(pk=item.pk)
    if direction == "up":
        before = Q(order__lt=item.order) | Q(order=item.order, pk__lt=item.pk)
        neighbour = siblings.filter(before).order_by("-order", "-pk").first()
    else:
        after = Q(order__gt=item.order) | Q(order=item.order, pk__gt=item.pk)
        neighbour = siblings.filter(after).order_by("order", "pk").first()
    if neighbour is None:
        return False
    if neighbour.order == item.order or siblings.filter(order=neighbour.order).count() > 1:
        # Orders are not unique in this block (an old import): renumber it once, then swap.
        return swap_in_order(item, item.block.items.order_by("order", "pk"), direction)
    item.order, neighbour.order = neighbour.order, item.order
    Item.objects.filter(pk=item.pk).update(order=item.order)
    Item.objects.filter(pk=neighbour.pk).update(order=neighbour.order)
    return True


@transaction.atomic
def item_move(*, item: Item, user, direction: str) -> bool:
    moved = _swap_with_neighbour(item, direction)
    if moved:
        bank = item.block.bank
        audit_record(
            team=bank.team,
            user=user,
            bank=bank,
            action=A.MOVE,
            subject="item",
            summary=item.question[:200],
            details={"direction": direction},
        )
    return moved


@transaction.atomic
def item_move_to_block(*, item: Item, user, block: Block) -> Item:
    if block.bank_id != item.block.bank_id:
        raise ValidationError({"block": _("An item can only move to a block of the same bank.")})
    if block.pk == item.block_id:
        return item
    old = item.block
    item.block = block
    item.order = next_order(block.items.all())
    item.save(update_fields=["block", "order", "updated"])
    audit_record(
        team=block.bank.team,
        user=user,
        bank=block.bank,
        action=A.MOVE,
        subject="item",
        summary=item.question[:200],
        details={"from_block": old.code, "to_block": block.code},
    )
    return item


@transaction.atomic
def items_move_to_block(*, items: list[Item], user, block: Block) -> list[Item]:
    """Move several items (the bank page's selection) to the end of one block, in their order."""
    moved = []
    for item in items:
        if item.block_id != block.pk:
            moved.append(item_move_to_block(item=item, user=user, block=block))
    return moved


@transaction.atomic
def item_set_retired(*, item: Item, user, retired: bool, reason: str = "") -> Item:
    """Retire an item (with the reason, kept on the item and in the audit log) or restore it."""
    reason = reason.strip() if retired else ""
    if item.retired != retired or (retired and reason and reason != item.retired_reason):
        item.retired = retired
        item.retired_reason = reason
        item.save(update_fields=["retired", "retired_reason", "updated"])
        bank = item.block.bank
        audit_record(
            team=bank.team,
            user=user,
            bank=bank,
            action=A.RETIRE if retired else A.RESTORE,
            subject="item",
            summary=item.question[:200],
            details={"reason": reason} if reason else None,
        )
    return item


@transaction.atomic
def key_entry_set(
    *,
    item: Item,
    user,
    answer: str,
    flagged: bool,
    flag_note: str,
    sources: list[str],
    reason: str = "",
    source: str = "",
    sources_checked=UNCHANGED,
) -> KeyEntry | None:
    """Create, change or (with an empty answer and nothing else) remove an item's key entry.

    Every change keeps the entry as it was in a KeyEntryRevision: who, when, why, which source;
    a change of the answer also makes a new version of the item. ``sources_checked`` (a date or
    None) is left as it is unless given.
    """
    answer = answer.strip()
    flag_note = flag_note.strip()
    sources = [s.strip() for s in sources if s.strip()]
    bank = item.block.bank
    entry = KeyEntry.objects.filter(item=item).first()
    if (entry.answer if entry else "") != answer:
        _new_version(
            item,
            user,
            question=item.question,
            answer_format=item.answer_format,
            key_answer=entry.answer if entry else "",
        )
    if not answer:
        if flagged or flag_note or sources:
            raise ValidationError(
                {"answer": _("A key entry with a flag, note or source needs an answer.")}
            )
        if entry is not None:
            _revision(item, entry, user, new_answer="", reason=reason, source=source)
            audit_record(
                team=bank.team,
                user=user,
                bank=bank,
                action=A.DELETE,
                subject="key entry",
                summary=item.question[:200],
                details={"answer": entry.answer},
            )
            entry.delete()
        return None
    data = {"answer": answer, "flagged": flagged, "flag_note": flag_note, "sources": sources}
    if sources_checked is not UNCHANGED:
        data["sources_checked"] = sources_checked
    if entry is None:
        _revision(item, None, user, new_answer=answer, reason=reason, source=source)
        entry = KeyEntry.objects.create(item=item, **data)
        audit_record(
            team=bank.team,
            user=user,
            bank=bank,
            action=A.CREATE,
            subject="key entry",
            summary=item.question[:200],
        )
        return entry
    before = KeyEntry(
        answer=entry.answer,
        flagged=entry.flagged,
        flag_note=entry.flag_note,
        sources=list(entry.sources),
    )
    changes = changed(entry, data)
    if changes:
        _revision(item, before, user, new_answer=answer, reason=reason, source=source)
        entry.save()
        audit_record(
            team=bank.team,
            user=user,
            bank=bank,
            action=A.UPDATE,
            subject="key entry",
            summary=item.question[:200],
            details={"changes": changes},
        )
    return entry


def _revision(item: Item, old: KeyEntry | None, user, *, new_answer: str, reason: str, source: str):
    KeyEntryRevision.objects.create(
        item=item,
        answer=old.answer if old else "",
        flagged=old.flagged if old else False,
        flag_note=old.flag_note if old else "",
        sources=list(old.sources) if old else [],
        new_answer=new_answer,
        changed_by=user if user is not None and user.is_authenticated else None,
        reason=reason,
        source=source,
    )
