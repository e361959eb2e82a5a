"""mlparse: multilingual treebank benchmarking for neural constituency and dependency parsers."""

from mlparse.version import __version__

__all__ = ["__version__", "load"]


def __getattr__(name: str):  # type: ignore[no-untyped-def]
    """``mlparse.load`` imports the API (and torch) on first use, so that ``import mlparse`` stays light."""
    if name == "load":
        from mlparse.api import load

        return load
    raise AttributeError(f"module 'mlparse' has no attribute {name!r}")
