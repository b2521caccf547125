"""The pages of a 1,000-item per-item experiment (one request per item): the exact-prompt page,
the page of a collected run (1,000 attempts and answers), and the page of a manual run waiting
for its 1,000 pasted replies. Server time, HTML size and the time until Chromium has loaded the
page (load event). Target: each under 1 s in Chromium.

Run it on PostgreSQL (the figure that counts):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/helperr .venv/bin/python bench/run_pages.py
Without DATABASE_URL it runs on SQLite. It makes and drops a database of its own.
BENCH_SCREENSHOT=var/run-pages-{page}.png saves what Chromium showed.
"""

import os
import time

from _setup import bulk_experiment, describe, django_setup, median, throwaway_database
from bank_page import CHROMIUM_ARGS

N_ITEMS, ROUNDS, TARGET_MS = 1000, 5, 1000


def answer_for(item_index: int, run_index: int):
    return f"answer {item_index}", ("HIGH", "MEDIUM", "LOW")[item_index % 3]


def make_experiment():
    """A collected API run and a manual run waiting for pastes, one request per item."""
    from probe import prompts
    from probe.models import Attempt, Experiment, ModelConfig, Response, Run

    experiment, user = bulk_experiment(
        n_items=N_ITEMS, n_configs=1, repeats=1, answer_for=answer_for
    )
    experiment.prompt_version.text = prompts.DEFAULT_PROMPTS["en"]
    experiment.prompt_version.content_hash = prompts.content_hash(prompts.DEFAULT_PROMPTS["en"])
    experiment.prompt_version.save()
    experiment.mode = Experiment.Mode.ITEM
    experiment.status = Experiment.Status.COLLECTING
    experiment.save()
    run = experiment.runs.get()
    items = list(experiment.items.order_by("position"))
    attempts = Attempt.objects.bulk_create(
        [
            Attempt(
                run=run,
                item=item,
                outcome="complete",
                text=f"ANSWER: answer {n}\nCONFIDENCE: HIGH",
                raw_body='{"choices": [{"message": {"content": "..."}}]}' * 20,
                http_status=200,
                latency_ms=800 + n,
                input_tokens=250,
                output_tokens=12,
                request_id=f"req-{n:06d}",
            )
            for n, item in enumerate(items)
        ]
    )
    by_item = {a.item_id: a for a in attempts}
    responses = list(Response.objects.filter(run=run))
    for response in responses:
        response.attempt = by_item[response.item_id]
    Response.objects.bulk_update(responses, ["attempt"], batch_size=1000)
    run.attempts.filter(item__isnull=True).delete()  # bulk_experiment's one sheet attempt
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


def main() -> None:
    django_setup()
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with throwaway_database("run_pages") as connection:
        from django.conf import settings
        from django.test import Client
        from django.test.testcases import LiveServerThread, _StaticFilesHandler
        from django.urls import reverse

        from probe.models import Membership

        settings.STORAGES = {
            **settings.STORAGES,
            "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
        }
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
        # The server's request threads close their connections after each request, so the
        # throwaway database can be dropped at the end.
        connection.settings_dict["CONN_MAX_AGE"] = 0
        server = LiveServerThread("127.0.0.1", _StaticFilesHandler, port=0)
        server.daemon = True
        server.start()
        server.is_ready.wait()
        base_url = f"http://127.0.0.1:{server.port}"
        executable = os.environ.get("CHROMIUM_PATH") or "/usr/bin/chromium"
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1280, "height": 1000})
            context.add_cookies(
                [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base_url}]
            )
            page = context.new_page()
            page.goto(base_url + pages["exact prompt"])  # static files cached, as for a user
            for name, url in pages.items():
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
                    path = shot.replace("{page}", name.split()[0])
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
            browser.close()
        server.terminate()
        if connection.vendor == "postgresql":
            # A request thread of the live server may still hold a session on the throwaway
            # database; end those (this benchmark's own) so that the database can be dropped.
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )


if __name__ == "__main__":
    main()
