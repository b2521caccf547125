"""The default grading prompts (English and Japanese, with calibration examples) and the exact
text of one grading request. Pure: no model, no query.

A request is the prompt's instructions, its calibration examples, then the case to grade, each
part under a fixed bracketed marker (the same in both languages, so that the strict reply format
and the local simulator read them alike). The grader is never told which configuration wrote the
answer: a case carries the item, the key entry in force, the answer format, the answer and its
stated confidence, nothing else.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

DEFAULT_NAME = {"en": "Default grader", "ja": "標準の採点"}

# Markers of a case. A request ends with the case to grade; examples come before it.
ITEM, KEY, FORMAT, ANSWER, CONFIDENCE, LABELS = (
    "[ITEM]",
    "[KEY]",
    "[ANSWER FORMAT]",
    "[ANSWER]",
    "[STATED CONFIDENCE]",
    "[LABELS]",
)
EXAMPLE_LABEL, EXAMPLE_CONFIDENCE, EXAMPLE_REASON = "LABEL:", "CONFIDENCE:", "REASON:"

DEFAULT_TEXT = {
    "en": (
        "You grade one short answer of a knowledge probe against its key.\n"
        "Read the item, the key entry, the expected answer format and the answer. Decide whether "
        "the answer says what the key says. Numbers, versions, dates, identifiers and citations "
        "must match the key exactly: 3.1 is not 3.10, 2019 is not 2020, and a close identifier is "
        "wrong. A short phrase may differ from the key in case, spacing or wording only where the "
        "meaning is the same. An answer that does not commit to one answer is not correct.\n"
        "Reply with exactly three lines and nothing else:\n"
        "LABEL: <one label from the list under [LABELS]>\n"
        "CONFIDENCE: <how sure you are of that label, a number from 0 to 1>\n"
        "REASON: <one line saying why>"
    ),
    "ja": (
        "あなたは知識プローブの短い回答を一つ、キーと照らして採点します。\n"
        "項目、キー、期待される回答形式、回答を読み、回答がキーと同じことを述べているかを判断して"
        "ください。数値、バージョン、日付、識別子、出典はキーと完全に一致しなければなりません。"
        "3.1 は 3.10 ではなく、2019 は 2020 ではなく、似た識別子は誤りです。短い語句は、意味が同じで"
        "あれば大文字小文字、空白、言い回しが違ってもかまいません。一つの答えに決めていない回答は"
        "正解ではありません。\n"
        "次の3行だけで答えてください（ラベルは英語のまま）:\n"
        "LABEL: <[LABELS] の一覧から一つ>\n"
        "CONFIDENCE: <そのラベルへの確信度。0から1の数>\n"
        "REASON: <理由を1行で>"
    ),
}

DEFAULT_EXAMPLES = {
    "en": [
        {
            "question": "Which Python version added the match statement?",
            "key": "3.10",
            "answer_format": "a version number",
            "answer": "3.1",
            "confidence": "HIGH",
            "label": "INCORRECT",
            "label_confidence": "0.95",
            "reason": "3.1 is a different version from 3.10.",
        },
        {
            "question": "Which HTTP header tells a client when to retry?",
            "key": "Retry-After",
            "answer_format": "a header name",
            "answer": "the retry-after header",
            "confidence": "MEDIUM",
            "label": "CORRECT",
            "label_confidence": "0.9",
            "reason": "Names the Retry-After header; case and wording differ only.",
        },
    ],
    "ja": [
        {
            "question": "match 文が追加された Python のバージョンは？",
            "key": "3.10",
            "answer_format": "バージョン番号",
            "answer": "3.1",
            "confidence": "HIGH",
            "label": "INCORRECT",
            "label_confidence": "0.95",
            "reason": "3.1 は 3.10 とは別のバージョンです。",
        },
        {
            "question": "クライアントに再試行の時期を伝える HTTP ヘッダーは？",
            "key": "Retry-After",
            "answer_format": "ヘッダー名",
            "answer": "retry-after ヘッダー",
            "confidence": "MEDIUM",
            "label": "CORRECT",
            "label_confidence": "0.9",
            "reason": "Retry-After ヘッダーを挙げており、違いは大文字小文字と言い回しだけです。",
        },
    ],
}

# An example's "confidence" is the one the answer stated (HIGH, MEDIUM, LOW); its
# "label_confidence" is the grader's in its label, the number its CONFIDENCE: line shows.
EXAMPLE_FIELDS = (
    "question",
    "key",
    "answer_format",
    "answer",
    "confidence",
    "label",
    "label_confidence",
    "reason",
)
# Fields added after versions were hashed: hashed only where given, so that an older version's
# hash stays what it was.
LATER_FIELDS = ("label_confidence",)


def _hashed(example: Mapping[str, str]) -> dict[str, str]:
    return {
        f: example.get(f, "") for f in EXAMPLE_FIELDS if f not in LATER_FIELDS or example.get(f, "")
    }


def content_hash(text: str, examples: Sequence[Mapping[str, str]]) -> str:
    """SHA-256 over the instruction text and the examples (canonical JSON), shown beside every
    grading prompt version and stored on every grade it gave."""
    canonical = json.dumps(
        {"text": text, "examples": [_hashed(e) for e in examples]},
        ensure_ascii=False,
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def config_hash(snapshot: Mapping) -> str:
    """SHA-256 of what a configuration sends (its settings snapshot without its label)."""
    shown = {k: v for k, v in snapshot.items() if k not in ("label", "concurrency_limit")}
    canonical = json.dumps(shown, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Case:
    """What a grader is told of one answer: never the configuration that wrote it."""

    question: str
    key: str
    answer_format: str
    answer: str
    confidence: str


def _case_lines(case: Case, labels: Iterable[str]) -> list[str]:
    return [
        ITEM,
        case.question.strip(),
        KEY,
        case.key.strip(),
        FORMAT,
        case.answer_format.strip() or "-",
        ANSWER,
        case.answer.strip() or "-",
        CONFIDENCE,
        case.confidence or "-",
        LABELS,
        " | ".join(labels),
    ]


def build_request(
    instructions: str, examples: Sequence[Mapping[str, str]], case: Case, labels: Sequence[str]
) -> str:
    """The exact text sent to a model grader for one answer."""
    parts = [instructions.strip()]
    for number, example in enumerate(examples, start=1):
        shown = Case(
            question=example.get("question", ""),
            key=example.get("key", ""),
            answer_format=example.get("answer_format", ""),
            answer=example.get("answer", ""),
            confidence=example.get("confidence", ""),
        )
        lines = [f"Example {number}", *_case_lines(shown, labels)]
        lines.append(f"{EXAMPLE_LABEL} {example.get('label', '')}")
        if example.get("label_confidence"):
            lines.append(f"{EXAMPLE_CONFIDENCE} {example['label_confidence']}")
        lines.append(f"{EXAMPLE_REASON} {example.get('reason', '')}")
        parts.append("\n".join(lines))
    parts.append("\n".join(["Grade this answer", *_case_lines(case, labels)]))
    return "\n\n".join(parts) + "\n"
