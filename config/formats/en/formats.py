"""English date formats, one for every date and one for every time: 1 Dec 2026 and
1 Dec 2026, 22:02 UTC (always with the zone: a team can span several)."""

DATE_FORMAT = "j M Y"
DATETIME_FORMAT = "j M Y, H:i T"
SHORT_DATE_FORMAT = DATE_FORMAT
SHORT_DATETIME_FORMAT = DATETIME_FORMAT
