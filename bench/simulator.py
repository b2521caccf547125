"""How fast the simulator writes a sheet worded as a model's (targets: a 30-item sheet under 50 ms,
a 1,000-item sheet under 1 s), beside the app's own parser reading the same reply in the same run.

Run: .venv/bin/python bench/simulator.py
"""

import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from adapters.simulator import SIMULATION_FIELD, Simulator  # noqa: E402
from probe.sheetparser import parse_sheet  # noqa: E402

TARGETS_MS = {30: 50.0, 1000: 1000.0}
MODELS = ("sim-overconfident", "sim-sloppy")


def bank(size: int, language: str) -> list[tuple[str, str]]:
    """Keys of every shape the simulator rewords: years, counts, decimals, names, terms, codes,
    phrases with a parenthesis and sentences; a third of the items written in Japanese."""
    rng = random.Random(size)
    items = []
    for n in range(1, size + 1):
        ja = language == "ja"
        thing = f"対象{n}" if ja else f"Thing{n}"
        shape = n % 8
        answer = [
            str(rng.randint(1500, 2020)),
            str(rng.randint(2, 900)),
            f"{rng.uniform(0, 99):.2f}",
            f"Ada Name{n}",
            f"Retry-After-{n}",
            f"RFC {1000 + n}",
            f"{n % 10} (round half to even {n})",
            f"The lock {n} is held while the client writes its log",
        ][shape]
        question = f"{thing}の値は何か。" if ja else f"What is the value of {thing}?"
        items.append((question, answer))
    return items


def median_ms(call, runs: int) -> float:
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        timings.append((time.perf_counter() - start) * 1000)
    return statistics.median(timings)


def main() -> None:
    simulator = Simulator({"items": []})
    for size, target in TARGETS_MS.items():
        for language in ("en", "ja"):
            items = bank(size, language)
            prompt = "Answer.\n" + "\n".join(f"{n}. {q}" for n, (q, _a) in enumerate(items, 1))
            key = {"key": [{"question": q, "answer": a} for q, a in items]}
            for model in MODELS:
                payload = {
                    "model": model,
                    "messages": [{"role": "user", "content": prompt}],
                    "seed": 1,
                    SIMULATION_FIELD: key,
                }
                runs = 20 if size <= 30 else 5
                write = median_ms(lambda p=payload: simulator.chat_completion(p), runs)
                reply = simulator.chat_completion(payload).body["choices"][0]["message"]["content"]
                read = median_ms(lambda r=reply, n=size: parse_sheet(r, n), runs)
                print(
                    f"{model}, {size} items ({language}): writing the sheet {write:.1f} ms "
                    f"(target: under {target:.0f} ms); the parser reading it {read:.1f} ms, "
                    f"ratio {write / read:.1f}x"
                )


if __name__ == "__main__":
    main()
