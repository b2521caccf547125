"""Prompt versions: a version never changes, edits make the next version, used ones stay, diffs."""

import hashlib
import html

import pytest
from django.core.exceptions import ValidationError
from django.db.models import ProtectedError
from django.urls import reverse

from probe import prompts
from probe.models import AuditEvent, PromptVersion
from probe.services import prompts as prompt_services
from tests.probe import factories


def url(name, **kwargs):
    return reverse(f"probe:{name}", kwargs=kwargs)


@pytest.fixture
def house(world):
    """Version 1 of a team prompt, made through the service."""
    return prompt_services.prompt_create(
        team=world.team,
        user=world.users["editor"],
        name="House prompt",
        text="Answer closed-book.\nline two\nline three",
        language="en",
        note="first",
    )


# Creating and editing --------------------------------------------------------------------------


def test_create_stores_exact_text_with_its_sha256(house):
    assert house.version == 1 and house.parent is None
    assert house.content_hash == hashlib.sha256(house.text.encode()).hexdigest()
    assert AuditEvent.objects.filter(subject="prompt version", action="create").count() == 1


def test_edit_makes_a_new_version_with_parent_and_hash_and_leaves_the_old_one(editor, world, house):
    before = (house.text, house.content_hash, house.note)
    response = editor.post(
        url("prompt_edit", prompt_pk=house.pk),
        {
            "text": "Answer closed-book.\r\nline 2\r\nline three\r\n",
            "note": "renumbered",
            "language": "en",
        },
    )
    v2 = PromptVersion.objects.get(team=world.team, name="House prompt", version=2)
    assert response.status_code == 302 and response["Location"] == url(
        "prompt_detail", prompt_pk=v2.pk
    )
    assert v2.parent == house and v2.note == "renumbered"
    assert v2.text == "Answer closed-book.\nline 2\nline three"  # CRLF from the browser normalised
    assert v2.content_hash == prompts.content_hash(v2.text)
    house.refresh_from_db()
    assert (house.text, house.content_hash, house.note) == before


def test_editing_an_older_version_numbers_after_the_latest(world, house):
    user = world.users["editor"]
    v2 = prompt_services.prompt_new_version(prompt=house, user=user, text="two", note="n")
    v3 = prompt_services.prompt_new_version(prompt=house, user=user, text="three", note="n")
    assert (v2.version, v3.version) == (2, 3)
    assert v3.parent == house


@pytest.mark.parametrize(
    "text",
    [
        "Answer closed-book.\nline two\nline three",
        "  Answer closed-book.\r\nline two\r\nline three\r\n\r\n",
    ],
)
def test_identical_text_is_refused_as_no_change(world, house, text):
    with pytest.raises(ValidationError) as caught:
        prompt_services.prompt_new_version(prompt=house, user=None, text=text, note="nothing")
    assert "No change" in " ".join(caught.value.messages)
    assert PromptVersion.objects.filter(name="House prompt").count() == 1


def test_identical_to_any_earlier_version_is_refused(world, house):
    v2 = prompt_services.prompt_new_version(prompt=house, user=None, text="other", note="n")
    with pytest.raises(ValidationError, match="No change"):
        prompt_services.prompt_new_version(prompt=v2, user=None, text=house.text, note="back")


def test_identical_text_through_the_page_shows_the_message(editor, house):
    response = editor.post(
        url("prompt_edit", prompt_pk=house.pk),
        {"text": house.text, "note": "try", "language": "en"},
    )
    assert response.status_code == 200
    assert "No change" in response.content.decode()
    assert PromptVersion.objects.filter(name="House prompt").count() == 1


def test_edit_needs_a_note_and_text(world, house):
    with pytest.raises(ValidationError) as caught:
        prompt_services.prompt_new_version(prompt=house, user=None, text="new", note="  ")
    assert "note" in caught.value.error_dict
    with pytest.raises(ValidationError) as caught:
        prompt_services.prompt_new_version(prompt=house, user=None, text="\n \n", note="x")
    assert "text" in caught.value.error_dict


def test_a_second_prompt_of_the_same_name_is_refused(editor, world, house):
    response = editor.post(
        url("prompt_create", team_slug=world.team.slug),
        {"name": "House prompt", "language": "en", "text": "Something else", "note": ""},
    )
    assert response.status_code == 200
    assert "already has a prompt called" in html.unescape(response.content.decode())


def test_create_page_can_start_from_an_existing_text(editor, world, house):
    body = editor.get(
        url("prompt_create", team_slug=world.team.slug) + f"?from={house.pk}"
    ).content.decode()
    assert "line three" in body


def test_the_same_name_in_another_team_is_independent(world, house):
    other = prompt_services.prompt_create(
        team=world.other_team, user=None, name="House prompt", text=house.text
    )
    assert other.version == 1


# Deleting ----------------------------------------------------------------------------------------


