"""Simulated models for demos and tests: profiles, the answers they give, and the adapter that asks them.

The simulator (served by `adapters.simulator_server`) answers a probe prompt as a model of a
given character would: it knows some share of the items (it can only "know" them because it is
handed the questions and answers: with the request, as the experiment's own key, or else in a
knowledge file), rates its confidence well or badly, abstains or guesses when it does not know,
and formats its sheet tidily or sloppily. Nothing here is a
real model; every reply is labelled as simulated.

Everything is deterministic for a (model, prompt, seed) request, except injected errors, which
follow one random sequence per server so that a retried request can succeed.

Modules: `adapter` (the provider adapter and what it may send), `profiles` (the characters),
`knowledge` (the items a model may know, and the items of a prompt), `answers` (how a model
answers and formats its sheet), `wording` (the bank's language, a key said in the model's own
words, hedges), `mistakes` (plausible wrong answers, made from the item's own key), `numbers` (near numbers of
the key's own form),
`vocabulary` (the built-in word lists mistakes are made of) and `engine` (the OpenAI-compatible
endpoint, without HTTP).
"""

from adapters.simulator.adapter import (
    DEFAULT_PORT,
    KEY_HOSTS_ENV,
    SIMULATION_FIELD,
    SIMULATOR_DEFAULT_BASE_URL,
    SimulatorAdapter,
    may_receive_key,
)
from adapters.simulator.answers import (
    ABSTAIN_ANSWER,
    SHARED_DIFFICULTY,
    WRONG_ANSWER_WEIGHTS,
    ItemAnswer,
    answer_item,
    model_style,
    render_sheet,
)
from adapters.simulator.engine import (
    DEFAULT_SEED,
    OWNER,
    SYSTEM_FINGERPRINT,
    SimulatedReply,
    Simulator,
    count_tokens,
    openai_error,
    truncate_to_tokens,
)
from adapters.simulator.knowledge import (
    Knowledge,
    KnowledgeItem,
    PromptItem,
    normalize,
    parse_prompt_items,
)
from adapters.simulator.mistakes import FAMILIES, guess, wrong_answers
from adapters.simulator.profiles import (
    BUILTIN_PROFILES,
    CONFIDENCE_LEVELS,
    FormatNoise,
    Profile,
    load_profiles,
    profile_from_dict,
)
from adapters.simulator.wording import (
    ABSTENTIONS,
    STYLES,
    carries_key,
    contains_key,
    folded,
    is_key_entry,
    language_of,
)

__all__ = [
    "ABSTAIN_ANSWER",
    "ABSTENTIONS",
    "FAMILIES",
    "STYLES",
    "BUILTIN_PROFILES",
    "CONFIDENCE_LEVELS",
    "DEFAULT_PORT",
    "DEFAULT_SEED",
    "KEY_HOSTS_ENV",
    "OWNER",
    "SHARED_DIFFICULTY",
    "SIMULATION_FIELD",
    "SIMULATOR_DEFAULT_BASE_URL",
    "SYSTEM_FINGERPRINT",
    "WRONG_ANSWER_WEIGHTS",
    "FormatNoise",
    "ItemAnswer",
    "Knowledge",
    "KnowledgeItem",
    "Profile",
    "PromptItem",
    "SimulatedReply",
    "Simulator",
    "SimulatorAdapter",
    "answer_item",
    "carries_key",
    "contains_key",
    "folded",
    "guess",
    "is_key_entry",
    "language_of",
    "model_style",
    "count_tokens",
    "load_profiles",
    "may_receive_key",
    "normalize",
    "openai_error",
    "parse_prompt_items",
    "profile_from_dict",
    "render_sheet",
    "truncate_to_tokens",
    "wrong_answers",
]
