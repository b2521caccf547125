"""Answers another app decides before scoring starts (grading's routing), through a hook it
registers when it starts, so that scoring imports nothing of it.

A decider is ``decider(experiment) -> [(response id, bucket), ...]``: each such answer gets a
judgement of verdict ``graded`` in every scorer's assignment when they start, so it stays out of
their queue and counts as decided in their progress, and never as a human judgement (agreement
and the human-only figures leave it out). ``routed(experiment)`` says whether any decider
decided answers of the experiment; ``audit(experiment) -> {response id: the decider's bucket}``
names the answers it decided that people judged too (the audit), for the corrected figures.
``reopened(experiment, item_ids, why)`` is told when the answers it decided on those items go
back to people (``scoring.queue.reopen``: their key disputed, amended or suspect since), so that
it decides them no more and says so."""

from __future__ import annotations

from collections.abc import Callable

_DECIDERS: list[Callable] = []
_ROUTED: list[Callable] = []
_AUDITS: list[Callable] = []
_REOPENED: list[Callable] = []


def register_decider(
    decider: Callable, routed: Callable, audit: Callable, reopened: Callable | None = None
) -> None:
    if decider not in _DECIDERS:
        _DECIDERS.append(decider)
        _ROUTED.append(routed)
        _AUDITS.append(audit)
        if reopened is not None:
            _REOPENED.append(reopened)


def tell_reopened(experiment, item_ids: set[int], why: str) -> None:
    for reopened in _REOPENED:
        reopened(experiment, item_ids, why)


def decided_elsewhere(experiment) -> list[tuple[int, str]]:
    found: dict[int, str] = {}
    for decider in _DECIDERS:
        for response_id, bucket in decider(experiment):
            found.setdefault(response_id, bucket)
    return sorted(found.items())


def routed(experiment) -> bool:
    return any(check(experiment) for check in _ROUTED)


def audit_of(experiment) -> dict[int, str]:
    found: dict[int, str] = {}
    for audit in _AUDITS:
        for response_id, bucket in audit(experiment).items():
            found.setdefault(response_id, bucket)
    return found
