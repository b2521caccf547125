"""Request and response bodies of the API. Requests refuse unknown fields, and text with a
control character or a lone surrogate (the database refuses a NUL, and neither is ever part of
what a user means to send)."""

import re
from datetime import datetime
from typing import Any, Literal

from django.utils.translation import gettext as _
from ninja import Field, Query, Schema
from pydantic import ConfigDict, GetCoreSchemaHandler, GetJsonSchemaHandler, field_validator
from pydantic_core import PydanticCustomError, core_schema

from scoring.schemes import DEFAULT_SCHEME
from scoring.schemes import offered as offered_schemes

# C0 controls but tab, line feed and carriage return; and lone surrogates.
REFUSED = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff]")
# The same rule, for the schema: what a client may send in any text field.
TEXT_PATTERN = "^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f]*$"

# A team's slug, as Django's SlugField takes it.
SLUG_PATTERN = r"^[-a-zA-Z0-9_]+$"


class SchemeValue(str):
    """A scoring scheme's stored value, one of the offered schemes of the registry
    (scoring.schemes). Read when a request is validated and when the OpenAPI schema is drawn,
    so a newly registered scheme is taken and listed with nothing else to change."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler):
        return core_schema.no_info_after_validator_function(cls._offered, core_schema.str_schema())

    @classmethod
    def __get_pydantic_json_schema__(cls, schema, handler: GetJsonSchemaHandler):
        offered = offered_schemes()
        return {
            "type": "string",
            "enum": [s.key for s in offered],
            # Each scheme's help is a sentence or more: without its own full stop, the list has
            # one at its end.
            "description": "the scoring scheme: "
            + "; ".join(f"{s.key}: {str(s.help or s.label).rstrip('. ')}" for s in offered)
            + ".",
        }

    @staticmethod
    def _offered(value: str) -> str:
        keys = [s.key for s in offered_schemes()]
        if value not in keys:
            raise PydanticCustomError(
                "scheme",
                _("Choose a scoring scheme: one of %(keys)s.") % {"keys": ", ".join(keys)},
            )
        return value


def weight_query():
    return Query("1", pattern=TEXT_PATTERN, max_length=20, description="w, from 0 to 100")


def refused_character(text: str) -> str | None:
    """Why `text` is refused, naming the character and where it is; None when it is not."""
    found = REFUSED.search(text)
    if found is None:
        return None
    code = ord(found[0])
    line = text.count("\n", 0, found.start()) + 1
    column = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
    where = {"code": f"U+{code:04X}", "line": line, "column": column}
    if 0xD800 <= code <= 0xDFFF:
        return (
            _("A lone surrogate (%(code)s) is not a character (line %(line)s, column %(column)s).")
            % where
        )
    return (
        _(
            "Control characters such as %(code)s are not allowed (line %(line)s, column "
            "%(column)s); only tab, line feed and carriage return are."
        )
        % where
    )


def refused_in(value, path: str = "") -> str | None:
    """The first refused character anywhere in a JSON value, with where it is."""
    if isinstance(value, str):
        reason = refused_character(value)
        return f"{path}: {reason}" if reason and path else reason
    if isinstance(value, list | tuple):
        for index, inner in enumerate(value):
            reason = refused_in(inner, f"{path}[{index}]" if path else f"[{index}]")
            if reason:
                return reason
    if isinstance(value, dict):
        for key, inner in value.items():
            reason = refused_in(str(key), path) or refused_in(inner, f"{path}.{key}")
            if reason:
                return reason
    return None


def add_text_pattern(schema: dict) -> None:
    """Every text property of a request schema says which characters it takes."""
    for prop in schema.get("properties", {}).values():
        for part in [prop, *prop.get("anyOf", []), prop.get("items", {})]:
            if part.get("type") == "string" and not {"pattern", "enum", "const"} & part.keys():
                part["pattern"] = TEXT_PATTERN


class Strict(Schema):
    """The base of every request body: unknown fields and refused characters are a 422 that
    names the field."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=add_text_pattern)

    @field_validator("*", mode="before")
    @classmethod
    def no_refused_characters(cls, value):
        reason = refused_in(value)
        if reason:
            raise PydanticCustomError("refused_character", reason.replace("{", "{{"))
        return value


class Problem(Schema):
    field: str | None = Field(None, description="the field, or null for the request as a whole")
    message: str


class ErrorOut(Schema):
    """Every refusal: what happened in words, and each field at fault."""

    detail: str
    problems: list[Problem] = []


def errors(*codes: int) -> dict:
    """The refusals an endpoint can answer, for its `response=` (and so the schema)."""
    return {code: ErrorOut for code in codes}


class TokenOut(Schema):
    name: str
    team: str = Field(..., description="the slug of the one team the token acts in")
    access: Literal["read", "write"] = Field(..., description="read, or read and write")


class TeamOut(Schema):
    slug: str
    name: str
    role: str


class MeOut(Schema):
    username: str
    token: TokenOut
    teams: list[TeamOut] = Field(..., description="the token's team, with the user's role")


# The outputs are read from the objects' attributes (a model, with the counts a list's query
# annotates): the resolvers say where a field that is not an attribute of its own comes from.


class BankOut(Schema):
    id: int
    name: str
    description: str
    items: int = Field(..., description="active items")
    updated: datetime

    @staticmethod
    def resolve_items(bank) -> int:
        return bank.n_items


