"""The labels a grader may give in an experiment's scheme, and the bucket a label gives.

Four buckets: CORRECT or INCORRECT, the bucket of a wrong answer following from the confidence
the answer stated, as it does for a scorer (scoring.schemes: ``derive``); where the parse does not
settle it (a hedge in the answer: hedged wrong; no confidence stated: confidently wrong, since
nothing in the answer held back). A scheme whose grader names the bucket (AA-Omniscience:
``Scheme.grader_names_bucket``) has its buckets, in capitals, as the labels.
"""

from __future__ import annotations

from scoring.schemes import Scheme

CORRECT, INCORRECT, PARTIAL, NOT_ATTEMPTED = "CORRECT", "INCORRECT", "PARTIAL", "NOT_ATTEMPTED"


def scheme_labels(scheme: Scheme) -> tuple[str, ...]:
    return tuple(scheme.grader_labels) or (CORRECT, INCORRECT)


def bucket_for(scheme: Scheme, label: str, response) -> str:
    """The bucket of a label for a response (its parse: abstained, hedged, confidence)."""
    named = scheme.grader_labels
    if named:
        return named[label]
    if label == CORRECT:
        return str(scheme.correct)
    if label == NOT_ATTEMPTED:
        return str(scheme.preset_bucket)
    derived = scheme.derive("wrong", response)
    if derived is not None:
        return str(derived)
    return str(scheme.wrong_bucket_unsettled(response))
