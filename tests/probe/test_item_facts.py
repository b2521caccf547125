"""Item facts: topic and answer format, sources with the day they were checked, versions that
change with the question or key answer (experiments keep their snapshot), retiring with a reason,
and the items due for a re-check."""

import datetime

import pytest
from django.urls import reverse

from probe import bankformat
from probe.models import AuditEvent, ExperimentItem, Item, ItemVersion
from probe.selectors.items import items_due_for_recheck
from probe.services import banks as bank_services
from probe.services import experiments
from probe.services.teams import team_set_recheck_after

TODAY = datetime.date(2026, 12, 1)


def snapshot_of(experiment, item):
    return ExperimentItem.objects.get(experiment=experiment, source_item=item)


def new_experiment(world):
    return experiments.experiment_create(
        team=world.team,
        user=world.users["editor"],
        bank=world.bank,
        prompt_version=world.prompt,
        configs=[world.config],
        repeats=1,
        mode="sheet",
        seed=3,
    )


def test_a_new_question_makes_a_new_version_and_experiments_keep_theirs(world):
    item = world.items[0]
    before = new_experiment(world)
    taken = snapshot_of(before, item)
    assert (taken.item_version, taken.question) == (1, item.question)

    bank_services.item_update(
        item=item,
        user=world.users["editor"],
        question="Which status code means Too Many Requests (RFC 6585)?",
        answer_format="",
    )
    item.refresh_from_db()
    assert item.version == 2
    old = ItemVersion.objects.get(item=item)
    assert (old.version, old.question) == (1, "Which status code means Too Many Requests?")
    assert (
        old.key_answer == "429 Too Many Requests (keyed)"
        and old.changed_by == world.users["editor"]
    )

    taken.refresh_from_db()
    assert (
        taken.question == "Which status code means Too Many Requests?" and taken.item_version == 1
    )
    after = new_experiment(world)
    assert snapshot_of(after, item).item_version == 2
    assert snapshot_of(after, item).question.endswith("(RFC 6585)?")


def test_a_new_key_answer_makes_a_new_version_but_a_flag_or_a_note_does_not(world):
    item = world.items[0]
    entry = item.key_entry

    def set_key(**changes):
        values = {
            "answer": entry.answer,
            "flagged": entry.flagged,
            "flag_note": entry.flag_note,
            "sources": list(entry.sources),
        }
        values.update(changes)
        bank_services.key_entry_set(item=item, user=None, **values)
        item.refresh_from_db()

    set_key(flagged=True, flag_note="check RFC 6585")
    assert item.version == 1
    set_key(answer="429")
    assert item.version == 2
    assert ItemVersion.objects.get(item=item, version=1).key_answer == entry.answer
    bank_services.item_update(item=item, user=None, question=item.question, answer_format="x")
    item.refresh_from_db()
    assert item.version == 2  # the format alone is not a new version


def test_topic_and_answer_format_are_edited_on_the_item_and_snapshotted(client, world):
    item = world.items[1]
    client.force_login(world.users["editor"])
    response = client.post(
        reverse("probe:item_edit", kwargs={"item_pk": item.pk}),
        {
            "question": item.question,
            "answer_format": "the header's name",
            "answer_kind": "identifier",
            "topic": "Retries",
        },
    )
    assert response.status_code == 302
    item.refresh_from_db()
    assert (item.answer_kind, item.topic, item.version) == ("identifier", "Retries", 1)
    taken = snapshot_of(new_experiment(world), item)
    assert (taken.topic, taken.answer_kind) == ("Retries", "identifier")
    bad = client.post(
        reverse("probe:item_edit", kwargs={"item_pk": item.pk}),
        {"question": item.question, "answer_format": "", "answer_kind": "essay", "topic": ""},
    )
    assert bad.status_code == 200 and "Select a valid choice" in bad.content.decode()
    item.refresh_from_db()
    assert item.answer_kind == "identifier"  # nothing lost


def test_retire_with_a_reason(client, world):
    item = world.items[2]
    client.force_login(world.users["editor"])
    client.post(
        reverse("probe:item_retire", kwargs={"item_pk": item.pk}),
        {"retired": "1", "reason": "Python 3.10 is no longer new"},
    )
    item.refresh_from_db()
    assert item.retired and item.retired_reason == "Python 3.10 is no longer new"
    event = AuditEvent.objects.filter(action=AuditEvent.Action.RETIRE).latest("pk")
    assert event.details == {"reason": "Python 3.10 is no longer new"}
    page = client.get(reverse("probe:item_detail", kwargs={"item_pk": item.pk})).content.decode()
    assert "Python 3.10 is no longer new" in page
    client.post(reverse("probe:item_retire", kwargs={"item_pk": item.pk}), {"retired": "0"})
    item.refresh_from_db()
    assert not item.retired and item.retired_reason == ""


