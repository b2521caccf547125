"""Bank, block, item and key-entry writes, each recorded in the audit log."""

import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max, Q
from django.utils.translation import gettext as _

from .. import bankformat
from ..models import (
    AnswerKind,
    AuditEvent,
    Bank,
    Block,
    Item,
    ItemVersion,
    KeyEntry,
    KeyEntryRevision,
    Team,
)
from .audit import audit_record

A = AuditEvent.Action
UNCHANGED = object()  # a keyword left out: the value stays as it is


def _changed(instance, data: dict) -> dict:
    changes = {}
    for field, value in data.items():
        old = getattr(instance, field)
        if old != value:
            changes[field] = [_storable(old), _storable(value)]
            setattr(instance, field, value)
    return changes


def _storable(value):
    """A value as the audit log's JSON can hold it (a date as YYYY-MM-DD)."""
    return value.isoformat() if isinstance(value, datetime.date) else value


# Banks ------------------------------------------------------------------------------------


@transaction.atomic
def bank_create(*, team: Team, user, name: str, description: str = "") -> Bank:
    bank = Bank.objects.create(team=team, name=name, description=description, created_by=user)
    audit_record(team=team, user=user, bank=bank, action=A.CREATE, subject="bank", summary=name)
    return bank


@transaction.atomic
def bank_update(*, bank: Bank, user, name: str, description: str) -> Bank:
    changes = _changed(bank, {"name": name, "description": description})
    if changes:
        bank.save()
        audit_record(
            team=bank.team,
            user=user,
            bank=bank,
            action=A.UPDATE,
            subject="bank",
            summary=bank.name,
            details={"changes": changes},
        )
    return bank


@transaction.atomic
def bank_delete(*, bank: Bank, user) -> None:
    team, name = bank.team, bank.name
    counts = {"blocks": bank.blocks.count(), "items": Item.objects.filter(block__bank=bank).count()}
    audit_record(
        team=team,
        user=user,
        bank=bank,
        action=A.DELETE,
        subject="bank",
        summary=name,
        details=counts,
    )
    bank.delete()


# Blocks -----------------------------------------------------------------------------------


def _next_order(qs) -> int:
    return (qs.aggregate(m=Max("order"))["m"] or 0) + 1


@transaction.atomic
def block_create(*, bank: Bank, user, code: str, title: str, description: str = "") -> Block:
    code = code.strip().upper()
    if bank.blocks.filter(code=code).exists():
        raise ValidationError(
            {"code": _("This bank already has a block %(code)s.") % {"code": code}}
        )
    block = Block.objects.create(
        bank=bank,
        code=code,
        title=title,
        description=description,
        order=_next_order(bank.blocks.all()),
    )
    audit_record(
        team=bank.team,
        user=user,
        bank=bank,
        action=A.CREATE,
        subject="block",
        summary=str(block),
    )
    return block


@transaction.atomic
def block_update(*, block: Block, user, code: str, title: str, description: str) -> Block:
    code = code.strip().upper()
    if block.bank.blocks.filter(code=code).exclude(pk=block.pk).exists():
        raise ValidationError(
            {"code": _("This bank already has a block %(code)s.") % {"code": code}}
        )
    changes = _changed(block, {"code": code, "title": title, "description": description})
    if changes:
        block.save()
        audit_record(
            team=block.bank.team,
            user=user,
            bank=block.bank,
            action=A.UPDATE,
            subject="block",
            summary=str(block),
            details={"changes": changes},
        )
    return block


@transaction.atomic
def block_delete(*, block: Block, user) -> None:
    bank = block.bank
    audit_record(
        team=bank.team,
        user=user,
        bank=bank,
        action=A.DELETE,
        subject="block",
        summary=str(block),
        details={"items": block.items.count()},
    )
    block.delete()


def _swap(obj, siblings, direction: str) -> bool:
    """Move obj one place up or down among its ordered siblings; renumber so orders are unique."""
    ordered = list(siblings)
    index = next(i for i, o in enumerate(ordered) if o.pk == obj.pk)
    target = index - 1 if direction == "up" else index + 1
    if target < 0 or target >= len(ordered):
        return False
    ordered[index], ordered[target] = ordered[target], ordered[index]
    for position, sibling in enumerate(ordered, start=1):
        if sibling.order != position:
            sibling.order = position
            sibling.save(update_fields=["order"])
    return True


