"""factory_boy factories for the probe app's models."""

import factory
from django.contrib.auth import get_user_model

from probe import models


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
