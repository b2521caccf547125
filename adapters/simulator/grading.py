"""The simulator as a grader: a grading request answered with a label and a one-line reason.

A grading request (the grading app's request text) ends with the case to grade under fixed
bracketed markers: [ITEM], [KEY], [ANSWER FORMAT], [ANSWER], [STATED CONFIDENCE], [LABELS]. A
simulated grader reads the last case, finds the true label the way a careful reader would (the
answer carries every number and word of the key: CORRECT; else INCORRECT; UNKNOWN:
NOT_ATTEMPTED where the menu has it), then errs as its profile says:

- ``grading_accuracy``: the chance it gives the true label (each answer drawn on its own);
- ``grading_habit``: "" errs both ways, "lenient" errs only by passing a wrong answer, "strict"
  only by failing a right one;
- ``grading_unreadable``: the chance its reply is prose or off the menu (a parse failure).

Where the instructions ask for a ``CONFIDENCE:`` line, it states one: higher, on the whole,
where its label is the true one (0.6 to 1 then, 0.3 to 0.85 where it erred).

Deterministic for a (model, seed, request) triple. Every reply says it is simulated.
"""

from __future__ import annotations

import random

from adapters.simulator.answers import digest
from adapters.simulator.profiles import Profile
from adapters.simulator.wording import ABSTENTIONS, carries_key

MARKERS = ("[ITEM]", "[KEY]", "[ANSWER FORMAT]", "[ANSWER]", "[STATED CONFIDENCE]", "[LABELS]")
UNREADABLE = (
    "I think this answer is probably right, but I cannot be sure.",
    "LABEL: MAYBE\nREASON: Unsure (simulated).",
    "Correct? Incorrect? Both readings are possible.",
)


def is_grading_request(prompt: str) -> bool:
    return all(f"\n{marker}\n" in f"\n{prompt}" for marker in MARKERS)


def last_case(prompt: str) -> dict[str, str]:
    """The sections of the last case in the request, by marker."""
    tail = prompt[prompt.rfind("[ITEM]\n") :]
    found: dict[str, str] = {}
    current, lines = None, []
    for line in tail.splitlines():
        if line.strip() in MARKERS:
            if current is not None:
                found[current] = "\n".join(lines).strip()
            current, lines = line.strip(), []
        elif current is not None:
            lines.append(line)
    if current is not None:
        found[current] = "\n".join(lines).strip()
    return found


def true_label(case: dict[str, str], menu: list[str]) -> str:
    answer, key = case.get("[ANSWER]", ""), case.get("[KEY]", "")
    abstained = (
        answer.strip().upper() in ("UNKNOWN", "-", "") or answer.strip() in ABSTENTIONS["ja"]
    )
    if abstained and "NOT_ATTEMPTED" in menu:
        return "NOT_ATTEMPTED"
    return "CORRECT" if key and carries_key(answer, key) else "INCORRECT"


def grade_reply(profile: Profile, model: str, seed: int, prompt: str) -> str:
    case = last_case(prompt)
    menu = [label.strip() for label in case.get("[LABELS]", "").split("|") if label.strip()]
    rng = random.Random(digest("grade", model, seed, prompt))
    if rng.random() < profile.grading_unreadable:
        return UNREADABLE[rng.randrange(len(UNREADABLE))]
    truth = true_label(case, menu)
    label, erred = truth, rng.random() >= profile.grading_accuracy
    if erred:
        if truth == "INCORRECT" and profile.grading_habit != "strict":
            label = "CORRECT"
        elif truth == "CORRECT" and profile.grading_habit != "lenient":
            label = "INCORRECT"
    if label not in menu and menu:
        label = menu[0]
    reason = {
        "CORRECT": "The answer says what the key says (simulated grader).",
        "INCORRECT": "The answer does not match the key (simulated grader).",
        "NOT_ATTEMPTED": "The answer does not attempt the item (simulated grader).",
    }.get(label, "Simulated grader.")
    if "\nCONFIDENCE:" not in prompt[: prompt.find("[ITEM]")]:
        return f"LABEL: {label}\nREASON: {reason}"
    low, high = (0.3, 0.85) if label != truth else (0.6, 1.0)
    confidence = round(rng.uniform(low, high), 2)
    return f"LABEL: {label}\nCONFIDENCE: {confidence:.2f}\nREASON: {reason}"
