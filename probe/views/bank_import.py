"""Bank import: upload or paste, a preview of what the file will make, then the import.

One URL, three steps. GET shows the form. A POST of the form reads the file and shows the
preview: the parsed bank, every problem, every warning with the reading it offers. A POST of
the preview form (the document's own text, posted back in a hidden field, and the readings the
user ticked) reads the text again on the server; only the "Import" button saves, and only when
the readings ticked are the ones the preview on screen was made with.
"""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from .. import bankformat
from ..access import team_view
from ..forms.banks import ImportForm, ImportPreviewForm
from ..htmx import HtmxHttpRequest
from ..models import Role, Team
from ..services import banks as bank_services

PREVIEW_TEMPLATE = "probe/bank_import_preview.html"


@team_view(scope="team_slug", get=Role.EDITOR, post=Role.EDITOR)
def bank_import(request: HtmxHttpRequest, team: Team):
    if request.method == "POST" and "source_text" in request.POST:
        return _preview_step(request, team)
    form = ImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        result = bankformat.preview(form.cleaned_data["raw"], form.cleaned_data["filename"])
        if not result.text:  # refused before it could be read as text: nothing to preview
            return _form_page(request, team, form, result.problems)
        return _preview_page(request, team, result, name=form.cleaned_data["name"])
    return _form_page(request, team, form, [])


def _form_page(request: HtmxHttpRequest, team: Team, form, problems):
    return render(
        request,
        "probe/bank_import.html",
        {"team": team, "form": form, "problems": problems, "max_bytes": bankformat.MAX_BYTES},
        status=400 if problems else 200,
    )


def _preview_step(request: HtmxHttpRequest, team: Team):
    form = ImportPreviewForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("The preview could not be read again: start the import anew."))
        return _form_page(request, team, ImportForm(), [])
    data = form.cleaned_data
    readings = data["readings"]
    if data["action"] == "accept":
        result = bankformat.preview_suggested(data["source_text"], data["filename"], readings)
        return _preview_page(request, team, result, name=data["name"])
    result = bankformat.preview(data["source_text"], data["filename"], readings)
    if data["action"] != "import":
        return _preview_page(request, team, result, name=data["name"])
    if set(readings.codes) != set(data["shown"].codes):
        notice = _("The readings changed: check the preview below, then import.")
        return _preview_page(request, team, result, name=data["name"], notice=notice)
    if not result.importable:
        # The page shows no Import button then; a hand-made post gets the preview again.
        return _preview_page(request, team, result, name=data["name"])
    bank = bank_services.bank_import(
        team=team,
        user=request.user,
        data=result.bank,
        name=data["name"] or result.name,
        source=data["filename"] or _("pasted text"),
        file_format=result.file_format,
        readings=list(readings.codes),
    )
    messages.success(
        request,
        _("Imported %(items)s items in %(blocks)s blocks; %(missing)s without a key.")
        % {
            "items": result.bank.item_count,
            "blocks": len(result.bank.blocks),
            "missing": result.bank.missing_key_count,
        },
    )
    return redirect(bank)


def _preview_page(request: HtmxHttpRequest, team: Team, result, *, name: str, notice: str = ""):
    conflicts = result.conflicts
    taken = [
        (code, bankformat.describe_reading(code), conflicts.get(code, ""))
        for code in result.readings.codes
    ]
    context = {
        "team": team,
        "result": result,
        "name": name,
        "taken": taken,
        "notice": notice,
        "source_lines": _source_lines(result),
        "shown": " ".join(result.readings.codes),
    }
    return render(request, PREVIEW_TEMPLATE, context, status=200 if result.ok else 400)


SOURCE_LINES_IN_FULL = 2000  # a longer document shows only the lines around its warnings
SOURCE_CONTEXT = 3


def _source_lines(result) -> list[dict]:
    """The document's lines, numbered, with what the readings and warnings say about each; for a
    long document only those near a warning or a reading (a gap marks what is left out)."""
    warned = set()
    for warning in result.warnings:
        first, last = warning.lines or (warning.line, warning.line)
        warned.update(range(first, last + 1))
    readings = result.readings
    lines = result.text.split("\n")
    marked = warned | readings.drop | readings.items | readings.keep | {readings.key_at}
    shown = None
    if len(lines) > SOURCE_LINES_IN_FULL:
        shown = {n + d for n in marked if n for d in range(-SOURCE_CONTEXT, SOURCE_CONTEXT + 1)}
    out: list[dict] = []
    for number, text in enumerate(lines, start=1):
        if shown is not None and number not in shown:
            if out and not out[-1].get("gap"):
                out.append({"gap": True})
            continue
        out.append(
            {
                "number": number,
                "text": text,
                "dropped": readings.dropped(number),
                "key": number == readings.key_at,
                "warned": number in warned,
            }
        )
    return out
