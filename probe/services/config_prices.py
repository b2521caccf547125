"""A model configuration's prices per million tokens (US dollars): for costs only, never sent
(docs/providers.md, "Prices")."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django.utils.translation import gettext as _

PRICE_FIELDS = ("price_input_per_million", "price_output_per_million")
MAX_PRICE = Decimal("100000")


def price_clean(value, field: str, refuse) -> Decimal | None:
    """A price per million tokens in US dollars: empty, or a number from 0 to MAX_PRICE with at
    most 4 decimal places."""
    if value is None or value == "":
        return None
    try:
        price = Decimal(str(value).strip())
    except (InvalidOperation, ValueError):
        refuse(field, _("Give the price as a number of US dollars, such as 2.50."))
        return None
    if (
        not price.is_finite()
        or not 0 <= price <= MAX_PRICE
        or price != price.quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)
    ):
        refuse(
            field,
            _("Give a price from 0 to %(max)s US dollars, with at most 4 decimal places.")
            % {"max": MAX_PRICE},
        )
        return None
    return price
