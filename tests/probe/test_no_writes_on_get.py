"""A page fetched with GET writes nothing: every team page of the permission matrix (so a new
page is covered unasked), as a scorer and as the owner, in full and as an htmx fragment, and
the open pages, run no INSERT, UPDATE or DELETE. The writes a GET may cause are the audit log's
records of a read of the key, each once per interval for a user: the key shown
(probe.services.audit.key_view_record) and a bank exported with its key, per format
(export_record)."""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from probe.models import AuditEvent
from probe.services.audit import KEY_VIEW_LOG_INTERVAL
from tests.probe.test_permissions import TEAM_URLS, UNSCOPED, UNSCOPED_KWARGS, _kwargs_for

WRITE = re.compile(r"^\s*(INSERT|UPDATE|DELETE)\b", re.IGNORECASE)
AUDIT = re.compile(r'^\s*INSERT INTO "probe_auditevent"', re.IGNORECASE)
# Pages whose GET hands out the key and is recorded for it (once per interval: tested below).
RECORDED_READS = {"probe:bank_export"}


def writes_of(client, url: str, **extra) -> tuple[int, list[str]]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url, **extra)
    return response.status_code, [q["sql"] for q in captured if WRITE.match(q["sql"])]


@pytest.mark.parametrize("kind", ["owner", "scorer"])
def test_no_team_page_writes_on_get(client, world, kind):
    client.force_login(world.users[kind])
    urls = [
        (name, reverse(name, kwargs=_kwargs_for(pattern, world, kind, name)))
        for name, pattern in sorted(TEAM_URLS.items())
        if pattern.callback.team_view["GET"] is not None
    ]
    seen = 0
    offenders = []
    for name, url in urls:
        for extra in ({}, {"HTTP_HX_REQUEST": "true"}):
            status, writes = writes_of(client, url, **extra)
            if name in RECORDED_READS:
                writes = [w for w in writes if not AUDIT.match(w)]
            if writes:
                offenders.append((name, url, bool(extra), writes[0][:200]))
            seen += status == 200
    assert not offenders, offenders
    assert seen > 25  # the pages themselves, not only refusals


@pytest.mark.parametrize("name", sorted(UNSCOPED))
def test_no_open_page_writes_on_get(client, world, name):
    client.force_login(world.users["owner"])
    url = reverse(name, kwargs=UNSCOPED_KWARGS.get(name))
    _status, writes = writes_of(client, url)
    assert not writes, f"GET {url} wrote: {writes}"


def test_the_key_view_is_recorded_once_per_interval(client, world):
    client.force_login(world.users["editor"])
    bank = reverse("probe:bank_detail", kwargs={"bank_pk": world.bank.pk})
    status, writes = writes_of(client, f"{bank}?key=1")
    assert status == 200
    assert len(writes) == 1 and "probe_auditevent" in writes[0]
    status, writes = writes_of(client, f"{bank}?key=1&flagged=1")
    assert status == 200 and writes == []  # inside the interval: nothing more
    assert AuditEvent.objects.filter(action=AuditEvent.Action.KEY_VIEW).count() == 1


def test_a_bank_export_is_recorded_once_per_interval_and_format(client, world):
    client.force_login(world.users["editor"])
    url = reverse("probe:bank_export", kwargs={"bank_pk": world.bank.pk})
    status, writes = writes_of(client, f"{url}?format=text")
    assert status == 200 and len(writes) == 1 and AUDIT.match(writes[0])
    status, writes = writes_of(client, f"{url}?format=text")
    assert status == 200 and writes == []  # the same export inside the interval: nothing more
    status, writes = writes_of(client, f"{url}?format=json")
    assert status == 200 and len(writes) == 1  # another format is another record
    # Another user's export is recorded for them; past the interval, again for the first.
    client.force_login(world.users["owner"])
    assert len(writes_of(client, f"{url}?format=text")[1]) == 1
    events = AuditEvent.objects.filter(bank=world.bank, action=AuditEvent.Action.EXPORT)
    assert sorted((e.user.username, e.details["format"]) for e in events) == [
        (world.users["editor"].username, "json"),
        (world.users["editor"].username, "text"),
        (world.users["owner"].username, "text"),
    ]
    events.update(created=timezone.now() - KEY_VIEW_LOG_INTERVAL - timedelta(seconds=1))
    client.force_login(world.users["editor"])
    assert len(writes_of(client, f"{url}?format=text")[1]) == 1