def test_used_version_cannot_be_deleted_and_protect_holds(editor, world):
    used = world.prompt  # the world's experiment uses it
    with pytest.raises(ValidationError, match="can never be deleted"):
        prompt_services.prompt_delete(prompt=used, user=world.users["editor"])
    response = editor.post(url("prompt_delete", prompt_pk=used.pk), follow=True)
    assert "can never be deleted" in response.content.decode()
    assert PromptVersion.objects.filter(pk=used.pk).exists()
    # The database refuses too, whatever the code above it does.
    with pytest.raises(ProtectedError):
        PromptVersion.objects.filter(pk=used.pk).delete()
    # And the delete page does not offer the button.
    page = editor.get(url("prompt_delete", prompt_pk=used.pk)).content.decode()
    assert 'type="submit"' not in page.split("<main")[1]


def test_unused_version_is_deleted_by_an_editor(editor, world, house):
    response = editor.post(url("prompt_delete", prompt_pk=house.pk))
    assert response.status_code == 302
    assert not PromptVersion.objects.filter(pk=house.pk).exists()
    assert AuditEvent.objects.filter(subject="prompt version", action="delete").count() == 1


def test_viewer_cannot_delete_or_edit(viewer, house):
    assert viewer.post(url("prompt_delete", prompt_pk=house.pk)).status_code == 403
    assert (
        viewer.post(url("prompt_edit", prompt_pk=house.pk), {"text": "x", "note": "y"}).status_code
        == 403
    )
    assert PromptVersion.objects.filter(pk=house.pk).exists()


# Diffs -------------------------------------------------------------------------------------------


def test_diff_function_rows_and_counts():
    diff = prompt_services.prompt_diff("a\nline two\nc", "a\nline 2\nc\nd")
    kinds = [row.kind for row in diff.rows]
    assert kinds == ["equal", "replace", "equal", "insert"]
    assert (diff.removed, diff.added) == (1, 2)
    replace = diff.rows[1]
    assert [s.text for s in replace.old if s.changed] == ["two"]
    assert [s.text for s in replace.new if s.changed] == ["2"]
    # Joining the segments gives each line back exactly.
    assert "".join(s.text for s in replace.old) == "line two"
    assert prompt_services.prompt_diff("same", "same").identical


def test_diff_marks_a_changed_phrase_as_one_change():
    diff = prompt_services.prompt_diff(
        "MEDIUM means probably right. LOW", "MEDIUM means you would bet. LOW"
    )
    (row,) = diff.rows
    assert [s.text for s in row.old if s.changed] == ["probably right."]
    assert [s.text for s in row.new if s.changed] == ["you would bet."]


def test_diff_page_shows_added_and_removed_lines(viewer, world, house):
    v2 = prompt_services.prompt_new_version(
        prompt=house,
        user=None,
        note="n",
        text="Answer closed-book.\nline 2\nline three\nbrand new <b>line</b>",
    )
    response = viewer.get(url("prompt_diff", prompt_pk=v2.pk) + f"?other={house.pk}")
    body = response.content.decode()
    assert response.status_code == 200
    assert "<del>two</del>" in body and "<ins>2</ins>" in body
    assert "<ins>brand new &lt;b&gt;line&lt;/b&gt;</ins>" in body  # escaped, not markup
    assert 'class="insert"' in body and 'class="replace"' in body
    assert "−1" in body and "+2" in body


def test_diff_without_other_compares_with_the_parent(viewer, house):
    v2 = prompt_services.prompt_new_version(prompt=house, user=None, note="n", text="x")
    body = viewer.get(url("prompt_diff", prompt_pk=v2.pk)).content.decode()
    assert 'class="diff"' in body and "House prompt v1 → House prompt v2" in html.unescape(body)


def test_diff_offers_only_this_teams_versions_and_refuses_another_teams(viewer, world, house):
    rival = factories.PromptVersionFactory(team=world.other_team, name="Rival prompt")
    body = viewer.get(url("prompt_diff", prompt_pk=house.pk)).content.decode()
    assert "Rival" not in body and f'value="{world.prompt.pk}"' in body
    response = viewer.get(url("prompt_diff", prompt_pk=house.pk) + f"?other={rival.pk}")
    assert response.status_code == 404 and b"Rival" not in response.content
    assert viewer.get(url("prompt_diff", prompt_pk=house.pk) + "?other=abc").status_code == 404


# Defaults ----------------------------------------------------------------------------------------


def test_defaults_are_created_once(world):
    created = prompt_services.prompt_defaults_ensure(team=world.team)
    assert sorted(p.name for p in created) == ["Default (English)", "Default (Japanese)"]
    assert prompt_services.prompt_defaults_ensure(team=world.team) == []
    assert PromptVersion.objects.filter(team=world.team, name__startswith="Default").count() == 2


def test_defaults_are_not_recreated_while_a_version_of_the_name_exists(world):
    (english, japanese) = sorted(
        prompt_services.prompt_defaults_ensure(team=world.team), key=lambda p: p.name
    )
    prompt_services.prompt_new_version(prompt=english, user=None, text="changed", note="n")
    english.delete()  # v1 unused; v2 remains
    assert prompt_services.prompt_defaults_ensure(team=world.team) == []


