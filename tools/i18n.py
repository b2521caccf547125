#!/usr/bin/env python3
"""The translation catalogues (locale/<lang>/LC_MESSAGES/django.po, djangojs.po): update, check, compile.

    python tools/i18n.py update            extract every marked string into the .po files
                                           (existing translations are kept; changed ones turn fuzzy)
    python tools/i18n.py check             list untranslated, fuzzy and placeholder-mismatched
                                           messages; exit 1 if there are any
    python tools/i18n.py todo > todo.tsv   the messages still to translate, one per line:
                                           msgid <TAB> msgstr (empty), newlines written as \\n;
                                           a message with a context starts with it: ctxt <TAB>
    python tools/i18n.py fill todo.tsv     put the translations of such a file into the catalogue
                                           (clears the fuzzy mark of the messages it fills)
    python tools/i18n.py compile           write the .mo files from the .po files

Compiling is pure Python (polib), so a machine without GNU gettext can install the app; `update`
needs gettext's xgettext/msgmerge, as Django's makemessages does. docs/i18n.md has the workflow.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import polib

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "locale"
LANGUAGES = ["ja"]
DOMAINS = ["django", "djangojs"]
# What makemessages must not scan: installed packages, generated files, tests, the vendored htmx.
IGNORE = [".venv", "staticfiles", "var", "tests", "bench", "tools", "static/vendor", "build"]
PLACEHOLDER = re.compile(r"%\((\w+)\)[sdif]|%[sdif]|\{\w*\}")


def catalogues(domains: list[str] = DOMAINS) -> list[Path]:
    return [
        LOCALE / lang / "LC_MESSAGES" / f"{domain}.po"
        for lang in LANGUAGES
        for domain in domains
        if (LOCALE / lang / "LC_MESSAGES" / f"{domain}.po").exists()
    ]


def placeholders(text: str) -> list[str]:
    return sorted(m.group(0) for m in PLACEHOLDER.finditer(text))


def problems(entry: polib.POEntry) -> list[str]:
    """What is wrong with one message of a catalogue, in words; empty when it is fine."""
    if entry.obsolete:
        return []
    found = []
    if entry.fuzzy:
        found.append("fuzzy")
    texts = list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]
    if not all(t.strip() for t in texts):
        found.append("untranslated")
        return found
    # A plural's translation may drop the count (Japanese has one form), never invent a name.
    wanted = set(placeholders(entry.msgid)) | set(placeholders(entry.msgid_plural or ""))
    for text in texts:
        got = set(placeholders(text))
        if entry.msgid_plural:
            bad = got - wanted
        else:
            bad = got ^ wanted
        if bad:
            found.append("placeholders differ: " + ", ".join(sorted(bad)))
    return found


HEADER = (
    "Japanese translation of Blind probe.\n"
    "This file is distributed under the same license as the project.\n"
    "Terms: docs/i18n.md (glossary)."
)
PLURAL_FORMS = {"ja": "nplurals=1; plural=0;"}


def _set_header(po: polib.POFile, lang: str) -> None:
    """makemessages writes a template header into a new catalogue: make it this project's."""
    po.header = HEADER
    po.metadata_is_fuzzy = False
    po.metadata.pop("Report-Msgid-Bugs-To", None)
    po.metadata.update(
        {
            "Project-Id-Version": "blindprobe",
            "Last-Translator": "Blind probe maintainers",
            "Language-Team": "Japanese" if lang == "ja" else lang,
            "Language": lang,
            "Plural-Forms": PLURAL_FORMS[lang],
        }
    )


def update() -> None:
    for domain in DOMAINS:
        args = [sys.executable, "manage.py", "makemessages", "--no-obsolete", "-d", domain]
        args += [f"--ignore={path}" for path in IGNORE]
        if domain == "djangojs":
            args += ["--extension=js"]
        for lang in LANGUAGES:
            args += ["-l", lang]
        subprocess.run(args, cwd=ROOT, check=True)
    for path in catalogues():
        po = polib.pofile(str(path))
        _set_header(po, path.parts[-3])
        po.save()
    check(quiet_ok=False)


def check(quiet_ok: bool = True) -> int:
    count = 0
    for path in catalogues():
        po = polib.pofile(str(path))
        if po.metadata_is_fuzzy or po.metadata.get("Language") != path.parts[-3]:
            count += 1
            print(f"{path.relative_to(ROOT)}: the header is fuzzy or names another language")
        for entry in po:
            for problem in problems(entry):
                count += 1
                where = entry.occurrences[0][0] if entry.occurrences else "?"
                print(f"{path.relative_to(ROOT)}: {problem}: {entry.msgid!r} ({where})")
    if count:
        print(f"{count} problem(s); translate them (tools/i18n.py todo / fill) and run again.")
    elif not quiet_ok:
        print("Every message is translated.")
    return 1 if count else 0


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), text)


def todo() -> None:
    for path in catalogues():
        for entry in polib.pofile(str(path)):
            if problems(entry):
                msgid = entry.msgid_plural or entry.msgid
                text = entry.msgstr or entry.msgstr_plural.get(0, "")
                context = f"{_escape(entry.msgctxt)}\t" if entry.msgctxt else ""
                print(f"{context}{_escape(msgid)}\t{_escape(text)}")


def fill(source: Path) -> int:
    wanted: dict[tuple[str | None, str], str] = {}
    for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        columns = line.split("\t")
        if len(columns) not in (2, 3) or not columns[-1].strip():
            print(f"{source}:{number}: no translation after a tab; skipped")
            continue
        context = _unescape(columns[0]) if len(columns) == 3 else None
        wanted[context, _unescape(columns[-2])] = _unescape(columns[-1])
    filled = 0
    for path in catalogues():
        po = polib.pofile(str(path))
        for entry in po:
            context = entry.msgctxt or None
            text = wanted.get((context, entry.msgid_plural or entry.msgid))
            if text is None:
                text = wanted.get((context, entry.msgid))
            if text is None:
                continue
            if entry.msgid_plural:
                entry.msgstr_plural = {0: text}
            else:
                entry.msgstr = text
            if entry.fuzzy:
                entry.flags.remove("fuzzy")
                entry.previous_msgid = entry.previous_msgid_plural = entry.previous_msgctxt = None
            filled += 1
        po.save()
    print(f"Filled {filled} message(s).")
    return check()


def compile_all() -> None:
    for path in catalogues():
        po = polib.pofile(str(path))
        # Like msgfmt: fuzzy and empty messages stay out of the compiled catalogue.
        po.save_as_mofile(str(path.with_suffix(".mo")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("update")
    sub.add_parser("check")
    sub.add_parser("todo")
    fill_parser = sub.add_parser("fill")
    fill_parser.add_argument("file", type=Path)
    sub.add_parser("compile")
    args = parser.parse_args()
    if args.command == "update":
        update()
    elif args.command == "check":
        sys.exit(check())
    elif args.command == "todo":
        todo()
    elif args.command == "fill":
        sys.exit(fill(args.file))
    else:
        compile_all()


if __name__ == "__main__":
    main()
