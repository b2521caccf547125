"""The writes of a scorer's progress counters (``Assignment.progress_judged`` and
``progress_rechecks``): kept by a decision, forgotten when judgements change elsewhere. The
reads are ``scoring.queue.selectors.assignment_counts``, which never writes."""

from scoring.models import Assignment
from scoring.queue import selectors


def progress_counts_store(assignment: Assignment) -> dict[str, int]:
    """The counts of ``selectors.assignment_counts``, stored on the assignment when they were
    unknown (a decision calls it; a page shown does not)."""
    stored = selectors.progress_stored(assignment)
    if stored is not None:
        return stored
    counted = selectors.progress_counted(assignment)
    Assignment.objects.filter(pk=assignment.pk).update(
        progress_judged=counted["judged"], progress_rechecks=counted["rechecks"]
    )
    return counted


def progress_forget(**assignments) -> None:
    """Judgements changed outside a decision (a key amendment, an undo): count them again next
    time. ``assignments``: a filter of Assignment, such as ``experiment=...`` or ``pk=...``."""
    Assignment.objects.filter(**assignments).update(progress_judged=None, progress_rechecks=None)
