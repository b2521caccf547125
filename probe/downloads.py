"""File downloads (bank files, result exports): one way to name them and keep them out of caches.

A download carries a bank's key or a team's results: ``Cache-Control: no-store`` keeps it out of
shared and browser caches. The file name is built from a user's name for the bank or experiment,
which may be written in any script: ``content_disposition_header`` adds ``filename*`` (RFC 6266)
when it is not plain ASCII, so a Japanese bank downloads under its Japanese name.
"""

from collections.abc import Iterable

from django.http import HttpResponse, StreamingHttpResponse
from django.utils.cache import add_never_cache_headers
from django.utils.http import content_disposition_header
from django.utils.text import slugify

CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "json": "application/json; charset=utf-8",
    "jsonl": "application/x-ndjson; charset=utf-8",
    "txt": "text/plain; charset=utf-8",
}


def file_stem(name: str, fallback: str) -> str:
    """A file name from a user's name for something: letters of any script kept, the rest dashed."""
    return slugify(name, allow_unicode=True) or fallback


def no_store(response):
    """Mark a response that shows a key or results as never to be stored by any cache."""
    add_never_cache_headers(response)
    return response


def attachment(body: str | bytes | Iterable, *, filename: str, extension: str):
    """A download: a whole body as an HttpResponse, an iterator of chunks streamed."""
    content_type = CONTENT_TYPES[extension]
    if isinstance(body, str | bytes):
        response = HttpResponse(body, content_type=content_type)
    else:
        response = StreamingHttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=True, filename=f"{filename}.{extension}"
    )
    return no_store(response)
