"""Decisions that cannot go wrong twice, the confident-wrong safeguard, notes, the overview."""

import json
import re
import threading

import pytest
from django.db import connection
from django.urls import reverse

from probe.models import Experiment, Response
from scoring.models import Bucket, Judgement, JudgementChange
from scoring.queue import selectors, services
from scoring.reconciliation import services as reconcile_services
from tests.conftest import scored_experiment
from tests.probe import factories
from tests.scoring.factories import key_decision

HX = {"HTTP_HX_REQUEST": "true"}


def start(client, world, experiment, role="scorer"):
    client.force_login(world.users[role])
    return services.assignment_start(experiment=experiment, user=world.users[role])


def tokens_of(assignment, position, answer):
    queue = selectors.queue_item(assignment, position)
    return next(g.tokens for g in queue.groups if g.answer == answer)


def decide(client, assignment, position, htmx=True, **data):
    url = reverse(
        "scoring:decide", kwargs={"assignment_token": assignment.token, "position": position}
    )
    return client.post(url, data, **(HX if htmx else {}))


def high_wrong_experiment(world, confirm_wrong=Experiment.ConfirmWrong.ONCE):
    """Two sheets, both HIGH on item 1 with two different wrong answers."""
    configs = [factories.ModelConfigFactory(team=world.team) for _ in range(3)]
    experiment = scored_experiment(
        world,
        configs=configs,
        answers=[
            [("wrong one", "HIGH"), ("x", "LOW")],
            [("wrong two", "HIGH"), ("y", "LOW")],
            [("wrong three", "HIGH"), ("z", "LOW")],
        ],
        name="Confident",
    )
    Experiment.objects.filter(pk=experiment.pk).update(confirm_wrong=confirm_wrong)
    experiment.refresh_from_db()
    return experiment


# ---- idempotent decisions ----------------------------------------------------------------------


def test_the_same_decision_twice_is_a_no_op_and_the_page_says_so(client, world):
    assignment = start(client, world, world.scored)
    tokens = tokens_of(assignment, 1, "429")
    first = decide(client, assignment, 1, tokens=tokens, verdict="correct")
    assert first.status_code == 200
    changes = JudgementChange.objects.filter(assignment=assignment).count()
    again = decide(client, assignment, 1, tokens=tokens, verdict="correct")  # a double keypress
    assert again.status_code == 200
    assert "Already decided so" in again.content.decode()
    assert JudgementChange.objects.filter(assignment=assignment).count() == changes
    # Without htmx (a retry of a plain form post): a redirect and the same notice on the page.
    plain = decide(client, assignment, 1, htmx=False, tokens=tokens, verdict="correct")
    assert plain.status_code == 302
    assert "Already decided so" in client.get(plain["Location"]).content.decode()
    changed = decide(client, assignment, 1, tokens=tokens, bucket=Bucket.HEDGED_WRONG)
    assert "Decision changed." in changed.content.decode()
    assert set(
        Judgement.objects.filter(assignment=assignment, response__answer="429").values_list(
            "bucket", flat=True
        )
    ) == {Bucket.HEDGED_WRONG}


@pytest.mark.django_db(transaction=True)
def test_two_tabs_deciding_at_once_never_error(world):
    assignment = services.assignment_start(experiment=world.scored, user=world.users["scorer"])
    responses = list(
        Response.objects.filter(item__experiment=world.scored, item__position=1, answer="429")
    )
    barrier = threading.Barrier(4)
    errors = []

    def tab(verdict):
        try:
            barrier.wait()
            services.judgement_decide(assignment=assignment, responses=responses, verdict=verdict)
        except Exception as error:  # noqa: BLE001 - the test reports whatever a tab hit
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=tab, args=("correct",)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert Judgement.objects.filter(assignment=assignment, response__in=responses).count() == 2
    # One tab created the judgements, the others found them decided: one change per response.
    assert JudgementChange.objects.filter(assignment=assignment).count() == 2


def test_an_answer_gone_from_the_item_is_a_400_fragment_with_its_message(client, world):
    assignment = start(client, world, world.scored)
    response = decide(client, assignment, 1, tokens="not-a-token", verdict="correct")
    assert response.status_code == 400
    body = response.content.decode()
    assert 'id="scoring-item"' in body and "That answer is not on this item any more" in body
    assert "<html" not in body  # the fragment, to be swapped in


