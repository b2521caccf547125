"""The order of answers on an item: from a secret the scorer never sees, uniform over sheets."""

import random
import re
from collections import Counter

from django.urls import reverse

from probe.models import Experiment, Response, Run
from scoring.queue import selectors, services
from tests import builders
from tests.probe import factories

HX = {"HTTP_HX_REQUEST": "true"}


def big_experiment(world, *, n_items: int, n_sheets: int) -> Experiment:
    """A collected experiment whose every answer is distinct (no grouping), built in bulk."""
    configs = [
        factories.ModelConfigFactory(team=world.team, label=f"sheet-{s}") for s in range(n_sheets)
    ]
    return world.collected_experiment(
        [
            builders.Sheet(config, [(f"answer {s}-{n}", "HIGH") for n in range(1, n_items + 1)])
            for s, config in enumerate(configs)
        ],
        items=builders.snapshot_items(n_items),
        name="Many items",
        attempt_text="x",
    ).experiment


def page_order(client, assignment, position) -> list[int]:
    """The run of each answer, in the order the scorer's page lists them (from its tokens)."""
    url = reverse(
        "scoring:item", kwargs={"assignment_token": assignment.token, "position": position}
    )
    body = client.get(url, **HX).content.decode()
    tokens = re.findall(r'<li class="answer[^"]*" tabindex="0" data-tokens="([^"]+)"', body)
    by_token = {
        selectors.answer_token(assignment, r.pk): r.run_id
        for r in Response.objects.filter(
            item__experiment=assignment.experiment, item__position=position
        )
    }
    return [by_token[t] for t in tokens]


def old_seeding(assignment, position) -> list[int]:
    """What the order used to be: the scorer's own URL token seeding a shuffle of the pk order."""
    responses = sorted(
        Response.objects.filter(item__experiment=assignment.experiment, item__position=position),
        key=lambda r: r.pk,
    )
    random.Random(f"{assignment.token}:{position}").shuffle(responses)
    return [r.run_id for r in responses]


def test_replaying_the_old_seeding_does_not_predict_the_order(client, world):
    n_items, n_sheets = 60, 6
    experiment = big_experiment(world, n_items=n_items, n_sheets=n_sheets)
    client.force_login(world.users["scorer"])
    assignment = services.assignment_start(experiment=experiment, user=world.users["scorer"])
    whole, first = 0, 0
    for position in range(1, n_items + 1):
        shown = page_order(client, assignment, position)
        assert len(shown) == n_sheets
        assert shown == page_order(client, assignment, position)  # stable on reload
        predicted = old_seeding(assignment, position)
        whole += shown == predicted
        first += shown[0] == predicted[0]
    # By chance: the whole order 60/720 times, the first sheet 10 times in 60 (sd 2.9).
    assert whole <= 2, whole
    assert first <= 20, first


def test_per_position_sheet_frequencies_are_uniform(world):
    n_items, n_sheets = 240, 6
    experiment = big_experiment(world, n_items=n_items, n_sheets=n_sheets)
    assignment = services.assignment_start(experiment=experiment, user=world.users["scorer"])
    other = services.assignment_start(experiment=experiment, user=world.users["editor"])
    runs = list(
        Run.objects.filter(experiment=experiment).order_by("pk").values_list("pk", flat=True)
    )
    table = Counter()  # (place on the page, sheet) -> items
    lowest_pk_place = Counter()  # where the first-stored response lands
    same_for_both = 0
    responses = list(Response.objects.filter(item__experiment=experiment).order_by("pk"))
    by_item: dict[int, list[Response]] = {}
    for r in responses:
        by_item.setdefault(r.item_id, []).append(r)
    for item_responses in by_item.values():
        order = [r.run_id for r in selectors.shuffled(assignment, item_responses)]
        for place, run in enumerate(order):
            table[place, run] += 1
        lowest_pk_place[order.index(item_responses[0].run_id)] += 1
        same_for_both += order == [r.run_id for r in selectors.shuffled(other, item_responses)]
        # Independent of the order the responses come in.
        assert order == [r.run_id for r in selectors.shuffled(assignment, item_responses[::-1])]
    expected = n_items / n_sheets
    chi2 = sum((table[p, r] - expected) ** 2 / expected for p in range(n_sheets) for r in runs)
    # 25 degrees of freedom: P(chi2 > 52.6) = 0.001.
    assert chi2 < 52.6, (chi2, table)
    chi2_lowest = sum((lowest_pk_place[p] - expected) ** 2 / expected for p in range(n_sheets))
    # 5 degrees of freedom: P(chi2 > 20.5) = 0.001; a pk-ordered shuffle would pile up here.
    assert chi2_lowest < 20.5, lowest_pk_place
    assert same_for_both < n_items / 10  # different scorers, different orders (720 possible)


def test_the_order_comes_from_the_server_secret(world, settings):
    experiment = big_experiment(world, n_items=20, n_sheets=6)
    assignment = services.assignment_start(experiment=experiment, user=world.users["scorer"])
    responses = list(Response.objects.filter(item__experiment=experiment, item__position=1))
    before = [r.pk for r in selectors.shuffled(assignment, responses)]
    orders = set()
    for secret in ("another secret " * 4, "and a third one " * 4):
        settings.SECRET_KEY = secret
        orders.add(tuple(r.pk for r in selectors.shuffled(assignment, responses)))
    assert len(orders | {tuple(before)}) > 1
