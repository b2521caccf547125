"""Bytes of an uploaded file to text, with the size limit and line endings every parser expects."""

from __future__ import annotations

import re

from django.utils.translation import gettext as _

from .data import MAX_BYTES, BankFormatError, FormatProblem, fail

_UTF8_BOM = b"\xef\xbb\xbf"
_CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0e-\x1f]")  # tab, LF, VT, FF and CR are allowed
_MIB = 1024 * 1024


def _megabytes(n: int) -> str:
    text = f"{n / _MIB:.1f}"
    if text.endswith(".0"):
        text = text[:-2]
    return _("%(size)s MB") % {"size": text}


def _size_problem(size: int) -> FormatProblem:
    if round(size / _MIB, 1) <= MAX_BYTES / _MIB:
        # "1 MB; the limit is 1 MB" would be no help: give bytes.
        message = _("The file is %(size)s bytes; the limit is %(limit)s bytes (%(limit_mb)s).") % {
            "size": size,
            "limit": MAX_BYTES,
            "limit_mb": _megabytes(MAX_BYTES),
        }
    else:
        message = _("The file is %(size)s; the limit is %(limit)s.") % {
            "size": _megabytes(size),
            "limit": _megabytes(MAX_BYTES),
        }
    return FormatProblem(None, message)


def _line_at(data: bytes, offset: int) -> int:
    before = data[:offset]
    return before.count(b"\n") + before.count(b"\r") - before.count(b"\r\n") + 1


def decode(data: bytes) -> str:
    """Bytes of an uploaded file to text: at most MAX_BYTES, UTF-8 (a BOM is dropped), no NUL or
    other binary bytes; CRLF and lone CR become LF."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    data = bytes(data)
    if len(data) > MAX_BYTES:
        raise BankFormatError([_size_problem(len(data))])
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise fail(
            None,
            _(
                "The file is UTF-16 text (it starts with a UTF-16 byte order mark); save it as UTF-8 and try again."
            ),
        )
    if data.startswith(b"PK\x03\x04"):
        raise fail(
            None,
            _(
                "The file is a ZIP archive (a Word or OpenDocument file is one): save the bank as plain text (.txt) or JSON and try again."
            ),
        )
    if data.startswith(b"%PDF-"):
        raise fail(
            None,
            _(
                "The file is a PDF document: save the bank as plain text (.txt) or JSON and try again."
            ),
        )
    match = _CONTROL_BYTES.search(data)
    if match:
        offset = match.start()
        values = {"offset": offset, "line": _line_at(data, offset), "byte": f"0x{data[offset]:02x}"}
        if data[offset] == 0:
            message = (
                _(
                    "The file contains a NUL byte (offset %(offset)s, line %(line)s): it is a binary file, not text."
                )
                % values
            )
        else:
            message = (
                _(
                    "The file contains the control byte %(byte)s (offset %(offset)s, line %(line)s): it does not look like a text file."
                )
                % values
            )
        raise fail(None, message)
    start = len(_UTF8_BOM) if data.startswith(_UTF8_BOM) else 0
    try:
        text = data[start:].decode("utf-8")
    except UnicodeDecodeError as error:
        offset = start + error.start
        raise fail(
            None,
            _(
                "The file is not UTF-8 text (byte %(byte)s at offset %(offset)s, line %(line)s); save it as UTF-8 and try again."
            )
            % {"byte": f"0x{data[offset]:02x}", "offset": offset, "line": _line_at(data, offset)},
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def prepare(text: str) -> str:
    """Text handed straight to a parser gets the same size limit and line endings as decode()."""
    if len(text) > MAX_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise BankFormatError([_size_problem(len(text.encode("utf-8", "surrogatepass")))])
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")
