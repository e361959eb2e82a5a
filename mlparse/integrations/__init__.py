"""Integrations with other libraries, each imported only when that library is installed
(``spacy_component`` through spaCy's ``spacy_factories`` entry point)."""