@transaction.atomic
def block_move(*, block: Block, user, direction: str) -> bool:
    moved = _swap(block, block.bank.blocks.select_for_update().order_by("order", "pk"), direction)
    if moved:
        audit_record(
            team=block.bank.team,
            user=user,
            bank=block.bank,
            action=A.MOVE,
            subject="block",
            summary=str(block),
            details={"direction": direction},
        )
    return moved


# Items ------------------------------------------------------------------------------------


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
        order=_next_order(block.items.all()),
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
    changes = _changed(item, data)
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
        return _swap(item, item.block.items.order_by("order", "pk"), direction)
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
    item.order = _next_order(block.items.all())
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
    changes = _changed(entry, data)
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


# Import and export ------------------------------------------------------------------------


@transaction.atomic
def bank_import(
    *,
    team: Team,
    user,
    data: bankformat.BankData,
    name: str = "",
    source: str = "",
    file_format: str = "",
    readings: list[str] | None = None,
) -> Bank:
    """Create a bank from parsed file data; all or nothing (the caller parsed and validated).

    ``readings`` are the reading codes the file was read with (kept in the audit log)."""
    bank_name = (name or data.name or _("Imported bank")).strip()[:200]
    bank = Bank.objects.create(
        team=team,
        name=bank_name,
        description=data.description,
        text_language=data.language,
        created_by=user,
    )
    for block_order, block_data in enumerate(data.blocks, start=1):
        block = Block.objects.create(
            bank=bank,
            code=block_data.code,
            title=block_data.title,
            description=block_data.description,
            order=block_order,
        )
        items = Item.objects.bulk_create(
            [
                Item(
                    block=block,
                    question=item.question,
                    answer_format=item.answer_format,
                    retired=item.retired,
                    topic=item.topic,
                    ref=item.ref,
                    answer_kind=item.answer_kind,
                    order=order,
                )
                for order, item in enumerate(block_data.items, start=1)
            ]
        )
        KeyEntry.objects.bulk_create(
            [
                KeyEntry(
                    item=item,
                    answer=item_data.key.answer,
                    flagged=item_data.key.flagged,
                    flag_note=item_data.key.flag_note,
                    sources=list(item_data.key.sources),
                    sources_checked=_date_or_none(item_data.key.sources_checked),
                )
                for item, item_data in zip(items, block_data.items, strict=True)
                if item_data.key is not None
            ]
        )
    audit_record(
        team=team,
        user=user,
        bank=bank,
        action=A.IMPORT,
        subject="bank",
        summary=bank.name,
        details={
            "source": source,
            "format": file_format,
            "blocks": len(data.blocks),
            "items": data.item_count,
            "missing_key": data.missing_key_count,
            "flagged": data.flagged_count,
            "readings": list(readings or []),
        },
    )
    return bank


def _date_or_none(text: str):
    return datetime.date.fromisoformat(text) if text else None


def bank_to_data(bank: Bank) -> bankformat.BankData:
    blocks = []
    items_by_block: dict[int, list[Item]] = {}
    for item in (
        Item.objects.filter(block__bank=bank).select_related("key_entry").order_by("order", "pk")
    ):
        items_by_block.setdefault(item.block_id, []).append(item)
    for block in bank.blocks.order_by("order", "pk"):
        items = []
        for item in items_by_block.get(block.pk, []):
            entry = getattr(item, "key_entry", None)
            key = (
                bankformat.KeyData(
                    answer=entry.answer,
                    flagged=entry.flagged,
                    flag_note=entry.flag_note,
                    sources=list(entry.sources),
                    sources_checked=entry.sources_checked.isoformat()
                    if entry.sources_checked
                    else "",
                )
                if entry is not None
                else None
            )
            items.append(
                bankformat.ItemData(
                    question=item.question,
                    answer_format=item.answer_format,
                    retired=item.retired,
                    key=key,
                    topic=item.topic,
                    ref=item.ref,
                    answer_kind=item.answer_kind,
                )
            )
        blocks.append(
            bankformat.BlockData(
                code=block.code, title=block.title, description=block.description, items=items
            )
        )
    return bankformat.BankData(
        name=bank.name, description=bank.description, blocks=blocks, language=bank.text_language
    )


def bank_export(*, bank: Bank, user, file_format: str) -> str:
    data = bank_to_data(bank)
    text = bankformat.DUMPERS[file_format](data)
    audit_record(
        team=bank.team,
        user=user,
        bank=bank,
        action=A.EXPORT,
        subject="bank",
        summary=bank.name,
        details={"format": file_format, "items": data.item_count},
    )
    return text
