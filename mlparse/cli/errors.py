"""Printing user-facing errors and warnings the same way in every command.

Messages are printed as plain text (never parsed as rich markup, so a path or a
label holding ``[...]`` comes out as written) and are not wrapped at the
terminal width, so that a piped error stays on one line and can be grepped.
"""

from __future__ import annotations

from typing import NoReturn, Optional

import typer
from rich.console import Console
from rich.text import Text

from mlparse.cli.consoles import CliConsole

#: Where errors and warnings go.
stderr = CliConsole(stderr=True)


def print_error(message: object, console: Optional[Console] = None) -> None:
    """``error: <message>`` on stderr (red label on a terminal)."""
    (console or stderr).print(Text.assemble(("error: ", "bold red"), str(message)), soft_wrap=True)


def print_warning(message: object, console: Optional[Console] = None) -> None:
    """``warning: <message>`` on stderr."""
    (console or stderr).print(Text.assemble(("warning: ", "yellow"), str(message)), soft_wrap=True)


def fail(message: object, code: int = 1) -> NoReturn:
    """Print the error and leave the command with exit status ``code``."""
    print_error(message)
    raise typer.Exit(code)


def os_error_message(error: OSError, doing: str = "", target: object = None) -> str:
    """``cannot write out/x.md: Is a directory`` from an OSError.

    ``doing`` says what failed (``cannot write``); ``target`` is the file the user named, which is
    what the message leads with: an atomic write fails on a temporary file or on its rename, and
    creating the parent folders fails on some other path (then named too).
    """
    reason = error.strerror or str(error)
    head = f"{doing} " if doing else ""
    renamed = getattr(error, "filename2", None)
    culprit = error.filename
    if target is None:
        where = renamed or culprit
        return f"{head}{where}: {reason}" if where is not None else f"{head}{reason}".strip()
    if renamed is None and culprit is not None and str(culprit) != str(target) and not _is_temporary(culprit):
        if isinstance(error, (FileExistsError, NotADirectoryError)):
            reason = "is a file, not a folder"  # mkdir of the parent folders met a file
        return f"{head}{target}: {culprit}: {reason}"
    return f"{head}{target}: {reason}"


def _is_temporary(path: object) -> bool:
    name = str(path).rsplit("/", 1)[-1]
    return name.startswith(".") and name.endswith(".tmp")
