"""Analyses of trained models: test-time attention probes (Kitaev & Klein 2018, §4)."""
