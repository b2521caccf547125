"""Forms of the probe app, one module per context."""
