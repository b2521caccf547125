"""python manage.py export_bank BANK --format json|text|csv|jsonl [--output PATH]."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from probe.models import Bank
from probe.services.banks import bank_export


class Command(BaseCommand):
    help = "Export an item bank, with its key, as JSON (lossless), plain text, CSV or JSON Lines."

    def add_arguments(self, parser):
        parser.add_argument("bank", help="The bank's id, or its exact name.")
        parser.add_argument("--format", choices=["json", "text", "csv", "jsonl"], default="json")
        parser.add_argument("--team", default="", help="The team's slug, when names repeat.")
        parser.add_argument("--output", "-o", default="", help="Write to this file, not stdout.")

    def handle(self, *args, bank: str, format: str, team: str, output: str, **options):
        qs = Bank.objects.select_related("team")
        if team:
            qs = qs.filter(team__slug=team)
        matches = list(qs.filter(pk=int(bank))) if bank.isdigit() else list(qs.filter(name=bank))
        if not matches:
            raise CommandError(f"No bank {bank!r}" + (f" in team {team!r}." if team else "."))
        if len(matches) > 1:
            where = ", ".join(f"{b.pk} ({b.team.slug})" for b in matches)
            raise CommandError(
                f"Several banks are called {bank!r}: {where}. Give the id or --team."
            )
        text = bank_export(bank=matches[0], user=None, file_format=format)
        if output:
            Path(output).write_text(text, encoding="utf-8", newline="")  # CSV keeps its CRLF
            self.stderr.write(f"Wrote {output}")
        else:
            self.stdout.write(text, ending="" if text.endswith("\n") else "\n")
