"""Views of the probe app, one module per context (teams, banks, items, prompts, experiments)."""
