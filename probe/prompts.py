"""The default instruction texts and the exact text put to a model.

The default prompt carries the probe's four rules: closed book with tools off; UNKNOWN allowed
and not penalised (a wrong answer and an UNKNOWN are scored differently); a compulsory
confidence rating, HIGH meaning an answer you would stake a technical decision on; exactly two
lines per item and nothing else. The tokens ANSWER, CONFIDENCE, UNKNOWN, HIGH, MEDIUM and LOW
stay in English in every language, because the parser reads them.
"""

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

DEFAULT_PROMPT_NAME = {"en": "Default (English)", "ja": "Default (Japanese)"}
# The note of each default prompt's version 1, in the prompt's own language (stored with it, like
# its text, not translated for the reader).
DEFAULT_PROMPT_NOTE = {"en": "Default prompt of the app", "ja": "アプリの既定のプロンプト"}

DEFAULT_PROMPTS = {
    "en": """\
You are taking a closed-book knowledge test of short-answer questions.

Rules:
1. Closed book. Answer from your own knowledge only. Tools are off: do not search the web, \
run code, or consult any document, even if you are able to.
2. UNKNOWN is allowed and costs nothing. If you do not know an answer, write UNKNOWN. \
A wrong answer and an UNKNOWN are scored differently: a confident wrong answer counts \
against you, an UNKNOWN does not.
3. Rate your confidence for every answer: HIGH, MEDIUM or LOW. HIGH means you would stake \
a technical decision on this answer without checking it. MEDIUM means probably right. \
LOW means a guess. For UNKNOWN, write LOW.
4. Reply with exactly two lines per question and nothing else: no introduction, no \
explanations, no summary.

N. ANSWER: <your short answer, or UNKNOWN>
CONFIDENCE: <HIGH, MEDIUM or LOW>

Use the question's number for N. The questions follow.""",
    "ja": """\
これは短答式の知識テストです。何も参照せずに答えてください。

規則：
1. 参照禁止。自分の知識だけで答えてください。ツールは使えません。使える場合でも、\
ウェブ検索、コードの実行、文書の参照はしないでください。
2. UNKNOWN と答えてかまいません。減点はありません。答えを知らない場合は UNKNOWN と\
書いてください。誤答と UNKNOWN は別々に採点されます。自信を持った誤答は減点されますが、\
UNKNOWN は減点されません。
3. すべての答えに確信度を HIGH、MEDIUM、LOW のいずれかで付けてください。HIGH は、\
確認せずにその答えに基づいて技術的な判断を下せるという意味です。MEDIUM はおそらく正しい、\
LOW は推測という意味です。UNKNOWN の場合は LOW と書いてください。
4. 各設問に対して次の二行だけを書いてください。前置き、説明、まとめは書かないでください。

N. ANSWER: <短い答え、または UNKNOWN>
CONFIDENCE: <HIGH、MEDIUM、LOW のいずれか>

N には設問の番号を書いてください。ANSWER、CONFIDENCE、UNKNOWN、HIGH、MEDIUM、LOW は\
英語のまま、半角で書いてください。設問の番号、ピリオド（.）、コロン（:）も半角で書いてください\
（例：「1. ANSWER: 42」）。答えの中では全角文字を使ってかまいません。以下が設問です。""",
}


def content_hash(text: str) -> str:
    """The SHA-256 of the exact text (UTF-8), shown beside every prompt version."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class PromptItem:
    position: int
    block_code: str
    block_title: str
    question: str
    answer_format: str = ""


def _item_lines(item: PromptItem, language: str = "en") -> str:
    lines = item.question.strip().splitlines() or [""]
    text = f"{item.position}. {lines[0]}"
    for line in lines[1:]:
        text += f"\n   {line}"
    if item.answer_format:
        # The answer's format in brackets, full-width in a Japanese prompt: 「（整数）」.
        opening, closing = ("\uff08", "\uff09") if language == "ja" else ("(", ")")
        text += f"\n   {opening}{item.answer_format}{closing}"
    return text


def block_heading(code: str, title: str, language: str = "en") -> str:
    """A block's heading on the sheet, in the prompt's language: "Block A. Title", or the
    Japanese form 「ブロックA　タイトル」 (an ideographic space between the code and the title)."""
    if language == "ja":
        return f"ブロック{code}\u3000{title}".rstrip("\u3000")
    return f"Block {code}. {title}"


def build_sheet_prompt(instructions: str, items: Iterable[PromptItem], language: str = "en") -> str:
    """The whole sheet in one request: the instructions, then items 1..N under block headings
    written in the prompt's language."""
    parts = [instructions.rstrip(), ""]
    current_block = None
    for item in items:
        if item.block_code != current_block:
            if current_block is not None:
                parts.append("")
            parts.append(block_heading(item.block_code, item.block_title, language))
            current_block = item.block_code
        parts.append(_item_lines(item, language))
    return "\n".join(parts).rstrip() + "\n"


def build_item_prompt(instructions: str, item: PromptItem, language: str = "en") -> str:
    """One request per item: the instructions, then the one item under its number."""
    return f"{instructions.rstrip()}\n\n{_item_lines(item, language)}\n"
