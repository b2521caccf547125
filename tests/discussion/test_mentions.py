"""Mentions: a mentioned member hears of it in the inbox and by mail (in their language, with
the link, never the comment's text); a mention of someone who may not read the comment is
refused, naming them, and nothing typed is lost."""

from django.core import mail
from django.urls import reverse

from probe.models import KeyEntryComment, Notification, UserPreference
from probe.selectors.discussion import mentioned_names
from scoring.models import Assignment, ResponseComment
from tests.discussion.helpers import (
    AFTER_REVEAL_TEXT,
    a_response,
    response_url,
    reveal,
    start,
    thread_url,
)

SECRETS = ["Acme-second-config-label", "sim-overconfident", "Retry-Later"]


def test_mentioned_names():
    assert mentioned_names("@alice and @Bob.smith, see @alice.") == ["alice", "Bob.smith"]
    assert mentioned_names("mail alice@example.org") == []
    assert mentioned_names("(@carol)") == ["carol"]


def test_a_mention_arrives_in_the_inbox_and_by_mail_in_the_readers_language(
    client, world, settings, django_capture_on_commit_callbacks
):
    settings.EMAIL_ENABLED = True
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "https://probe.example.org"
    editor, viewer = world.users["editor"], world.users["viewer"]
    editor.email, editor.first_name, editor.last_name = "editor@example.org", "Eri", "Sato"
    editor.save()
    viewer.email = "viewer@example.org"
    viewer.save()
    UserPreference.objects.create(user=editor, language="ja")
    UserPreference.objects.create(user=viewer, notify_by_email=False)
    owner = world.users["owner"]
    owner.first_name, owner.last_name = "Olga", "Owner"
    owner.save()
    response = a_response(world)
    client.force_login(owner)
    text = f"@acme-editor @acme-viewer {AFTER_REVEAL_TEXT}"
    with django_capture_on_commit_callbacks(execute=True):
        page = client.post(response_url(world, response), {"text": text}, HTTP_HX_REQUEST="true")
    assert page.status_code == 200
    comment = ResponseComment.objects.get()
    mentions = Notification.objects.filter(kind="mentioned")
    assert {n.user for n in mentions} == {editor, viewer}
    for n in mentions:
        assert n.actor_name == "Olga Owner" and n.experiment_name == world.scored.name
        assert n.url == response_url(world, response) + f"#comment-{comment.pk}"
    # The viewer chose the inbox only; the editor's mail is in Japanese, without the text.
    assert [m.to for m in mail.outbox] == [["editor@example.org"]]
    message = mail.outbox[0]
    assert "Olga Owner" in message.body and "コメント" in message.body
    assert "https://probe.example.org" + response_url(world, response) in message.body
    for secret in [*SECRETS, AFTER_REVEAL_TEXT]:
        assert secret not in message.body and secret not in message.subject
    # The inbox says who and where, in the reader's language, and links to the comment.
    client.force_login(editor)
    inbox = client.get(reverse("inbox")).content.decode()
    assert "Olga Owner" in inbox and "コメント" in inbox
    assert f"#comment-{comment.pk}" in inbox
    assert AFTER_REVEAL_TEXT not in inbox
    # The link works for them (they are not blind to the experiment).
    assert client.get(response_url(world, response)).status_code == 200


def test_a_mention_of_a_blind_member_on_a_response_is_refused_keeping_the_text(client, world):
    start(world, "scorer")
    scorer = world.users["scorer"]
    scorer.first_name, scorer.last_name = "Sora", "Blind"
    scorer.save()
    client.force_login(world.users["owner"])
    text = "@acme-scorer what do you make of this one? (a long thought, typed with care)"
    page = client.post(
        response_url(world, a_response(world)), {"text": text}, HTTP_HX_REQUEST="true"
    )
    assert page.status_code == 400
    body = page.content.decode()
    assert "Sora Blind" in body and "@acme-scorer" in body and "has not revealed" in body
    # Everything typed is back in the text field.
    assert "a long thought, typed with care)</textarea>" in body
    assert not ResponseComment.objects.exists()
    assert not Notification.objects.filter(kind="mentioned").exists()
    # Once they have revealed, the same mention is taken.
    Assignment.objects.filter(user=scorer).delete()
    reveal(world, "scorer")
    page = client.post(
        response_url(world, a_response(world)), {"text": text}, HTTP_HX_REQUEST="true"
    )
    assert page.status_code == 200
    assert Notification.objects.get(kind="mentioned").user == scorer


def test_a_key_comment_mention_refuses_who_may_not_read_it(client, world):
    client.force_login(world.users["owner"])
    url = thread_url(world.items[0])
    # A viewer does not see the key: refused.
    page = client.post(url, {"text": "@acme-viewer look"}, HTTP_HX_REQUEST="true")
    assert page.status_code == 400 and "acme-viewer" in page.content.decode()
    # A blind editor would not see the owner's comment (written by someone who sees the
    # models) until their reveal: refused.
    start(world, "editor")
    page = client.post(url, {"text": "@acme-editor look"}, HTTP_HX_REQUEST="true")
    body = page.content.decode()
    assert page.status_code == 400 and "still scoring blind" in body and "@acme-editor look" in body
    assert not KeyEntryComment.objects.exists()
    # The blind editor's own comment is written blind: mentioning the owner is fine.
    client.force_login(world.users["editor"])
    page = client.post(url, {"text": "@acme-owner is the key right?"}, HTTP_HX_REQUEST="true")
    assert page.status_code == 200
    notification = Notification.objects.get(kind="mentioned")
    assert notification.user == world.users["owner"]
    assert notification.experiment_name == world.bank.name
    assert "is the key right" not in notification.experiment_name + notification.url


def test_the_completion_list(client, world):
    client.force_login(world.users["editor"])
    url = reverse("probe:mention_suggest", kwargs={"team_slug": world.team.slug})
    body = client.get(url, {"q": "acme-s"}, HTTP_HX_REQUEST="true").content.decode()
    assert 'data-username="acme-scorer"' in body and "acme-owner" not in body
    body = client.get(url, {"q": "nobody"}).content.decode()
    assert "No member by that name." in body
    # Another team's members are not listed; another team's list is a 404.
    assert "rival-owner" not in client.get(url, {"q": ""}).content.decode()
    other = reverse("probe:mention_suggest", kwargs={"team_slug": world.other_team.slug})
    assert client.get(other).status_code == 404


def test_a_mention_names_no_one_twice_and_not_oneself(client, world):
    client.force_login(world.users["owner"])
    url = thread_url(world.items[0])
    client.post(url, {"text": "@acme-owner @acme-editor @ACME-EDITOR"}, HTTP_HX_REQUEST="true")
    assert list(Notification.objects.values_list("user__username", flat=True)) == ["acme-editor"]
