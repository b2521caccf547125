"""factory_boy factories for the probe app's models."""

import factory
from django.contrib.auth import get_user_model

from probe import models, prompts


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("correct horse battery staple")


class TeamFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Team

    name = factory.Sequence(lambda n: f"Team {n}")
    slug = factory.Sequence(lambda n: f"team-{n}")


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Membership

    team = factory.SubFactory(TeamFactory)
    user = factory.SubFactory(UserFactory)
    role = models.Role.VIEWER


class BankFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Bank

    team = factory.SubFactory(TeamFactory)
    name = factory.Sequence(lambda n: f"Bank {n}")


class BlockFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Block

    bank = factory.SubFactory(BankFactory)
    code = factory.Sequence(lambda n: chr(ord("A") + n % 26))
    title = factory.Sequence(lambda n: f"Block {n}")
    order = factory.Sequence(lambda n: n)


class ItemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Item

    block = factory.SubFactory(BlockFactory)
    question = factory.Sequence(lambda n: f"Question {n}?")
    order = factory.Sequence(lambda n: n)


class KeyEntryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.KeyEntry

    item = factory.SubFactory(ItemFactory)
    answer = factory.Sequence(lambda n: f"answer {n}")


class PromptVersionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.PromptVersion

    team = factory.SubFactory(TeamFactory)
    name = factory.Sequence(lambda n: f"Prompt {n}")
    text = "Answer closed-book.\nN. ANSWER: ...\nCONFIDENCE: HIGH|MEDIUM|LOW"
    content_hash = factory.LazyAttribute(lambda o: prompts.content_hash(o.text))


class ModelConfigFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.ModelConfig

    team = factory.SubFactory(TeamFactory)
    label = factory.Sequence(lambda n: f"Config {n}")
    provider = "simulator"
    model_name = "sim-expert"
    base_url = "http://127.0.0.1:9/v1"


class ExperimentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Experiment

    team = factory.SubFactory(TeamFactory)
    name = factory.Sequence(lambda n: f"Experiment {n}")
    bank_name = factory.LazyAttribute(lambda o: o.bank.name if o.bank else "")
    prompt_version = factory.SubFactory(PromptVersionFactory, team=factory.SelfAttribute("..team"))
    seed = 12345


class ExperimentItemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.ExperimentItem

    experiment = factory.SubFactory(ExperimentFactory)
    position = factory.Sequence(lambda n: n + 1)
    block_code = "A"
    block_title = "Block"
    question = factory.Sequence(lambda n: f"Snapshot question {n}?")


class RunFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Run

    experiment = factory.SubFactory(ExperimentFactory)
    model_config = factory.SubFactory(
        ModelConfigFactory, team=factory.SelfAttribute("..experiment.team")
    )
    config_snapshot = factory.LazyAttribute(lambda o: o.model_config.settings_snapshot())
