"""Small pieces of wording every part shares: a list written in the reader's language.

Never join translated words with ", " in code: English writes "a, b", Japanese 「a、b」.
"""

from collections.abc import Iterable

from django.utils.translation import pgettext


def word_list(items: Iterable) -> str:
    """Items as a list in running text: "a, b, c" in English, 「a、b、c」 in Japanese."""
    return pgettext("list separator", ", ").join(str(item) for item in items)
