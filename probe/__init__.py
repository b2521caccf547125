"""The probe app: teams, banks, prompts, model configurations, experiments and collection."""
