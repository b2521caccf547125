"""The bank page at 1,000 and 10,000 items: server time and HTML size, the time until the page
is usable in Chromium, and an inline edit's server time.

Targets (10,000 items): the page under 300 ms server time and under 300 KB of HTML, usable in
Chromium within 1 s; an inline edit under 50 ms server time at any bank size.

Run it on PostgreSQL (the figure that counts):
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/helperr .venv/bin/python bench/bank_page.py
Without DATABASE_URL it runs on SQLite. It makes and drops a database of its own. Chromium is
/usr/bin/chromium (or CHROMIUM_PATH); without one, the browser line says so and is left out.
BENCH_SCREENSHOT=var/bank-{n}.png saves what Chromium showed last (the page with the key).
"""

import os
import shutil
import sys
import time

from _setup import (
    CHROMIUM_ARGS,
    describe,
    django_setup,
    live_server,
    median,
    percentile,
    throwaway_database,
)

SIZES = (1_000, 10_000)  # `bench/bank_page.py 500`: other sizes
PAGE_TARGET_MS, HTML_TARGET_KB, BROWSER_TARGET_MS, EDIT_TARGET_MS = 300, 300, 1000, 50
ROUNDS, EDITS = 7, 30


def make_bank(team, n_items: int):
    """A bank of n_items in five blocks, every item keyed, one in 17 flagged, one in 50 retired."""
    from tests.builders import bulk_bank

    return bulk_bank(
        team,
        name=f"Bank of {n_items}",
        n_items=n_items,
        item=lambda b, i: {
            "question": f"Question {b * (n_items // 5) + i + 1}: which value does setting "
            f"{b}-{i} take by default, and where is it documented?",
            "answer_format": "a number" if i % 3 == 0 else "",
            "retired": i % 50 == 49,
        },
        key=lambda k: {
            "answer": f"value {k} (section {k % 40})",
            "flagged": k % 17 == 0,
            "flag_note": "Check the current release notes." if k % 17 == 0 else "",
            "sources": [f"https://example.org/docs/{k}"],
        },
    )


def time_get(client, url: str, rounds: int = ROUNDS, **headers) -> tuple[float, float, int]:
    timings, size = [], 0
    for _ in range(rounds):
        start = time.perf_counter()
        response = client.get(url, **headers)
        timings.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, response.status_code
        size = len(response.content)
    return median(timings), max(timings), size


def time_edits(client, items, editor_url) -> tuple[float, float]:
    timings = []
    for n, item in enumerate(items[:EDITS]):
        url = editor_url(item)
        data = {"question": f"{item.question} (edited {n})", "answer_format": ""}
        start = time.perf_counter()
        response = client.post(url, data, HTTP_HX_REQUEST="true", HTTP_HX_TARGET=f"item-{item.pk}")
        timings.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200 and b"edited" in response.content
    return median(timings), percentile(timings, 95)


def browser_times(
    base_url: str, session_cookie: str, urls: list[str], screenshot: str = ""
) -> list[float] | str:
    """Milliseconds from navigation start until the item list is shown and its first Edit
    control can be used (the load event has fired and htmx is bound)."""
    executable = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or ""
    if not executable:
        return "no Chromium found (set CHROMIUM_PATH)"
    from playwright.sync_api import sync_playwright

    results = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        context = browser.new_context()
        context.add_cookies([{"name": "sessionid", "value": session_cookie, "url": base_url}])
        page = context.new_page()
        page.goto(base_url + urls[0])  # warm the static files, as a returning user has them
        for url in urls:
            start = time.perf_counter()
            page.goto(base_url + url, wait_until="load")
            page.locator("#item-list article.item [data-edit]").first.wait_for()
            results.append((time.perf_counter() - start) * 1000)
        if screenshot:
            page.set_viewport_size({"width": 1280, "height": 1000})
            page.screenshot(path=screenshot)
        browser.close()
    return results


def main() -> None:
    django_setup()
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with throwaway_database("bank_page") as connection:
        from django.test import Client
        from django.urls import reverse

        from tests.builders import team_with_members

        team, users = team_with_members("Bench", {"bench-editor": "editor"})
        client = Client()
        client.force_login(users["bench-editor"])
        with live_server(connection) as base_url:
            print(f"Bank page on {describe(connection)}, {ROUNDS} rounds (median / max)")
            for n_items in [int(a) for a in sys.argv[1:]] or SIZES:
                bank, items = make_bank(team, n_items)
                page_url = reverse("probe:bank_detail", kwargs={"bank_pk": bank.pk})
                time_get(client, page_url, rounds=2)  # warm-up
                page_ms, page_max, page_size = time_get(client, page_url)
                key_ms, key_max, key_size = time_get(client, page_url + "?key=1")
                search_ms, _, _ = time_get(
                    client,
                    page_url + "?q=documented&page=40",
                    HTTP_HX_REQUEST="true",
                    HTTP_HX_TARGET="item-list",
                )
                last_ms, _, _ = time_get(client, page_url + "?page=last")
                edit_p50, edit_p95 = time_edits(
                    client,
                    items[n_items // 2 :],
                    lambda item: reverse("probe:item_edit", kwargs={"item_pk": item.pk}),
                )
                browser = browser_times(
                    base_url,
                    client.cookies["sessionid"].value,
                    [page_url] * 3 + [page_url + "?key=1"],
                    screenshot=os.environ.get("BENCH_SCREENSHOT", "").replace("{n}", str(n_items)),
                )
                print(f"\n{n_items:,} items")
                print(
                    f"  page (first page of 100)     {page_ms:7.1f} ms / {page_max:6.1f} ms"
                    f"   target < {PAGE_TARGET_MS} ms"
                )
                print(
                    f"  page HTML                    {page_size / 1024:7.1f} KB"
                    f"                 target < {HTML_TARGET_KB} KB"
                )
                print(f"  page with the key            {key_ms:7.1f} ms / {key_max:6.1f} ms")
                print(f"  page HTML with the key       {key_size / 1024:7.1f} KB")
                print(f"  last page                    {last_ms:7.1f} ms")
                print(f"  search, page 40 (htmx)       {search_ms:7.1f} ms")
                print(
                    f"  inline edit (p50 / p95)      {edit_p50:7.1f} ms / {edit_p95:6.1f} ms"
                    f"   target < {EDIT_TARGET_MS} ms"
                )
                if isinstance(browser, str):
                    print(f"  Chromium: {browser}")
                else:
                    print(
                        f"  Chromium, usable (median / max of {len(browser)})"
                        f" {median(browser):5.0f} ms / {max(browser):5.0f} ms"
                        f"   target < {BROWSER_TARGET_MS} ms"
                    )


if __name__ == "__main__":
    main()
