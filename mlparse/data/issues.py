"""A problem met while preparing a treebank: a repair made, or a tree left out, and where."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Issue:
    """``file`` is relative to the treebank folder; ``line`` is 1-based (0 when not known)."""

    file: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}"


class PrepareError(Exception):
    """Preparation cannot go on; the message names file and line where there is one."""
