"""Views of the probe app, one module per context (teams, banks, items, prompts, configs,
experiments); docs/design.md says which page goes where."""
