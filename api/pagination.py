"""Every list of the API comes in pages: ``?page=1`` (from 1), ``PAGE_SIZE`` rows a page, with
the total beside them (``count``) so a client knows how many pages to ask for. A page is a
LIMIT/OFFSET slice of the list's query, ordered on a unique key, so a page costs the same
queries (the slice and the count) however long the list is. docs/api.md ("Lists") says so."""

from __future__ import annotations

from typing import Any

from ninja import Field, Schema
from ninja.pagination import PaginationBase

__all__ = ["PAGE_SIZE", "Page", "page_bounds"]

# Rows per page of every list but the results' responses (RESPONSES_PAGE_SIZE there).
PAGE_SIZE = 100
# Pages past this would be slow OFFSETs that no client needs: 10 million rows at most.
MAX_PAGE = 100_000


class PageIn(Schema):
    page: int = Field(1, ge=1, le=MAX_PAGE, description="the page, from 1")


def page_bounds(page: int, page_size: int) -> tuple[int, int]:
    """The slice [start, stop) of the rows on ``page``."""
    start = (page - 1) * page_size
    return start, start + page_size


class Page(PaginationBase):
    """Page-number pagination with the page size and the total in every answer."""

    Input = PageIn

    class Output(Schema):
        items: list[Any]
        count: int = Field(..., description="rows in the whole list")
        page: int = Field(..., description="this page, from 1")
        page_size: int = Field(..., description=f"rows a page ({PAGE_SIZE})")

    def __init__(self, page_size: int = PAGE_SIZE, **kwargs: Any) -> None:
        self.page_size = page_size
        super().__init__(**kwargs)

    def paginate_queryset(self, queryset, pagination: PageIn, request, **params) -> Any:
        start, stop = page_bounds(pagination.page, self.page_size)
        return {
            "items": queryset[start:stop],
            "count": self._items_count(queryset),
            "page": pagination.page,
            "page_size": self.page_size,
        }
