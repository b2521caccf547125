"""URLs for prompt versions and model configurations (included into the ``probe`` namespace)."""

urlpatterns: list = []
