"""Splitting a file's bytes into lines as the original programs read them with ``fgets``."""

from __future__ import annotations


def split_lines(data: bytes) -> tuple[list[bytes], bool]:
    """The lines of ``data`` without their ``\\n``, and whether the last one ended with ``\\n``.

    A final ``\\n`` ends the last line rather than starting an empty one; ``\\r`` is kept
    (the originals keep it too).  Lines have no length limit.
    """
    lines = data.split(b"\n")
    ends_with_newline = lines[-1] == b""
    if ends_with_newline:
        lines.pop()
    return lines, ends_with_newline