def test_htmx_is_configured_to_swap_4xx_fragments(client, world):
    assignment = start(client, world, world.scored)
    body = client.get(
        reverse("scoring:item", kwargs={"assignment_token": assignment.token, "position": 1})
    ).content.decode()
    meta = re.search(r"<meta name=\"htmx-config\" content='([^']+)'>", body)
    config = json.loads(meta.group(1))
    rules = config["responseHandling"]
    first = next(r for r in rules if re.search(r["code"], "400"))
    assert first["swap"] is True and not first.get("error")
    server_error = next(r for r in rules if re.search(r["code"], "500"))
    assert server_error["swap"] is False and server_error["error"] is True


# ---- the confident-wrong safeguard --------------------------------------------------------------


def asked(response) -> bool:
    return "data-confirm-wrong" in response.content.decode()


def test_once_per_item_asks_for_the_first_high_answer_only(client, world):
    experiment = high_wrong_experiment(world)
    assert experiment.confirm_wrong == Experiment.ConfirmWrong.ONCE
    assignment = start(client, world, experiment)
    one = tokens_of(assignment, 1, "wrong one")
    first = decide(client, assignment, 1, tokens=one, verdict="wrong")
    assert asked(first) and not Judgement.objects.filter(assignment=assignment).exists()
    confirmed = decide(client, assignment, 1, tokens=one, verdict="wrong", confirmed="1")
    assert not asked(confirmed)
    # The rest of the item does not ask: by W, or by the direct bucket key.
    two = tokens_of(assignment, 1, "wrong two")
    assert not asked(decide(client, assignment, 1, tokens=two, verdict="wrong"))
    three = tokens_of(assignment, 1, "wrong three")
    assert not asked(decide(client, assignment, 1, tokens=three, bucket=Bucket.CONFIDENT_WRONG))
    assert (
        sorted(
            Judgement.objects.filter(assignment=assignment, response__item__position=1).values_list(
                "bucket", flat=True
            )
        )
        == [Bucket.CONFIDENT_WRONG] * 3
    )


def test_the_direct_bucket_key_asks_like_w(client, world):
    experiment = high_wrong_experiment(world, Experiment.ConfirmWrong.ALWAYS)
    assignment = start(client, world, experiment)
    one = tokens_of(assignment, 1, "wrong one")
    response = decide(client, assignment, 1, tokens=one, bucket=Bucket.CONFIDENT_WRONG)
    assert asked(response)
    # The confirmation carries the bucket chosen, not a verdict.
    assert (
        f'name="bucket" value="{Bucket.CONFIDENT_WRONG}"'
        in response.content.decode().split("data-confirm-wrong")[0].rsplit("<form", 1)[1]
    )
    decide(client, assignment, 1, tokens=one, bucket=Bucket.CONFIDENT_WRONG, confirmed="1")
    # Every time: the second HIGH answer asks again.
    two = tokens_of(assignment, 1, "wrong two")
    assert asked(decide(client, assignment, 1, tokens=two, verdict="wrong"))
    # A correct bucket never asks.
    assert not asked(decide(client, assignment, 1, tokens=two, bucket=Bucket.CORRECT))


def test_never_asks_when_the_experiment_says_so(client, world):
    experiment = high_wrong_experiment(world, Experiment.ConfirmWrong.NEVER)
    assignment = start(client, world, experiment)
    one = tokens_of(assignment, 1, "wrong one")
    assert not asked(decide(client, assignment, 1, tokens=one, verdict="wrong"))
    assert Judgement.objects.get(assignment=assignment, response__answer="wrong one").bucket == (
        Bucket.CONFIDENT_WRONG
    )


def test_the_option_is_chosen_when_the_experiment_is_created(client, world):
    from probe.services.experiments import experiment_create

    experiment = experiment_create(
        team=world.team,
        user=world.users["editor"],
        bank=world.bank,
        prompt_version=world.prompt,
        configs=[world.config],
        confirm_wrong=Experiment.ConfirmWrong.NEVER,
    )
    assert experiment.confirm_wrong == "never"
    with pytest.raises(Exception, match="Choose when"):
        experiment_create(
            team=world.team,
            user=world.users["editor"],
            bank=world.bank,
            prompt_version=world.prompt,
            configs=[world.config],
            confirm_wrong="sometimes",
        )
    client.force_login(world.users["editor"])
    page = client.get(reverse("probe:experiment_create", kwargs={"team_slug": world.team.slug}))
    assert 'name="confirm_wrong"' in page.content.decode()


