"""Reads: what a page shows, always starting from objects the access layer has checked."""

import re
from dataclasses import dataclass

from django.db import connection
from django.db.models import Count, OuterRef, Q, QuerySet, Subquery

from ..models import Bank, Block, Item, Team


def banks_of_team(team: Team) -> QuerySet[Bank]:
    return team.banks.annotate(
        n_blocks=Count("blocks", distinct=True),
        n_items=Count("blocks__items", filter=Q(blocks__items__retired=False), distinct=True),
    ).order_by("name", "pk")


def blocks_with_counts(bank: Bank) -> list[Block]:
    return list(
        bank.blocks.annotate(
            n_items=Count("items", filter=Q(items__retired=False)),
            n_retired=Count("items", filter=Q(items__retired=True)),
            n_flagged=Count(
                "items", filter=Q(items__retired=False, items__key_entry__flagged=True)
            ),
            n_missing_key=Count(
                "items", filter=Q(items__retired=False, items__key_entry__isnull=True)
            ),
        ).order_by("order", "pk")
    )


@dataclass
class ItemFilter:
    text: str = ""
    block: int | None = None
    flagged: bool = False
    missing_key: bool = False
    retired: str = "active"  # active | retired | all

    @classmethod
    def from_query(cls, params) -> "ItemFilter":
        block = params.get("block") or ""
        retired = params.get("retired") or "active"
        return cls(
            text=(params.get("q") or "").strip()[:200],
            block=int(block) if block.isdigit() else None,
            flagged=params.get("flagged") in {"1", "on", "true"},
            missing_key=params.get("missing_key") in {"1", "on", "true"},
            retired=retired if retired in {"active", "retired", "all"} else "active",
        )

    @property
    def active(self) -> bool:
        return bool(
            self.text or self.block or self.flagged or self.missing_key or self.retired != "active"
        )


def bank_items(bank: Bank, item_filter: ItemFilter, *, with_key: bool) -> QuerySet[Item]:
    # The key entry is always joined (the list marks flagged and missing keys); its text
    # reaches the page only when with_key is set.
    qs = Item.objects.filter(block__bank=bank).select_related("block", "key_entry")
    if item_filter.text:
        text_q = Q(question__icontains=item_filter.text)
        if with_key:
            # Only those who may see the key may search it.
            text_q |= Q(key_entry__answer__icontains=item_filter.text)
        qs = qs.filter(text_q)
    if item_filter.block:
        qs = qs.filter(block_id=item_filter.block)
    if item_filter.flagged:
        qs = qs.filter(key_entry__flagged=True)
    if item_filter.missing_key:
        qs = qs.filter(key_entry__isnull=True)
    if item_filter.retired == "active":
        qs = qs.filter(retired=False)
    elif item_filter.retired == "retired":
        qs = qs.filter(retired=True)
    return qs.order_by("block__order", "block_id", "order", "pk")


def item_label(code: str, place: int | str) -> str:
    """An item's display number from its block's code and its place in the block: A3, or 3-1
    where the code ends in a digit (block 3's first item, never "31", which reads as item 31
    of another numbering; block A1's second, "A1-2", never "A12")."""
    if code[-1:].isdigit():
        return f"{code}-{place}"
    return f"{code}{place}"


def item_numbers(bank: Bank) -> dict[int, str]:
    """Display numbers such as A3: the item's place among the active items of its block."""
    numbers: dict[int, str] = {}
    counters: dict[int, int] = {}
    rows = Item.objects.filter(block__bank=bank).order_by("block__order", "block_id", "order", "pk")
    for pk, block_id, code, retired in rows.values_list("pk", "block_id", "block__code", "retired"):
        if retired:
            numbers[pk] = f"{code}–"
            continue
        counters[block_id] = counters.get(block_id, 0) + 1
        numbers[pk] = item_label(code, counters[block_id])
    return numbers


def item_numbers_of(items: list[Item]) -> dict[int, str]:
    """Display numbers of these items only (one page of a bank): one query, whatever the bank's
    size. The same numbers as item_numbers: the place among the active items of the block."""
    numbers = {item.pk: f"{item.block.code}–" for item in items if item.retired}
    active = [item for item in items if not item.retired]
    if not active:
        return numbers
    table = connection.ops.quote_name(Item._meta.db_table)
    order = connection.ops.quote_name("order")
    block_ids = sorted({item.block_id for item in active})
    item_ids = [item.pk for item in active]
    # The row number is computed over every active item of the blocks, then narrowed to the page
    # (a plain WHERE on the ids would number within the page).
    sql = (
        f"SELECT id, n FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY block_id "
        f"ORDER BY {order}, id) AS n FROM {table} WHERE retired = %s AND block_id IN "
        f"({', '.join(['%s'] * len(block_ids))})) AS numbered "
        f"WHERE id IN ({', '.join(['%s'] * len(item_ids))})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [False, *block_ids, *item_ids])
        place = dict(cursor.fetchall())
    for item in active:
        numbers[item.pk] = item_label(item.block.code, place.get(item.pk, ""))
    return numbers


def item_number(item: Item) -> str:
    """One item's display number (an inline edit's row): a count, not a walk over the bank."""
    if item.retired:
        return f"{item.block.code}–"
    before = (
        Item.objects.filter(block_id=item.block_id, retired=False)
        .filter(Q(order__lt=item.order) | Q(order=item.order, pk__lte=item.pk))
        .count()
    )
    return item_label(item.block.code, before)


def _looks_japanese(text: str) -> bool:
    """Whether the letters of a text are mostly kana and kanji (a Japanese question)."""
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return False
    japanese = sum(1 for ch in letters if _JAPANESE_RANGES.search(ch))
    return japanese / len(letters) >= 0.3


_JAPANESE_RANGES = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]")


def bank_languages(banks: QuerySet[Bank]) -> dict[int, str]:
    """The language each bank is written in ("ja" or "en"), for choosing its prompt.

    A bank imported from a Japanese text file says so (text_language); otherwise its name and
    first question decide, read in one query for all the banks. A bank with no items and
    an ASCII name has no language of its own and is left out.
    """
    first_question = (
        Item.objects.filter(block__bank=OuterRef("pk"))
        .order_by("block__order", "order", "pk")
        .values("question")[:1]
    )
    rows = banks.annotate(sample=Subquery(first_question)).values_list(
        "pk", "name", "text_language", "sample"
    )
    found = {}
    for pk, name, text_language, sample in rows:
        if text_language == "ja" or _looks_japanese(f"{name} {sample or ''}"):
            found[pk] = "ja"
        elif sample:
            found[pk] = "en"
    return found
