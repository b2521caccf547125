"""How fast the answer-sheet parser reads a 1,000-item sheet (target: under 100 ms).

Run: .venv/bin/python bench/parser.py
"""

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from probe.sheetparser import parse_sheet  # noqa: E402

TARGET_MS = 100.0


def main() -> None:
    levels = ("HIGH", "MEDIUM", "LOW")
    text = "\n".join(
        f"{i + 1}. ANSWER: answer number {i} (see RFC {i})\nCONFIDENCE: {levels[i % 3]}"
        for i in range(1000)
    )
    timings = []
    for _ in range(30):
        start = time.perf_counter()
        sheet = parse_sheet(text, 1000)
        timings.append((time.perf_counter() - start) * 1000)
    assert sheet.compliance == 1.0
    timings.sort()
    print(
        f"parse_sheet, 1,000 items: median {statistics.median(timings):.1f} ms, "
        f"p95 {timings[int(len(timings) * 0.95) - 1]:.1f} ms (target: under {TARGET_MS:.0f} ms)"
    )


if __name__ == "__main__":
    main()
