"""experiment_create and friends: the snapshot, the run order and its seed, refusals, the exact text."""

import pytest
from django.core.exceptions import ValidationError

from probe import prompts
from probe.models import Experiment, ExperimentItem, Run
from probe.services import banks as bank_services
from probe.services import experiments
from tests.collection.conftest import make_config, make_experiment


def test_snapshot_takes_active_items_in_block_order_with_their_key(world):
    editor = world.users["editor"]
    retired = bank_services.item_create(
        block=world.blocks[0], user=editor, question="A retired question?"
    )
    bank_services.item_set_retired(item=retired, user=editor, retired=True)
    config = make_config(world, label="Sim")
    experiment = make_experiment(world, [config], start=False)

    snapshot = list(experiment.items.order_by("position"))
    assert [i.position for i in snapshot] == [1, 2, 3]
    assert [i.question for i in snapshot] == [item.question for item in world.items]
    assert [i.block_code for i in snapshot] == ["A", "A", "B"]
    assert "A retired question?" not in {i.question for i in snapshot}
    assert snapshot[1].key_flagged and snapshot[1].key_flag_note == "Check RFC 9110 10.2.3"
    assert snapshot[0].key_answer == world.items[0].key_entry.answer

    # Later edits to the bank do not reach the experiment.
    bank_services.item_update(
        item=world.items[0], user=editor, question="Rewritten?", answer_format=""
    )
    bank_services.key_entry_set(
        item=world.items[0],
        user=editor,
        answer="changed key",
        flagged=False,
        flag_note="",
        sources=[],
    )
    bank_services.item_set_retired(item=world.items[2], user=editor, retired=True)
    bank_services.item_create(block=world.blocks[1], user=editor, question="A new question?")
    again = list(ExperimentItem.objects.filter(experiment=experiment).order_by("position"))
    assert [(i.question, i.key_answer) for i in again] == [
        (i.question, i.key_answer) for i in snapshot
    ]
    assert experiment.bank_name == world.bank.name


def test_runs_are_configs_times_repeats_in_an_order_reproducible_from_the_seed(world):
    configs = [make_config(world, label=f"Sim {n}") for n in range(3)]

    def order_of(experiment):
        return {(r.model_config_id, r.repeat): r.order for r in experiment.runs.all()}

    first = make_experiment(world, configs, repeats=2, seed=424242, start=False)
    again = make_experiment(world, list(reversed(configs)), repeats=2, seed=424242, start=False)
    assert first.runs.count() == 6
    assert sorted(order_of(first).values()) == [1, 2, 3, 4, 5, 6]
    assert order_of(first) == order_of(again)
    for run in first.runs.all():
        assert run.config_snapshot == run.model_config.settings_snapshot()
        assert run.status == Run.Status.PENDING

    others = {
        tuple(
            sorted(
                order_of(make_experiment(world, configs, repeats=2, seed=s, start=False)).items()
            )
        )
        for s in range(6)
    }
    assert len(others) > 1, "different seeds should give different orders"


def test_a_missing_seed_is_drawn_and_stored(world):
    config = make_config(world, label="Sim")
    a = experiments.experiment_create(
        team=world.team, user=None, bank=world.bank, prompt_version=world.prompt, configs=[config]
    )
    b = experiments.experiment_create(
        team=world.team, user=None, bank=world.bank, prompt_version=world.prompt, configs=[config]
    )
    assert a.seed is not None and b.seed is not None and a.seed != b.seed
    assert a.repeats == 2 and a.mode == Experiment.Mode.SHEET and a.runs.count() == 2
    assert a.name.startswith(world.bank.name)


def test_a_default_name_says_its_time_with_the_zone(world):
    """The name made for an experiment without one carries the time in the user's zone and
    says which zone (nine hours apart between UTC and Japan)."""
    from django.utils import timezone

    config = make_config(world, label="Sim")
    with timezone.override("Asia/Tokyo"):
        tokyo = experiments.experiment_create(
            team=world.team,
            user=None,
            bank=world.bank,
            prompt_version=world.prompt,
            configs=[config],
        )
    assert tokyo.name.startswith(world.bank.name) and tokyo.name.endswith(" JST")
    with timezone.override("UTC"):
        utc = experiments.experiment_create(
            team=world.team,
            user=None,
            bank=world.bank,
            prompt_version=world.prompt,
            configs=[config],
        )
    assert utc.name.endswith(" UTC")


