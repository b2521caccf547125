"""Manual runs: a person pastes a chat window's reply, on the page or with paste_run."""

import html
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.urls import reverse

from probe.models import Attempt, Experiment, Run
from probe.services import collection, experiments
from probe.sheetparser import ISSUE_LABELS
from tests.builders import sheet_text
from tests.collection.conftest import make_config, make_experiment

CHAT_REPLY = (
    "Sure! Here are my answers:\n\n"
    "**1.** ANSWER: 429\nCONFIDENCE: HIGH\n\n"
    "2) answer: Retry-After\nconfidence: medium\n\n"
    "3. ANSWER: I don't know\nCONFIDENCE: LOW\n"
)


@pytest.fixture
def manual(world):
    config = make_config(
        world, label="Chat window", provider="manual", model_name="some-chat-model"
    )
    return make_experiment(world, [config], repeats=2)


def test_paste_is_recorded_and_parsed(world, manual):
    run = manual.runs.order_by("order").first()
    assert run.status == Run.Status.PENDING and run.is_manual
    attempt = collection.run_paste(
        run=run, user=world.users["editor"], text=CHAT_REPLY.replace("\n", "\r\n")
    )
    assert (
        attempt.outcome == Attempt.Outcome.COMPLETE and attempt.pasted_by == world.users["editor"]
    )
    assert attempt.raw_body == CHAT_REPLY and attempt.text == CHAT_REPLY
    run.refresh_from_db()
    assert run.status == Run.Status.COLLECTED
    rows = {r.item.position: r for r in run.responses.select_related("item")}
    assert rows[1].answer == "429" and rows[1].confidence == "HIGH"
    assert rows[2].answer == "Retry-After" and "label_case" in rows[2].issues
    assert rows[3].abstained and "abstain_dont_know" in rows[3].issues
    # Items 2 and 3 bent the format; item 1 only wrote markdown, a note for the sheet.
    assert run.compliance == pytest.approx(1 / 3)
    assert (
        Experiment.objects.get(pk=manual.pk).status == Experiment.Status.COLLECTING
    )  # run 2 waits


def test_repaste_replaces_the_answers_and_keeps_every_paste(world, manual):
    run = manual.runs.order_by("order").first()
    collection.run_paste(run=run, user=None, text="1. ANSWER: 500\nCONFIDENCE: LOW")
    first_ids = set(run.responses.values_list("pk", flat=True))
    collection.run_paste(
        run=run,
        user=None,
        text=sheet_text([("429", "HIGH"), ("Retry-After", "HIGH"), ("3.10", "HIGH")]),
    )
    assert set(run.responses.values_list("pk", flat=True)) == first_ids, "updated in place"
    assert run.responses.get(item__position=1).answer == "429"
    assert run.attempts.count() == 2
    assert Run.objects.get(pk=run.pk).compliance == 1.0


def test_paste_is_refused_when_it_cannot_be_right(world, manual, simulator):
    run, other = manual.runs.order_by("order")
    with pytest.raises(ValidationError):
        collection.run_paste(run=run, user=None, text="   ")
    api = make_experiment(world, [make_config(world, label="Sim", base_url=simulator.base_url)])
    with pytest.raises(ValidationError) as info:
        collection.run_paste(run=api.runs.get(), user=None, text="1. ANSWER: x")
    assert "manual" in info.value.messages[0]
    # Every run in: the collection stays open until an editor finishes it, so a wrong last
    # paste can still be replaced; after that the key is open and pasting is refused.
    collection.run_paste(run=run, user=None, text=CHAT_REPLY)
    collection.run_paste(run=other, user=None, text="1. ANSWER: wrong window")
    assert Experiment.objects.get(pk=manual.pk).status == Experiment.Status.COLLECTING
    collection.run_paste(run=other, user=None, text=CHAT_REPLY)
    assert other.responses.get(item__position=1).answer == "429", "the wrong paste was replaced"
    experiments.experiment_finish(experiment=manual, user=world.users["editor"])
    assert Experiment.objects.get(pk=manual.pk).status == Experiment.Status.COLLECTED
    with pytest.raises(ValidationError) as info:
        collection.run_paste(run=run, user=None, text=CHAT_REPLY)
    assert "key is open" in info.value.messages[0]


def test_per_item_manual_runs_take_one_reply_per_item(world):
    config = make_config(world, label="Chat window", provider="manual", model_name="chat")
    experiment = make_experiment(world, [config], mode="item")
    run = experiment.runs.get()
    items = list(experiment.items.order_by("position"))
    with pytest.raises(ValidationError):
        collection.run_paste(run=run, user=None, text="ANSWER: 429")  # which item?
    for item, answer in zip(items, ["429", "Retry-After", "UNKNOWN"], strict=True):
        collection.run_paste(
            run=run, user=None, text=f"ANSWER: {answer}\nCONFIDENCE: LOW", item=item
        )
        run.refresh_from_db()
        assert run.status == (Run.Status.COLLECTED if item is items[-1] else Run.Status.RUNNING)
    assert Experiment.objects.get(pk=experiment.pk).status == Experiment.Status.COLLECTING
    experiments.experiment_finish(experiment=experiment, user=None)
    assert Experiment.objects.get(pk=experiment.pk).status == Experiment.Status.COLLECTED


def test_finishing_is_refused_while_a_run_is_not_in(world, manual):
    run, _other = manual.runs.order_by("order")
    collection.run_paste(run=run, user=None, text=CHAT_REPLY)
    with pytest.raises(ValidationError) as info:
        experiments.experiment_finish(experiment=manual, user=None)
    assert "1 run is not collected yet" in info.value.messages[0]
    assert Experiment.objects.get(pk=manual.pk).status == Experiment.Status.COLLECTING


