"""The mails the product sends, read from Django's outbox: each in its reader's language, naming
the product by its Japanese name (「盲検プローブ」) in Japanese, with its dates in the reader's
time zone, and no English left in a Japanese mail but names, tokens and addresses."""

import re

import pytest
from django.core import mail
from django.urls import reverse

from probe.services.preferences import user_language_set, user_time_zone_set
from tests.i18n.test_pages_ja import ALLOWED, IDENTIFIER, WORD
from tests.probe import factories

PRODUCT_JA = "盲検プローブ"


def english_words(text: str, *names: str) -> list[str]:
    for name in names:
        text = text.replace(name, " ")
    text = IDENTIFIER.sub(" ", text)
    return [w for w in WORD.findall(text) if w not in ALLOWED]


def badly_spaced(subject: str) -> list[str]:
    """A subject's stray spaces: at its ends, or between two Japanese words (「盲検プローブ の」)."""
    japanese = r"[\u3040-\u30ff\u3400-\u9fff「」（）：、。]"
    found = re.findall(rf"{japanese} +{japanese}", subject)
    return found + (["space at an end"] if subject != subject.strip() else [])


@pytest.fixture
def mail_on(settings):
    settings.EMAIL_ENABLED = True


def invite(client, world, invitee: str):
    client.force_login(world.users["owner"])
    return client.post(
        reverse("probe:member_list", kwargs={"team_slug": world.team.slug}),
        {"invitee": invitee, "role": "scorer"},
    )


def test_an_unknown_invitee_reads_the_invitation_in_the_inviters_language_and_zone(
    client, world, mail_on
):
    owner = world.users["owner"]
    user_language_set(user=owner, language="ja")
    user_time_zone_set(user=owner, time_zone="Asia/Tokyo")
    invite(client, world, "new-colleague@example.org")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["new-colleague@example.org"]
    assert PRODUCT_JA in message.subject and PRODUCT_JA in message.body
    assert "Blind probe" not in message.subject + message.body
    assert re.search(r"\d{4}年\d{1,2}月\d{1,2}日 \d\d:\d\d JST", message.body), message.body
    team = world.team.name
    assert not english_words(message.subject, team), message.subject
    assert not badly_spaced(message.subject), message.subject
    assert not english_words(message.body, team, "acme-owner"), message.body


def test_a_known_invitee_reads_it_in_their_own_language(client, world, mail_on):
    user_language_set(user=world.users["owner"], language="ja")
    reader = factories.UserFactory(username="reader", email="reader@example.org")
    user_language_set(user=reader, language="en")
    user_time_zone_set(user=reader, time_zone="Europe/Paris")
    invite(client, world, "Reader@example.org")
    message = mail.outbox[0]
    assert "Blind probe" in message.body and PRODUCT_JA not in message.body
    assert "You are invited" in message.body
    assert re.search(r"\d{1,2} \w{3} \d{4}, \d\d:\d\d CE(S)?T", message.body), message.body


def test_the_password_reset_mail_is_in_the_accounts_language_and_names_the_product(
    client, world, mail_on
):
    user = world.users["viewer"]
    user.email = "viewer@example.org"
    user.save()
    user_language_set(user=user, language="ja")
    client.post(
        reverse("password_reset"), {"email": "viewer@example.org"}, HTTP_ACCEPT_LANGUAGE="en"
    )
    message = mail.outbox[0]
    assert PRODUCT_JA in message.subject and PRODUCT_JA in message.body
    assert "testserver" not in message.subject
    assert not english_words(message.subject), message.subject
    assert not badly_spaced(message.subject), message.subject
    assert not english_words(message.body, user.username), message.body


def test_the_login_pause_mail_names_the_product_in_japanese(client, world, mail_on, settings):
    user = world.users["scorer"]
    user.email = "scorer@example.org"
    user.save()
    user_language_set(user=user, language="ja")
    for n in range(settings.LOGIN_FAILURE_LIMIT + 1):
        client.post(
            reverse("login"),
            {"username": user.username, "password": f"guess-{n}"},
            REMOTE_ADDR="198.51.100.7",
        )
    message = mail.outbox[0]
    assert PRODUCT_JA in message.subject and "Blind probe" not in message.subject
    assert not english_words(message.subject), message.subject
    assert not badly_spaced(message.subject), message.subject
    assert not english_words(message.body, user.username), message.body
