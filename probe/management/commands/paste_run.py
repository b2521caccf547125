"""python manage.py paste_run RUN FILE: record a manual run's reply from a file ("-": stdin)."""

import sys

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from probe.models import Run
from probe.services import collection


class Command(BaseCommand):
    help = (
        "Paste a model's whole reply (copied from a chat window) into a manual run, and parse it."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "run", type=int, help="the run's number (its id, shown in its page's address)"
        )
        parser.add_argument("file", help="a UTF-8 text file with the whole reply, or - for stdin")
        parser.add_argument(
            "--item", type=int, help="per-item experiments: the item number answered"
        )
        parser.add_argument("--user", help="record the paste as this user's")

    def handle(self, *args, run: int, file: str, item: int | None, user: str | None, **options):
        found = Run.objects.select_related("experiment").filter(pk=run).first()
        if found is None:
            raise CommandError(f"There is no run {run}.")
        try:
            if file == "-":
                text = sys.stdin.read()
            else:
                with open(file, encoding="utf-8-sig") as handle:
                    text = handle.read()
        except OSError as error:
            raise CommandError(f"Cannot read {file}: {error.strerror}.") from error
        except UnicodeDecodeError as error:
            raise CommandError(
                f"{file} is not UTF-8 text ({error.reason} at byte {error.start})."
            ) from error
        item_obj = None
        if item is not None:
            item_obj = found.experiment.items.filter(position=item).first()
            if item_obj is None:
                raise CommandError(f"The experiment has no item {item}.")
        who = None
        if user:
            who = get_user_model().objects.filter(username=user).first()
            if who is None:
                raise CommandError(f"There is no user {user}.")
        try:
            attempt = collection.run_paste(run=found, user=who, text=text, item=item_obj)
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from error
        found.refresh_from_db()
        answered = found.responses.filter(answer__isnull=False).count()
        total = found.experiment.items.count()
        compliance = f"{found.compliance:.0%}" if found.compliance is not None else "-"
        self.stdout.write(
            f"Run {found.pk} ({found.label} #{found.repeat}): attempt {attempt.number} saved; "
            f"{answered} of {total} items answered; format compliance {compliance}; "
            f"status {found.get_status_display().lower()}."
        )