def test_the_item_page_lists_earlier_versions_to_those_who_may_see_the_key(client, world):
    item = world.items[0]
    bank_services.item_update(item=item, user=None, question="A new wording?", answer_format="")
    url = reverse("probe:item_detail", kwargs={"item_pk": item.pk})
    client.force_login(world.users["editor"])
    body = client.get(url + "?key=1").content.decode()
    assert "Earlier versions" in body and "429 Too Many Requests (keyed)" in body
    client.force_login(world.users["viewer"])
    body = client.get(url + "?key=1").content.decode()
    assert "Earlier versions" not in body and "429 Too Many Requests (keyed)" not in body


def _check(item, day):
    entry = item.key_entry
    bank_services.key_entry_set(
        item=item,
        user=None,
        answer=entry.answer,
        flagged=entry.flagged,
        flag_note=entry.flag_note,
        sources=["RFC 9110"],
        sources_checked=day,
    )


def test_items_due_for_a_recheck_follow_the_team_setting(world):
    first, second = world.items[0], world.items[1]
    _check(first, datetime.date(2025, 1, 10))
    _check(second, datetime.date(2026, 11, 1))
    assert [i.pk for i in items_due_for_recheck(team=world.team, today=TODAY)] == [first.pk]
    team_set_recheck_after(team=world.team, user=None, days=20)
    due = items_due_for_recheck(team=world.team, today=TODAY)
    assert [i.pk for i in due] == [first.pk, second.pk]  # the oldest check first
    _check(second, None)  # sources never checked: due, and listed first
    assert [i.pk for i in items_due_for_recheck(team=world.team, today=TODAY)][0] == second.pk
    bank_services.item_set_retired(item=first, user=None, retired=True, reason="rotated out")
    assert first.pk not in [i.pk for i in items_due_for_recheck(team=world.team, today=TODAY)]


def test_the_recheck_page_marks_an_item_checked_and_only_owners_change_the_setting(client, world):
    item = world.items[0]
    _check(item, datetime.date(2020, 1, 1))
    url = reverse("probe:items_recheck", kwargs={"team_slug": world.team.slug})
    client.force_login(world.users["viewer"])
    assert client.get(url).status_code == 403
    client.force_login(world.users["editor"])
    body = client.get(url).content.decode()
    assert "2020-01-01" in body and "Team setting" not in body
    client.post(url, {"item": item.pk})
    item.key_entry.refresh_from_db()
    assert item.key_entry.sources_checked is not None
    assert item.key_entry.sources_checked >= datetime.date(2026, 1, 1)
    assert client.post(url, {"recheck_after_days": "30"}).status_code == 302
    world.team.refresh_from_db()
    assert world.team.recheck_after_days == 365  # an editor may not
    client.force_login(world.users["owner"])
    client.post(url, {"recheck_after_days": "30"})
    world.team.refresh_from_db()
    assert world.team.recheck_after_days == 30
    assert (
        client.post(url, {"item": world.other_bank.blocks.first().items.first().pk}).status_code
        == 404
    )


def test_imported_facts_reach_the_items_and_come_back_on_export(world):
    text = (
        "id,question,key,answer_format,topic,sources_checked,source_refs\n"
        "q1,Which port?,5432,number,Networking,2025-06-01,PostgreSQL docs\n"
    )
    bank = bank_services.bank_import(team=world.team, user=None, data=bankformat.parse_csv(text))
    item = Item.objects.get(block__bank=bank)
    assert (item.ref, item.topic, item.answer_kind) == ("q1", "Networking", "number")
    assert item.key_entry.sources_checked == datetime.date(2025, 6, 1)
    again = bankformat.parse_csv(bank_services.bank_export(bank=bank, user=None, file_format="csv"))
    assert again.blocks == bankformat.parse_csv(text).blocks


@pytest.mark.parametrize("days", [0, -3])
def test_the_setting_must_be_at_least_a_day(world, days):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError):
        team_set_recheck_after(team=world.team, user=None, days=days)
