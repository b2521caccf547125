"""Forms: input validation only; the writes are in services."""

import re

from django import forms
from django.utils.translation import gettext_lazy as _

from .. import bankformat
from ..models import Bank, Block, Item

TEXTAREA_SMALL = {"rows": 2}


class BankForm(forms.ModelForm):
    class Meta:
        model = Bank
        fields = ["name", "description"]
        widgets = {"description": forms.Textarea(attrs={"rows": 3})}


class BlockForm(forms.ModelForm):
    class Meta:
        model = Block
        fields = ["code", "title", "description"]
        widgets = {
            "code": forms.TextInput(attrs={"size": 3, "autocomplete": "off"}),
            "description": forms.Textarea(attrs={"rows": 2}),
        }

    def clean_code(self):
        code = self.cleaned_data["code"].strip().upper()
        if not code.isalnum():
            raise forms.ValidationError(_("Use letters or digits only, such as A or B2."))
        return code


class ItemForm(forms.ModelForm):
    class Meta:
        model = Item
        fields = ["question", "answer_format", "answer_kind", "topic"]
        widgets = {"question": forms.Textarea(attrs={"rows": 3})}

    def clean_question(self):
        question = self.cleaned_data["question"].strip()
        if not question:
            raise forms.ValidationError(_("The question cannot be empty."))
        return question


class KeyEntryForm(forms.Form):
    key_answer = forms.CharField(
        label=_("Key answer"),
        required=False,
        widget=forms.Textarea(attrs=TEXTAREA_SMALL),
        help_text=_("Leave empty for an item without a key."),
    )
    flagged = forms.BooleanField(
        label=_("Flag (!): check against a primary source before marking a model wrong"),
        required=False,
    )
    flag_note = forms.CharField(
        label=_("Flag note"), required=False, widget=forms.Textarea(attrs=TEXTAREA_SMALL)
    )
    sources = forms.CharField(
        label=_("Source references"),
        required=False,
        widget=forms.Textarea(attrs=TEXTAREA_SMALL),
        help_text=_("One per line: a citation or a URL."),
    )
    sources_checked = forms.DateField(
        label=_("Sources checked on"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text=_("The day the answer was last checked against its sources."),
    )

    def clean(self):
        data = super().clean()
        answer = (data.get("key_answer") or "").strip()
        if not answer and (data.get("flagged") or (data.get("flag_note") or "").strip()):
            self.add_error(
                "key_answer", _("A flagged key entry or one with a note needs an answer.")
            )
        data["source_list"] = [
            s.strip() for s in (data.get("sources") or "").splitlines() if s.strip()
        ]
        if not answer and data["source_list"]:
            self.add_error("key_answer", _("A key entry with sources needs an answer."))
        return data

    @classmethod
    def initial_for(cls, item: Item) -> dict:
        entry = getattr(item, "key_entry", None)
        if entry is None:
            return {}
        return {
            "key_answer": entry.answer,
            "flagged": entry.flagged,
            "flag_note": entry.flag_note,
            "sources": "\n".join(entry.sources),
            "sources_checked": entry.sources_checked,
        }


class NewItemForm(ItemForm):
    block = forms.ModelChoiceField(queryset=Block.objects.none(), label=_("Block"))

    class Meta(ItemForm.Meta):
        fields = ["block", "question", "answer_format"]

    def __init__(self, *args, bank: Bank, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["block"].queryset = bank.blocks.order_by("order", "pk")


class ImportForm(forms.Form):
    file = forms.FileField(
        label=_("Bank file"),
        required=False,
    )
    text = forms.CharField(
        label=_("…or paste the text"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false"}),
    )
    name = forms.CharField(
        label=_("Bank name"),
        required=False,
        max_length=200,
        help_text=_("Leave empty to take the name from the file."),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["file"].help_text = _(
            "Plain text as probes are published, JSON exported from this app, or CSV / JSON Lines with one item per row (up to %(limit)s)."
        ) % {"limit": _human_size(bankformat.MAX_BYTES)}

    def clean(self):
        data = super().clean()
        upload = data.get("file")
        text = data.get("text") or ""
        if upload is None and not text.strip():
            raise forms.ValidationError(_("Choose a file or paste the bank's text."))
        if upload is not None:
            if upload.size > bankformat.MAX_BYTES:
                # decode() names the size too; refusing here avoids reading a huge upload.
                raise forms.ValidationError(
                    _("The file is %(size)s; the limit is %(limit)s.")
                    % {"size": _human_size(upload.size), "limit": _human_size(bankformat.MAX_BYTES)}
                )
            data["raw"] = upload.read()
            data["filename"] = upload.name
        else:
            data["raw"] = text.encode("utf-8")
            data["filename"] = ""
        return data


_CODE_SEPARATOR_RE = re.compile(r"\s+|,(?=\s*(?:drop|key|item|keep):)")


class _ReadingsField(forms.Field):
    """Reading codes (``drop:12-15``, ``key:40``, ``item:88``), from ticked boxes or a comma list."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value):
        if isinstance(value, str):
            # Space-separated; a comma only where a code starts, as a code of several ranges
            # (drop:1-3,5-9) has commas of its own.
            value = _CODE_SEPARATOR_RE.split(value)
        try:
            return bankformat.Readings.from_codes(value or [])
        except bankformat.ReadingError as error:
            raise forms.ValidationError(
                _("%(code)s is not a reading of this file.") % {"code": str(error)[:40]}
            ) from None


class ImportPreviewForm(forms.Form):
    """The preview posted back: the document's text (read again here), never its parsed form.

    Each open warning is a group of radio buttons ``choice-N`` (decide later, take its reading,
    keep the text as written); a chosen value joins the ticked ``reading`` codes."""

    source_text = forms.CharField(strip=False, max_length=bankformat.MAX_BYTES)
    filename = forms.CharField(required=False, max_length=255)
    name = forms.CharField(required=False, max_length=200)
    reading = _ReadingsField(required=False)
    shown = _ReadingsField(required=False, widget=forms.HiddenInput)
    action = forms.ChoiceField(
        choices=[("preview", "preview"), ("accept", "accept"), ("import", "import")],
        required=False,
    )

    def __init__(self, data=None, *args, **kwargs):
        if data is not None:
            data = data.copy()
            chosen = [value for name, value in data.items() if name.startswith("choice-") and value]
            data.setlist("reading", data.getlist("reading") + chosen)
        super().__init__(data, *args, **kwargs)

    def clean(self):
        data = super().clean()
        data["readings"] = data.get("reading") or bankformat.NO_READINGS
        data["shown"] = data.get("shown") or bankformat.NO_READINGS
        data["action"] = data.get("action") or "preview"
        return data


def _human_size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.1f}".removesuffix(".0") + " MB"
    return f"{n / 1024:.0f} KB"


class RecheckSettingForm(forms.Form):
    recheck_after_days = forms.IntegerField(
        # Lazy: a class attribute is made once, at import, before any request has a language.
        label=_("Re-check key sources after (days)"),
        min_value=1,
        max_value=36500,
    )
