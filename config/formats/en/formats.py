"""English date formats: the app shows times as 2026-03-14 09:30 rather than Django's 03/14/2026 9:30 a.m."""

SHORT_DATETIME_FORMAT = "Y-m-d H:i"
