"""Messages are translated when a request reads them, not when their module is imported: a
message kept in a module-level constant reaches a Japanese user in Japanese, and an English one
in English, in the same process."""

import pytest
from django.urls import reverse

from probe.models import Invitation


def _invite_by_unknown_username(client, world, language):
    client.force_login(world.users["owner"])
    return client.post(
        reverse("probe:member_list", kwargs={"team_slug": "acme"}),
        {"invitee": "nobody-at-all", "role": "scorer"},
        HTTP_ACCEPT_LANGUAGE=language,
    )


@pytest.mark.django_db
def test_the_invite_by_username_error_is_in_the_requests_language(client, world):
    japanese = _invite_by_unknown_username(client, world, "ja").content.decode()
    assert "ユーザー名で招待できるのは、あなたとすでに同じチームにいる人だけです。" in japanese
    assert "By username you can invite" not in japanese
    english = _invite_by_unknown_username(client, world, "en").content.decode()
    assert "By username you can invite only someone who already shares" in english
    assert not Invitation.objects.exists()
