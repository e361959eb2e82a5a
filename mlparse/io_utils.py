"""Atomic file writes: a killed process leaves the old file or the new one, never half of one."""

from __future__ import annotations

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


def _atomic(path: PathLike, mode: str, write: Callable[[IO[Any]], None], encoding: str | None) -> None:
    """Write through a temporary file beside ``path``: fsync it, then rename it over ``path``."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.fchmod(fd, FILE_MODE)
        newline = "\n" if "b" not in mode else None
        with os.fdopen(fd, mode, encoding=encoding, newline=newline) as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise


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
