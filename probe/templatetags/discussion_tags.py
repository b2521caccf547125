"""Comments as they are shown: the text with its mentions marked, and a key entry's thread
inside the pages that show the key (the key review, the bank's item page)."""

from django import template
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from probe.selectors.discussion import MENTION, may_see_key_comments
from probe.templatetags.probe_tags import isolate
from probe.views.discussion import key_thread_context

register = template.Library()


@register.filter
def comment_text(value):
    """The comment's text, escaped and isolated like any text, its @mentions marked."""
    text = "" if value is None else str(value)
    parts, last = [], 0
    for match in MENTION.finditer(text):
        parts.append(isolate(text[last : match.start()]))
        parts.append(format_html('<span class="mention">{}</span>', match.group(0)))
        last = match.end()
    parts.append(isolate(text[last:]))
    return mark_safe("".join(parts).replace("\n", "<br>"))


@register.inclusion_tag("probe/partials/_comment_thread.html", takes_context=True)
def key_discussion(context, item, experiment=None):
    """The key entry's thread, for a page that shows the key to an editor or owner."""
    request = context["request"]
    if item is None or not may_see_key_comments(getattr(request, "membership", None)):
        return {"thread": None}
    return key_thread_context(request, item, experiment=experiment)
