"""mlparse's version: a module of its own, importing nothing, so that any layer may name the version
(``mlparse/__init__.py`` re-exports it as ``mlparse.__version__``; ``pyproject.toml`` reads it here)."""

__version__ = "0.1.0"
