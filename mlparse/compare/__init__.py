"""Comparisons between runs: breakdowns of where scores differ (see ``breakdowns/``)."""
