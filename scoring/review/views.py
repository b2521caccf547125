"""Key review pages, of an experiment and of a bank: keyboard-first, like scoring.

Every page is for owners and editors: the key review shows the key and every sheet's answers.
The scorers, agreement and reconciliation pages are in scoring.reconciliation.views.
"""

from urllib.parse import parse_qs, urlsplit

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from probe.access import is_blinded, team_view
from probe.forms.common import apply_service_errors
from probe.htmx import HtmxHttpRequest
from probe.models import Bank, Experiment, Item, Role
from probe.wording import sentences
from scoring import visibility
from scoring.models import KeyDecision
from scoring.queue.services import scoring_open
from scoring.review import selectors as review
from scoring.review import services as review_services
from scoring.review.forms import KeyDecisionForm

OUTCOME_KEYS = {
    KeyDecision.Outcome.CONFIRMED: "1",
    KeyDecision.Outcome.AMENDED: "2",
    KeyDecision.Outcome.AMBIGUOUS: "3",
}


# --------------------------------------------------------------------------------------------
# Key review of an experiment
# --------------------------------------------------------------------------------------------


def _entry_context(request: HtmxHttpRequest, experiment, entry, form=None, **extra) -> dict:
    return {
        "experiment": experiment,
        "entry": entry,
        "form": form or KeyDecisionForm(prefix=f"k{entry.item.position}"),
        "outcome_keys": OUTCOME_KEYS,
        "blinded": is_blinded(experiment, request.user, request.membership),
        **extra,
    }


def _filter_counts(entries, state: str, reason: str) -> dict:
    """The state and reason filters with their counts, as the page's tabs show them."""
    in_state = review.review_filter(entries, state=state)
    return {
        "state": state,
        "reason": reason,
        "states": [
            (code, label, len(review.review_filter(entries, reason=reason, state=code)))
            for code, label in (("open", _("Open")), ("decided", _("Decided")), ("all", _("All")))
        ],
        "reasons": [
            (code, label, sum(1 for e in in_state if code in e.reasons))
            for code, label in review.REASONS.items()
        ],
    }


def _filters_of(url: str) -> tuple[str, str]:
    """The state and reason filters of the key review page at this address."""
    query = parse_qs(urlsplit(url or "").query)
    state = (query.get("state") or ["open"])[0]
    reason = (query.get("reason") or [""])[0]
    return (
        state if state in review.STATES else "open",
        reason if reason in review.REASONS else "",
    )


@team_view(scope="experiment_pk", get=Role.EDITOR)
def key_review(request: HtmxHttpRequest, experiment: Experiment):
    context = {
        "experiment": experiment,
        "team": experiment.team,
        "section": "key_review",
        "sealed": not scoring_open(experiment),
    }
    if not context["sealed"]:
        entries = review.review_queue(experiment, user=request.user, membership=request.membership)
        state = request.GET.get("state") or ("all" if request.GET.get("show") == "all" else "open")
        if state not in review.STATES:
            state = "open"
        reason = request.GET.get("reason", "")
        if reason not in review.REASONS:
            reason = ""
        shown = review.review_filter(entries, reason=reason, state=state)
        context.update(
            show_all=state == "all",
            **_filter_counts(entries, state, reason),
            n_open=sum(1 for e in entries if e.is_open),
            n_all=len(entries),
            entries=[_entry_context(request, experiment, e) for e in shown],
            blinded=is_blinded(experiment, request.user, request.membership),
            own_only=not visibility.sees_others_judgements(experiment, request.user),
        )
    return render(request, "scoring/review.html", context)


