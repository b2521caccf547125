"""Shared fixtures: a team with one member of each role, a bank, and another team beside it."""

from dataclasses import dataclass

import pytest

from tests.replay import TEST_LOOPBACK_PORTS, ReplayServer, allow_loopback_port, unused_port

# Key answers that appear nowhere else, so a test can tell whether a page shows the key.
KEY_ANSWERS = ("429 Too Many Requests (keyed)", "Retry-After (keyed)")
# Text of the other team's bank: no page of this team may ever show it.
OTHER_TEAM_TEXT = ("Rival lab", "Rival private bank", "Rival question", "rival-answer-xyzzy")


@dataclass
class World:
    team: object
    other_team: object
    users: dict  # role name -> user; "outsider" is the owner of the other team
    bank: object
    blocks: list
    items: list
    other_bank: object
    prompt: object
    config: object
    experiment: object
    runs: list
    scored: object = None  # a second experiment, collected: every run answered every item

    def member(self, role: str):
        return self.users[role]

    def collected_experiment(self, sheets, *, items, **fields):
        """tests.builders.collected_experiment on this team's bank and prompt."""
        from tests import builders

        return builders.collected_experiment(
            team=self.team, bank=self.bank, prompt=self.prompt, items=items, sheets=sheets, **fields
        )


def pytest_configure(config):
    from django.conf import settings

    # Hashing passwords the slow, safe way costs a quarter of a second per user created.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # The two-bucket test scheme is offered by the form and the API (docs/deploy.md).
    settings.SCORING_TEST_SCHEMES = True
    # Pages render without a collectstatic manifest (a fresh clone has none); the manifest
    # storage itself is tested by running collectstatic (tests/probe/test_static.py).
    # Loopback is allowed only on listed ports: the default (the simulator's) and each test
    # server's own port as it starts (tests.replay.allow_loopback_port), never every port.
    TEST_LOOPBACK_PORTS[:] = list(settings.PROVIDER_LOOPBACK_PORTS)
    settings.PROVIDER_LOOPBACK_PORTS = TEST_LOOPBACK_PORTS
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture(scope="session")
def replay_session():
    """The session's replay server; tests take it emptied, as ``replay``."""
    server = ReplayServer()
    yield server
    server.close()


@pytest.fixture
def replay(replay_session: ReplayServer) -> ReplayServer:
    """A local server replaying provider responses over real HTTP (tests/replay.py)."""
    replay_session.reset()
    yield replay_session
    replay_session.reset()


@pytest.fixture
def closed_port() -> int:
    """A port nothing listens on (allowed as a provider port, so a request is really tried)."""
    return allow_loopback_port(unused_port())


@pytest.fixture
def world(db) -> World:
    from tests.probe import factories  # imported late: adapters/parser tests run without Django

    team = factories.TeamFactory(name="Acme probes", slug="acme")
    other_team = factories.TeamFactory(name="Rival lab", slug="rival")
    users = {}
    for role in ("viewer", "scorer", "editor", "owner"):
        users[role] = factories.UserFactory(username=f"acme-{role}")
        factories.MembershipFactory(team=team, user=users[role], role=role)
    users["outsider"] = factories.UserFactory(username="rival-owner")
    factories.MembershipFactory(team=other_team, user=users["outsider"], role="owner")
    bank = factories.BankFactory(team=team, name="Acme secret bank")
    block_a = factories.BlockFactory(bank=bank, code="A", title="HTTP semantics", order=1)
    block_b = factories.BlockFactory(bank=bank, code="B", title="Python", order=2)
    items = [
        factories.ItemFactory(
            block=block_a, question="Which status code means Too Many Requests?", order=1
        ),
        factories.ItemFactory(block=block_a, question="Which header says when to retry?", order=2),
        factories.ItemFactory(block=block_b, question="Which version added match?", order=1),
    ]
    factories.KeyEntryFactory(item=items[0], answer=KEY_ANSWERS[0])
    factories.KeyEntryFactory(
        item=items[1], answer=KEY_ANSWERS[1], flagged=True, flag_note="Check RFC 9110 10.2.3"
    )
    other_bank = factories.BankFactory(team=other_team, name="Rival private bank")
    other_block = factories.BlockFactory(bank=other_bank, code="Z", title="Rival block")
    factories.KeyEntryFactory(
        item=factories.ItemFactory(
            block=other_block, question="Rival question nobody else may read"
        ),
        answer="rival-answer-xyzzy",
    )
    prompt = factories.PromptVersionFactory(team=team)
    config = factories.ModelConfigFactory(team=team, label="Acme-secret-config-label")
    experiment = factories.ExperimentFactory(team=team, bank=bank, prompt_version=prompt)
    for position, item in enumerate(items, start=1):
        entry = item.key_entry_or_none
        factories.ExperimentItemFactory(
            experiment=experiment,
            position=position,
            block_code=item.block.code,
            block_title=item.block.title,
            question=item.question,
            source_item=item,
            key_answer=entry.answer if entry else "",
            key_flagged=bool(entry and entry.flagged),
        )
    runs = [
        factories.RunFactory(
            experiment=experiment, model_config=config, repeat=repeat, order=repeat
        )
        for repeat in (1, 2)
    ]
    world = World(
        team,
        other_team,
        users,
        bank,
        [block_a, block_b],
        items,
        other_bank,
        prompt,
        config,
        experiment,
        runs,
    )
    world.scored = scored_experiment(
        world,
        [
            config,
            factories.ModelConfigFactory(
                team=team, label="Acme-second-config-label", model_name="sim-overconfident"
            ),
        ],
        [
            [("429", "HIGH"), ("Retry-After", "HIGH"), ("UNKNOWN", "LOW")],
            [("429", "MEDIUM"), ("Retry-Later", "HIGH"), ("3.9", "LOW")],
        ],
    )
    return world


def scored_experiment(world, configs, answers, *, name="Scored"):
    """A collected experiment on the world's bank: a run per configuration (repeat 1) with
    answers[run][item] = (answer, confidence); items "Snapshot question N?" keyed "key N"."""
    from tests import builders

    n_items = len(answers[0])
    return world.collected_experiment(
        [builders.Sheet(config, sheet) for config, sheet in zip(configs, answers, strict=True)],
        items=builders.snapshot_items(
            n_items, question="Snapshot question {n}?", blocks=[("A", "HTTP semantics", n_items)]
        ),
        name=name,
    ).experiment


def login(client, user):
    client.force_login(user)
    return client


@pytest.fixture(autouse=True)
def own_cache_namespace(settings):
    """Each test counts in a cache namespace of its own: the cache is shared by every process
    (Redis when REDIS_URL is set), so the API's rate counts of another test, or of an earlier
    run, would otherwise carry over."""
    from uuid import uuid4

    default = {**settings.CACHES["default"], "KEY_PREFIX": f"test-{uuid4().hex}"}
    settings.CACHES = {**settings.CACHES, "default": default}


@pytest.fixture(autouse=True)
def interface_language_reset():
    """Each test starts in the default language and leaves it so: a request through the test
    client activates the language it asked for in the test's thread and nothing deactivates it,
    so a Japanese request would otherwise carry Japanese into the next test's code."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)
