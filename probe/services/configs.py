"""Model configurations: validation, create, update, archive, and the "test connection" check.

A configuration names the environment variable that holds its API key; the key itself is read
only at the moment a request is made and is never stored, rendered, logged or put in a URL.
Validation refuses a value that looks like a pasted key rather than a variable's name, and
never repeats that value in its message.
"""

import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import adapters
from adapters.errors import CONNECTION_CHECK_TIMEOUT

from ..models import AuditEvent, ModelConfig, Team
from .audit import audit_record
from .config_prices import PRICE_FIELDS, price_clean
from .hosts import check_url, provider_host_problem

logger = logging.getLogger(__name__)

SUBJECT = "model configuration"

FIELDS = (
    "label",
    "provider",
    "model_name",
    "base_url",
    "temperature",
    "max_output_tokens",
    "reasoning_effort",
    "thinking_budget",
    "seed",
    "api_key_env",
    "concurrency_limit",
    "price_input_per_million",
    "price_output_per_million",
)
DEFAULTS = {
    "base_url": "",
    "temperature": None,
    "max_output_tokens": None,
    "reasoning_effort": "",
    "thinking_budget": None,
    "seed": None,
    "api_key_env": "",
    "concurrency_limit": 4,
    "price_input_per_million": None,
    "price_output_per_million": None,
}

ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Prefixes of the keys people most often paste by mistake (OpenAI, Anthropic, Google, xAI,
# Groq, Hugging Face, OpenRouter, GitHub).
KEY_PREFIXES = ("sk-", "sk_", "AIza", "xai-", "gsk_", "hf_", "ghp_", "github_pat_", "Bearer ")
KEY_IN_TEXT = re.compile(r"(?:\bsk-|\bsk_|\bAIza|\bxai-|\bgsk_|\bhf_)[A-Za-z0-9_\-]{16,}")
# The code of a validation error about a pasted key: a form must not show that input again.
SECRET_CODE = "looks_like_key"
MAX_CONCURRENCY = 200
# Under gunicorn's 60-second worker timeout (docker-compose.yml), so a slow model ends in a
# shown timeout, not a killed worker.
TEST_CONNECTION_TIMEOUT = min(CONNECTION_CHECK_TIMEOUT, 45.0)


def looks_like_secret(value: str) -> bool:
    """Whether `value`, typed where a variable NAME belongs, is more likely the key itself."""
    value = value.strip()
    if value.startswith(KEY_PREFIXES):
        return True
    letters = [c for c in value if c.isalpha()]
    has_digit = any(c.isdigit() for c in value)
    mixed_case = any(c.islower() for c in letters) and any(c.isupper() for c in letters)
    if len(value) >= 24 and mixed_case and has_digit:
        return True  # random-looking: upper, lower and digits, like most keys
    # Hex or lower-case tokens: long, letters and digits, and no underscore between words.
    return len(value) >= 32 and has_digit and bool(letters) and "_" not in value


def api_key_env_status(name: str, environ: Mapping[str, str] = os.environ) -> str:
    """ "set", "not set", or "" without a name: never anything about the value itself."""
    if not name:
        return ""
    return "set" if environ.get(name, "").strip() else "not set"


def requires_api_key(provider: str, base_url: str = "") -> bool:
    """Whether the provider's adapter refuses to send a request without a key to this base URL.

    OpenAI-compatible servers need one only at api.openai.com and OpenRouter; a local vLLM,
    Ollama or llama.cpp runs without one (see adapters/openai_chat.py).
    """
    try:
        adapter = adapters.get_adapter(provider)
    except KeyError:
        return False
    request = adapters.CompletionRequest(model="-", prompt="", base_url=base_url or None)
    try:
        return adapter.requires_api_key(request)
    except adapters.ConfigurationError:
        return adapter.needs_api_key


def config_validate(*, team: Team, data: Mapping, instance: ModelConfig | None = None) -> dict:
    """The configuration's fields, cleaned; ValidationError naming each bad field otherwise.

    The settings (temperature, token limit, ...) are checked by the provider's adapter, against
    the options it declares: the same check runs again before a run sends anything.
    """
    values = {**DEFAULTS, **{k: v for k, v in data.items() if k in FIELDS}}
    for field in ("label", "provider", "model_name", "base_url", "api_key_env", "reasoning_effort"):
        values[field] = (values[field] or "").strip()
    errors: dict[str, list[ValidationError]] = {}

    def refuse(field: str, message: str, code: str = "invalid") -> None:
        errors.setdefault(field, []).append(ValidationError(message, code=code))

    known = values["provider"] in dict(adapters.provider_choices())
    if not known:
        refuse("provider", _("Choose one of the providers offered."))
    _check_names(team, instance, values, refuse)
    if values["base_url"]:
        problem = check_url(values["base_url"]) or provider_host_problem(values["base_url"])
        if problem:
            refuse("base_url", problem)
    _check_key_variable(values, refuse, check_needed=known and "base_url" not in errors)
    if known:
        cleaned, problems = options_check(values["provider"], values)
        values.update(cleaned)
        for field, messages in problems.items():
            for message in messages:
                refuse(field, message)
    concurrency = values["concurrency_limit"]
    if concurrency is None or not 1 <= concurrency <= MAX_CONCURRENCY:
        refuse(
            "concurrency_limit",
            _("Allow from 1 to %(max)s concurrent requests.") % {"max": MAX_CONCURRENCY},
        )
    for field in PRICE_FIELDS:
        values[field] = price_clean(values[field], field, refuse)
    if errors:
        raise ValidationError(errors)
    return values


def field_label(name: str) -> str:
    """The configuration field's name as a form shows it, in the user's language."""
    return str(ModelConfig._meta.get_field(name).verbose_name)


def options_check(provider: str, values: Mapping) -> tuple[dict, dict[str, list[str]]]:
    """(cleaned settings, {field: [message]}) by the provider's adapter, in the user's language."""
    cleaned, problems = adapters.get_adapter(provider).validate_options(values)
    return cleaned, {
        field: [problem.text(_) for problem in found] for field, found in problems.items()
    }


def options_refusal(provider: str, values: Mapping) -> str:
    """Why the provider refuses these settings, one sentence per setting, or "" (before sending)."""
    _cleaned, problems = options_check(provider, values)
    return "; ".join(
        f"{capfirst(field_label(field))}: {' '.join(messages)}"
        for field, messages in problems.items()
    )


def _check_names(team: Team, instance: ModelConfig | None, values: dict, refuse) -> None:
    """The label (given, unique in the team), the model's name, and no key pasted into either."""
    if not values["label"]:
        refuse("label", _("Give the configuration a label."))
    elif (
        ModelConfig.objects.filter(team=team, label__iexact=values["label"])
        .exclude(pk=instance.pk if instance else None)
        .exists()
    ):
        refuse("label", _("This team already has a configuration with this label."))
    if not values["model_name"]:
        refuse("model_name", _("Name the model, as the provider spells it."))
    for field in ("label", "model_name", "base_url"):
        if KEY_IN_TEXT.search(values[field]):
            values[field] = ""
            refuse(
                field,
                _(
                    "This looks like it contains an API key. Keys belong in an environment variable, never here."
                ),
                code=SECRET_CODE,
            )


def _check_key_variable(values: dict, refuse, *, check_needed: bool) -> None:
    """A variable's name, never a key; and one at all where the provider needs a key."""
    name = values["api_key_env"]
    provider = values["provider"]
    if name:
        if looks_like_secret(name):
            values["api_key_env"] = ""
            refuse(
                "api_key_env",
                _(
                    "This looks like an API key, not the name of a variable. Put the key in an "
                    "environment variable of the web server and the workers, and enter only the "
                    "variable's NAME here (for example OPENAI_API_KEY). What you typed was not saved."
                ),
                code=SECRET_CODE,
            )
        elif not ENV_NAME.match(name):
            refuse(
                "api_key_env",
                _(
                    "An environment variable name has only letters, digits and underscores and "
                    "does not start with a digit, such as OPENAI_API_KEY."
                ),
            )
    elif check_needed and requires_api_key(provider, values["base_url"]):
        hint = adapters.get_adapter(provider).api_key_env_hint
        refuse(
            "api_key_env",
            _(
                "This provider needs an API key: enter the NAME of the environment variable that holds it%(hint)s."
            )
            % {"hint": _(" (usually %(name)s)") % {"name": hint} if hint else ""},
        )


@transaction.atomic
def config_create(*, team: Team, user, **fields) -> ModelConfig:
    """A new configuration; `fields` are the names in FIELDS (label, provider and model_name needed)."""
    unknown = set(fields) - set(FIELDS)
    if unknown:
        raise TypeError(f"unknown model configuration fields: {sorted(unknown)}")
    values = config_validate(team=team, data=fields)
    try:
        with transaction.atomic():
            config = ModelConfig.objects.create(
                team=team,
                created_by=user if user is not None and user.is_authenticated else None,
                **values,
            )
    except IntegrityError:
        raise ValidationError(
            {"label": _("This team already has a configuration with this label.")}
        ) from None
    audit_record(
        team=team,
        user=user,
        action=AuditEvent.Action.CREATE,
        subject=SUBJECT,
        summary=config.label,
        details={"provider": config.provider, "model": config.model_name},
    )
    return config


@transaction.atomic
def config_update(*, config: ModelConfig, user, **changes) -> ModelConfig:
    """Change the settings. Runs made already keep the snapshot of the settings they were made with."""
    unknown = set(changes) - set(FIELDS)
    if unknown:
        raise TypeError(f"unknown model configuration fields: {sorted(unknown)}")
    current = {field: getattr(config, field) for field in FIELDS}
    values = config_validate(team=config.team, data={**current, **changes}, instance=config)
    changed = {f: [current[f], values[f]] for f in FIELDS if current[f] != values[f]}
    audited = {
        f: [str(v) if isinstance(v, Decimal) else v for v in pair] for f, pair in changed.items()
    }
    if not changed:
        return config
    for field in changed:
        setattr(config, field, values[field])
    try:
        with transaction.atomic():
            config.save(update_fields=list(changed))
    except IntegrityError:
        raise ValidationError(
            {"label": _("This team already has a configuration with this label.")}
        ) from None
    audit_record(
        team=config.team,
        user=user,
        action=AuditEvent.Action.UPDATE,
        subject=SUBJECT,
        summary=config.label,
        details={"changes": audited},
    )
    return config


@transaction.atomic
def config_set_archived(*, config: ModelConfig, user, archived: bool) -> ModelConfig:
    """Archive (hidden from new experiments, runs keep it) or restore a configuration."""
    if config.archived != archived:
        config.archived = archived
        config.save(update_fields=["archived"])
        audit_record(
            team=config.team,
            user=user,
            action=AuditEvent.Action.RETIRE if archived else AuditEvent.Action.RESTORE,
            subject=SUBJECT,
            summary=config.label,
        )
    return config


# Test connection -----------------------------------------------------------------------------

ERROR_TITLES = {
    "missing_api_key": gettext_lazy("API key missing"),
    "configuration": gettext_lazy("Configuration problem"),
    "manual": gettext_lazy("Nothing to test"),
    "transport": gettext_lazy("Could not connect"),
    "timeout": gettext_lazy("No answer in time"),
    "rate_limit": gettext_lazy("Rate limited"),
    "quota": gettext_lazy("Out of quota or credit"),
    "server": gettext_lazy("Server error"),
    "request_timeout": gettext_lazy("The server timed out"),
    "conflict": gettext_lazy("Conflict"),
    "rejected": gettext_lazy("Request rejected"),
    "bad_response": gettext_lazy("Unreadable response"),
}


@dataclass(frozen=True)
class ConnectionCheck:
    """What one "test connection" found; never holds the key."""

    ok: bool
    sent: bool  # whether a request left the app at all
    outcome: str = ""  # complete | truncated | refused, when ok
    latency_ms: int | None = None
    reported_model: str = ""
    request_id: str = ""
    http_status: int | None = None
    answer: str = ""
    error_kind: str = ""
    error_message: str = ""
    retryable: bool | None = None
    retry_after: float | None = None

    @property
    def error_title(self) -> str:
        return str(ERROR_TITLES.get(self.error_kind, _("Error")))


def config_settings(config: ModelConfig) -> dict:
    """The configuration's settings, by name, as its adapter checks them."""
    return {name: getattr(config, name) for name in FIELDS}


def _scrub(text: str, secret: str | None) -> str:
    return text.replace(secret, "***") if secret and len(secret) >= 4 else text


def config_test_connection(
    *, config: ModelConfig, client=None, environ: Mapping[str, str] = os.environ
) -> ConnectionCheck:
    """Put one small request to the configured model, exactly as collection would configure it.

    A missing key variable is reported before any request is made.
    """
    if config.is_manual:
        return ConnectionCheck(
            ok=False,
            sent=False,
            error_kind="manual",
            error_message=_(
                "A manual configuration has no connection: a person pastes the model's reply."
            ),
        )
    try:
        adapter = adapters.get_adapter(config.provider)
    except KeyError:
        return ConnectionCheck(
            ok=False,
            sent=False,
            error_kind="configuration",
            error_message=_("Unknown provider “%(provider)s”.") % {"provider": config.provider},
        )
    refused = options_refusal(config.provider, config_settings(config))
    if refused:
        return ConnectionCheck(
            ok=False, sent=False, error_kind="configuration", error_message=refused
        )
    api_key = None
    if config.api_key_env:
        try:
            api_key = adapters.api_key_from_env(config.api_key_env, environ)
        except adapters.MissingAPIKeyError:
            return ConnectionCheck(
                ok=False,
                sent=False,
                error_kind="missing_api_key",
                error_message=_(
                    "The environment variable %(name)s is not set or is empty. Set it to the API "
                    "key in the environment of the web server and of every worker, then restart "
                    "them."
                )
                % {"name": config.api_key_env.strip()},
            )
    elif requires_api_key(config.provider, config.base_url):
        return ConnectionCheck(
            ok=False,
            sent=False,
            error_kind="missing_api_key",
            error_message=_(
                "This provider needs an API key: edit the configuration and enter the NAME of the "
                "environment variable that holds it."
            ),
        )
    problem = provider_host_problem(config.base_url or adapter.default_base_url or "")
    if problem:
        return ConnectionCheck(
            ok=False, sent=False, error_kind="configuration", error_message=problem
        )
    own_client = client is None
    client = client or adapters.new_client()
    try:
        completion = adapters.check_connection(
            adapter,
            client=client,
            model=config.model_name,
            base_url=config.base_url or None,
            api_key=api_key,
            timeout=TEST_CONNECTION_TIMEOUT,
            temperature=config.temperature,
            max_output_tokens=config.max_output_tokens,
            reasoning_effort=config.reasoning_effort or None,
            thinking_budget=config.thinking_budget,
            seed=config.seed,
        )
    except adapters.AdapterError as error:
        sent = not isinstance(error, adapters.ConfigurationError)
        logger.info(
            "connection test config=%s provider=%s failed: %s",
            config.pk,
            config.provider,
            error.kind,
        )
        return ConnectionCheck(
            ok=False,
            sent=sent,
            latency_ms=error.latency_ms,
            request_id=error.request_id or "",
            http_status=error.status,
            error_kind=error.kind,
            error_message=_scrub(error.message, api_key),
            retryable=error.retryable if sent else None,
            retry_after=error.retry_after,
        )
    finally:
        if own_client:
            client.close()
    logger.info(
        "connection test config=%s provider=%s outcome=%s latency_ms=%s",
        config.pk,
        config.provider,
        completion.outcome,
        completion.latency_ms,
    )
    return ConnectionCheck(
        ok=True,
        sent=True,
        outcome=completion.outcome,
        latency_ms=completion.latency_ms,
        reported_model=completion.reported_model or "",
        request_id=completion.request_id or "",
        http_status=completion.http_status,
        answer=_scrub(completion.text.strip()[:200], api_key),
    )
