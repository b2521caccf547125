"""From a keypress to the next answer focused, in Chromium, with the server answering at once and
with every scoring request held DELAY_MS (a delay this script puts in front of the app).

A scorer presses C on every focused answer of a 30-item x 8-sheet experiment; the page records
the time from each keydown to the next focusin on an answer (the next one on the item, or the
first of the next item, which the page fetched ahead). Target: p95 at most 50 ms with the
server at 300 ms. Beside it, the yardstick measured in the same run: the round trip of one
queued request as the browser saw it (what the page used to wait for before moving on).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench .venv/bin/python bench/scoring_keypress.py
"""

import os
import sys
import time
from contextlib import contextmanager

from _setup import (
    CHROMIUM_ARGS,
    describe,
    django_setup,
    median,
    percentile,
    throwaway_database,
)

N_ITEMS, N_SHEETS = 30, 8
DELAYS_MS = (0, 300)
TARGET_P95_MS = 50.0
WATCH = """() => {
  window.benchLatency = []; window.benchPressed = null;
  document.addEventListener('keydown', () => { window.benchPressed = performance.now(); }, true);
  document.addEventListener('focusin', (e) => {
    if (window.benchPressed !== null && e.target.matches('#scoring-item li.answer')) {
      window.benchLatency.push(performance.now() - window.benchPressed);
      window.benchPressed = null;
    }
  }, true);
}"""
ROUND_TRIPS = """() => performance.getEntriesByType('resource')
  .filter(e => e.name.endsWith('/record/')).map(e => e.duration)"""
STATE = """() => {
  const a = document.activeElement;
  if (a && a.matches('[data-reveal]')) return 'done';
  return a && a.matches('#scoring-item li.answer:not(.decided)') ? 'ready' : 'wait';
}"""


def answer_for(item_index: int, run_index: int):
    if (item_index + run_index) % 19 == 0:
        return "UNKNOWN", ""
    return f"answer {item_index} v{run_index % 3}", ("MEDIUM", "LOW")[run_index % 2]


@contextmanager
def delayed_server(connection, delay: dict):
    """The app over HTTP, holding each scoring request delay["ms"] before it runs."""
    from django.conf import settings
    from django.test.testcases import LiveServerThread, _StaticFilesHandler

    class Delayed(_StaticFilesHandler):
        def __call__(self, environ, start_response):
            if environ.get("PATH_INFO", "").startswith("/score/") and delay["ms"]:
                time.sleep(delay["ms"] / 1000)
            return super().__call__(environ, start_response)

    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    connection.settings_dict["CONN_MAX_AGE"] = 0
    server = LiveServerThread("127.0.0.1", Delayed, port=0)
    server.daemon = True
    server.start()
    server.is_ready.wait()
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        server.terminate()
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )


def score(browser, base: str, session: str, token: str) -> tuple[list[float], list[float], int]:
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    context.add_cookies([{"name": "sessionid", "value": session, "url": base}])
    page = context.new_page()
    page.goto(f"{base}/score/{token}/1/")
    page.wait_for_load_state("networkidle")
    page.evaluate(WATCH)
    presses = 0
    deadline = time.perf_counter() + 300
    while time.perf_counter() < deadline:
        page.wait_for_function(f"() => ({STATE})() !== 'wait'")
        if page.evaluate(STATE) == "done":
            break
        page.keyboard.press("c")
        presses += 1
    page.wait_for_function(
        "() => document.getElementById('queue-status').dataset.state === 'saved'", timeout=60_000
    )
    latency = page.evaluate("() => window.benchLatency")
    trips = page.evaluate(ROUND_TRIPS)
    context.close()
    return latency, trips, presses


def main() -> None:
    django_setup()
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    executable = os.environ.get("CHROMIUM_PATH") or "/usr/bin/chromium"
    if not os.path.exists(executable):
        print("no Chromium found (set CHROMIUM_PATH)")
        return
    from django.test import Client
    from playwright.sync_api import sync_playwright

    from scoring.queue import services
    from tests.builders import standalone_experiment

    delays = [int(a) for a in sys.argv[1:]] or list(DELAYS_MS)
    with throwaway_database("keypress") as connection:
        where = describe(connection)
        delay = {"ms": 0}
        results = []
        with delayed_server(connection, delay) as base, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
            for index, ms in enumerate(delays):
                experiment, user = standalone_experiment(
                    n_items=N_ITEMS,
                    n_configs=N_SHEETS,
                    repeats=1,
                    answer_for=answer_for,
                    team_name=f"bench-{index}",
                    scorer=f"bench-scorer-{index}",
                )
                assignment = services.assignment_start(experiment=experiment, user=user)
                client = Client()
                client.force_login(user)
                delay["ms"] = ms
                results.append(
                    (ms, *score(browser, base, client.cookies["sessionid"].value, assignment.token))
                )
                delay["ms"] = 0
            browser.close()
        print(
            f"keypress to the next answer focused, Chromium, {N_ITEMS} items x {N_SHEETS} sheets"
            f" on {where}"
        )
        for ms, latency, trips, presses in results:
            p50, p95 = median(latency), percentile(latency, 95)
            trip = median(trips) if trips else float("nan")
            verdict = ""
            if ms == 300:
                verdict = "OK" if p95 <= TARGET_P95_MS else "OVER TARGET"
                verdict = f"   target p95 <= {TARGET_P95_MS:.0f} ms: {verdict}"
            print(
                f"  server +{ms:>3} ms: p50 {p50:5.1f} ms  p95 {p95:5.1f} ms over {len(latency)}"
                f" keypresses; a queued request's round trip p50 {trip:6.1f} ms"
                f" ({p95 / trip:.2f}x of it){verdict}"
            )
            responses = N_ITEMS * N_SHEETS
            print(
                f"      {presses} keypresses for this bench's {responses} responses"
                f" ({presses / responses:.3f} each; the probe's own figure is the browser test's)"
            )


if __name__ == "__main__":
    main()
