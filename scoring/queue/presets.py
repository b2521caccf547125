"""The answers set before a scorer began: UNKNOWN or missing answers (preset to the abstention
bucket when they start), carried buckets and, in a routed experiment, answers a grader decided.
They count as decided in the scorer's progress (the reveal waits for none of them), never as
judged by the scorer: the pages say "N / M judged by you" without them, and how many they are."""

from __future__ import annotations

from scoring.models import Assignment, Judgement


def preset_count(assignment: Assignment) -> int:
    """The scorer's judgements set before they began that stand (verdicts NOT_BY_PEOPLE)."""
    return Judgement.objects.filter(
        assignment=assignment, verdict__in=Judgement.NOT_BY_PEOPLE, needs_recheck=False
    ).count()


def own_progress(judged: int, total: int, preset: int) -> tuple[int, int, int]:
    """(judged by the scorer, theirs to judge, the percentage) from the counts with presets."""
    own, own_total = judged - preset, total - preset
    return own, own_total, round(100 * own / own_total) if own_total else 100