@pytest.mark.parametrize("language", ["en", "ja"])
def test_defaults_carry_the_four_rules_and_the_english_tokens(world, language):
    prompt_services.prompt_defaults_ensure(team=world.team)
    text = PromptVersion.objects.get(
        team=world.team, name=prompts.DEFAULT_PROMPT_NAME[language]
    ).text
    for token in ("ANSWER", "CONFIDENCE", "UNKNOWN", "HIGH", "MEDIUM", "LOW"):
        assert token in text
    assert "N. ANSWER:" in text and "\nCONFIDENCE:" in text
    rules = {
        "en": [
            "Closed book",
            "Tools are off",
            "UNKNOWN is allowed and costs nothing",
            "A wrong answer and an UNKNOWN are scored differently",
            "HIGH means you would stake\na technical decision".replace("\n", " "),
            "exactly two lines per question and nothing else",
            "no summary",
        ],
        "ja": [
            "参照禁止",
            "ツールは使えません",
            "UNKNOWN と答えてかまいません",
            "誤答と UNKNOWN は別々に採点",
            "技術的な判断",
            "二行だけ",
            "まとめは書かないでください",
        ],
    }[language]
    for rule in rules:
        assert rule in text, rule


def test_the_list_shows_the_defaults_and_groups_versions(
    viewer, world, house, django_assert_max_num_queries
):
    # A team gets the default prompts when it is created (team_create, the admin, and a
    # migration for the teams before); the page itself only reads.
    prompt_services.prompt_defaults_ensure(team=world.team)
    prompt_services.prompt_new_version(prompt=house, user=None, text="v2 text", note="second")
    assert viewer.get(url("prompt_list", team_slug=world.team.slug)).status_code == 200
    # Once the defaults exist, the page costs the same number of queries however many versions.
    with django_assert_max_num_queries(9):
        response = viewer.get(url("prompt_list", team_slug=world.team.slug))
    body = html.unescape(response.content.decode())
    assert response.status_code == 200
    assert "Default (English)" in body and "Default (Japanese)" in body
    assert body.count('class="prompt-group"') == 4  # world's prompt, house, two defaults
    assert house.short_hash in body and f'title="SHA-256 {house.content_hash}"' in body
    assert f"used by {world.prompt.experiments.count()}" in body  # the world's prompt
    assert "Diff with v1" in body


def test_detail_shows_the_exact_text_full_hash_and_a_copy_button(viewer, world):
    prompt_services.prompt_defaults_ensure(team=world.team)
    ja = PromptVersion.objects.get(team=world.team, language="ja")
    body = viewer.get(url("prompt_detail", prompt_pk=ja.pk)).content.decode()
    assert (
        f'<pre id="prompt-text" class="prompt-text" tabindex="0" lang="ja">{html.escape(ja.text)}</pre>'
        in body
    )
    assert ja.content_hash in body
    assert 'data-copy="#prompt-text"' in body
    assert "Edit (new version)" not in body  # viewers read only


@pytest.mark.django_db(transaction=True)
def test_two_editors_saving_at_once_get_consecutive_versions():
    """On PostgreSQL, where rows are locked: no clash, versions 2 and 3."""
    import threading

    from django.db import connection, connections

    if connection.vendor != "postgresql":
        pytest.skip("needs row locks (PostgreSQL)")
    team = factories.TeamFactory()
    v1 = prompt_services.prompt_create(team=team, user=None, name="Race", text="one")
    barrier = threading.Barrier(2)
    results, errors = [], []

    def save(text):
        try:
            barrier.wait()
            results.append(
                prompt_services.prompt_new_version(
                    prompt=v1, user=None, text=text, note="n"
                ).version
            )
        except Exception as error:  # noqa: BLE001 (reported below)
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=save, args=(text,)) for text in ("two", "three")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and sorted(results) == [2, 3]


def test_each_default_prompts_note_is_in_its_own_language(world):
    prompt_services.prompt_defaults_ensure(team=world.team)
    notes = {
        p.language: p.note
        for p in PromptVersion.objects.filter(
            team=world.team, name__in=prompts.DEFAULT_PROMPT_NAME.values()
        )
    }
    assert notes == {"en": "Default prompt of the app", "ja": "アプリの既定のプロンプト"}


def test_the_migration_puts_the_japanese_note_on_an_existing_japanese_default(world):
    import importlib

    from django.apps import apps

    migration = importlib.import_module("probe.migrations.0026_japanese_default_prompt_note")
    prompt_services.prompt_defaults_ensure(team=world.team)
    japanese = PromptVersion.objects.get(team=world.team, name=prompts.DEFAULT_PROMPT_NAME["ja"])
    PromptVersion.objects.filter(pk=japanese.pk).update(note="Default prompt of the app")
    migration.japanese_note(apps, None)
    japanese.refresh_from_db()
    assert japanese.note == "アプリの既定のプロンプト"
    english = PromptVersion.objects.get(team=world.team, name=prompts.DEFAULT_PROMPT_NAME["en"])
    assert english.note == "Default prompt of the app"
