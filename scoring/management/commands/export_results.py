"""python manage.py export_results EXPERIMENT --format csv|json|jsonl [--what responses|figures]
[--scorer USERNAME] [--w W] [--output PATH]. Columns: docs/export-columns.md.

The responses are streamed: written out in chunks as they come from the database."""

from collections.abc import Iterable

from django.core.management.base import BaseCommand, CommandError

from probe.csvfile import csv_text
from probe.models import Experiment
from scoring.models import Assignment
from scoring.report import exports
from scoring.report.build import judgement_source, parse_weight, report_build


class Command(BaseCommand):
    help = (
        "Export an experiment's results: every response with its bucket, or the report's "
        "figures, as CSV or JSON. One scorer with --scorer; otherwise every scorer in turn."
    )

    def add_arguments(self, parser):
        parser.add_argument("experiment", help="The experiment's id, or its exact name.")
        parser.add_argument(
            "--format",
            choices=["csv", "json", "jsonl"],
            default="csv",
            help="jsonl (JSON Lines, one response a line) for the responses only.",
        )
        parser.add_argument("--what", choices=["responses", "figures"], default="responses")
        parser.add_argument("--scorer", default="", help="The scorer's username.")
        parser.add_argument("--team", default="", help="The team's slug, when names repeat.")
        parser.add_argument(
            "--w", default="1", help="Weight of a confidently wrong answer (figures)."
        )
        parser.add_argument("--output", "-o", default="", help="Write to this file, not stdout.")

    def handle(
        self,
        *args,
        experiment: str,
        format: str,
        what: str,
        scorer: str,
        team: str,
        w: str,
        output: str,
        **options,
    ):
        if format == "jsonl" and what != "responses":
            raise CommandError("--format jsonl is for the responses; the figures are csv or json.")
        found = self._experiment(experiment, team)
        try:
            weight = parse_weight(w)
        except ValueError as error:
            raise CommandError("--w must be a number from 0 to 100.") from error
        assignments = (
            Assignment.objects.filter(experiment=found)
            .select_related("experiment", "user")
            .order_by("user__username")
        )
        if scorer:
            assignments = assignments.filter(user__username=scorer)
        assignments = list(assignments)
        if not assignments:
            if scorer:
                raise CommandError(f"{scorer!r} is not a scorer of experiment {found.pk}.")
            raise CommandError(f"Nobody has scored experiment {found.pk} yet.")
        for assignment in assignments:
            if not assignment.revealed:
                self.stderr.write(
                    f"Note: {assignment.user.get_username()} has not revealed yet "
                    "(the export names the models all the same)."
                )
        sources = [judgement_source(a) for a in assignments]
        if what == "responses":
            self._write(exports.responses_chunks(sources, format), output)
            return
        else:
            reports = [report_build(source, w=weight) for source in sources]
            if format == "csv":
                rows = (row for report in reports for row in exports.figure_rows(report))
                columns = exports.figure_columns(reports[0]) if reports else exports.FIGURE_COLUMNS
                text = csv_text(rows, columns)
            else:
                # --scorer: that scorer's report, one object; otherwise a list, one per scorer.
                text = exports.figures_json(reports[0] if scorer else reports)
        self._write([text if text.endswith("\n") else text + "\n"], output)

    def _write(self, chunks: Iterable[str], output: str) -> None:
        if output:
            with open(output, "w", encoding="utf-8", newline="") as stream:
                for chunk in chunks:
                    stream.write(chunk)
            self.stderr.write(f"Wrote {output}")
            return
        # To stdout as bytes: the text is UTF-8 whatever the terminal's locale says.
        out = getattr(self.stdout._out, "buffer", None)
        for chunk in chunks:
            if out is not None:
                out.write(chunk.encode("utf-8"))
            else:
                self.stdout.write(chunk, ending="")
        if out is not None:
            out.flush()

    def _experiment(self, name: str, team: str) -> Experiment:
        qs = Experiment.objects.select_related("team")
        if team:
            qs = qs.filter(team__slug=team)
        matches = list(qs.filter(pk=int(name))) if name.isdigit() else list(qs.filter(name=name))
        if not matches:
            raise CommandError(f"No experiment {name!r}" + (f" in team {team!r}." if team else "."))
        if len(matches) > 1:
            where = ", ".join(f"{e.pk} ({e.team.slug})" for e in matches)
            raise CommandError(
                f"Several experiments are called {name!r}: {where}. Give the id or --team."
            )
        return matches[0]
