"""A large per-item experiment in the browser: the exact-prompt page, a run's answers and
attempts, and a manual run's paste forms come a page at a time, and a manual run opens on the
page of the first item still waiting for its reply."""

import html
import re

import pytest
from django.urls import reverse

from probe.models import Bank, Block, Item, KeyEntry
from probe.services import collection
from probe.services import experiments as experiment_services
from tests.collection.conftest import make_config

N_ITEMS = 130


@pytest.fixture
def large(world):
    bank = Bank.objects.create(team=world.team, name="Large bank")
    block = Block.objects.create(bank=bank, code="A", title="Many", order=1)
    items = Item.objects.bulk_create(
        [
            Item(block=block, question=f"Question number {n}?", order=n)
            for n in range(1, N_ITEMS + 1)
        ]
    )
    KeyEntry.objects.bulk_create([KeyEntry(item=item, answer=f"key {item.pk}") for item in items])
    config = make_config(world, label="Chat window", provider="manual", model_name="chat")
    experiment = experiment_services.experiment_create(
        team=world.team,
        user=world.users["editor"],
        bank=bank,
        prompt_version=world.prompt,
        configs=[config],
        repeats=1,
        mode="item",
        seed=3,
    )
    return experiment_services.experiment_start(
        experiment=experiment, user=world.users["editor"], queue=False
    )


@pytest.fixture
def editor(client, world):
    client.force_login(world.users["editor"])
    return client


def test_the_exact_prompt_page_shows_the_requests_a_page_at_a_time(editor, large):
    url = reverse("probe:experiment_prompt", kwargs={"experiment_pk": large.pk})
    first = editor.get(url).content.decode()
    assert f"{N_ITEMS} requests" in first
    assert first.count('class="prompt-text"') == 50 and "Item 50<" in first
    assert "Item 51<" not in first and 'rel="next"' in first and "1–50 of 130" in first
    last = editor.get(url + "?page=3").content.decode()
    assert last.count('class="prompt-text"') == 30 and "Question number 130?" in last
    # What a page shows is still exactly what is sent.
    texts = dict(
        (item.position, text) for item, text in collection.experiment_prompts(large) if item
    )
    shown = re.search(r'<pre class="prompt-text" id="prompt-1">(.*?)</pre>', last, re.S)[1]
    assert html.unescape(shown) == texts[101]


def test_a_manual_run_opens_on_the_first_item_still_waiting(editor, world, large):
    run = large.runs.get()
    items = list(large.items.order_by("position"))
    for item in items[:45]:
        collection.run_paste(
            run=run, user=None, item=item, text="ANSWER: something\nCONFIDENCE: LOW"
        )
    page = editor.get(reverse("probe:run_detail", kwargs={"run_pk": run.pk})).content.decode()
    pasted_for = [int(n) for n in re.findall(r'name="item" value="(\d+)"', page)]
    assert pasted_for == list(range(41, 61))  # the page holding item 46, the first waiting
    assert "41–60 of 130" in page
    # The answers: 100 rows a page; the attempts: all 45 on one page.
    assert len(re.findall(r'<td class="answer-cell">', page)) == 100
    assert page.count("pasted by") == 0 and page.count(">item ") == 45
    second = editor.get(
        reverse("probe:run_detail", kwargs={"run_pk": run.pk}) + "?page=2#answers"
    ).content.decode()
    assert len(re.findall(r'<td class="answer-cell">', second)) == N_ITEMS - 100
    assert "Question number 130?" in second and "Question number 99?" not in second
    # Another page of paste forms on request.
    first_forms = editor.get(
        reverse("probe:run_detail", kwargs={"run_pk": run.pk}) + "?paste_page=1"
    ).content.decode()
    assert re.findall(r'name="item" value="(\d+)"', first_forms)[:2] == ["1", "2"]
