"""File downloads (bank files, result exports, the scorers' times): one way to name them and keep
them out of caches.

A download carries a bank's key or a team's results: ``Cache-Control: no-store`` keeps it out of
shared and browser caches. Every download is named by ``download_filenames`` and sent through
``attachment``: ``Content-Disposition`` carries both an ASCII ``filename="…"`` (for the few
clients that read nothing else) and ``filename*=UTF-8''…`` (RFC 6266, RFC 5987) with the name in
the user's words: the bank's or experiment's own name, letters of any script and full-width
brackets kept, and what the file holds in the interface's language (「回答」, 「数値」).
"""

import re
import unicodedata
from collections.abc import Iterable
from urllib.parse import quote

from django.http import HttpResponse, StreamingHttpResponse
from django.utils.cache import add_never_cache_headers
from django.utils.text import slugify
from django.utils.translation import pgettext_lazy

CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "json": "application/json; charset=utf-8",
    "jsonl": "application/x-ndjson; charset=utf-8",
    "txt": "text/plain; charset=utf-8",
}

# What a file holds, as its name says it: (the ASCII fallback's word, the user's word).
CONTENTS = {
    "bank": ("bank", pgettext_lazy("download file name", "bank")),
    "responses": ("responses", pgettext_lazy("download file name", "responses")),
    "figures": ("figures", pgettext_lazy("download file name", "figures")),
    "final-responses": ("final-responses", pgettext_lazy("download file name", "final buckets")),
    "final-figures": ("final-figures", pgettext_lazy("download file name", "final figures")),
    "final-moves": ("final-moves", pgettext_lazy("download file name", "moves")),
    "times": ("scorer-times", pgettext_lazy("download file name", "scorer times")),
    "grading": ("grading", pgettext_lazy("download file name", "grading")),
    "grading-costs": ("grading-costs", pgettext_lazy("download file name", "costs")),
}
# Characters no file system takes in a name (Windows' list, controls, path separators).
_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]+')
_DASHES = re.compile(r"[-\s]+")
MAX_NAME = 120


def _readable(text: str) -> str:
    """A file name in the user's words: any script, full-width brackets and marks kept; spaces
    (the ideographic space too) and the characters a file system refuses become dashes."""
    text = _UNSAFE.sub("-", unicodedata.normalize("NFC", str(text)))
    return _DASHES.sub("-", text).strip("-. ")[:MAX_NAME].strip("-. ")


def download_filenames(name: str, contents: str | None, extension: str) -> tuple[str, str]:
    """(ASCII fallback, name in the user's words) of a download of `contents` (a key of
    CONTENTS) named after `name`, a bank's or an experiment's name. The fallback keeps an ASCII
    name (slugged) and otherwise says only what the file holds."""
    ascii_word, word = CONTENTS[contents or "bank"]
    readable_name = _readable(name)
    ascii_name = slugify(name) if str(name).isascii() else ""
    if contents in (None, "bank"):
        ascii_stem = ascii_name or ascii_word
        readable = readable_name or _readable(str(word))
    else:
        ascii_stem = f"{ascii_name}-{ascii_word}" if ascii_name else ascii_word
        readable = "-".join(part for part in (readable_name, _readable(str(word))) if part)
    return f"{ascii_stem}.{extension}", f"{readable}.{extension}"


def content_disposition(ascii_name: str, name: str) -> str:
    """``attachment`` with both names (RFC 6266): the fallback quoted, the UTF-8 name encoded."""
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(name, safe='')}"


def no_store(response):
    """Mark a response that shows a key or results as never to be stored by any cache."""
    add_never_cache_headers(response)
    return response


def attachment(body: str | bytes | Iterable, *, name: str, contents: str | None, extension: str):
    """A download (a whole body as an HttpResponse, an iterator of chunks streamed), named after
    `name` and what it holds."""
    content_type = CONTENT_TYPES[extension]
    if isinstance(body, str | bytes):
        response = HttpResponse(body, content_type=content_type)
    else:
        response = StreamingHttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = content_disposition(
        *download_filenames(name, contents, extension)
    )
    return no_store(response)
