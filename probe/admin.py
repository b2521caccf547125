"""The Django admin, for staff."""

from django.contrib import admin

from .models import (
    AuditEvent,
    Bank,
    Block,
    Invitation,
    Item,
    KeyEntry,
    LoginAttempt,
    Membership,
    Team,
)
from .services.prompts import prompt_defaults_ensure


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "created"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [MembershipInline]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if not change:  # a new team starts with the default prompts, as team_create gives them
            prompt_defaults_ensure(team=obj)


class BlockInline(admin.TabularInline):
    model = Block
    extra = 0


@admin.register(Bank)
class BankAdmin(admin.ModelAdmin):
    list_display = ["name", "team", "updated"]
    list_filter = ["team"]
    search_fields = ["name"]
    inlines = [BlockInline]


class KeyEntryInline(admin.StackedInline):
    model = KeyEntry
    extra = 0


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    list_display = ["question", "block", "retired"]
    list_filter = ["retired", "block__bank__team"]
    search_fields = ["question"]
    inlines = [KeyEntryInline]


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ["created", "team", "user", "action", "subject", "bank_name"]
    list_filter = ["action", "team"]
    readonly_fields = [f.name for f in AuditEvent._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    """Staff see who invited whom; links are made and withdrawn by owners on the Members page
    (the token itself exists only as a hash)."""

    list_display = ["addressee", "team", "role", "created_by", "created", "expires", "accepted"]
    list_filter = ["team", "role"]
    search_fields = ["email", "invitee__username", "team__name"]
    readonly_fields = [f.name for f in Invitation._meta.fields]

    def has_add_permission(self, request):
        return False


@admin.register(LoginAttempt)
class LoginAttemptAdmin(admin.ModelAdmin):
    """Staff see the lockout's counters and may delete rows to lift a pause by hand (a reset link
    does it for the account holder)."""

    list_display = ["created", "kind", "username", "ip_address"]
    list_filter = ["kind"]
    search_fields = ["username", "ip_address"]
    readonly_fields = [f.name for f in LoginAttempt._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
