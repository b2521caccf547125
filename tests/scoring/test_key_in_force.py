"""The key in force (the snapshot, then the key review's decisions) on every page that reads it."""

import csv
import datetime
import io

import pytest
from django.urls import reverse

from probe.models import ExperimentItem, KeyEntry, Response, UserPreference
from scoring.models import Judgement, KeyDecision
from scoring.queue import selectors, services
from scoring.review import keys
from scoring.review import services as review_services
from tests.scoring.factories import judge_everything, key_decision

HX = {"HTTP_HX_REQUEST": "true"}


def item_page(client, assignment, position, htmx=False) -> str:
    url = reverse(
        "scoring:item", kwargs={"assignment_token": assignment.token, "position": position}
    )
    return client.get(url, **(HX if htmx else {})).content.decode()


def test_the_selector_reads_the_snapshot_then_the_decisions(world):
    item = world.scored.items.get(position=1)
    key = keys.key_in_force(item)
    assert (key.answer, key.amended, key.decision) == ("key 1", False, None)
    first = review_services.key_decision_create(
        item=item, user=world.users["owner"], outcome="amended", source="RFC 6585", new_answer="429"
    )
    review_services.key_decision_create(
        item=item, user=world.users["editor"], outcome="confirmed", source="RFC 9110"
    )
    key = keys.key_in_force(item)
    assert (key.answer, key.snapshot, key.was, key.amended) == ("429", "key 1", "key 1", True)
    assert key.amendment == first and key.decision.source == "RFC 9110"
    assert keys.keys_in_force(world.scored)[item.pk] == key


def test_an_amended_key_is_what_the_scoring_page_and_the_recheck_show(client, world):
    client.force_login(world.users["scorer"])
    assignment = services.assignment_start(experiment=world.scored, user=world.users["scorer"])
    judge_everything(assignment)
    key_decision(
        world.scored,
        1,
        world.users["owner"],
        outcome="amended",
        source="RFC 6585 §4",
        new_answer="429 Too Many Requests",
    )
    for htmx in (False, True):
        body = item_page(client, assignment, 1, htmx=htmx)
        key_block = body.split('class="key scoring-key"')[1].split("</div>\n    </div>")[0]
        assert "429 Too Many Requests" in key_block
        assert "Amended in key review on" in body and '<del class="key-was">key 1</del>' in body
        assert "RFC 6585 §4" in body
        # The answers back for a re-check say it side by side.
        assert body.count("Your decision was made against the earlier key") == 1  # one group of two
        assert "Now: <strong>429 Too Many Requests</strong>" in body
    # Deciding again records the judgement against the amended key.
    tokens = next(g.tokens for g in selectors.queue_item(assignment, 1).groups if g.answer == "429")
    services.judgement_decide(
        assignment=assignment,
        responses=selectors.resolve_tokens(assignment, 1, tokens.split(",")),
        verdict="correct",
    )
    decision = KeyDecision.objects.get()
    assert set(
        Judgement.objects.filter(assignment=assignment, response__answer="429").values_list(
            "key_decision", "needs_recheck"
        )
    ) == {(decision.pk, False)}
    # The scorer's report and export say which judgements were made against which key.
    services.judgement_decide(
        assignment=assignment,
        responses=list(Response.objects.filter(item__position=1, item__experiment=world.scored)),
        verdict="correct",
    )
    services.assignment_reveal(assignment=assignment)
    report = client.get(reverse("scoring:report", kwargs={"assignment_token": assignment.token}))
    body = report.content.decode()
    assert 'id="keys-judged-table"' in body and "429 Too Many Requests" in body
    export = client.get(
        reverse(
            "scoring:export",
            kwargs={"assignment_token": assignment.token, "what": "responses", "fmt": "csv"},
        )
    )
    rows = list(csv.DictReader(io.StringIO(export.getvalue().decode("utf-8-sig"), newline="")))
    first = [r for r in rows if r["item"] == "1"]
    assert {r["key"] for r in first} == {"429 Too Many Requests"}
    assert {r["key_snapshot"] for r in first} == {"key 1"}
    assert {r["key_judged_against"] for r in first} == {"429 Too Many Requests"}
    others = [r for r in rows if r["item"] == "2"]
    assert {r["key_judged_against"] for r in others} == {"key 2"}


