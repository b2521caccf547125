"""URLs for experiments, runs and collection (included into the ``probe`` namespace)."""

urlpatterns: list = []
