"""The final buckets, the writes: the unanimous ones kept in line with the participants'
judgements, and a lead's decision on a disagreement.

Called by every write that changes what the participants say (a decision, an undo, a key
amendment) once reconciliation has begun; the reads are in scoring.reconciliation.selectors.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from probe.models import Experiment, Response
from scoring.models import FinalBucket
from scoring.reconciliation.selectors import (
    UNANIMOUS,
    decisions_visible,
    participants,
    reconciliation_of,
    standings,
)


@transaction.atomic
def final_buckets_sync(*, experiment: Experiment) -> dict[str, int]:
    """Bring the unanimous final buckets in line with the participants' judgements.

    Idempotent. A response on which every participant agrees (none awaiting a re-check) gets a
    unanimous row; a unanimous row whose response is no longer unanimous is removed, so that it
    shows as a disagreement again. A lead's decision is never touched. Does nothing with fewer
    than two participants (one scorer's bucket is not an agreement).
    """
    parts = participants(experiment)
    counts = {"created": 0, "updated": 0, "removed": 0}
    if len(parts) < 2 or reconciliation_of(experiment) is None:
        return counts
    create, update, remove = [], [], []
    for standing in standings(experiment, parts).values():
        final = standing.final
        if final is not None and not final.unanimous:
            continue
        if standing.state(len(parts)) == UNANIMOUS:
            bucket = next(iter(standing.buckets.values()))
            if final is None:
                create.append(
                    FinalBucket(response_id=standing.response_id, bucket=bucket, unanimous=True)
                )
            elif final.bucket != bucket:
                final.bucket = bucket
                update.append(final)
        elif final is not None:
            remove.append(final.pk)
    FinalBucket.objects.bulk_create(create)
    FinalBucket.objects.bulk_update(update, ["bucket"])
    FinalBucket.objects.filter(pk__in=remove, unanimous=True).delete()
    counts.update(created=len(create), updated=len(update), removed=len(remove))
    return counts


@transaction.atomic
def final_bucket_set(
    *, experiment: Experiment, response: Response, user, bucket: str, note: str = ""
) -> FinalBucket:
    """A lead's final bucket for a response, with a note."""
    if reconciliation_of(experiment) is None:
        raise ValidationError(_("Reconciliation has not begun."))
    if response.run.experiment_id != experiment.pk:
        raise ValidationError(_("That response is not in this experiment."))
    if not decisions_visible(experiment, user):
        raise ValidationError(_("Judge every response of your own first."))
    if not experiment.scheme_obj.allows(bucket):
        raise ValidationError(
            {
                "bucket": _("Choose a bucket of this experiment's scheme (keys 1 to %(last)s).")
                % {"last": experiment.scheme_obj.last_key}
            }
        )
    final, _created = FinalBucket.objects.select_for_update().update_or_create(
        response=response,
        defaults={"bucket": bucket, "unanimous": False, "decided_by": user, "note": note.strip()},
    )
    return final
