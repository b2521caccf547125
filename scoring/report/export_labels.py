"""The result CSVs as a person reads them: column headings and values in the interface's language.

In English the CSVs keep the machine names (they are English words already, and scripts read
them); in any other interface language every CSV of results (a scorer's responses and figures,
the final report's final buckets, figures and moves, the scorers' times) gets headings in that
language and its enumerations by their names: bucket, scheme, verdict, provider, format
issues, row kinds, true/false (the confidence keeps its tokens, HIGH / MEDIUM / LOW, as the
glossary does). ``?labels=machine`` asks for the machine names in any
language (a link on each page offers it); JSON, JSON Lines, the API and the command line always
carry the machine names. The bank's CSV is an interchange format and never goes through here.
docs/export-columns.md lists each column's English and Japanese heading.
"""

from __future__ import annotations

from django.utils.translation import get_language, pgettext, pgettext_lazy

from probe.csvfile import CsvLabels
from probe.models.banks import AnswerKind
from probe.provider_labels import provider_labels
from probe.sheetparser import ISSUE_LABELS
from scoring.models import Judgement
from scoring.schemes.base import Bucket, bucket_choices, buckets_registered, scheme_choices

HEADERS = {
    "experiment": pgettext_lazy("CSV column", "Experiment"),
    "scheme": pgettext_lazy("CSV column", "Scheme"),
    "item": pgettext_lazy("CSV column", "Item"),
    "response_id": pgettext_lazy("CSV column", "Response id"),
    "block": pgettext_lazy("CSV column", "Block"),
    "block_title": pgettext_lazy("CSV column", "Block title"),
    "question": pgettext_lazy("CSV column", "Question"),
    "key": pgettext_lazy("CSV column", "Key"),
    "key_flagged": pgettext_lazy("CSV column", "Key flagged (!)"),
    "key_snapshot": pgettext_lazy("CSV column", "Key in the snapshot"),
    "key_judged_against": pgettext_lazy("CSV column", "Key judged against"),
    "run_label": pgettext_lazy("CSV column", "Run label"),
    "provider": pgettext_lazy("CSV column", "Provider"),
    "model": pgettext_lazy("CSV column", "Model"),
    "simulated": pgettext_lazy("CSV column", "Simulated"),
    "repeat": pgettext_lazy("CSV column", "Repeat"),
    "answer": pgettext_lazy("CSV column", "Answer"),
    "confidence": pgettext_lazy("CSV column", "Confidence"),
    "abstained": Bucket.ABSTAINED.label,
    "hedged": pgettext_lazy("CSV column", "Hedged"),
    "issues": pgettext_lazy("CSV column", "Format issues"),
    "bucket": pgettext_lazy("CSV column", "Bucket"),
    "verdict": pgettext_lazy("CSV column", "Verdict"),
    "unblinded": pgettext_lazy("CSV column", "Unblinded"),
    "needs_recheck": pgettext_lazy("CSV column", "Needs a re-check"),
    "scorer": pgettext_lazy("CSV column", "Scorer"),
    "carried_from": pgettext_lazy("CSV column", "Carried from"),
    "w": pgettext_lazy("CSV column", "Weight w"),
    "noise_floor": pgettext_lazy("CSV column", "Noise floor"),
    "row": pgettext_lazy("CSV column", "Row"),
    "configuration": pgettext_lazy("CSV column", "Configuration"),
    "facet": pgettext_lazy("CSV column", "Facet"),
    "facet_value": pgettext_lazy("CSV column", "Facet value"),
    "n": pgettext_lazy("CSV column", "Items (N)"),
    "unscored": pgettext_lazy("CSV column", "Unscored"),
    "knowledge": pgettext_lazy("CSV column", "Knowledge"),
    "hallucination_rate_probe": pgettext_lazy("CSV column", "Hallucination rate (this probe)"),
    "hallucination_rate_aa": pgettext_lazy("CSV column", "Hallucination rate (AA-Omniscience)"),
    "net_usable": pgettext_lazy("CSV column", "Net usable"),
    "net_usable_min": pgettext_lazy("CSV column", "Net usable, lowest repeat"),
    "net_usable_max": pgettext_lazy("CSV column", "Net usable, highest repeat"),
    "index": pgettext_lazy("CSV column", "Index"),
    "index_min": pgettext_lazy("CSV column", "Index, lowest repeat"),
    "index_max": pgettext_lazy("CSV column", "Index, highest repeat"),
    "accuracy": pgettext_lazy("CSV column", "Accuracy"),
    "attempt_rate": pgettext_lazy("CSV column", "Attempt rate"),
    "partial_rate": pgettext_lazy("CSV column", "Partial rate"),
    "abstention_rate": pgettext_lazy("CSV column", "Abstention rate"),
    "high_count": pgettext_lazy("CSV column", "Answers rated HIGH"),
    "high_accuracy": pgettext_lazy("CSV column", "Accuracy at HIGH"),
    "medium_count": pgettext_lazy("CSV column", "Answers rated MEDIUM"),
    "medium_accuracy": pgettext_lazy("CSV column", "Accuracy at MEDIUM"),
    "low_count": pgettext_lazy("CSV column", "Answers rated LOW"),
    "low_accuracy": pgettext_lazy("CSV column", "Accuracy at LOW"),
    "calibration_single_level": pgettext_lazy("CSV column", "Every rating at one level"),
    "compliance": pgettext_lazy("CSV column", "Format compliance"),
    "other_configuration": pgettext_lazy("CSV column", "Other configuration"),
    "gap": pgettext_lazy("CSV column", "Gap"),
    "gap_is_noise": pgettext_lazy("CSV column", "Gap under the noise floor"),
    "correct_given_attempted": pgettext_lazy("CSV column", "Correct given attempted"),
    "f_score": pgettext_lazy("CSV column", "F-score"),
    "repeat_same_bucket": pgettext_lazy("CSV column", "Same bucket across repeats"),
    "repeat_gap": pgettext_lazy("CSV column", "Largest gap between repeats"),
    "gap_level": pgettext_lazy("CSV column", "Confidence level of the gap's interval"),
    "p_permutation": pgettext_lazy("CSV column", "Permutation p"),
    "p_permutation_holm": pgettext_lazy("CSV column", "Permutation p (Holm)"),
    "separable": pgettext_lazy("CSV column", "Separable"),
    "repeat_noise_floor": pgettext_lazy("CSV column", "Noise floor of the repeats"),
    "within_repeat_variation": pgettext_lazy("CSV column", "Within the repeats' variation"),
    "answer_at": pgettext_lazy("CSV column", "Answered at"),
    "answered": pgettext_lazy("CSV column", "Answered"),
    "coverage": pgettext_lazy("CSV column", "Coverage"),
    "risk": pgettext_lazy("CSV column", "Risk"),
    "score": pgettext_lazy("CSV column", "Score"),
    "sweep_w": pgettext_lazy("CSV column", "w of the sweep"),
    "sweep_t": pgettext_lazy("CSV column", "Confidence threshold w / (1 + w)"),
    "figure": pgettext_lazy("CSV column", "Figure"),
    "final": pgettext_lazy("CSV column", "Final"),
    "value": pgettext_lazy("CSV column", "Scorer's value"),
    "move": pgettext_lazy("CSV column", "Move"),
    "mean_abs_move": pgettext_lazy("CSV column", "Mean absolute move"),
    "seconds": pgettext_lazy("CSV column", "Seconds"),
    "decisions": pgettext_lazy("CSV column", "Decisions"),
    "decisions_per_minute": pgettext_lazy("CSV column", "Decisions per minute"),
}
# A figure's interval ends: "<figure>_low" and "<figure>_high".
ENDS = {
    "low": pgettext_lazy("CSV column", "%(figure)s: lower end of the 95 %% interval"),
    "high": pgettext_lazy("CSV column", "%(figure)s: upper end of the 95 %% interval"),
}
ROWS = {
    "run": pgettext_lazy("CSV row", "run"),
    "configuration": pgettext_lazy("CSV row", "configuration"),
    "block": pgettext_lazy("CSV row", "block"),
    "facet": pgettext_lazy("CSV row", "facet"),
    "gap": pgettext_lazy("CSV row", "gap"),
    "risk_coverage": pgettext_lazy("CSV row", "risk and coverage"),
    "sweep": pgettext_lazy("CSV row", "sweep"),
    "crossover": pgettext_lazy("CSV row", "crossover"),
}
FACETS = {
    "topic": pgettext_lazy("CSV value", "topic"),
    "answer_format": pgettext_lazy("CSV value", "kind of answer"),
}
FIGURES = {
    "knowledge": HEADERS["knowledge"],
    "hallucination_rate": pgettext_lazy("CSV value", "hallucination rate"),
    "net_usable": HEADERS["net_usable"],
    "index": HEADERS["index"],
    "accuracy": HEADERS["accuracy"],
}
ANSWER_AT = {"all": pgettext_lazy("CSV value", "all levels")}
ITEMS = {"all": pgettext_lazy("CSV value", "all items")}


