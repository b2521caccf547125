"""The pages of a 1,000-item per-item experiment (one request per item): the exact-prompt page,
the page of a collected run (1,000 attempts and answers), and the page of a manual run waiting
for its 1,000 pasted replies. Server time, HTML size and the time until Chromium has loaded the
page (load event). Target: each under 1 s in Chromium.

Then the collected run's page again with one answer of 200,000 characters without a space (as a
model stuck in a loop writes): it is folded ("Show all"), so the page is usable as fast as the
plain one. Its load beside the plain page's (the yardstick, measured in the same run), and the
time from pressing "Show all" until the whole answer is laid out, wrapped in its card.

Run it on PostgreSQL (the figure that counts):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench .venv/bin/python bench/run_pages.py
Without DATABASE_URL it runs on SQLite. It makes and drops a database of its own.
BENCH_SCREENSHOT=var/run-pages-{page}.png saves what Chromium showed.
"""

import os
import time

from _setup import CHROMIUM_ARGS, describe, django_setup, live_server, median, throwaway_database

N_ITEMS, ROUNDS, TARGET_MS = 1000, 5, 1000
LONG_ANSWER = ("Supercalifragilistic" * 10_000)[:200_000]


def answer_for(item_index: int, run_index: int):
    return f"answer {item_index}", ("HIGH", "MEDIUM", "LOW")[item_index % 3]


def make_experiment():
    """A collected API run and a manual run waiting for pastes, one request per item."""
    from probe import prompts
    from probe.models import Experiment, ModelConfig, Run
    from tests.builders import standalone_experiment

    experiment, user = standalone_experiment(
        n_items=N_ITEMS,
        n_configs=1,
        repeats=1,
        answer_for=answer_for,
        prompt_text=prompts.DEFAULT_PROMPTS["en"],
        mode=Experiment.Mode.ITEM,
        status=Experiment.Status.COLLECTING,
        attempt_text=None,
        raw_body='{"choices": [{"message": {"content": "..."}}]}' * 20,
        attempt_fields=lambda n: {
            "http_status": 200,
            "latency_ms": 800 + n,
            "input_tokens": 250,
            "output_tokens": 12,
            "request_id": f"req-{n:06d}",
        },
    )
    run = experiment.runs.get()
    # An API model's run: a simulated one's answers are sealed (not shown) until collection ends.
    ModelConfig.objects.filter(pk=run.model_config_id).update(provider="openai_chat")
    run.config_snapshot = {**run.config_snapshot, "provider": "openai_chat"}
    run.save(update_fields=["config_snapshot"])
    manual_config = ModelConfig.objects.create(
        team=experiment.team, label="by hand", provider="manual", model_name="chat window"
    )
    manual = Run.objects.create(
        experiment=experiment,
        model_config=manual_config,
        repeat=1,
        order=2,
        status=Run.Status.PENDING,
        config_snapshot=manual_config.settings_snapshot(),
    )
    return experiment, run, manual, user


def measure(client, page, base_url, name, url) -> float:
    """Print one page's server time, HTML size and Chromium load; return the load (median)."""
    timings, size = [], 0
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        response = client.get(url)
        timings.append((time.perf_counter() - t0) * 1000)
        assert response.status_code == 200
        size = len(response.content)
    loads = []
    for _ in range(3):
        t0 = time.perf_counter()
        page.goto(base_url + url, wait_until="load")
        loads.append((time.perf_counter() - t0) * 1000)
    shot = os.environ.get("BENCH_SCREENSHOT", "")
    if shot:
        path = shot.replace("{page}", name.split()[0].strip(","))
        page.screenshot(path=path)
        pager = page.locator("nav.pager").first
        if pager.count():
            pager.scroll_into_view_if_needed()
            page.screenshot(path=path.replace(".png", "-pager.png"))
    print(
        f"  {name:<20} server {median(timings):6.0f} ms   HTML {size / 1024:7.0f} KB"
        f"   Chromium {median(loads):6.0f} ms (max {max(loads):.0f})"
        f"   target < {TARGET_MS} ms"
    )
    return median(loads)


def main() -> None:
    django_setup()
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with throwaway_database("run_pages") as connection:
        from django.test import Client
        from django.urls import reverse

        from probe.models import Membership

        start = time.perf_counter()
        experiment, run, manual, user = make_experiment()
        Membership.objects.filter(user=user).update(role="editor")
        print(
            f"{N_ITEMS:,}-item per-item experiment on {describe(connection)}"
            f" (set-up {time.perf_counter() - start:.1f} s), {ROUNDS} rounds"
        )
        client = Client()
        client.force_login(user)
        pages = {
            "exact prompt": reverse(
                "probe:experiment_prompt", kwargs={"experiment_pk": experiment.pk}
            ),
            "collected run": reverse("probe:run_detail", kwargs={"run_pk": run.pk}),
            "manual run (paste)": reverse("probe:run_detail", kwargs={"run_pk": manual.pk}),
        }
        with live_server(connection) as base_url:
            executable = os.environ.get("CHROMIUM_PATH") or "/usr/bin/chromium"
            from playwright.sync_api import sync_playwright

            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
                context = browser.new_context(viewport={"width": 1280, "height": 1000})
                context.add_cookies(
                    [
                        {
                            "name": "sessionid",
                            "value": client.cookies["sessionid"].value,
                            "url": base_url,
                        }
                    ]
                )
                page = context.new_page()
                page.goto(base_url + pages["exact prompt"])  # static files cached, as for a user
                loads_by_page = {}
                for name, url in pages.items():
                    loads_by_page[name] = measure(client, page, base_url, name, url)
                # One answer of 200,000 characters, on the first page of the collected run.
                first = run.responses.order_by("item__position").first()
                first.answer = LONG_ANSWER
                first.save(update_fields=["answer"])
                name = "run, 200k answer"
                long_load = measure(client, page, base_url, name, pages["collected run"])
                plain = loads_by_page["collected run"]
                print(
                    f"  {'':<20} {long_load / plain:.2f}x the plain collected run's page"
                    f" ({plain:.0f} ms, the yardstick)"
                )
                opens = []
                for _ in range(3):
                    page.goto(base_url + pages["collected run"], wait_until="load")
                    summary = page.locator("details.long-text summary").first
                    t0 = time.perf_counter()
                    summary.click()
                    # Laid out: the whole text's box measured, inside its cell.
                    width = page.evaluate(
                        "() => { const el = document.querySelector('.long-text-full');"
                        " const r = el.getBoundingClientRect();"
                        " return [r.width, r.height, document.documentElement.scrollWidth"
                        " - document.documentElement.clientWidth]; }"
                    )
                    opens.append((time.perf_counter() - t0) * 1000)
                    assert width[1] > 1000 and width[2] <= 0, width
                print(
                    f"  {'Show all, laid out':<20} {median(opens):6.0f} ms (max {max(opens):.0f})"
                    f"   target < {TARGET_MS} ms"
                )
                browser.close()


if __name__ == "__main__":
    main()
