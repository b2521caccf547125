"""Blind scoring, reveal, key review, reconciliation and reports (built on probe)."""
