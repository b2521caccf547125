"""One decision round trip on the blind queue: the POST to scoring:decide and the GET of the next
item's fragment, with 20 sheets on a 1,000-item experiment. Target: p95 under 50 ms.

Run it on PostgreSQL (the figure that counts):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/helperr .venv/bin/python bench/decision_roundtrip.py
Without DATABASE_URL it runs on SQLite. It makes and drops a database of its own.
"""

import time

from _setup import bulk_experiment, describe, django_setup, median, percentile, throwaway_database

TARGET_P95_MS = 50.0
N_ITEMS, N_SHEETS, DECISIONS, WARMUP = 1000, 20, 200, 10
HX = {"HTTP_HX_REQUEST": "true"}


def answer_for(item_index: int, run_index: int):
    if (item_index + run_index) % 19 == 0:
        return "UNKNOWN", ""
    # four distinct answers per item: groups of about five identical answers
    return f"answer {item_index} v{run_index % 4}", ("HIGH", "MEDIUM", "LOW")[run_index % 3]


def main() -> None:
    django_setup()
    with throwaway_database("roundtrip") as connection:
        from django.test import Client
        from django.urls import reverse

        from scoring import selectors, services

        start = time.perf_counter()
        experiment, user = bulk_experiment(
            n_items=N_ITEMS, n_configs=N_SHEETS, repeats=1, answer_for=answer_for
        )
        assignment = services.assignment_start(experiment=experiment, user=user)
        setup_s = time.perf_counter() - start

        client = Client()
        client.force_login(user)
        token = assignment.token
        posts, gets, trips = [], [], []
        for k in range(WARMUP + DECISIONS):
            position = k + 1
            group = next(
                g for g in selectors.queue_item(assignment, position).groups if not g.decided
            )
            decide = reverse(
                "scoring:decide", kwargs={"assignment_token": token, "position": position}
            )
            following = reverse(
                "scoring:item", kwargs={"assignment_token": token, "position": position + 1}
            )
            t0 = time.perf_counter()
            response = client.post(decide, {"tokens": group.tokens, "verdict": "correct"}, **HX)
            t1 = time.perf_counter()
            fragment = client.get(following, **HX)
            t2 = time.perf_counter()
            assert response.status_code == 200 and fragment.status_code == 200
            if k >= WARMUP:
                posts.append((t1 - t0) * 1000)
                gets.append((t2 - t1) * 1000)
                trips.append((t2 - t0) * 1000)
        assert assignment.judgements.filter(verdict="correct").count() >= DECISIONS
        # The floor under any request here: the test client, the middleware, one query.
        floor = []
        for _ in range(DECISIONS):
            t0 = time.perf_counter()
            client.get(reverse("healthz"))
            floor.append((time.perf_counter() - t0) * 1000)

        print(
            f"decision round trip, {N_SHEETS} sheets x {N_ITEMS:,} items on {describe(connection)}"
            f" ({DECISIONS} decisions; set-up {setup_s:.1f} s)"
        )
        print(
            f"  POST decide      p50 {median(posts):6.1f} ms   p95 {percentile(posts, 95):6.1f} ms"
        )
        print(f"  GET next item    p50 {median(gets):6.1f} ms   p95 {percentile(gets, 95):6.1f} ms")
        print(
            f"  (GET healthz     p50 {median(floor):6.1f} ms   p95 {percentile(floor, 95):6.1f} ms:"
            " the client and middleware alone)"
        )
        p95 = percentile(trips, 95)
        verdict = "OK" if p95 < TARGET_P95_MS else "OVER TARGET"
        print(
            f"  round trip       p50 {median(trips):6.1f} ms   p95 {p95:6.1f} ms"
            f"   (target: p95 under {TARGET_P95_MS:.0f} ms) {verdict}"
        )


if __name__ == "__main__":
    main()
