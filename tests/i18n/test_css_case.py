"""No CSS upper-casing: it turns κ and α into "K" and "A", and writes a Japanese page's Latin
words in capitals the text does not have (「COMMENTS ON THE KEY」). A heading is written in the
case it is read in."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_no_stylesheet_upper_cases_text():
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted((ROOT / "static" / "css").glob("**/*.css"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"text-transform\s*:\s*(uppercase|capitalize)", line, re.I)
    ]
    assert not found, found
