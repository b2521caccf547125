"""How grading's pages write a figure with its interval: "0.850 [0.801, 0.889]"."""

from django import template

register = template.Library()

DASH = "–"


@register.filter
def fig(figure) -> str:
    if figure is None or figure.value is None:
        return DASH
    text = f"{figure.value:.3f}"
    if figure.interval is not None:
        text += f" [{figure.interval.low:.3f}, {figure.interval.high:.3f}]"
    return text
