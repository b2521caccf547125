"""python manage.py import_bank PATH --team SLUG [--name NAME] [--dry-run] [--accept CODE ...]

All or nothing, like the page. ``--dry-run`` prints what the page's preview shows (the parsed
bank, counts, problems, warnings with the reading each offers) and saves nothing. ``--accept``
takes a reading by its code (``drop:12-15``, ``key:40``, ``item:88``, or ``keep:14`` to keep the
text at a warning as written), ``--accept-suggested`` every reading the warnings offer, exactly
as the page's "Accept every suggested reading" does. Like the page's Import button, the import
waits while a warning that would change an item, a key entry or a flag is open.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from probe import bankformat
from probe.models import Team
from probe.services.banks import bank_import


def _indented(text: str, pad: str) -> str:
    return "\n".join(pad + line if line else "" for line in text.split("\n"))


def preview_lines(result: bankformat.Preview) -> list[str]:
    """The preview as lines of text: the same facts as the page, in the same order."""
    out: list[str] = []
    if result.problems:
        count = len(result.problems)
        out.append(f"Refused as read now ({count} problem{'s' * (count != 1)}); nothing was saved:")
        out += [f"  {problem}" for problem in result.problems]
    if result.open_warnings:
        count = len(result.open_warnings)
        out.append(f"{count} warning{'s' * (count != 1)}:")
        for warning in result.open_warnings:
            out.append(f"  {warning}")
            reading = ""
            if warning.reading:
                reading = f"  [--accept {warning.reading}, or --accept {warning.keep_code} to keep it as written]"
            out.append(f"    -> {warning.suggestion}{reading}")
    if result.readings:
        out.append("Readings taken:")
        conflicts = result.conflicts
        out += [
            f"  {code}: {bankformat.describe_reading(code)} {conflicts.get(code, '')}".rstrip()
            for code in result.readings.codes
        ]
    if result.ok:
        out += _bank_lines(result.bank, result.name)
    return out


def _bank_lines(bank: bankformat.BankData, name: str) -> list[str]:
    out = [
        f"Bank “{name or 'Imported bank'}”: {len(bank.blocks)} blocks, {bank.item_count} items, "
        f"{bank.key_count} key entries, {bank.flagged_count} flagged (!), "
        f"{bank.missing_key_count} without a key, {bank.retired_count} retired."
    ]
    if bank.description:
        out.append("Description:")
        out.append(_indented(bank.description, "  "))
    for block in bank.blocks:
        title = f". {block.title}" if block.title else ""
        where = f" (line {block.line})" if block.line else ""
        out.append(f"Block {block.code}{title}{where}")
        for position, item in enumerate(block.items, start=1):
            out += _item_lines(item, position)
    return out


def _item_lines(item: bankformat.ItemData, position: int) -> list[str]:
    number = item.number or position
    where = f" (line {item.line})" if item.line else ""
    retired = " [retired]" if item.retired else ""
    out = [f"  {number}.{retired}{where} " + _indented(item.question, "      ").lstrip()]
    if item.answer_format:
        out.append(f"      Format: {item.answer_format}")
    key = item.key
    if key is None:
        out.append("      Key: (none)")
        return out
    out.append("      Key: " + _indented(key.answer, "           ").lstrip())
    if key.flagged:
        out.append("      (!) " + _indented(key.flag_note, "          ").lstrip())
    elif key.flag_note:
        out.append("      Note: " + _indented(key.flag_note, "            ").lstrip())
    out += [f"      Source: {source}" for source in key.sources]
    return out


class Command(BaseCommand):
    help = "Import an item bank from a plain-text, JSON, CSV or JSON Lines file into a team."

    def add_arguments(self, parser):
        parser.add_argument("path", help="The bank file.")
        parser.add_argument(
            "--team", required=True, help="The slug of the team that owns the bank."
        )
        parser.add_argument(
            "--name",
            default="",
            help="The bank's name (default: the document's title or the file name).",
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="Print the preview (the parsed bank, problems, warnings) and save nothing.",
        )
        parser.add_argument(
            "--accept",
            action="append",
            default=[],
            metavar="CODE",
            help=(
                "Take a reading a warning offers, by its code (drop:12-15, key:40, item:88, "
                "heading:33), or keep:LINE to keep the text at a warning as written."
            ),
        )
        parser.add_argument(
            "--accept-suggested",
            action="store_true",
            help="Take every reading the warnings offer, as the page's button does.",
        )

    def handle(self, *args, path: str, team: str, name: str, **options):
        team_obj = Team.objects.filter(slug=team).first()
        if team_obj is None:
            raise CommandError(f"There is no team with the slug {team!r}.")
        file = Path(path)
        if not file.is_file():
            raise CommandError(f"{path}: no such file.")
        size = file.stat().st_size
        if size > bankformat.MAX_BYTES:
            raise CommandError(
                f"{path}: the file is {size} bytes; the limit is {bankformat.MAX_BYTES} bytes. Nothing was saved."
            )
        try:
            readings = bankformat.Readings.from_codes(options["accept"])
        except bankformat.ReadingError as error:
            raise CommandError(
                f"--accept {error}: not a reading (drop:FIRST-LAST, key:LINE, item:LINE, heading:LINE or keep:LINE)."
            ) from None
        read = bankformat.preview_suggested if options["accept_suggested"] else bankformat.preview
        result = read(file.read_bytes(), file.name, readings)
        if options["dry_run"]:
            lines = [f"Dry run of {path}: nothing is saved."] + preview_lines(result)
            self.stdout.write("\n".join(lines))
            if not result.ok:
                raise CommandError(f"{path} is refused as read now; nothing was saved.")
            return
        if not result.ok:
            lines = "\n".join(f"  {problem}" for problem in result.problems)
            raise CommandError(f"{path} was refused; nothing was saved:\n{lines}")
        if result.blocking:
            lines = "\n".join(
                f"  {w}\n    -> {w.suggestion}  [--accept {w.reading} or --accept {w.keep_code}]"
                for w in result.blocking
            )
            raise CommandError(
                f"{path}: {len(result.blocking)} warning(s) would change items, key entries or "
                f"flags; take each reading or keep the text (--accept CODE, --accept-suggested), "
                f"see --dry-run. Nothing was saved:\n{lines}"
            )
        for warning in result.open_warnings:
            self.stderr.write(f"Warning: {warning} ({warning.suggestion})")
        bank = bank_import(
            team=team_obj,
            user=None,
            data=result.bank,
            name=name or result.name,
            source=f"command line: {file.name}",
            file_format=result.file_format,
            readings=list(result.readings.codes),
        )
        data = result.bank
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported bank {bank.pk} “{bank.name}” into {team_obj.slug}: "
                f"{len(data.blocks)} blocks, {data.item_count} items, "
                f"{data.missing_key_count} without a key, {data.flagged_count} flagged (!)."
            )
        )
