"""Japanese date formats: 2026/03/14 09:30 in tables and lines, 2026年3月14日 9:30 in sentences."""

SHORT_DATETIME_FORMAT = "Y/m/d H:i"
DATETIME_FORMAT = "Y年n月j日 G:i"
