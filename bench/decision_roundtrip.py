"""One decision on the blind queue: the POST to scoring:decide, whose htmx response is the state
the client shows next (the item with the decision in it and the focus on the next open answer;
no second request). Measured at 2, 20 and 50 sheets on a 1,000-item experiment, at the start of
the queue (nothing judged yet) and at its end (items 1-920 already judged). Target: p95 at most
20 ms server time at 20 sheets, anywhere in the queue. Beside it: the GET of the next item's
fragment (moving on once an item is done), and the ratio to GET /healthz.

Run it on PostgreSQL (the figure that counts):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench .venv/bin/python bench/decision_roundtrip.py
Without DATABASE_URL it runs on SQLite. It makes and drops a database of its own per size.
"""

import sys
import time

from _setup import describe, django_setup, median, percentile, throwaway_database

TARGET_P95_MS = 20.0
TARGET_SHEETS = 20
N_ITEMS, DECISIONS, WARMUP = 1000, 60, 10
SHEETS = (2, 20, 50)
END_START = 921  # "the end of the queue": items before it are judged already
HX = {"HTTP_HX_REQUEST": "true"}


def answer_for(item_index: int, run_index: int):
    if (item_index + run_index) % 19 == 0:
        return "UNKNOWN", ""
    # four distinct answers per item: groups of about n/4 identical answers
    return f"answer {item_index} v{run_index % 4}", ("HIGH", "MEDIUM", "LOW")[run_index % 3]


def judge_before(assignment, position: int) -> None:
    """Every response of items 1..position-1 judged (as a scorer who got that far)."""
    from tests.builders import bulk_judgements

    bulk_judgements(assignment, lambda unit: "correct", item__position__lt=position)


def measure(client, assignment, positions) -> tuple[list[float], list[float]]:
    from django.urls import reverse

    from scoring.queue import selectors

    posts, gets = [], []
    for k, position in enumerate(positions):
        group = next(g for g in selectors.queue_item(assignment, position).groups if not g.decided)
        token = assignment.token
        decide = reverse("scoring:decide", kwargs={"assignment_token": token, "position": position})
        following = reverse(
            "scoring:item", kwargs={"assignment_token": token, "position": position + 1}
        )
        t0 = time.perf_counter()
        response = client.post(decide, {"tokens": group.tokens, "bucket": "correct"}, **HX)
        t1 = time.perf_counter()
        fragment = client.get(following, **HX)
        t2 = time.perf_counter()
        assert response.status_code == 200 and fragment.status_code == 200
        assert b'data-focus-after="' + group.tokens.encode() in response.content
        if k >= WARMUP:
            posts.append((t1 - t0) * 1000)
            gets.append((t2 - t1) * 1000)
    return posts, gets


def line(name: str, values: list[float], floor: float, target: bool) -> str:
    p50, p95 = median(values), percentile(values, 95)
    text = f"  {name:<34} p50 {p50:6.1f} ms  p95 {p95:6.1f} ms  ({p50 / floor:4.1f}x healthz)"
    if target:
        verdict = "OK" if p95 <= TARGET_P95_MS else "OVER TARGET"
        text += f"   target p95 <= {TARGET_P95_MS:.0f} ms: {verdict}"
    return text


def run_size(n_sheets: int) -> bool:
    with throwaway_database(f"roundtrip{n_sheets}") as connection:
        from django.test import Client
        from django.urls import reverse

        from scoring.queue import services
        from tests.builders import standalone_experiment

        start = time.perf_counter()
        experiment, user = standalone_experiment(
            n_items=N_ITEMS, n_configs=n_sheets, repeats=1, answer_for=answer_for
        )
        assignment = services.assignment_start(experiment=experiment, user=user)
        client = Client()
        client.force_login(user)
        first = range(1, WARMUP + DECISIONS + 1)
        at_start = measure(client, assignment, first)
        judge_before(assignment, END_START)
        at_end = measure(client, assignment, range(END_START, END_START + WARMUP + DECISIONS))
        floor_times = []
        for _ in range(200):
            t0 = time.perf_counter()
            client.get(reverse("healthz"))
            floor_times.append((time.perf_counter() - t0) * 1000)
        floor = median(floor_times)
        setup_s = time.perf_counter() - start
        print(
            f"{n_sheets} sheets x {N_ITEMS:,} items on {describe(connection)}"
            f" ({DECISIONS} decisions at each end; {setup_s:.0f} s in all)"
        )
        target = n_sheets == TARGET_SHEETS
        print(line("decision, start of the queue", at_start[0], floor, target))
        print(line("decision, end of the queue", at_end[0], floor, target))
        print(line("next item (GET), start", at_start[1], floor, False))
        print(line("next item (GET), end", at_end[1], floor, False))
        print(f"  {'GET healthz (the floor)':<34} p50 {floor:6.1f} ms")
        worst = max(percentile(at_start[0], 95), percentile(at_end[0], 95))
        return not target or worst <= TARGET_P95_MS


def main() -> None:
    django_setup()
    sizes = [int(a) for a in sys.argv[1:]] or list(SHEETS)
    results = [run_size(n) for n in sizes]
    if not all(results):
        print(f"over target at {TARGET_SHEETS} sheets")


if __name__ == "__main__":
    main()