@team_view(scope="experiment_pk", get=None, post=Role.EDITOR)
def key_review_decide(request: HtmxHttpRequest, experiment: Experiment, position: int):
    item = experiment.items.filter(position=position).first()
    if item is None or not scoring_open(experiment):
        raise Http404
    form = KeyDecisionForm(request.POST, prefix=f"k{position}")
    notice = ""
    if form.is_valid():
        data = form.cleaned_data
        try:
            decision = review_services.key_decision_create(
                item=item,
                user=request.user,
                outcome=data["outcome"],
                source=data["source"],
                new_answer=data["new_answer"],
                note=data["note"],
                carry_to_bank=data["carry_to_bank"],
                clear_bank_flag=data["clear_bank_flag"],
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            notice = _decision_notice(decision)
            if not request.htmx:
                messages.success(request, notice)
                url = reverse("scoring:key_review", kwargs={"experiment_pk": experiment.pk})
                return redirect(f"{url}#review-{position}")
            form = None
    entries = review.review_queue(
        experiment, user=request.user, membership=request.membership, positions=[position]
    )
    if not entries:
        raise Http404
    context = _entry_context(
        request, experiment, entries[0], form, notice=notice, just_saved=bool(notice)
    )
    if request.htmx:
        if notice:
            # The tabs' counts move with the decision: sent along, swapped in out of band.
            every = review.review_queue(
                experiment, user=request.user, membership=request.membership
            )
            state, reason = _filters_of(request.htmx.current_url)
            context.update(filters_oob=True, **_filter_counts(every, state, reason))
        return render(request, "scoring/partials/_review_entry.html", context)
    # Without htmx, the whole page with this entry's errors.
    page = {
        "experiment": experiment,
        "team": experiment.team,
        "section": "key_review",
        "sealed": False,
        "entries": [context],
        "n_open": None,
        "show_all": True,
        "blinded": context["blinded"],
    }
    return render(request, "scoring/review.html", page, status=400)


def _decision_notice(decision: KeyDecision) -> str:
    if decision.outcome == KeyDecision.Outcome.AMBIGUOUS:
        return _("Item marked ambiguous: it is dropped from the figures.")
    if decision.outcome == KeyDecision.Outcome.AMENDED:
        first = ngettext(
            "Key amended; %(n)s judgement sent back to its scorer for a re-check.",
            "Key amended; %(n)s judgements sent back to their scorers for a re-check.",
            decision.rechecked,
        ) % {"n": decision.rechecked}
        carried = _("The bank's key entry was changed too.")
    else:
        first = _("Key confirmed.")
        carried = _("The source was added to the bank's key entry.")
    return sentences(
        [
            first,
            carried if decision.carried_to_bank else "",
            _("The bank's (!) flag was taken off.") if decision.bank_flag_cleared else "",
        ]
    )


# --------------------------------------------------------------------------------------------
# Key review of a bank
# --------------------------------------------------------------------------------------------


def _bank_entry_context(request: HtmxHttpRequest, entry, form=None, **extra) -> dict:
    blinded = {
        experiment.pk: is_blinded(experiment, request.user, request.membership)
        for experiment, _review in entry.experiment_entries
    }
    return {
        "entry": entry,
        "form": form or KeyDecisionForm(prefix=f"b{entry.item.pk}"),
        "outcome_keys": OUTCOME_KEYS,
        "experiment_entries": [
            {"experiment": e, "review": r, "blinded": blinded[e.pk]}
            for e, r in entry.experiment_entries
        ],
        **extra,
    }


@team_view(scope="bank_pk", get=Role.EDITOR)
def bank_key_review(request: HtmxHttpRequest, bank: Bank):
    entries = review.bank_review_queue(bank, user=request.user, membership=request.membership)
    return render(
        request,
        "scoring/review_bank.html",
        {
            "bank": bank,
            "team": bank.team,
            "entries": [_bank_entry_context(request, e) for e in entries],
        },
    )


@team_view(scope="item_pk", get=None, post=Role.EDITOR)
def bank_key_decide(request: HtmxHttpRequest, item: Item):
    bank = item.block.bank
    form = KeyDecisionForm(request.POST, prefix=f"b{item.pk}")
    form.fields["carry_to_bank"].required = False
    notice = ""
    if form.is_valid():
        data = form.cleaned_data
        try:
            review_services.bank_key_decide(
                item=item,
                user=request.user,
                outcome=data["outcome"],
                source=data["source"],
                new_answer=data["new_answer"],
                note=data["note"],
            )
        except ValidationError as error:
            apply_service_errors(form, error)
        else:
            notice = _(
                "Bank key entry updated; its history keeps the previous text and the source."
            )
            if not request.htmx:
                messages.success(request, notice)
                return redirect("scoring:bank_key_review", bank_pk=bank.pk)
            form = None
    entries = [
        e
        for e in review.bank_review_queue(bank, user=request.user, membership=request.membership)
        if e.item.pk == item.pk
    ]
    if not entries:
        # Settled and no longer in the queue: say so in place of the entry.
        if request.htmx:
            return render(
                request, "scoring/partials/_review_bank_done.html", {"item": item, "notice": notice}
            )
        return redirect("scoring:bank_key_review", bank_pk=bank.pk)
    context = _bank_entry_context(request, entries[0], form, notice=notice)
    if request.htmx:
        return render(request, "scoring/partials/_review_bank_entry.html", context)
    return render(
        request,
        "scoring/review_bank.html",
        {"bank": bank, "team": bank.team, "entries": [context]},
        status=400,
    )
