"""Template helpers for the key review, agreement and reconciliation pages."""

from django import template

register = template.Library()


@register.filter
def coef(value) -> str:
    """A coefficient (kappa, alpha) to three places, a dash when undefined."""
    if value is None:
        return "–"
    return f"{value:.3f}".replace("-", "−")


@register.filter
def percent(value) -> str:
    """A share (0..1) as a percentage with one decimal, a dash when undefined."""
    if value is None:
        return "–"
    return f"{100 * value:.1f} %"
