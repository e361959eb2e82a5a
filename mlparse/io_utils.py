"""Atomic file writes: a killed process leaves the old file or the new one, never half of one.

A write that fails (a full disk, a read-only file system, no permission) leaves the old file as it
was and raises :class:`WriteError`, which names the file that was to be written, never the
temporary file beside it.
"""

from __future__ import annotations

import errno
import json
import os
import tempfile
from pathlib import Path
from typing import IO, Any, Callable, Union

PathLike = Union[str, "os.PathLike[str]"]


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


#: mkstemp creates files 0600; finished files get the permissions an ordinary open() would give.
FILE_MODE = 0o666 & ~_current_umask()


class WriteError(OSError):
    """An atomic write failed; ``filename`` is the target, ``errno`` and ``strerror`` say why (ENOSPC, EROFS, EACCES...)."""


def _atomic(path: PathLike, mode: str, write: Callable[[IO[Any]], None], encoding: str | None) -> None:
    """Write through a temporary file beside ``path``: fsync it, then rename it over ``path``."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)  # its error names the folder that could not be made
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as error:
        raise _write_error(error, target) from error
    try:
        os.fchmod(fd, FILE_MODE)
        newline = "\n" if "b" not in mode else None
        with os.fdopen(fd, mode, encoding=encoding, newline=newline) as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException as error:
        try:
            os.unlink(tmp_name)
        except OSError:  # gone already, or the file system has turned read-only
            pass
        if isinstance(error, OSError) and not isinstance(error, WriteError):
            raise _write_error(error, target) from error
        raise


def _write_error(error: OSError, target: Path) -> WriteError:
    """``error`` restated for the file the caller wanted to write (it may have named the temporary file)."""
    if error.errno is None:
        return WriteError(errno.EIO, str(error) or type(error).__name__, str(target))
    return WriteError(error.errno, error.strerror or os.strerror(error.errno), str(target))


def atomic_write(path: PathLike, write: Callable[[IO[str]], None], encoding: str = "utf-8") -> None:
    """Call ``write(handle)`` on a text handle; the result appears at ``path`` all at once or not at all."""
    _atomic(path, "w", write, encoding)


def atomic_write_binary(path: PathLike, write: Callable[[IO[bytes]], None]) -> None:
    """As :func:`atomic_write`, for a binary handle (``torch.save(obj, handle)``, say)."""
    _atomic(path, "wb", write, None)


def atomic_write_text(path: PathLike, text: str, encoding: str = "utf-8") -> None:
    atomic_write(path, lambda handle: handle.write(text), encoding=encoding)


def atomic_write_json(path: PathLike, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False) + "\n")


def atomic_write_bytes(path: PathLike, data: bytes) -> None:
    atomic_write_binary(path, lambda handle: handle.write(data))
