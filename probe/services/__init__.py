"""Writes live here (HackSoftware style): views call these, never the ORM directly for changes."""
