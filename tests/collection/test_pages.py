"""Experiment and run pages: the form, live progress that stops, the sealed key, blinded scorers."""

import re

import pytest
from django.urls import reverse

from probe.models import AuditEvent, Experiment, Run
from probe.services import collection, experiments
from tests.collection.conftest import collect_all, make_config, make_experiment
from tests.conftest import KEY_ANSWERS

FLAG_NOTE = "Check RFC 9110 10.2.3"
POLL = 'hx-trigger="load delay:2s"'


def _pages(experiment) -> list[str]:
    run = experiment.runs.order_by("order").first()
    return [
        reverse("probe:experiment_list", kwargs={"team_slug": experiment.team.slug}),
        reverse("probe:experiment_detail", kwargs={"experiment_pk": experiment.pk}),
        reverse("probe:experiment_prompt", kwargs={"experiment_pk": experiment.pk}),
        reverse("probe:run_detail", kwargs={"run_pk": run.pk}),
        reverse("probe:run_detail", kwargs={"run_pk": run.pk}) + "?key=1",
        reverse("probe:run_raw", kwargs={"run_pk": run.pk}),
    ]


def test_create_form_makes_an_experiment_and_warns_about_one_repeat(client, world, simulator):
    sim = make_config(world, label="Sim expert", base_url=simulator.base_url)
    client.force_login(world.users["editor"])
    url = reverse("probe:experiment_create", kwargs={"team_slug": world.team.slug})
    page = client.get(url).content.decode()
    assert "Sim expert (simulated)" in page
    assert 'id="repeats-warning"' in page and 'value="2"' in page
    response = client.post(
        url,
        {
            "bank": world.bank.pk,
            "prompt_version": world.prompt.pk,
            "configs": [sim.pk],
            "repeats": "1",
            "mode": "sheet",
            "seed": "99",
            "name": "",
        },
    )
    assert response.status_code == 302
    experiment = Experiment.objects.get(team=world.team, seed=99)
    assert experiment.repeats == 1 and experiment.runs.count() == 1
    detail = client.get(response["Location"]).content.decode()
    assert "run-to-run variation will be unknown" in detail
    assert "99" in detail and world.prompt.short_hash in detail
    assert "simulated" in detail

    bad = client.post(
        url,
        {"bank": world.bank.pk, "prompt_version": world.prompt.pk, "repeats": "1", "mode": "sheet"},
    )
    assert bad.status_code == 200 and "run-to-run variation will be unknown" in bad.content.decode()
    rival = client.post(
        url,
        {
            "bank": world.other_bank.pk,
            "prompt_version": world.prompt.pk,
            "configs": [sim.pk],
            "repeats": "2",
            "mode": "sheet",
        },
    )
    assert (
        rival.status_code == 200 and Experiment.objects.filter(bank=world.other_bank).count() == 0
    )


def test_progress_polls_while_collecting_and_stops_when_done(client, world, simulator):
    config = make_config(world, label="Sim expert", base_url=simulator.base_url)
    experiment = make_experiment(world, [config], repeats=2, start=False)
    client.force_login(world.users["viewer"])
    url = reverse("probe:experiment_detail", kwargs={"experiment_pk": experiment.pk})
    assert POLL not in client.get(url).content.decode(), "nothing to wait for before the start"

    experiments.experiment_start(experiment=experiment, user=None, queue=False)
    page = client.get(url).content.decode()
    assert POLL in page and 'id="experiment-progress"' in page
    fragment = client.get(url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="experiment-progress")
    body = fragment.content.decode()
    assert body.startswith('<section id="experiment-progress"') and POLL in body
    assert "<html" not in body and "0 / 3" in body

    first = experiment.runs.order_by("order").first()
    collection.collect_unit_sync(run_pk=first.pk, sleep=lambda s: None)
    body = client.get(
        url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="experiment-progress"
    ).content.decode()
    assert POLL in body and "3 / 3" in body and "0 / 3" in body

    collect_all(experiment)
    body = client.get(
        url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="experiment-progress"
    ).content.decode()
    assert POLL not in body and "hx-get" not in body.split(">", 1)[0]
    assert "Collection complete" in body
    assert POLL not in client.get(url).content.decode()


