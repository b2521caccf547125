"""A re-grade: a new grader version (another grading prompt version, configuration or parser)
over the same frozen responses, against an earlier job: exactly the verdicts that changed, and
how far each headline figure moved, with its intervals.

The figures are the report's (scoring.report: a job's decided grades are a bucket source like a
scorer's judgements), and the moves are the final report's (``figure_moves``, as for an amended
key or reconciliation): nothing here computes a figure of its own."""

from __future__ import annotations

from dataclasses import dataclass

from scoring.models import Bucket
from scoring.report.build import report_build
from scoring.report.final import ConfigMoves, figure_moves, figure_text
from scoring.report.intervals import report_intervals
from scoring.report.source import BucketSource

from .models import Grade, GradingJob


def job_source(job: GradingJob) -> BucketSource:
    """The job's decided grades as the report's bucket source (undecided ones: unscored)."""
    return BucketSource(
        experiment=job.experiment,
        rows=Grade.objects.filter(job=job, state=Grade.State.DECIDED),
        scorer=str(job.grader),
    )


def job_report(job: GradingJob):
    source = job_source(job)
    report = report_build(source)
    report_intervals(source, report)
    return report


@dataclass
class ChangedVerdict:
    position: int
    question: str
    answer: str | None
    before: Grade | None
    after: Grade | None

    def _text(self, grade: Grade | None) -> str:
        if grade is None:
            return "–"
        if grade.state == Grade.State.DECIDED:
            return str(dict(Bucket.choices).get(grade.bucket, grade.bucket))
        return str(grade.get_state_display())

    @property
    def before_text(self) -> str:
        return self._text(self.before)

    @property
    def after_text(self) -> str:
        return self._text(self.after)


def _verdict(grade: Grade | None) -> tuple[str, str]:
    return ("", "") if grade is None else (grade.state, grade.bucket)


def changed_verdicts(base: GradingJob, new: GradingJob) -> list[ChangedVerdict]:
    """Every response whose grade (state and bucket) differs between the two jobs, by item."""
    before = {g.response_id: g for g in Grade.objects.filter(job=base)}
    after = {
        g.response_id: g for g in Grade.objects.filter(job=new).select_related("response__item")
    }
    rows = []
    for response_id in sorted(set(before) | set(after)):
        old, now = before.get(response_id), after.get(response_id)
        if _verdict(old) == _verdict(now):
            continue
        response = (now or old).response
        rows.append(
            ChangedVerdict(
                position=response.item.position,
                question=response.item.question,
                answer=response.answer,
                before=old,
                after=now,
            )
        )
    return sorted(rows, key=lambda r: (r.position, r.question))


@dataclass
class Regrade:
    base: GradingJob
    new: GradingJob
    changed: list[ChangedVerdict]
    moves: list[ConfigMoves]  # per configuration, each headline: new value, base's, the move
    base_ci: dict  # configuration key -> figure name -> the base job's interval
    new_ci: dict

    def rows(self) -> list[dict]:
        """One row per configuration and headline: before and after with their intervals."""

        # A headline's interval is under its summary column's ci key ("net" for net usable).
        ci_key = {c.name: c.ci for c in self.new.experiment.scheme_obj.summary_columns}

        def ci(table, key, name, unit):
            interval = table.get(key, {}).get(ci_key.get(name) or name)
            if interval is None:
                return ""
            return f"[{figure_text(interval.low, unit)}, {figure_text(interval.high, unit)}]"

        out = []
        for moves in self.moves:
            key = moves.config.key
            for figure in moves.figures:
                for cell in figure.scorers:
                    out.append(
                        {
                            "config": moves.config.label,
                            "figure": figure.label,
                            "name": figure.name,
                            "before": cell.value_text,
                            "before_ci": ci(self.base_ci, key, figure.name, figure.unit),
                            "after": figure.final_text,
                            "after_ci": ci(self.new_ci, key, figure.name, figure.unit),
                            "move": cell.move,
                            "move_text": cell.move_text,
                        }
                    )
        return out


def regrade(base: GradingJob, new: GradingJob) -> Regrade:
    old_report, new_report = job_report(base), job_report(new)
    return Regrade(
        base=base,
        new=new,
        changed=changed_verdicts(base, new),
        moves=figure_moves(new_report, [old_report]),
        base_ci={c.key: c.ci for c in old_report.configs},
        new_ci={c.key: c.ci for c in new_report.configs},
    )
