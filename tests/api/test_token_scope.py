"""A token acts in one team, reads only unless it was made to write, and stops working for good
when its user leaves that team or is deactivated."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from api.models import ApiToken
from api.urls import api
from probe.models import Bank, Experiment, Membership, ModelConfig, PromptVersion
from probe.services.teams import member_remove
from tests.api.conftest import ApiClient
from tests.conftest import login
from tests.probe import factories

pytestmark = pytest.mark.django_db

READ = ApiToken.Access.READ
WRITE = ApiToken.Access.WRITE


def token(user, team, access=READ) -> ApiClient:
    _row, text = ApiToken.issue(user=user, team=team, access=access, name="job")
    return ApiClient(text)


def write_operations() -> list[tuple[str, str]]:
    """(method, path template) of every endpoint that is not a read, from the API itself."""
    found = []
    for path, operations in api.get_openapi_schema()["paths"].items():
        for method in operations:
            if method.upper() not in {"GET", "HEAD", "OPTIONS"}:
                found.append((method, path.removeprefix("/api")))
    return found


def fill(template: str, world) -> str:
    values = {
        "slug": world.team.slug,
        "bank_id": world.bank.pk,
        "experiment_id": world.experiment.pk,
    }
    return re.sub(r"\{(\w+)\}", lambda m: str(values[m[1]]), template)


def snapshot():
    return (
        Bank.objects.count(),
        ModelConfig.objects.count(),
        list(Experiment.objects.order_by("pk").values_list("pk", "status")),
        PromptVersion.objects.count(),
    )


def test_a_read_token_is_refused_on_every_write_endpoint(world):
    writes = write_operations()
    assert len(writes) >= 6  # imports, configs, experiments, start, cancel, follow-ups
    owner = token(world.users["owner"], world.team, READ)
    before = snapshot()
    for method, template in writes:
        assert method == "post", method
        response = owner.post(fill(template, world), {})
        assert response.status_code == 403, (template, response.content)
        assert response["Content-Type"].startswith("application/json")
        assert "read" in response.json()["detail"]
    assert snapshot() == before
    # It reads as its user does.
    assert owner.get(f"/teams/{world.team.slug}/configs").status_code == 200


def test_a_write_token_writes_with_its_users_role(world):
    editor = token(world.users["editor"], world.team, WRITE)
    response = editor.post(f"/experiments/{world.experiment.pk}/cancel")
    assert response.status_code in (200, 409)  # past the scope: the experiment's state answers
    viewer = token(world.users["viewer"], world.team, WRITE)
    response = viewer.post(f"/experiments/{world.experiment.pk}/cancel")
    assert response.status_code == 403 and "editor" in response.json()["detail"]


def test_a_token_acts_in_its_team_only_even_when_its_user_is_in_another(world):
    user = world.users["editor"]
    factories.MembershipFactory(team=world.other_team, user=user, role="owner")
    acme = token(user, world.team, WRITE)
    me = acme.get("/me").json()
    assert [t["slug"] for t in me["teams"]] == [world.team.slug]
    assert me["token"] == {"name": "job", "team": world.team.slug, "access": "write"}
    # The other team's objects are as unknown to it as any outsider's: 404, not 403.
    assert acme.get(f"/teams/{world.other_team.slug}/banks").status_code == 404
    assert acme.get(f"/banks/{world.other_bank.pk}/export").status_code == 404
    body = {"label": "x", "provider": "simulator", "model_name": "sim-strong"}
    response = acme.post(f"/teams/{world.other_team.slug}/configs", body)
    assert response.status_code == 404 and response.json()["detail"]
    # The same user's token for the other team reaches it.
    rival = token(user, world.other_team, READ)
    assert rival.get(f"/teams/{world.other_team.slug}/banks").status_code == 200
    assert rival.get(f"/teams/{world.team.slug}/banks").status_code == 404


def test_leaving_the_team_revokes_the_token_for_good(world):
    user = world.users["editor"]
    client = token(user, world.team, WRITE)
    assert client.get("/me").status_code == 200
    membership = Membership.objects.get(team=world.team, user=user)
    member_remove(membership=membership, by=world.users["owner"])
    assert client.get("/me").status_code == 401
    row = ApiToken.objects.get(user=user)
    assert row.revoked is not None
    # Back in the team, the old token stays revoked.
    factories.MembershipFactory(team=world.team, user=user, role="editor")
    assert client.get("/me").status_code == 401


def test_leaving_one_team_keeps_the_tokens_of_another(world):
    user = world.users["viewer"]
    factories.MembershipFactory(team=world.other_team, user=user, role="viewer")
    acme, rival = token(user, world.team), token(user, world.other_team)
    Membership.objects.get(team=world.team, user=user).delete()
    assert acme.get("/me").status_code == 401
    assert rival.get("/me").status_code == 200


def test_deactivating_the_user_revokes_every_token(world):
    user = world.users["owner"]
    client = token(user, world.team, WRITE)
    user.is_active = False
    user.save()
    assert client.get("/me").status_code == 401
    assert not ApiToken.objects.filter(user=user, revoked__isnull=True).exists()


def test_a_membership_gone_behind_the_orms_back_still_locks_the_token_out(world):
    # A bulk delete without signals (raw SQL, as a database console would): authentication
    # checks the membership on every request, so the token stops working all the same.
    user = world.users["scorer"]
    client = token(user, world.team)
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {Membership._meta.db_table} WHERE user_id = %s", [user.pk])
    assert client.get("/me").status_code == 401
    get_user_model().objects.filter(pk=world.users["viewer"].pk).update(is_active=False)
    viewer = ApiToken.issue(user=world.users["viewer"], team=world.team, access=READ, name="v")
    assert ApiClient(viewer[1]).get("/me").status_code == 401


def test_the_tokens_page_makes_a_scoped_token_and_shows_its_scope(client, world):
    user = world.users["editor"]
    factories.MembershipFactory(team=world.other_team, user=user, role="viewer")
    login(client, user)
    page = client.get("/account/tokens/")
    form = page.context["form"]
    assert set(form.fields["team"].queryset) == {world.team, world.other_team}
    page = client.post(
        "/account/tokens/", {"name": "nightly", "team": world.other_team.pk, "access": "write"}
    )
    row = ApiToken.objects.get(user=user)
    assert (row.team, row.access) == (world.other_team, WRITE)
    listing = client.get("/account/tokens/").content.decode()
    assert "Rival lab" in listing and "read and write" in listing


def test_the_page_refuses_a_team_that_is_not_the_users(client, world):
    login(client, world.users["editor"])
    page = client.post(
        "/account/tokens/", {"name": "sneaky", "team": world.other_team.pk, "access": "write"}
    )
    assert page.status_code == 200 and page.context["form"].errors["team"]
    page = client.post("/account/tokens/", {"name": "x", "team": world.team.pk, "access": "all"})
    assert page.context["form"].errors["access"]
    assert not ApiToken.objects.exists()


def test_the_page_says_so_to_a_user_in_no_team(client, db):
    login(client, factories.UserFactory(username="loner"))
    page = client.get("/account/tokens/")
    assert "you are in none yet" in page.content.decode()
    page = client.post("/account/tokens/", {"name": "x", "team": "", "access": "read"})
    assert not ApiToken.objects.exists()


def test_the_tokens_page_in_japanese(client, world):
    user = world.users["editor"]
    login(client, user)
    ApiToken.issue(user=user, team=world.team, access=WRITE, name="ci")
    text = client.get("/account/tokens/", headers={"Accept-Language": "ja"}).content.decode()
    for english in ("Access", "read and write", "The token acts in this team only"):
        assert english not in text


@pytest.mark.django_db(transaction=True)
def test_existing_tokens_are_scoped_to_their_users_only_team_or_revoked():
    executor = MigrationExecutor(connection)
    before = [("api", "0001_api_tokens")] + [
        node for node in executor.loader.graph.leaf_nodes() if node[0] != "api"
    ]
    executor.migrate([("api", "0001_api_tokens")])
    old = executor.loader.project_state(before).apps
    User, Team = old.get_model("auth", "User"), old.get_model("probe", "Team")
    Token, Member = old.get_model("api", "ApiToken"), old.get_model("probe", "Membership")
    one, two, none = (User.objects.create(username=n) for n in ("one", "two", "none"))
    teams = [Team.objects.create(name=n, slug=n) for n in ("t1", "t2")]
    Member.objects.create(user=one, team=teams[0], role="owner")
    for team in teams:
        Member.objects.create(user=two, team=team, role="viewer")
    for user in (one, two, none):
        Token.objects.create(user=user, name=user.username, digest=user.username, hint="bp_")
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    rows = {t.name: t for t in ApiToken.objects.all()}
    assert rows["one"].team_id == teams[0].pk and rows["one"].access == WRITE
    assert rows["one"].revoked is None
    assert rows["two"].revoked is not None and rows["two"].team_id is None
    assert rows["none"].revoked is not None
