"""The JSON API under /api/: per-user tokens, the same roles and blinding as the pages."""