def test_runs_all_pasted_before_start_do_not_sit_at_ready(client, world):
    """Only people collect it: the first paste starts the collection; the page then offers
    Finish collecting, which opens the key."""
    config = make_config(world, label="Chat window", provider="manual", model_name="chat")
    experiment = make_experiment(world, [config], repeats=2, start=False)
    assert experiment.status == Experiment.Status.READY
    for run in experiment.runs.all():
        collection.run_paste(run=run, user=None, text=CHAT_REPLY)
    assert Experiment.objects.get(pk=experiment.pk).status == Experiment.Status.COLLECTING
    client.force_login(world.users["editor"])
    url = reverse("probe:experiment_detail", kwargs={"experiment_pk": experiment.pk})
    page = client.get(url).content.decode()
    assert "Ready to collect" not in page and "Finish collecting" in page
    assert "Every run is in" in page
    finish = reverse("probe:experiment_finish", kwargs={"experiment_pk": experiment.pk})
    fragment = client.post(finish, headers={"HX-Request": "true"}).content.decode()
    assert "Collection finished: the key is open." in fragment
    assert Experiment.objects.get(pk=experiment.pk).status == Experiment.Status.COLLECTED
    assert "Finish collecting" not in client.get(url).content.decode()


def test_the_last_paste_asks_the_editor_to_confirm_on_the_run_page(client, world, manual):
    run, other = manual.runs.order_by("order")
    client.force_login(world.users["editor"])
    paste = reverse("probe:run_paste", kwargs={"run_pk": run.pk})
    page = client.post(paste, {"text": CHAT_REPLY}, follow=True).content.decode()
    assert 'id="finish-collecting"' not in page, "one run still waits"
    paste = reverse("probe:run_paste", kwargs={"run_pk": other.pk})
    page = client.post(paste, {"text": "1. ANSWER: oops"}, follow=True).content.decode()
    assert 'id="finish-collecting"' in page and "a wrong paste can still be replaced" in page
    # The editor sees the wrong paste and replaces it; nothing was closed for good.
    page = client.post(paste, {"text": CHAT_REPLY}, follow=True).content.decode()
    assert Run.objects.get(pk=other.pk).responses.get(item__position=1).answer == "429"
    finish = reverse("probe:experiment_finish", kwargs={"experiment_pk": manual.pk})
    client.post(finish)
    assert Experiment.objects.get(pk=manual.pk).status == Experiment.Status.COLLECTED
    viewer_page = client.get(reverse("probe:run_detail", kwargs={"run_pk": other.pk}))
    assert 'id="finish-collecting"' not in viewer_page.content.decode()


def test_the_run_page_shows_the_exact_prompt_and_takes_a_paste(client, world, manual):
    run = manual.runs.order_by("order").first()
    [(_, prompt)] = collection.experiment_prompts(manual)
    client.force_login(world.users["editor"])
    url = reverse("probe:run_detail", kwargs={"run_pk": run.pk})
    page = client.get(url).content.decode()
    assert 'data-copy="#prompt-1"' in page and "js/copy.js" in page
    assert "Which status code means Too Many Requests?" in page
    paste_url = reverse("probe:run_paste", kwargs={"run_pk": run.pk})
    assert f'action="{paste_url}"' in page

    empty = client.post(reverse("probe:run_paste", kwargs={"run_pk": run.pk}), {"text": ""})
    assert empty.status_code == 200 and not run.attempts.exists()
    done = client.post(reverse("probe:run_paste", kwargs={"run_pk": run.pk}), {"text": CHAT_REPLY})
    assert done.status_code == 302 and done["Location"].startswith(url)
    page = client.get(url).content.decode()
    assert "Retry-After" in page
    assert html.escape(str(ISSUE_LABELS["label_case"])) in page
    assert run.attempts.get().pasted_by == world.users["editor"]

    client.force_login(world.users["viewer"])
    assert (
        client.post(
            reverse("probe:run_paste", kwargs={"run_pk": run.pk}), {"text": CHAT_REPLY}
        ).status_code
        == 403
    )


def test_the_copied_text_is_exactly_the_prompt(client, world, manual):
    import re

    run = manual.runs.order_by("order").first()
    [(_, prompt)] = collection.experiment_prompts(manual)
    client.force_login(world.users["editor"])
    page = client.get(reverse("probe:run_detail", kwargs={"run_pk": run.pk})).content.decode()
    shown = re.search(r'<pre class="prompt-text" id="prompt-1">(.*?)</pre>', page, re.S).group(1)
    assert html.unescape(shown) == prompt


def test_paste_run_command(world, manual, tmp_path):
    run = manual.runs.order_by("order").first()
    reply = tmp_path / "reply.txt"
    reply.write_text(CHAT_REPLY, encoding="utf-8")
    out = StringIO()
    call_command("paste_run", str(run.pk), str(reply), "--user", "acme-editor", stdout=out)
    assert "3 of 3 items answered" in out.getvalue()
    assert run.attempts.get().pasted_by == world.users["editor"]
    assert Run.objects.get(pk=run.pk).status == Run.Status.COLLECTED
    with pytest.raises(CommandError, match="no run"):
        call_command("paste_run", "999999", str(reply))
    with pytest.raises(CommandError, match="Cannot read"):
        call_command("paste_run", str(run.pk), str(tmp_path / "missing.txt"))
    (tmp_path / "latin1.txt").write_bytes("1. ANSWER: caf\xe9".encode("latin-1"))
    with pytest.raises(CommandError, match="not UTF-8"):
        call_command("paste_run", str(run.pk), str(tmp_path / "latin1.txt"))
