"""The wrong answers a simulated model gives: plausible, specific to the item, never a key entry.

A real model that does not know an item rarely says something random: it gives a number near
the right one (1648 -> 1649, 429 -> 428), a related but wrong term (Saturn -> Jupiter, Retry-After
-> Retry-Before, 最大 -> 最小), or a confident sentence with one part of the mechanism wrong. The
simulator has no knowledge of the world, so it finds these by rule: a number near the key's, a
term of the same family (``FAMILIES``), a part of the key swapped for a part of another item's
key or of the question. No candidate is a key entry of the bank (its own or another item's,
folded) or still says everything the key says, so a person marks it wrong.

The candidates depend on the item only, never on the model: hard items are hard for every
simulated model, and several models then give the same wrong answer, as real models do.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from adapters.simulator.knowledge import Knowledge, KnowledgeItem
from adapters.simulator.wording import carries_key, folded, is_key_entry, one_line


def digest(*parts: Any) -> int:
    joined = "\x1f".join(str(p) for p in parts).encode("utf-8")
    return int.from_bytes(hashlib.sha256(joined).digest()[:8], "big")


# Terms a model mistakes for one another, by family. Latin words match whole words, ignoring
# case; Japanese terms match where they stand in the text.
FAMILIES: tuple[tuple[str, ...], ...] = (
    ("before", "after"),
    ("first", "last"),
    ("minimum", "maximum"),
    ("min", "max"),
    ("upper", "lower"),
    ("left", "right"),
    ("client", "server"),
    ("request", "response"),
    ("read", "write"),
    ("input", "output"),
    ("push", "pull"),
    ("open", "close"),
    ("inner", "outer"),
    ("major", "minor", "patch"),
    ("increase", "decrease"),
    ("increases", "decreases"),
    ("higher", "lower"),
    ("true", "false"),
    ("local", "global"),
    ("public", "private", "protected"),
    ("static", "dynamic"),
    ("synchronous", "asynchronous"),
    ("horizontal", "vertical"),
    ("index", "order", "level", "layer"),
    ("header", "trailer", "footer"),
    ("tcp", "udp", "sctp"),
    ("get", "post", "put", "patch"),
    ("http", "https", "ftp"),
    ("ipv4", "ipv6"),
    ("json", "xml", "yaml"),
    ("stack", "heap", "queue"),
    ("row", "column"),
    ("encryption", "compression", "hashing"),
    ("thread", "process", "coroutine"),
    ("lock", "mutex", "semaphore"),
    ("cache", "buffer", "pool"),
    ("latency", "throughput", "bandwidth"),
    ("commit", "rollback", "checkpoint"),
    ("insert", "update", "delete", "merge"),
    ("mean", "median", "mode"),
    ("sine", "cosine", "tangent"),
    ("proton", "neutron", "electron"),
    ("mitosis", "meiosis"),
    ("dna", "rna"),
    ("helicase", "polymerase", "ligase", "primase"),
    ("oxygen", "nitrogen", "hydrogen", "carbon", "helium"),
    ("iron", "cobalt", "nickel", "manganese", "copper"),
    ("mercury", "venus", "mars", "jupiter", "saturn", "uranus", "neptune"),
    ("titan", "europa", "ganymede", "triton", "callisto"),
    ("pacific", "atlantic", "indian", "arctic"),
    ("portuguese", "spanish", "italian", "french"),
    ("english", "german", "dutch"),
    ("canberra", "sydney", "melbourne"),
    ("ottawa", "toronto", "montreal"),
    ("berlin", "munich", "hamburg"),
    ("paris", "lyon", "marseille"),
    ("tokyo", "osaka", "kyoto"),
    ("ulaanbaatar", "erdenet", "darkhan"),
    ("ouagadougou", "bamako", "niamey"),
    ("tigris", "euphrates", "jordan"),
    ("nile", "congo", "niger"),
    ("python", "ruby", "perl"),
    ("java", "kotlin", "scala"),
    ("postgresql", "mysql", "sqlite"),
    ("chrome", "firefox", "safari"),
    ("celsius", "fahrenheit", "kelvin"),
    ("seconds", "milliseconds", "minutes"),
    ("second", "minute", "hour"),
    ("january", "february", "march", "april", "may", "june"),
    ("july", "august", "september", "october", "november", "december"),
    ("monday", "tuesday", "wednesday", "thursday", "friday"),
    ("前", "後"),
    ("最大", "最小"),
    ("以上", "以下", "未満"),
    ("上", "下"),
    ("左", "右"),
    ("クライアント", "サーバー"),
    ("リクエスト", "レスポンス"),
    ("読み込み", "書き込み"),
    ("入力", "出力"),
    ("開始", "終了"),
    ("増加", "減少"),
    ("送信", "受信"),
    ("公開", "非公開"),
    ("静的", "動的"),
    ("同期", "非同期"),
    ("行", "列"),
    ("暗号化", "圧縮"),
    ("スレッド", "プロセス"),
    ("キャッシュ", "バッファ"),
    ("陽子", "中性子", "電子"),
    ("酸素", "窒素", "水素", "炭素"),
    ("鉄", "コバルト", "ニッケル", "銅"),
    ("水星", "金星", "火星", "木星", "土星", "天王星", "海王星"),
    ("太平洋", "大西洋", "インド洋"),
    ("東京", "大阪", "京都"),
    ("ポルトガル語", "スペイン語", "イタリア語"),
    ("東", "西", "南", "北"),
)
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z+]*")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_PART_SPLIT = re.compile(r"([\s\-_/.]+)")
_STOPWORDS = frozenset(
    "a an the of in on at to for by with and or is are was were be it its this that which what "
    "who how does do did from as into than then when where why not no".split()
)
# Other items a part may be drawn from (a few are enough, and a long bank stays fast).
_POOL_ITEMS = 24
_TITLE_LABEL = re.compile(r"^\s*[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)+\s*$")


def _cased(word: str, like: str) -> str:
    if like.isupper() and len(like) > 1:
        return word.upper()
    if like[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


# Each term's families, and the Japanese terms (found by search, not by word).
_FAMILIES_OF: dict[str, list[tuple[str, ...]]] = {}
for _family in FAMILIES:
    for _term in _family:
        _FAMILIES_OF.setdefault(_term, []).append(_family)
_JAPANESE_TERMS = tuple((t, f) for f in FAMILIES for t in f if not t.isascii())


def _related_terms(text: str, salt: str) -> list[str]:
    """The text with one term swapped for another of its family, for each term it has."""
    found = []
    for match in _LATIN_WORD.finditer(text):
        word = match.group(0)
        for family in _FAMILIES_OF.get(word.casefold(), ()):
            others = [w for w in family if w != word.casefold()]
            other = others[digest("family", salt, word) % len(others)]
            found.append(text[: match.start()] + _cased(other, word) + text[match.end() :])
    if text.isascii():
        return found
    for term, family in _JAPANESE_TERMS:
        if term in text:
            if len(term) == 1 and len(text) > 8:
                continue  # one kanji inside a long text is too often part of another word
            others = [t for t in family if t != term]
            found.append(text.replace(term, others[digest("family", salt, term) % len(others)], 1))
    return found


def _number_slips(key: str, salt: str) -> list[str]:
    """The key with one of its numbers a little off: a year by one or two, a status code by
    one within its class, a count by a little; a trailing name of the number is dropped (a
    model that says 428 does not call it Too Many Requests)."""
    numbers = list(_NUMBER.finditer(key))
    target = numbers[digest("which-number", salt) % len(numbers)]
    text = target.group(0)
    if "." in text:
        decimals = len(text.split(".")[1])
        step = 10**-decimals
        values = [f"{float(text) + d * step:.{decimals}f}" for d in (1, -1, 3)]
    else:
        n = int(text)
        if len(text) == 4 and 1000 <= n <= 2100:
            deltas = (1, -1, 2, -3, 10)
        elif len(text) == 3 and 100 <= n <= 599:
            deltas = tuple(d for d in (1, -1, 2, -2, 3) if (n + d) // 100 == n // 100)
        elif n < 10:
            deltas = (1, -1, 2)
        elif n < 10_000:
            deltas = (1, -1, 2, 10)
        else:
            step = max(1, round(n * 0.02))
            deltas = (step, -step, 5 * step)
        values = [str(n + d) for d in deltas if n + d >= 0]
    if digest("direction", salt) % 2:
        values = values[1:2] + values[:1] + values[2:]
    rest = key[target.end() :]
    if _TITLE_LABEL.match(rest):
        rest = ""
    return [key[: target.start()] + value + rest for value in values]


def _content_words(text: str) -> list[str]:
    return [
        w
        for w in re.findall(r"[^\W\d_][\w'-]*", text)
        if w.casefold() not in _STOPWORDS and len(w) > 2
    ]


def _part_swaps(item: KnowledgeItem, knowledge: Knowledge, key: str) -> list[str]:
    """One part of the key ("George Eliot", "Retry-After", a sentence's longest word) swapped
    for a part of the same kind from another item's key, or else from the question."""
    parts = _PART_SPLIT.split(key)
    words = [i for i, part in enumerate(parts) if i % 2 == 0 and re.search(r"[^\W\d_]", part)]
    if not words:
        return []
    if len(words) > 4:  # a sentence: change its longest content word
        index = max(words, key=lambda i: (parts[i].casefold() not in _STOPWORDS, len(parts[i])))
    else:
        index = (
            words[-1] if parts[words[-1]][:1].isupper() else words[digest("part", key) % len(words)]
        )
    # A part that is a whole key itself ("Saturn") would make the answer another item's key.
    own = {p.casefold() for p in parts} | knowledge.folded_answers
    wanted_title = parts[index][:1].isupper()
    pool = []
    # A few other items, the same for every model, are enough to draw a part from.
    start = digest("others", item.key) % max(len(knowledge.items), 1)
    for other in (knowledge.items[start:] + knowledge.items[:start])[:_POOL_ITEMS]:
        if other.key == item.key:
            continue
        for part in _PART_SPLIT.split(one_line(other.answer))[::2]:
            if (
                len(part) > 2
                and part.casefold() not in own
                and folded(part) not in own
                and part[:1].isupper() == wanted_title
                and not _NUMBER.fullmatch(part)
            ):
                pool.append(part)
    pool = sorted(set(pool), key=lambda p: digest("pool", key, p))
    # From the question, only words of the part's own script ("z-index" takes no Japanese).
    pool += [
        w
        for w in _content_words(item.question)
        if w.casefold() not in own and w.isascii() == parts[index].isascii()
    ]
    return [
        "".join(parts[:index] + [_cased(choice, parts[index])] + parts[index + 1 :])
        for choice in pool[:3]
    ]


_VOWELS = "aeiou"


def _near_miss(key: str) -> str:
    """Another word that looks like the key: a vowel changed and two inner letters swapped."""
    letters = list(key)
    vowels = [i for i, ch in enumerate(letters) if ch.lower() in _VOWELS]
    if vowels:
        at = vowels[digest("vowel", key) % len(vowels)]
        old = letters[at].lower()
        new = _VOWELS[(_VOWELS.index(old) + 1 + digest("to", key) % 4) % 5]
        letters[at] = new.upper() if letters[at].isupper() else new
    if len(letters) >= 5:
        at = 1 + digest("swap", key) % (len(letters) - 3)
        letters[at], letters[at + 1] = letters[at + 1], letters[at]
    word = "".join(letters)
    return word if folded(word) != folded(key) else key + "s"


def wrong_answers(item: KnowledgeItem, knowledge: Knowledge) -> list[str]:
    """The item's plausible wrong answers, likeliest first; the same for every model."""
    key = one_line(item.answer)
    if _NUMBER.search(key):
        candidates = _number_slips(key, item.key) + _related_terms(key, item.key)
    else:
        candidates = _related_terms(key, item.key)
    candidates += _part_swaps(item, knowledge, key)
    candidates.append(_near_miss(key))
    keys = knowledge.folded_answers
    unique: list[str] = []
    seen: set[str] = set()
    for candidate in candidates:
        candidate = one_line(candidate)
        mark = folded(candidate)
        if (
            mark
            and mark not in seen
            and not is_key_entry(candidate, keys)
            and not carries_key(candidate, key)
        ):
            seen.add(mark)
            unique.append(candidate)
    return unique or [f"not {key}"]


_YEAR_QUESTION = re.compile(r"\b(?:year|when)\b|何年|いつ", re.IGNORECASE)
_COUNT_QUESTION = re.compile(
    r"\b(?:how many|how much|number|port|version)\b|いくつ|何人|何個|何番", re.IGNORECASE
)


def guess(question: str, knowledge: Knowledge) -> str:
    """A model's guess at an item it has never seen (no key was sent for it): a year or a count
    where the question asks for one, a term of the family of one of its words, else one of its
    words; never a key entry."""
    salt = " ".join(question.casefold().split())
    keys = knowledge.folded_answers
    if _YEAR_QUESTION.search(question):
        candidates = [str(1900 + digest("year", salt) % 120)]
    elif _COUNT_QUESTION.search(question):
        candidates = [str(2 + digest("count", salt) % 98)]
    else:
        words = _content_words(question)
        related = [
            other
            for word in words
            for family in FAMILIES
            if word.casefold() in family
            for other in family
            if other != word.casefold()
        ]
        candidates = [_cased(w, "A") for w in related] + sorted(words, key=len, reverse=True)
    for candidate in candidates:
        if not is_key_entry(candidate, keys):
            return candidate
    return "none of these"
