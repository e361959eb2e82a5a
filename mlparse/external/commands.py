"""An external parser's commands filled in (:func:`expand`), shown, and its Python found (:func:`peer_python`).

The templates' syntax and placeholders are :mod:`mlparse.config.command_templates`'s (checked when a recipe loads).
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path
from typing import List, Mapping, Optional, Sequence

from mlparse.config.command_templates import PLACEHOLDERS, TemplateError, placeholders, split_words

__all__ = ["PLACEHOLDERS", "PeerMissing", "TemplateError", "expand", "peer_python", "placeholders", "python_variable",
           "shown"]


def expand(template: str, values: Mapping[str, object]) -> List[str]:
    """The command's words with the placeholders replaced by ``values`` (all those it uses must be given)."""
    words = []
    for word in split_words(template):
        try:
            words.append(word.format_map({key: str(value) for key, value in values.items()}))
        except KeyError as error:
            raise TemplateError(f"{template!r}: nothing stands for {{{error.args[0]}}} here") from None
    return words


def shown(words: Sequence[str]) -> str:
    """A command as one line a user can paste into a shell."""
    return " ".join(shlex.quote(word) for word in words)


def python_variable(system: str) -> str:
    """The environment variable that names a peer's Python: ``MLPARSE_<SYSTEM>_PYTHON`` (``SuPar`` ->
    ``MLPARSE_SUPAR_PYTHON``; characters other than letters and digits become ``_``)."""
    return "MLPARSE_" + re.sub(r"[^A-Z0-9]+", "_", system.upper()).strip("_") + "_PYTHON"


class PeerMissing(RuntimeError):
    """The peer's Python is not given or not there: the message says what to install and how to point at it."""


def peer_python(system: str, given: Optional[str], install: str, environ: Optional[Mapping[str, str]] = None) -> str:
    """What ``{python}`` stands for, as an absolute path: ``external.python`` (the recipe's, or ``--set``), else the
    environment variable :func:`python_variable`; :class:`PeerMissing` with one line of what to do when neither names
    an executable file.  A relative path (a bare name too: PATH is not searched) is taken from this process's
    working folder, where the user typed the command, not from the peer's folder where its commands run; symbolic
    links are kept (a virtual environment's ``bin/python`` is one)."""
    env = os.environ if environ is None else environ
    variable = python_variable(system or "external")
    chosen = given or env.get(variable)
    how = f"{install.rstrip('.')}; then " if install else ""
    pointer = f"set {variable}=/path/to/its/bin/python (or --set external.python=...)"
    if not chosen:
        raise PeerMissing(f"{system or 'the external parser'} is not set up for mlparse: {how}{pointer}")
    typed = Path(chosen).expanduser()
    path = typed.absolute()  # from this process's folder, not the peer's; not resolved (a venv's python is a link)
    if not (path.is_file() and os.access(path, os.X_OK)):
        source = "external.python" if given else variable
        where = "" if typed.is_absolute() else f" ({path}: a relative path is taken from where the command is run)"
        raise PeerMissing(f"{system or 'the external parser'}: {source}={chosen} is not an executable file{where}; "
                          f"{how}{pointer}")
    return str(path)
