"""An API GET writes nothing but the two documented, throttled exceptions (docs/design.md,
"Where things go in scoring"): a token's ``last_used``, at most once a minute per token
(api/auth.py ``TOUCH_EVERY``), which is how a team sees which of its tokens are stale; and, as on
the pages, the audit log's record of a bank exported with its key (once per interval, user and
format: tests/probe/test_no_writes_on_get.py tests the interval). Every GET operation of the
API's routes is crawled, so a new endpoint is covered unasked, as every member kind."""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from api.models import ApiToken
from tests.api.test_api_matrix import OPERATIONS, _path

pytestmark = pytest.mark.django_db

WRITE = re.compile(r"^\s*(INSERT|UPDATE|DELETE)\b", re.IGNORECASE)
TOKEN_TOUCH = re.compile(
    rf'^\s*UPDATE "{ApiToken._meta.db_table}" SET "last_used" = ', re.IGNORECASE
)
AUDIT = re.compile(r'^\s*INSERT INTO "probe_auditevent"', re.IGNORECASE)
# The operations whose GET hands out the key and is recorded for it.
RECORDED_READS = {"bank_export"}
GETS = [(name, path) for name, method, path in OPERATIONS if method == "GET"]


def _writes(client, url: str) -> tuple[int, list[str]]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    return response.status_code, [q["sql"] for q in captured if WRITE.match(q["sql"])]


@pytest.mark.parametrize("kind", ["viewer", "scorer", "editor", "owner"])
def test_no_api_get_writes_but_the_token_s_last_use(world, api_for, kind):
    client = api_for(kind)
    assert len(GETS) > 8
    # The first request of a fresh token records its use: that one UPDATE, of that one column.
    status, writes = _writes(client, "/me")
    assert status == 200 and len(writes) == 1 and TOKEN_TOUCH.match(writes[0]), writes
    offenders, answered = [], 0
    for name, path in GETS:
        status, writes = _writes(client, _path(path, world))
        answered += status == 200
        if name in RECORDED_READS:
            writes = [w for w in writes if not AUDIT.match(w)]
        if writes:  # inside the minute: not even the token is touched again
            offenders.append((name, writes[0][:200]))
    assert offenders == []
    assert answered > 0


def test_the_last_use_is_written_again_after_a_minute(world, api_for):
    client = api_for("viewer")
    client.get("/me")
    ApiToken.objects.filter(user=world.users["viewer"]).update(
        last_used=timezone.now() - timedelta(minutes=1, seconds=1)
    )
    status, writes = _writes(client, "/me")
    assert status == 200 and len(writes) == 1 and TOKEN_TOUCH.match(writes[0])
