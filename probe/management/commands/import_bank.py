"""python manage.py import_bank PATH --team SLUG [--name NAME]: all or nothing, like the page."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from probe import bankformat
from probe.models import Team
from probe.services.banks import bank_import


class Command(BaseCommand):
    help = "Import an item bank from a JSON or plain-text file into a team."

    def add_arguments(self, parser):
        parser.add_argument("path", help="The bank file (JSON or plain text).")
        parser.add_argument(
            "--team", required=True, help="The slug of the team that owns the bank."
        )
        parser.add_argument("--name", default="", help="The bank's name (default: from the file).")

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
            data = bankformat.load(file.read_bytes(), file.name)
        except bankformat.BankFormatError as error:
            lines = "\n".join(f"  {problem}" for problem in error.problems)
            raise CommandError(f"{path} was refused; nothing was saved:\n{lines}") from error
        bank = bank_import(
            team=team_obj,
            user=None,
            data=data,
            name=name,
            source=f"command line: {file.name}",
            file_format=bankformat.detect_format(file.read_text("utf-8", "replace"), file.name),
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"Imported bank {bank.pk} “{bank.name}” into {team_obj.slug}: "
                f"{len(data.blocks)} blocks, {data.item_count} items, "
                f"{data.missing_key_count} without a key, {data.flagged_count} flagged (!)."
            )
        )
