"""The scoring schemes, in one place: a class per scheme and the registry that finds it.

An experiment stores its scheme as a short value (``Experiment.scheme``: "four", "aa", and "rw",
the tests' two-bucket scheme); everything
that depends on it asks the scheme object instead (``experiment.scheme_obj``, ``report.scheme_obj``
or ``scheme_for(value)``): its buckets and the keys that choose them, the bucket a verdict and the
parsed confidence give (and the preset bucket of an UNKNOWN answer), the figures of a set of
counts and the headlines the report shows, the report's columns, texts and sections, and the export
columns it renames or leaves empty.

A new scheme is one subclass of ``Scheme`` (base.py) registered with ``@register``, in a module of
its own here imported below: nothing else branches on the stored value or lists the schemes. The
registry is the one list: the model's choices of schemes and buckets, the experiment form and the
API's scheme field, the bucket badges' stylesheet (scoring.report.bucket_css) and the charts'
colours all read it. docs/scoring.md
("Schemes") says what a subclass sets.

This package reads no model and no database (probe.models imports it for
``Experiment.scheme_obj``); its figures are those of scoring.metrics.
"""

from .aa import AAScheme
from .base import (
    Bucket,
    BucketStyle,
    Column,
    Scheme,
    UnknownScheme,
    as_scheme,
    ask_first_buckets,
    bucket_choices,
    bucket_label,
    bucket_style,
    buckets_registered,
    offered,
    register,
    registered,
    scheme_choices,
    scheme_for,
    unregister,
)
from .four import FourBucketScheme
from .rightwrong import RightWrongScheme

__all__ = [
    "AA",
    "DEFAULT_SCHEME",
    "FOUR",
    "AAScheme",
    "Bucket",
    "BucketStyle",
    "Column",
    "FourBucketScheme",
    "RightWrongScheme",
    "Scheme",
    "UnknownScheme",
    "as_scheme",
    "ask_first_buckets",
    "bucket_choices",
    "bucket_label",
    "bucket_style",
    "buckets_registered",
    "offered",
    "register",
    "registered",
    "scheme_choices",
    "scheme_for",
    "unregister",
]

FOUR = scheme_for(FourBucketScheme.key)
AA = scheme_for(AAScheme.key)
# The scheme a new experiment takes when none is chosen (the model's default, the form's initial
# choice, the API's default, the service's).
DEFAULT_SCHEME = FourBucketScheme.key
