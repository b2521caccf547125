"""Every view reaches its object through the requesting user's team memberships.

A view is declared with ``@team_view(scope="bank_pk", get=Role.VIEWER, post=Role.EDITOR)``:
the decorator finds the object named by the URL's scope keyword among the objects of the
user's teams (another team's object is a 404, never a 403 that confirms it exists), checks the
member's role for the request method (403 for a member whose role is too low), and calls the
view with the object. The permission matrix test reads these declarations from the URL resolver.
"""

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps

from django.core.exceptions import PermissionDenied
from django.db import models
from django.db.models import OuterRef, Subquery
from django.http import Http404, HttpResponseNotAllowed

from .models import (
    Bank,
    Block,
    Experiment,
    Invitation,
    Item,
    Membership,
    ModelConfig,
    PromptVersion,
    Role,
    Run,
    Team,
    role_at_least,
)


@dataclass(frozen=True)
class Scope:
    model: type[models.Model]
    team_path: str  # lookup from the model to its Team ("" for Team itself)
    field: str = "pk"
    select_related: tuple[str, ...] = ()
    # For personal objects (a scorer's assignment): the lookup to the user who owns it. Someone
    # else's personal object is a 404, like another team's.
    owner_path: str = ""

    def team_of(self, obj: models.Model) -> Team:
        target = obj
        for part in self.team_path.split("__") if self.team_path else ():
            target = getattr(target, part)
        return target  # type: ignore[return-value]


SCOPES: dict[str, Scope] = {
    "team_slug": Scope(Team, "", field="slug"),
    "bank_pk": Scope(Bank, "team", select_related=("team",)),
    "block_pk": Scope(Block, "bank__team", select_related=("bank__team",)),
    "item_pk": Scope(Item, "block__bank__team", select_related=("block__bank__team", "key_entry")),
    "member_pk": Scope(Membership, "team", select_related=("team", "user")),
    "invitation_pk": Scope(Invitation, "team", select_related=("team",)),
    "prompt_pk": Scope(PromptVersion, "team", select_related=("team",)),
    "config_pk": Scope(ModelConfig, "team", select_related=("team",)),
    "experiment_pk": Scope(Experiment, "team", select_related=("team", "prompt_version")),
    "run_pk": Scope(Run, "experiment__team", select_related=("experiment__team", "model_config")),
}


def register_scope(name: str, scope: Scope) -> None:
    """Other apps (scoring) add their own scopes, such as experiments."""
    SCOPES[name] = scope


def lookup(user, scope_name: str, value) -> tuple[models.Model, Membership]:
    """The object and the user's membership in its team, or Http404."""
    scope = SCOPES[scope_name]
    if not user.is_authenticated:
        raise Http404
    team_filter = (
        f"{scope.team_path}__memberships__user" if scope.team_path else "memberships__user"
    )
    team_ref = f"{scope.team_path}" if scope.team_path else "pk"
    member = Membership.objects.filter(team=OuterRef(team_ref), user=user).order_by()
    # The membership comes in the same query (this runs on every request, scoring included).
    qs = scope.model.objects.filter(**{team_filter: user, scope.field: value}).annotate(
        _member_pk=Subquery(member.values("pk")[:1]),
        _member_role=Subquery(member.values("role")[:1]),
    )
    if scope.owner_path:
        qs = qs.filter(**{scope.owner_path: user})
    if scope.select_related:
        qs = qs.select_related(*scope.select_related)
    found = list(qs[:1])  # not .first(): an ORDER BY would only cost time on a unique lookup
    if not found:
        raise Http404
    obj = found[0]
    team = scope.team_of(obj)
    membership = Membership(pk=obj._member_pk, team=team, user=user, role=obj._member_role)
    return obj, membership


def team_view(
    *,
    scope: str,
    get: str | None = Role.VIEWER,
    post: str | None = None,
) -> Callable:
    """Declare the scope keyword and the role needed per method (None: method not allowed)."""
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}")
    needed = {"GET": get, "HEAD": get, "POST": post}

    def decorator(view: Callable) -> Callable:
        @wraps(view)
        def wrapper(request, **kwargs):
            role = needed.get(request.method)
            if role is None:
                return HttpResponseNotAllowed([m for m, r in needed.items() if r is not None])
            obj, membership = lookup(request.user, scope, kwargs.pop(scope))
            if not role_at_least(membership.role, role):
                raise PermissionDenied
            request.membership = membership
            request.team = membership.team
            return view(request, obj, **kwargs)

        wrapper.team_view = {"scope": scope, "GET": get, "POST": post}  # type: ignore[attr-defined]
        return wrapper

    return decorator


def can(membership: Membership | None, role: str) -> bool:
    return membership is not None and role_at_least(membership.role, role)


def can_see_bank_key(membership: Membership | None) -> bool:
    """Key entries in a bank are for editors and owners; scorers and viewers would be primed."""
    return can(membership, Role.EDITOR)


# Blinding: the scoring app knows who has revealed; probe's pages ask through this hook so that
# dependencies keep pointing one way (scoring -> probe).
_blinding_check: Callable | None = None


def register_blinding_check(check: Callable) -> None:
    global _blinding_check
    _blinding_check = check


def is_blinded(experiment, user, membership: Membership | None) -> bool:
    """True when this user must not see which model wrote which sheet of the experiment."""
    role = membership.role if membership is not None else None
    if _blinding_check is not None:
        return bool(_blinding_check(experiment, user, role))
    return role == Role.SCORER