def _heading(column: str):
    """A column's heading: its own, or a bucket count's, the bucket's label (scoring.schemes)."""
    if column in HEADERS:
        return HEADERS[column]
    style = buckets_registered().get(column)
    return style.label if style is not None else None


def header(column: str) -> str:
    """A column's heading in the active language (the machine name for a column without one)."""
    own = _heading(column)
    if own is not None:
        return str(own)
    stem, _sep, end = column.rpartition("_")
    if end in ENDS and (figure := _heading(stem)) is not None:
        return str(ENDS[end]) % {"figure": figure}
    return column


def wants_names(request) -> bool:
    """Whether this request's CSV has headings and values by their names: an interface in
    another language than English, without ``?labels=machine``."""
    if request.GET.get("labels") == "machine":
        return False
    return not (get_language() or "en").startswith("en")


def _names(mapping) -> dict[str, str]:
    return {key: str(value) for key, value in mapping.items()}


def csv_labels(columns, named: bool = True) -> CsvLabels | None:
    """The headings and values of a results CSV in the active language, or None for the machine
    names (``named`` false: see ``wants_names``)."""
    if not named:
        return None
    yes, no = pgettext("CSV value", "yes"), pgettext("CSV value", "no")
    values = {
        "scheme": _names(dict(scheme_choices())),
        "bucket": _names(dict(bucket_choices())),
        "verdict": _names(dict(Judgement.Verdict.choices)),
        "provider": provider_labels(),
        "row": _names(ROWS),
        "facet": _names(FACETS),
        "figure": _names(FIGURES),
        "answer_at": _names(ANSWER_AT),
        "item": _names(ITEMS),
    }
    kinds = _names(dict(AnswerKind.choices))
    issues = _names(ISSUE_LABELS)
    separator = pgettext("list separator", ", ")  # as probe.wording.word_list writes a list

    def row(machine: dict) -> dict:
        named = {}
        for column, value in machine.items():
            if isinstance(value, bool):
                value = yes if value else no
            elif column == "issues" and isinstance(value, list | tuple):
                value = separator.join(issues.get(code, code) for code in value)
            elif column == "facet_value" and machine.get("facet") == "answer_format":
                value = kinds.get(value, value)
            elif isinstance(value, str) and column in values:
                value = values[column].get(value, value)
            named[column] = value
        return named

    return CsvLabels(headers={column: header(column) for column in columns}, row=row)
