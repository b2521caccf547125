"""Report and export URLs (included into the ``scoring`` namespace)."""

urlpatterns: list = []
