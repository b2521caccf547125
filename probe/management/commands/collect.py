"""python manage.py collect EXPERIMENT: collect an experiment's answers from this terminal.

Runs the same run collector the Celery workers run (services.collection.run_collect), in this
process, waiting between retries as the retry policy says, with a progress bar on stderr.
"""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from probe.models import Experiment, Run
from probe.services import collection, experiments

BAR_WIDTH = 30


class Progress:
    """A plain-text progress bar on a Django OutputWrapper: redrawn in place on a terminal, a
    line per tenth otherwise."""

    def __init__(self, stream, total: int) -> None:
        self.stream, self.total = stream, total
        self.done = self.retries = 0
        self.lock = threading.Lock()
        self.tty = stream.isatty()
        self.last_tenth = -1
        self.started = time.monotonic()

    def line(self) -> str:
        filled = int(BAR_WIDTH * self.done / self.total) if self.total else BAR_WIDTH
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        elapsed = time.monotonic() - self.started
        return (
            f"[{bar}] {self.done}/{self.total} units"
            f" · {self.retries} waits/retries · {elapsed:.0f} s"
        )

    def draw(self, force: bool = False) -> None:
        if self.tty:
            self.stream.write("\r" + self.line(), ending="")
            self.stream.flush()
            return
        tenth = int(10 * self.done / self.total) if self.total else 10
        if force or tenth != self.last_tenth:
            self.last_tenth = tenth
            self.stream.write(self.line())
            self.stream.flush()

    def unit_done(self) -> None:
        with self.lock:
            self.done += 1
            self.draw()

    def waited(self) -> None:
        with self.lock:
            self.retries += 1
            if self.tty:
                self.draw()

    def finish(self) -> None:
        with self.lock:
            self.draw(force=not self.tty)
            if self.tty:
                self.stream.write("")


class Command(BaseCommand):
    help = "Collect an experiment's answers in this process, with a progress bar."

    def add_arguments(self, parser):
        parser.add_argument("experiment", type=int, help="the experiment's number (its id)")
        parser.add_argument(
            "--jobs",
            type=int,
            default=4,
            help=(
                "runs collected at once (default 4); each run sends its requests concurrently "
                "within its configuration's limit"
            ),
        )
        parser.add_argument(
            "--retry-failed", action="store_true", help="queue the failed runs again first"
        )

    def handle(self, *args, experiment: int, jobs: int, retry_failed: bool, **options):
        found = Experiment.objects.filter(pk=experiment).first()
        if found is None:
            raise CommandError(f"There is no experiment {experiment}.")
        try:
            if found.status == Experiment.Status.READY:
                experiments.experiment_start(experiment=found, user=None, queue=False)
            elif found.status != Experiment.Status.COLLECTING:
                raise CommandError(
                    f"Experiment {found.pk} is {found.get_status_display().lower()}: nothing to collect."
                )
            if retry_failed:
                units_failed = collection.runs_with_failed_units(found.pk)
                for run in [*found.runs.filter(status=Run.Status.FAILED), *units_failed]:
                    experiments.run_retry(run=run, user=None, queue=False)
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from error

        runs = list(
            found.runs.filter(status__in=[Run.Status.QUEUED, Run.Status.RUNNING])
            .select_related("experiment")
            .order_by("order", "pk")
        )
        n_units = sum(len(collection.run_units(run)) for run in runs)
        self.stderr.style_func = None  # a progress bar, not an error: no red
        self.stdout.write(
            f"Experiment {found.pk} “{found.name}”: {len(runs)} runs to collect, {n_units} units."
        )
        progress = Progress(self.stderr, n_units)
        progress.draw(force=True)

        def heard(result) -> None:
            if result.completion is not None or result.final:
                progress.unit_done()
            else:
                progress.waited()

        def one(run: Run) -> None:
            # Each run sends its units concurrently, within its configuration's limit.
            try:
                collection.run_collect(run_pk=run.pk, on_result=heard)
            except Exception as error:
                collection.fail_run_unexpectedly(run_pk=run.pk, error=error)
                raise

        if jobs <= 1:
            for run in runs:
                one(run)
        else:

            def in_thread(run: Run) -> None:
                try:
                    one(run)
                finally:
                    connection.close()  # this thread's own connection, at the end of its run

            with ThreadPoolExecutor(max_workers=jobs) as pool:
                for future in [pool.submit(in_thread, run) for run in runs]:
                    future.result()
        progress.finish()
        self._report(found)

    def _report(self, experiment: Experiment) -> None:
        experiment.refresh_from_db()
        failed = []
        for run in experiment.runs.order_by("order", "pk"):
            line = f"  {run.order:>3}. {run.label} #{run.repeat}: {run.get_status_display()}"
            line += f", {run.responses.count()} responses"
            short = run.status == Run.Status.COLLECTED and run.error_message
            if run.status == Run.Status.FAILED or short:  # short: some of its items failed
                failed.append(run)
                line += f" — {run.error_message}"
                if run.error_request_id:
                    line += f" (request id {run.error_request_id})"
            self.stdout.write(line)
        self.stdout.write(f"Experiment status: {experiment.get_status_display()}.")
        if failed:
            raise CommandError(
                f"{len(failed)} run(s) failed, or have items that failed: retry them with "
                "--retry-failed, or close them (or finish collecting) on the experiment's page."
            )
