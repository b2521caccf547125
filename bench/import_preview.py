"""How fast the import preview reads a pasted document (targets: the 6-item web page copy with its
prose under 50 ms with every suggested reading taken; one preview of a 0.8 MB file of 10,000
items, what the page does on each step, under 2 s to read and under 2 s to render the page).

Run: .venv/bin/python bench/import_preview.py
"""

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from probe import bankformat  # noqa: E402

ARTICLE = (ROOT / "tests" / "bankformat" / "documents" / "web_page.txt").read_bytes()
TARGET_ARTICLE_MS = 50.0
TARGET_LARGE_MS = 2000.0


def _code(block: int) -> str:
    return chr(65 + block // 26) + chr(65 + block % 26)


def large_file() -> bytes:
    """About 0.8 MB: 10,000 items in 100 blocks, a key for each, prose after each block."""
    lines = ["# A large bank", ""]
    for block in range(100):
        lines.append(f"Block {_code(block)}")
        lines += [
            f"{n}. Which value does setting number {n} of block {block} take by default?"
            for n in range(1, 101)
        ]
        lines += [
            "",
            "A paragraph of the article between two blocks, which the preview points at.",
            "",
        ]
    lines += ["Answer key", ""]
    for block in range(100):
        lines.append(f"Block {_code(block)}")
        lines += [f"{n}. value {n}" for n in range(1, 101)]
    return ("\n".join(lines) + "\n").encode()


def timed(call, repeat: int) -> list[float]:
    timings = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        timings.append((time.perf_counter() - start) * 1000)
    return sorted(timings)


def main() -> None:
    article = timed(lambda: bankformat.preview_suggested(ARTICLE, "web_page.txt"), 30)
    result = bankformat.preview_suggested(ARTICLE, "web_page.txt")
    assert result.ok and result.bank.item_count == 6 and not result.warnings
    print(
        f"preview with every suggested reading, the web page copy (6 items and prose): median "
        f"{statistics.median(article):.1f} ms, p95 {article[int(len(article) * 0.95) - 1]:.1f} ms "
        f"(target: under {TARGET_ARTICLE_MS:.0f} ms)"
    )
    data = large_file()
    assert len(data) <= bankformat.MAX_BYTES, len(data)
    large = timed(lambda: bankformat.preview(data, "large.txt"), 5)
    result = bankformat.preview(data, "large.txt")
    print(
        f"one preview of a {len(data) / 1e6:.2f} MB file ({result.bank.item_count if result.ok else '?'} "
        f"items, {len(result.warnings)} warnings): median {statistics.median(large):.0f} ms, "
        f"max {large[-1]:.0f} ms (target: under {TARGET_LARGE_MS:.0f} ms)"
    )
    page = timed(lambda: render_preview(result), 3)
    print(
        f"the preview page of that file (every item, the lines around the warnings): median "
        f"{statistics.median(page):.0f} ms (target: under {TARGET_LARGE_MS:.0f} ms)"
    )


def render_preview(result) -> str:
    from types import SimpleNamespace

    from django.contrib.auth.models import AnonymousUser
    from django.template.loader import render_to_string
    from django.test import RequestFactory

    from probe.views.bank_import import _source_lines

    request = RequestFactory().get("/")
    request.user = AnonymousUser()
    team = SimpleNamespace(name="Team", slug="team", get_absolute_url=lambda: "/t/team/")
    context = {
        "team": team,
        "result": result,
        "name": "",
        "taken": [],
        "notice": "",
        "source_lines": _source_lines(result),
        "shown": "",
    }
    return render_to_string("probe/bank_import_preview.html", context, request=request)


if __name__ == "__main__":
    main()
