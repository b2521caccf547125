"""A page fetched with GET writes nothing: every team page of the permission matrix (so a new
page is covered unasked), as a scorer and as the owner, in full and as an htmx fragment, and
the open pages, run no INSERT, UPDATE or DELETE. The writes a GET may cause are the audit log's
records of a read of the key: the key shown (probe.services.audit.key_view_record, once per
interval) and a bank exported with its key (every export is recorded)."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from probe.models import AuditEvent
from tests.probe.test_permissions import TEAM_URLS, UNSCOPED, UNSCOPED_KWARGS, _kwargs_for

WRITE = re.compile(r"^\s*(INSERT|UPDATE|DELETE)\b", re.IGNORECASE)
AUDIT = re.compile(r'^\s*INSERT INTO "probe_auditevent"', re.IGNORECASE)
# Pages whose GET hands out the key and is recorded for it, each time.
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
