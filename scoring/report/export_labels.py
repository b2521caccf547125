"""The result CSVs as a person reads them: column headings and values in the interface's language.

In English the CSVs keep the machine names (they are English words already, and scripts read
them); in any other interface language every CSV of results (a scorer's responses and figures,
the final report's final buckets, figures and moves, the scorers' times) gets headings in that
language and its enumerations by their names: bucket, scheme, confidence, verdict, provider,
format issues, row kinds, true/false. ``?labels=machine`` asks for the machine names in any
language (a link on each page offers it); JSON, JSON Lines, the API and the command line always
carry the machine names. The bank's CSV is an interchange format and never goes through here.
docs/export-columns.md lists each column's English and Japanese heading.
"""

from __future__ import annotations

from django.utils.translation import get_language, gettext, pgettext, pgettext_lazy

from adapters.registry import PROVIDERS
from probe.csvfile import CsvLabels
from probe.models import Experiment
from probe.models.banks import AnswerKind
from probe.sheetparser import ISSUE_LABELS
from scoring.models import Judgement
from scoring.schemes.base import Bucket


def _c(text: str):
    return pgettext_lazy("CSV column", text)


HEADERS = {
    "experiment": _c("Experiment"),
    "scheme": _c("Scheme"),
    "item": _c("Item"),
    "block": _c("Block"),
    "block_title": _c("Block title"),
    "question": _c("Question"),
    "key": _c("Key"),
    "key_flagged": _c("Key flagged (!)"),
    "key_snapshot": _c("Key in the snapshot"),
    "key_judged_against": _c("Key judged against"),
    "run_label": _c("Run label"),
    "provider": _c("Provider"),
    "model": _c("Model"),
    "simulated": _c("Simulated"),
    "repeat": _c("Repeat"),
    "answer": _c("Answer"),
    "confidence": _c("Confidence"),
    "abstained": Bucket.ABSTAINED.label,
    "hedged": _c("Hedged"),
    "issues": _c("Format issues"),
    "bucket": _c("Bucket"),
    "verdict": _c("Verdict"),
    "unblinded": _c("Unblinded"),
    "needs_recheck": _c("Needs a re-check"),
    "scorer": _c("Scorer"),
    "carried_from": _c("Carried from"),
    "w": _c("Weight w"),
    "noise_floor": _c("Noise floor"),
    "row": _c("Row"),
    "configuration": _c("Configuration"),
    "facet": _c("Facet"),
    "facet_value": _c("Facet value"),
    "n": _c("Items (N)"),
    "correct": Bucket.CORRECT.label,
    "confident_wrong": Bucket.CONFIDENT_WRONG.label,
    "hedged_wrong": Bucket.HEDGED_WRONG.label,
    "incorrect": Bucket.INCORRECT.label,
    "partial": Bucket.PARTIAL.label,
    "not_attempted": Bucket.NOT_ATTEMPTED.label,
    "unscored": _c("Unscored"),
    "knowledge": _c("Knowledge"),
    "hallucination_rate_probe": _c("Hallucination rate (this probe)"),
    "hallucination_rate_aa": _c("Hallucination rate (AA-Omniscience)"),
    "net_usable": _c("Net usable"),
    "net_usable_min": _c("Net usable, lowest repeat"),
    "net_usable_max": _c("Net usable, highest repeat"),
    "index": _c("Index"),
    "index_min": _c("Index, lowest repeat"),
    "index_max": _c("Index, highest repeat"),
    "accuracy": _c("Accuracy"),
    "attempt_rate": _c("Attempt rate"),
    "partial_rate": _c("Partial rate"),
    "abstention_rate": _c("Abstention rate"),
    "high_count": _c("Answers rated HIGH"),
    "high_accuracy": _c("Accuracy at HIGH"),
    "medium_count": _c("Answers rated MEDIUM"),
    "medium_accuracy": _c("Accuracy at MEDIUM"),
    "low_count": _c("Answers rated LOW"),
    "low_accuracy": _c("Accuracy at LOW"),
    "calibration_single_level": _c("Every rating at one level"),
    "compliance": _c("Format compliance"),
    "other_configuration": _c("Other configuration"),
    "gap": _c("Gap"),
    "gap_is_noise": _c("Gap under the noise floor"),
    "correct_given_attempted": _c("Correct given attempted"),
    "f_score": _c("F-score"),
    "repeat_same_bucket": _c("Same bucket across repeats"),
    "repeat_gap": _c("Largest gap between repeats"),
    "gap_level": _c("Confidence level of the gap's interval"),
    "p_permutation": _c("Permutation p"),
    "p_permutation_holm": _c("Permutation p (Holm)"),
    "separable": _c("Separable"),
    "repeat_noise_floor": _c("Noise floor of the repeats"),
    "within_repeat_variation": _c("Within the repeats' variation"),
    "answer_at": _c("Answered at"),
    "answered": _c("Answered"),
    "coverage": _c("Coverage"),
    "risk": _c("Risk"),
    "score": _c("Score"),
    "sweep_w": _c("w of the sweep"),
    "sweep_t": _c("Confidence threshold w / (1 + w)"),
    "figure": _c("Figure"),
    "final": _c("Final"),
    "value": _c("Scorer's value"),
    "move": _c("Move"),
    "mean_abs_move": _c("Mean absolute move"),
    "seconds": _c("Seconds"),
    "decisions": _c("Decisions"),
    "decisions_per_minute": _c("Decisions per minute"),
}
# A figure's interval ends: "<figure>_low" and "<figure>_high".
ENDS = {
    "low": pgettext_lazy("CSV column", "%(figure)s: lower end of the 95 % interval"),
    "high": pgettext_lazy("CSV column", "%(figure)s: upper end of the 95 % interval"),
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
CONFIDENCES = {
    "HIGH": pgettext_lazy("confidence", "high"),
    "MEDIUM": pgettext_lazy("confidence", "medium"),
    "LOW": pgettext_lazy("confidence", "low"),
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


def header(column: str) -> str:
    """A column's heading in the active language (the machine name for a column without one)."""
    if column in HEADERS:
        return str(HEADERS[column])
    stem, _sep, end = column.rpartition("_")
    if end in ENDS and stem in HEADERS:
        return str(ENDS[end]) % {"figure": HEADERS[stem]}
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
        "scheme": _names(dict(Experiment.Scheme.choices)),
        "bucket": _names(dict(Bucket.choices)),
        "verdict": _names(dict(Judgement.Verdict.choices)),
        "confidence": _names(CONFIDENCES),
        "provider": {name: gettext(PROVIDERS[name].label) for name in PROVIDERS},
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
