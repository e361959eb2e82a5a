"""An external parser's commands filled in (:func:`expand`), shown, its Python found (:func:`peer_python`) and, for a
peer whose trainer is not in its package, its source checkout (:func:`peer_repo`, ``{repo}``); :func:`check_setup`
checks both before anything is prepared.

The templates' syntax and placeholders are :mod:`mlparse.config.command_templates`'s (checked when a recipe loads).
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path
from typing import Any, Callable, List, Mapping, Optional, Sequence, Set

from mlparse.config.command_templates import PLACEHOLDERS, TemplateError, placeholders, split_words

__all__ = ["PLACEHOLDERS", "PeerMissing", "TemplateError", "check_setup", "expand", "peer_python", "peer_repo",
           "placeholders", "python_variable", "repo_variable", "shown", "used_placeholders"]


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
    return _variable(system, "PYTHON")


def repo_variable(system: str) -> str:
    """The environment variable that names a peer's source checkout (``{repo}``): ``MLPARSE_<SYSTEM>_REPO``
    (``benepar`` -> ``MLPARSE_BENEPAR_REPO``), spelled as :func:`python_variable`."""
    return _variable(system, "REPO")


def _variable(system: str, what: str) -> str:
    return "MLPARSE_" + re.sub(r"[^A-Z0-9]+", "_", system.upper()).strip("_") + "_" + what


class PeerMissing(RuntimeError):
    """The peer's Python is not given or not there: the message says what to install and how to point at it."""


def peer_python(system: str, given: Optional[str], install: str, environ: Optional[Mapping[str, str]] = None) -> str:
    """What ``{python}`` stands for, as an absolute path: ``external.python`` (the recipe's, or ``--set``), else the
    environment variable :func:`python_variable`; :class:`PeerMissing` with one line of what to do when neither names
    an executable file.  A relative path (a bare name too: PATH is not searched) is taken from this process's
    working folder, where the user typed the command, not from the peer's folder where its commands run; symbolic
    links are kept (a virtual environment's ``bin/python`` is one)."""
    variable = python_variable(system or "external")
    return _path_setting(system, given, install, environ, "python", variable,
                         f"set {variable}=/path/to/its/bin/python (or --set external.python=...)",
                         "is not set up for mlparse", "an executable file",
                         lambda path: path.is_file() and os.access(path, os.X_OK))


def peer_repo(system: str, given: Optional[str], install: str, environ: Optional[Mapping[str, str]] = None) -> str:
    """What ``{repo}`` stands for, as an absolute path: ``external.repo`` (the recipe's, or ``--set``), else the
    environment variable :func:`repo_variable`; :class:`PeerMissing` with one line of what to do when neither names
    a folder.  A relative path is taken from this process's working folder, as :func:`peer_python`'s."""
    variable = repo_variable(system or "external")
    return _path_setting(system, given, install, environ, "repo", variable,
                         f"set {variable}=/path/to/its/checkout (or --set external.repo=...)",
                         "needs a checkout of its source, which is not given", "a folder", lambda path: path.is_dir())


def _path_setting(system: str, given: Optional[str], install: str, environ: Optional[Mapping[str, str]], key: str,
                  variable: str, pointer: str, missing: str, kind: str, acceptable: Callable[[Path], bool]) -> str:
    """The absolute path that ``external.<key>`` (``given``), else ``variable`` in ``environ``, names; a relative one
    from this process's folder (not resolved: a venv's python is a link).  :class:`PeerMissing` saying what to
    install (``install``) and set (``pointer``) when neither is given (``missing``) or the path is not ``kind``."""
    env = os.environ if environ is None else environ
    chosen = given or env.get(variable)
    how = f"{install.rstrip('.')}; then " if install else ""
    name = system or "the external parser"
    if not chosen:
        raise PeerMissing(f"{name} {missing}: {how}{pointer}")
    typed = Path(chosen).expanduser()
    path = typed.absolute()  # from this process's folder, not the peer's
    if not acceptable(path):
        source = f"external.{key}" if given else variable
        where = "" if typed.is_absolute() else f" ({path}: a relative path is taken from where the command is run)"
        raise PeerMissing(f"{name}: {source}={chosen} is not {kind}{where}; {how}{pointer}")
    return str(path)


#: The commands of an ``external:`` section whose templates are filled in with the run's values.
COMMANDS = ("train", "predict", "resume", "version_command", "model_check")


def used_placeholders(external: Any) -> Set[str]:
    """The placeholders the commands of ``external`` (a recipe's ``external:`` section) use."""
    return {name for command in COMMANDS for name in placeholders(getattr(external, command, "") or "")}


def check_setup(config: Any, environ: Optional[Mapping[str, str]] = None) -> None:
    """Before anything is prepared or trained: the peer's Python (when its commands use ``{python}``) and its
    checkout (``{repo}``) are given and there; :class:`PeerMissing`, one line saying what to install and what to
    set, otherwise.  ``environ``: this process's environment with the recipe's ``external.environment`` (the
    peer's), by default."""
    e = config.external
    env = dict(os.environ, **{k: str(v) for k, v in e.environment.items()}) if environ is None else environ
    used = used_placeholders(e)
    if "python" in used:
        peer_python(e.system, e.python, e.install, env)
    if "repo" in used:
        peer_repo(e.system, e.repo, e.install, env)
