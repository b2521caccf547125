"""Japanese date formats, one for every date and one for every time: 2026年12月1日 and
2026年12月1日 22:02 JST (always with the zone)."""

DATE_FORMAT = "Y年n月j日"
DATETIME_FORMAT = "Y年n月j日 H:i T"
SHORT_DATE_FORMAT = DATE_FORMAT
SHORT_DATETIME_FORMAT = DATETIME_FORMAT