def test_polling_stops_when_only_people_can_move_it_on(client, world, replay):
    from tests.collection.conftest import Reply

    replay.play([Reply(401, '{"error": {"message": "nope"}}')])
    config = make_config(
        world, label="Local", provider="openai_chat", model_name="m", base_url=replay.base_url
    )
    experiment = make_experiment(world, [config])
    collect_all(experiment)
    client.force_login(world.users["editor"])
    url = reverse("probe:experiment_detail", kwargs={"experiment_pk": experiment.pk})
    body = client.get(url).content.decode()
    assert POLL not in body
    assert "nope" in body and "req_replay_1" in body
    assert reverse("probe:run_retry", kwargs={"run_pk": experiment.runs.get().pk}) in body
    assert reverse("probe:run_close", kwargs={"run_pk": experiment.runs.get().pk}) in body


def test_the_key_is_sealed_on_every_page_until_collection_is_complete(client, world, simulator):
    config = make_config(world, label="Sim expert", base_url=simulator.base_url)
    experiment = make_experiment(world, [config], repeats=2)
    first = experiment.runs.order_by("order").first()
    collection.collect_unit_sync(run_pk=first.pk, sleep=lambda s: None)  # one run in, one to go
    for role in ("viewer", "scorer", "editor", "owner"):
        client.force_login(world.users[role])
        for url in _pages(experiment):
            body = client.get(url).content.decode()
            for secret in (*KEY_ANSWERS, FLAG_NOTE):
                assert secret not in body, (
                    f"{url} as {role} shows {secret!r} before collection ends"
                )

    collect_all(experiment)
    run_url = reverse("probe:run_detail", kwargs={"run_pk": first.pk})
    client.force_login(world.users["editor"])
    assert KEY_ANSWERS[0] not in client.get(run_url).content.decode(), "only on request"
    body = client.get(run_url + "?key=1").content.decode()
    assert KEY_ANSWERS[0] in body and FLAG_NOTE in body
    assert AuditEvent.objects.filter(
        action=AuditEvent.Action.KEY_VIEW, user=world.users["editor"]
    ).exists()
    for role in ("viewer", "scorer"):
        client.force_login(world.users[role])
        for url in _pages(experiment):
            body = client.get(url).content.decode()
            assert not any(secret in body for secret in KEY_ANSWERS), f"{url} as {role}"


def test_a_scorer_sees_runs_without_their_models(client, world, simulator):
    config = make_config(
        world, label="Distinctive-label-xyz", model_name="sim-expert", base_url=simulator.base_url
    )
    experiment = make_experiment(world, [config], repeats=2)
    collect_all(experiment)
    run = experiment.runs.order_by("order").first()
    client.force_login(world.users["scorer"])
    for url in _pages(experiment)[1:]:
        response = client.get(url)
        assert response.status_code in (200, 403)
        body = response.content.decode()
        assert "Distinctive-label-xyz" not in body and "sim-expert" not in body, url
        assert "req_sim_" not in body and "Retry-After" not in body, url
        assert reverse("probe:run_detail", kwargs={"run_pk": run.pk}) not in body
    client.force_login(world.users["viewer"])
    body = client.get(
        reverse("probe:experiment_detail", kwargs={"experiment_pk": experiment.pk})
    ).content.decode()
    assert "Distinctive-label-xyz" in body


def test_the_run_page_shows_attempts_compliance_and_issues(client, world, simulator):
    config = make_config(
        world, label="Sloppy sim", model_name="sim-sloppy", base_url=simulator.base_url
    )
    experiment = make_experiment(world, [config])
    collect_all(experiment)
    run = experiment.runs.get()
    client.force_login(world.users["editor"])
    body = client.get(reverse("probe:run_detail", kwargs={"run_pk": run.pk})).content.decode()
    attempt = run.attempts.get()
    assert attempt.request_id in body and f"{attempt.latency_ms} ms" in body
    assert f"{attempt.input_tokens} / {attempt.output_tokens}" in body
    assert re.search(r'class="compliance">\d+%', body)
    assert "simulated" in body
    raw = client.get(reverse("probe:run_raw", kwargs={"run_pk": run.pk}) + f"?attempt={attempt.pk}")
    assert raw.status_code == 200 and "chat.completion" in raw.content.decode()
    client.force_login(world.users["viewer"])
    assert client.get(reverse("probe:run_raw", kwargs={"run_pk": run.pk})).status_code == 403