# ---- notes ---------------------------------------------------------------------------------------


def test_a_note_on_a_judgement_is_for_the_lead_only(client, world):

    assignment = start(client, world, world.scored)
    tokens = tokens_of(assignment, 1, "429")
    url = reverse("scoring:note", kwargs={"assignment_token": assignment.token, "position": 1})
    early = client.post(url, {"tokens": tokens, "note": "status text differs"}, **HX)
    assert early.status_code == 400 and "Decide the answer first" in early.content.decode()
    decide(client, assignment, 1, tokens=tokens, verdict="correct")
    saved = client.post(url, {"tokens": tokens, "note": "  RFC 6585 names it  "}, **HX)
    assert saved.status_code == 200 and "Note saved for the lead." in saved.content.decode()
    assert set(
        Judgement.objects.filter(assignment=assignment, response__answer="429").values_list(
            "note", flat=True
        )
    ) == {"RFC 6585 names it"}
    # Another scorer's pages never show it.
    other = services.assignment_start(experiment=world.scored, user=world.users["editor"])
    client.force_login(world.users["editor"])
    for position in (1, 2, 3):
        page = client.get(
            reverse("scoring:item", kwargs={"assignment_token": other.token, "position": position})
        )
        assert "RFC 6585 names it" not in page.content.decode()
    # The lead sees it at reconciliation, once both have judged everything.
    for a in (assignment, other):
        open_responses = Response.objects.filter(run__experiment=world.scored).exclude(
            judgements__assignment=a
        )
        for r in open_responses:
            bucket = Bucket.CORRECT if a == assignment else Bucket.HEDGED_WRONG
            services.judgement_decide(assignment=a, responses=[r], bucket=bucket)
    services.judgement_decide(
        assignment=other,
        responses=list(Response.objects.filter(item__experiment=world.scored, answer="429")),
        bucket=Bucket.HEDGED_WRONG,
    )
    reconcile_services.reconciliation_start(experiment=world.scored, user=world.users["owner"])
    client.force_login(world.users["owner"])
    page = client.get(
        reverse("scoring:reconcile_item", kwargs={"experiment_pk": world.scored.pk, "position": 1})
    )
    assert "RFC 6585 names it" in page.content.decode()


# ---- the scorer's way around ----------------------------------------------------------------------


def test_item_overview_states_jump_and_next_open(client, world):
    assignment = start(client, world, world.scored)
    item2 = world.scored.items.get(position=2)
    item2.key_flagged = True
    item2.save()
    overview_url = reverse("scoring:overview", kwargs={"assignment_token": assignment.token})
    for r in Response.objects.filter(item__experiment=world.scored, item__position=1):
        services.judgement_decide(assignment=assignment, responses=[r], bucket=Bucket.CORRECT)
    page = client.get(overview_url).content.decode()
    states = {
        int(p): s
        for s, p in re.findall(
            r'<li class="state-(\w+)[^"]*"[^>]*>\s*<a href="[^"]*?/(\d+)/"', page
        )
    }
    assert states == {1: "done", 2: "open", 3: "open"}
    assert page.count('<span class="flag"') == 1  # item 2's flag
    # An amended key sends item 1 back: re-check.
    key_decision(
        world.scored,
        1,
        world.users["owner"],
        outcome="amended",
        source="RFC 6585",
        new_answer="429 Too Many Requests",
    )
    page = client.get(overview_url).content.decode()
    assert 'class="state-recheck' in page and "re-check 2" in page
    # Jump to item N, and a clear message for a number that is not an item.
    jump = client.get(overview_url, {"go": "3"})
    assert jump.status_code == 302 and jump["Location"].endswith("/3/")
    bad = client.get(overview_url, {"go": "31"})
    assert bad.status_code == 400 and "There is no item 31" in bad.content.decode()
    # Next open, across items: from item 3 it wraps round to item 1's re-check.
    next_url = reverse("scoring:next_open", kwargs={"assignment_token": assignment.token})
    assert client.get(next_url, {"from": "1"})["Location"].endswith("/2/")
    fragment = client.get(next_url, {"from": "3"}, **HX)
    assert fragment.status_code == 200 and 'data-position="1"' in fragment.content.decode()
    assert fragment["HX-Push-Url"].endswith("/1/")
