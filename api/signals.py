"""A token stops working for good when its user leaves its team or is deactivated.

Authentication also requires the membership and an active user on every request, so a change
made behind the ORM's back (a bulk update) still locks the token out; these receivers record
the revocation, so that the tokens page says so and a later return to the team does not bring
the token back.
"""

from django.contrib.auth import get_user_model
from django.db.models.signals import post_delete, post_save
from django.utils import timezone

from probe.models import Membership

from .models import ApiToken


def revoke_on_leaving(sender, instance: Membership, **kwargs) -> None:
    ApiToken.objects.filter(
        user_id=instance.user_id, team_id=instance.team_id, revoked__isnull=True
    ).update(revoked=timezone.now())


def revoke_on_deactivation(sender, instance, **kwargs) -> None:
    if not instance.is_active:
        ApiToken.objects.filter(user_id=instance.pk, revoked__isnull=True).update(
            revoked=timezone.now()
        )


def connect() -> None:
    post_delete.connect(revoke_on_leaving, sender=Membership, dispatch_uid="api-token-leave")
    post_save.connect(
        revoke_on_deactivation, sender=get_user_model(), dispatch_uid="api-token-deactivate"
    )