def test_exact_text_page_shows_what_is_sent_before_and_after(client, world, simulator):
    config = make_config(world, label="Sim", base_url=simulator.base_url)
    experiment = make_experiment(world, [config], mode="item", start=False)
    client.force_login(world.users["viewer"])
    url = reverse("probe:experiment_prompt", kwargs={"experiment_pk": experiment.pk})
    before = client.get(url).content.decode()
    assert before.count('class="prompt-text"') == 3 and "Which version added match?" in before
    experiments.experiment_start(experiment=experiment, user=None, queue=False)
    collect_all(experiment)
    after = client.get(url).content.decode()
    assert re.findall(r'<pre class="prompt-text".*?</pre>', after, re.S) == re.findall(
        r'<pre class="prompt-text".*?</pre>', before, re.S
    )


def test_page_actions_start_cancel_retry_close(
    client, world, simulator, replay, django_capture_on_commit_callbacks, monkeypatch
):
    from tests.collection.conftest import Reply

    sent = []
    monkeypatch.setattr(collection, "_send_run", sent.append)
    replay.play([Reply(401, '{"error": {"message": "nope"}}')])
    bad = make_config(
        world, label="Local", provider="openai_chat", model_name="m", base_url=replay.base_url
    )
    experiment = make_experiment(world, [bad], repeats=2, start=False)
    client.force_login(world.users["editor"])
    start = reverse("probe:experiment_start", kwargs={"experiment_pk": experiment.pk})
    with django_capture_on_commit_callbacks(execute=True):
        fragment = client.post(start, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="experiment-progress")
    assert fragment.status_code == 200 and "Collection started." in fragment.content.decode()
    assert len(sent) == 2
    again = client.post(start)
    assert again.status_code == 302
    collect_all(experiment)
    first, second = experiment.runs.order_by("order")
    assert first.status == Run.Status.FAILED
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("probe:run_retry", kwargs={"run_pk": first.pk}), {"back": "run"})
    assert Run.objects.get(pk=first.pk).status == Run.Status.QUEUED and sent[-1] == first.pk
    client.post(reverse("probe:run_close", kwargs={"run_pk": second.pk}))
    assert Run.objects.get(pk=second.pk).status == Run.Status.CLOSED
    client.post(reverse("probe:experiment_cancel", kwargs={"experiment_pk": experiment.pk}))
    assert Experiment.objects.get(pk=experiment.pk).status == Experiment.Status.CANCELLED
    assert Run.objects.get(pk=first.pk).status == Run.Status.CANCELLED

    client.force_login(world.users["scorer"])
    assert client.post(start).status_code == 403


@pytest.mark.parametrize("role", ["viewer", "scorer", "editor", "owner"])
def test_members_read_the_experiment_list(client, world, role):
    config = make_config(world, label="Sim")
    make_experiment(world, [config], start=False)
    client.force_login(world.users[role])
    response = client.get(reverse("probe:experiment_list", kwargs={"team_slug": world.team.slug}))
    assert response.status_code == 200
    assert ("New experiment" in response.content.decode()) == (role in ("editor", "owner"))


def test_the_progress_fragment_costs_the_same_queries_for_more_runs(client, world):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(world.users["editor"])

    def queries_for(n_configs: int) -> int:
        configs = [make_config(world, label=f"Sim {n_configs}-{n}") for n in range(n_configs)]
        experiment = make_experiment(world, configs, repeats=2)
        url = reverse("probe:experiment_detail", kwargs={"experiment_pk": experiment.pk})
        with CaptureQueriesContext(connection) as captured:
            assert (
                client.get(
                    url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="experiment-progress"
                ).status_code
                == 200
            )
        return len(captured)

    assert queries_for(1) == queries_for(5)


def test_a_simulated_run_shows_its_answers_only_beside_the_key(client, world, simulator):
    """Its model answers from the experiment's key: its answers are the key, sealed as the key."""
    config = make_config(world, label="Sim expert", base_url=simulator.base_url)
    experiment = make_experiment(world, [config])
    collect_all(experiment)
    run = experiment.runs.get()
    url = reverse("probe:run_detail", kwargs={"run_pk": run.pk})
    for role in ("viewer", "scorer", "editor"):
        client.force_login(world.users[role])
        body = client.get(url).content.decode()
        if role != "scorer":  # a scorer scoring blind does not see the run page's answers at all
            assert 'id="answers-sealed"' in body, role
        assert KEY_ANSWERS[0] not in body and KEY_ANSWERS[1] not in body, role
    body = client.get(url + "?key=1").content.decode()  # the editor opens the key: recorded
    assert body.count(KEY_ANSWERS[0]) >= 2  # the key, and the simulated model's answer beside it
    assert 'id="answers-sealed"' not in body
