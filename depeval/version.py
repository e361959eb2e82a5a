"""Versions: this port's, and the scorer string to record beside its numbers."""

__version__ = "1.0"

#: The scoring program these numbers reproduce (CoNLL 2018 UD shared task script v1.2)
#: and this port's version; mlparse records it in results.json.
SCORER_VERSION = f"conll18-v1.2+depeval-{__version__}"