@pytest.mark.parametrize(
    "change, field",
    [
        ({"configs": []}, "configs"),
        ({"repeats": 0}, "repeats"),
        ({"mode": "batch"}, "mode"),
        ({"seed": -1}, "seed"),
    ],
)
def test_create_refuses_bad_input(world, change, field):
    config = make_config(world, label="Sim")
    kwargs = dict(
        team=world.team, user=None, bank=world.bank, prompt_version=world.prompt, configs=[config]
    )
    kwargs.update(change)
    with pytest.raises(ValidationError) as info:
        experiments.experiment_create(**kwargs)
    assert field in info.value.message_dict


def test_create_refuses_an_empty_bank_and_other_teams_objects(world):
    from probe.models import ModelConfig

    config = make_config(world, label="Sim")
    empty = bank_services.bank_create(team=world.team, user=None, name="Empty bank")
    with pytest.raises(ValidationError) as info:
        experiments.experiment_create(
            team=world.team, user=None, bank=empty, prompt_version=world.prompt, configs=[config]
        )
    assert "no active items" in info.value.message_dict["bank"][0]

    rival = ModelConfig.objects.create(
        team=world.other_team, label="Rival", provider="simulator", model_name="sim-expert"
    )
    with pytest.raises(ValidationError) as info:
        experiments.experiment_create(
            team=world.team,
            user=None,
            bank=world.bank,
            prompt_version=world.prompt,
            configs=[config, rival],
        )
    assert "configs" in info.value.message_dict
    with pytest.raises(ValidationError):
        experiments.experiment_create(
            team=world.team,
            user=None,
            bank=world.other_bank,
            prompt_version=world.prompt,
            configs=[config],
        )
    assert not Experiment.objects.filter(bank=empty).exists()


def test_repeats_of_one_is_allowed(world):
    config = make_config(world, label="Sim")
    experiment = make_experiment(world, [config], repeats=1, start=False)
    assert experiment.runs.count() == 1


def test_exact_text_is_built_by_probe_prompts(world):
    config = make_config(world, label="Sim")
    sheet = make_experiment(world, [config], start=False)
    [(item, text)] = experiments.experiment_prompts(sheet)
    assert item is None
    expected_items = [
        prompts.PromptItem(i.position, i.block_code, i.block_title, i.question, i.answer_format)
        for i in sheet.items.order_by("position")
    ]
    assert text == prompts.build_sheet_prompt(world.prompt.text, expected_items)
    assert "Block A. HTTP semantics" in text and "3. Which version added match?" in text

    per_item = make_experiment(world, [config], mode="item", start=False)
    texts = experiments.experiment_prompts(per_item)
    assert [i.position for i, _ in texts] == [1, 2, 3]
    assert texts[1][1] == prompts.build_item_prompt(world.prompt.text, expected_items[1])


def test_start_queues_every_pending_api_run_after_commit(
    world, django_capture_on_commit_callbacks, monkeypatch
):
    from probe.services import collection

    sent = []
    monkeypatch.setattr(collection.dispatch, "send_run", sent.append)
    sim = make_config(world, label="Sim")
    manual = make_config(world, label="By hand", provider="manual", model_name="chat")
    experiment = make_experiment(world, [sim, manual], repeats=2, start=False)
    with django_capture_on_commit_callbacks(execute=True):
        experiments.experiment_start(experiment=experiment, user=world.users["editor"])
    experiment.refresh_from_db()
    assert experiment.status == Experiment.Status.COLLECTING and experiment.collection_started
    queued = {r.pk for r in experiment.runs.filter(status=Run.Status.QUEUED)}
    assert sorted(sent) == sorted(queued) and len(queued) == 2, "one task per run"
    assert (
        experiment.runs.filter(status=Run.Status.PENDING).count() == 2
    )  # manual: wait for a paste
    with pytest.raises(ValidationError):
        experiments.experiment_start(experiment=experiment, user=None)