class BankImportIn(Strict):
    content: str = Field(..., description="the bank file: JSON exported by the app, or text")
    filename: str = Field("", max_length=255, description="tells the format when it ends .json")
    name: str = Field("", max_length=200, description="the bank's name (else the file's)")


class BankImportOut(Schema):
    bank: BankOut
    blocks: int
    items: int
    missing_keys: int


class PromptOut(Schema):
    id: int
    name: str
    version: int
    language: str
    content_hash: str
    text: str
    created: datetime


class ConfigOut(Schema):
    id: int
    label: str
    provider: str
    model_name: str
    simulated: bool
    archived: bool
    concurrency_limit: int | None
    price_input_per_million: float | None = None
    price_output_per_million: float | None = None

    @staticmethod
    def resolve_simulated(config) -> bool:
        return config.is_simulated


class ConfigIn(Strict):
    """A model configuration. The settings' bounds are the provider's (its adapter checks them)."""

    label: str = Field(..., max_length=120)
    provider: str = Field(..., max_length=30)
    model_name: str = Field(..., max_length=200)
    base_url: str = Field("", max_length=200)
    temperature: float | None = None
    max_output_tokens: int | None = None
    reasoning_effort: str = Field("", max_length=10)
    thinking_budget: int | None = None
    seed: int | None = None
    api_key_env: str = Field("", max_length=100, description="the NAME of the variable")
    concurrency_limit: int = 4
    price_input_per_million: float | None = Field(
        None, description="US dollars per million input tokens, for costs only"
    )
    price_output_per_million: float | None = Field(
        None, description="US dollars per million output tokens, for costs only"
    )


class RunOut(Schema):
    """A run as the requester may see it: anonymous ("Run N") while they are blinded."""

    number: int
    status: str
    responses: int
    items: int
    config: int | None = None
    label: str | None = None
    repeat: int | None = None
    included_from_experiment: int | None = None
    error: str | None = None


class ExperimentOut(Schema):
    id: int
    name: str
    status: str
    bank: int | None
    bank_name: str
    prompt_version: int
    mode: str
    scheme: str
    repeats: int
    seed: int
    items: int = Field(..., description="items in its snapshot")
    follows: int | None
    created: datetime
    collection_started: datetime | None
    collection_finished: datetime | None

    @staticmethod
    def resolve_bank(experiment) -> int | None:
        return experiment.bank_id

    @staticmethod
    def resolve_prompt_version(experiment) -> int:
        return experiment.prompt_version_id

    @staticmethod
    def resolve_follows(experiment) -> int | None:
        return experiment.follows_id

    @staticmethod
    def resolve_items(experiment) -> int:
        return experiment.n_items


class ExperimentDetailOut(ExperimentOut):
    blinded: bool
    responses: int
    expected_responses: int
    percent: int
    runs: list[RunOut]


class ExperimentIn(Strict):
    bank: int
    prompt_version: int
    configs: list[int] = Field(..., min_length=1, max_length=100)
    repeats: int = Field(2, ge=1, le=20)
    mode: Literal["sheet", "item"] = "sheet"
    name: str = Field("", max_length=200)
    seed: int | None = Field(None, ge=0, lt=2**31)
    scheme: SchemeValue = DEFAULT_SCHEME
    hide_confidence: bool = False
    noise_floor: float | None = Field(None, ge=0, le=1000)


class FollowUpIn(Strict):
    items: Literal["snapshot", "current"] = Field(
        "snapshot", description="the earlier snapshot, or the bank's current active items"
    )
    prompt_version: int | None = Field(None, description="another prompt version (else the same)")
    configs: list[int] | None = Field(
        None, max_length=100, description="the configurations (else the earlier experiment's)"
    )
    include_runs: list[int] = Field(
        [], max_length=200, description="runs of the earlier experiment to include as they are"
    )
    repeats: int | None = Field(None, ge=1, le=20)
    name: str = Field("", max_length=200)
    seed: int | None = Field(None, ge=0, lt=2**31)


class ResponseRowOut(Schema):
    """One judged response: the columns of the responses export (docs/export-columns.md)."""

    experiment: str
    scheme: str
    item: int
    response_id: int = Field(..., description="the response's id: the grades' `response_id`")
    block: str
    block_title: str
    question: str
    key: str | None = Field(..., description="the key in force, when the requester may see it")
    key_flagged: bool
    key_snapshot: str | None
    key_judged_against: str | None
    run_label: str
    provider: str
    model: str
    simulated: bool
    repeat: int
    answer: str | None
    confidence: str | None
    abstained: bool
    hedged: bool
    issues: list[str]
    bucket: str | None
    verdict: str | None
    unblinded: bool | None
    needs_recheck: bool | None
    scorer: str | None
    carried_from: str | None


class ResponsesPageOut(Schema):
    source: Literal["final", "scorer"] = Field(
        ..., description="the team's final buckets, or the requester's own judgements"
    )
    experiment: int
    columns: list[str]
    count: int = Field(..., description="responses in the whole experiment")
    page: int = Field(..., description="this page, from 1")
    page_size: int = Field(..., description="rows a page (1,000)")
    responses: list[ResponseRowOut]


class ItemChangeOut(Schema):
    position: int
    question: str
    was: str = ""


class FollowUpPlanOut(Schema):
    items: int
    added: list[ItemChangeOut]
    removed: list[ItemChangeOut]
    question_changed: list[ItemChangeOut]
    key_changed: list[ItemChangeOut]
