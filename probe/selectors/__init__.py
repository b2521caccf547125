"""Read-side queries of the probe app, one module per context."""
