"""Request and response bodies of the API. Requests refuse unknown fields."""

from datetime import datetime
from typing import Literal

from ninja import Field, Schema
from pydantic import ConfigDict


class Strict(Schema):
    model_config = ConfigDict(extra="forbid")


class Problem(Schema):
    field: str | None = Field(None, description="the field, or null for the request as a whole")
    message: str


class ErrorOut(Schema):
    detail: str
    problems: list[Problem] = []


class TeamOut(Schema):
    slug: str
    name: str
    role: str


class MeOut(Schema):
    username: str
    teams: list[TeamOut]


class BankOut(Schema):
    id: int
    name: str
    description: str
    items: int
    updated: datetime


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
    items: int
    follows: int | None
    created: datetime
    collection_started: datetime | None
    collection_finished: datetime | None


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
    scheme: Literal["four", "aa"] = "four"
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
