"""The comment form, shared by the key entry's and the response's threads."""

from django import forms
from django.utils.translation import gettext_lazy as _

from ..services.discussion import MAX_LENGTH


class CommentForm(forms.Form):
    text = forms.CharField(
        label=_("Comment"),
        max_length=MAX_LENGTH,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 3, "data-mentions": ""}),
        help_text=_("Type @ and a name to mention a member: they are notified."),
    )
