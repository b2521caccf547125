"""Bank and block writes, and a bank's import and export, each recorded in the audit log.

The item and key-entry writes live in ``probe.services.items``; this module exports them too,
so callers may take every bank write from here.
"""

import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from .. import bankformat
from ..models import AuditEvent, Bank, Block, Item, KeyEntry, Team
from .audit import audit_record, export_record
from .changes import UNCHANGED, changed, next_order, swap_in_order
from .items import (
    item_create,
    item_delete,
    item_move,
    item_move_to_block,
    item_set_retired,
    item_update,
    items_move_to_block,
    key_entry_set,
)

__all__ = [
    "UNCHANGED",
    "bank_create",
    "bank_delete",
    "bank_export",
    "bank_import",
    "bank_to_data",
    "bank_update",
    "block_create",
    "block_delete",
    "block_move",
    "block_update",
    "item_create",
    "item_delete",
    "item_move",
    "item_move_to_block",
    "item_set_retired",
    "item_update",
    "items_move_to_block",
    "key_entry_set",
]

A = AuditEvent.Action


# Banks ------------------------------------------------------------------------------------


@transaction.atomic
def bank_create(*, team: Team, user, name: str, description: str = "") -> Bank:
    bank = Bank.objects.create(team=team, name=name, description=description, created_by=user)
    audit_record(team=team, user=user, bank=bank, action=A.CREATE, subject="bank", summary=name)
    return bank


@transaction.atomic
def bank_update(*, bank: Bank, user, name: str, description: str) -> Bank:
    changes = changed(bank, {"name": name, "description": description})
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
        order=next_order(bank.blocks.all()),
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
    changes = changed(block, {"code": code, "title": title, "description": description})
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


@transaction.atomic
def block_move(*, block: Block, user, direction: str) -> bool:
    moved = swap_in_order(
        block, block.bank.blocks.select_for_update().order_by("order", "pk"), direction
    )
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
                    retired_reason=item.retired_reason,
                    version=item.version,
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
                    retired_reason=item.retired_reason,
                    version=item.version,
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
    # Recorded once per interval for each user and format, like a view of the key (a GET).
    export_record(bank=bank, user=user, file_format=file_format, items=data.item_count)
    return text