@pytest.mark.parametrize(
    "language,shown",
    [("ja", "2026年12月4日 03:26 JST"), ("en", "4 Dec 2026, 03:26 JST")],
)
def test_the_recheck_says_when_the_key_changed_to_the_minute(client, world, language, shown):
    """The key changed at 03:26 and the scorer had judged at 03:08 the same day: "before
    4 Dec" would be wrong, so the notice gives the time, in the reader's zone, with its zone."""
    UserPreference.objects.create(user=world.users["scorer"], time_zone="Asia/Tokyo")
    client.force_login(world.users["scorer"])
    assignment = services.assignment_start(experiment=world.scored, user=world.users["scorer"])
    judge_everything(assignment)
    decision = key_decision(world.scored, 1, world.users["owner"], new_answer="3776 m")
    changed = datetime.datetime(2026, 12, 3, 18, 26, tzinfo=datetime.UTC)  # 03:26 JST, 4 Dec
    KeyDecision.objects.filter(pk=decision.pk).update(created=changed)
    url = reverse("scoring:item", kwargs={"assignment_token": assignment.token, "position": 1})
    body = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    notice = body.split('<p class="recheck-detail')[1].split("</p>")[0]
    assert f'<time datetime="2026-12-03T18:26:00+00:00">{shown}</time>' in notice, notice


def test_a_confirmed_flag_shows_as_confirmed_with_its_source(client, world):
    item = world.scored.items.get(position=2)
    ExperimentItem.objects.filter(pk=item.pk).update(
        key_flagged=True, key_flag_note="Check RFC 9110"
    )
    client.force_login(world.users["scorer"])
    assignment = services.assignment_start(experiment=world.scored, user=world.users["scorer"])
    body = item_page(client, assignment, 2)
    assert 'class="flag-warning"' in body and "Check RFC 9110" in body
    review_services.key_decision_create(
        item=item, user=world.users["owner"], outcome="confirmed", source="RFC 9110 §10.2.3"
    )
    for htmx in (False, True):
        body = item_page(client, assignment, 2, htmx=htmx)
        assert 'class="flag-warning"' not in body
        assert 'class="flag-confirmed"' in body and "RFC 9110 §10.2.3" in body
    # The review page says the same.
    client.force_login(world.users["owner"])
    page = client.get(
        reverse("scoring:key_review", kwargs={"experiment_pk": world.scored.pk}),
        {"state": "all"},
    ).content.decode()
    assert "(!) entry checked against a primary source" in page


def test_carrying_a_confirmation_to_the_bank_clears_or_keeps_its_flag(world):
    bank_item = world.items[1]  # flagged in the bank
    item = world.scored.items.get(position=2)
    ExperimentItem.objects.filter(pk=item.pk).update(source_item=bank_item, key_flagged=True)
    item.refresh_from_db()
    kept = review_services.key_decision_create(
        item=item,
        user=world.users["owner"],
        outcome="confirmed",
        source="RFC 9110 §10.2.3",
        carry_to_bank=True,
        clear_bank_flag=False,
    )
    entry = KeyEntry.objects.get(item=bank_item)
    assert kept.carried_to_bank and not kept.bank_flag_cleared
    assert entry.flagged and "RFC 9110 §10.2.3" in entry.sources
    cleared = review_services.key_decision_create(
        item=item,
        user=world.users["owner"],
        outcome="confirmed",
        source="RFC 9110, checked again",
        carry_to_bank=True,
        clear_bank_flag=True,
    )
    entry.refresh_from_db()
    assert cleared.bank_flag_cleared and not entry.flagged
    assert entry.answer == "Retry-After (keyed)"  # a confirmation keeps the text
