"""Finding a treebank on disk: candidate source folders, language folders, file patterns.

Patterns are globs matched case-insensitively against paths relative to a root
(``*`` and ``?`` stay inside one folder, ``**/`` spans any number of folders,
including none), so that ``swedish`` and ``Swedish`` or ``wsj/`` and ``WSJ/`` both match.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

#: Environment variable naming a folder that holds treebank folders (or is one).
DATA_ENV = "MLPARSE_DATA"
REPO_ROOT = Path(__file__).resolve().parents[2]


class SourceNotFoundError(Exception):
    """No usable source: the message says what was looked for, and where."""


@dataclass(frozen=True)
class Candidate:
    """A folder to look in and why (``--source``, ``$MLPARSE_DATA``, default)."""

    path: Path
    origin: str


@lru_cache(maxsize=256)
def _pattern_regex(pattern: str) -> "re.Pattern[str]":
    out = []
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
        elif pattern.startswith("**", index):
            out.append(".*")
            index += 2
        else:
            char = pattern[index]
            if char == "*":
                out.append("[^/]*")
            elif char == "?":
                out.append("[^/]")
            elif char == "[":
                end = pattern.find("]", index)
                if end < 0:
                    out.append(re.escape(char))
                else:
                    out.append(fnmatch.translate(pattern[index : end + 1])[4:-3])
                    index = end
            else:
                out.append(re.escape(char))
            index += 1
    return re.compile("".join(out) + r"\Z", re.IGNORECASE)


def matches(pattern: str, relative: str) -> bool:
    """Does the POSIX relative path match the glob (case-insensitive)?"""
    return _pattern_regex(pattern).match(relative) is not None


def find_files(root: Path, pattern: str) -> List[Path]:
    """Files under ``root`` whose relative path matches ``pattern``, sorted by relative path."""
    regex = _pattern_regex(pattern)
    recursive = "/" in pattern or "**" in pattern
    if not recursive:
        entries = [(entry.name, Path(entry.path)) for entry in os.scandir(root) if entry.is_file()]
    else:
        entries = []
        for directory, dirs, files in os.walk(root, followlinks=True):
            dirs.sort()
            relative_dir = os.path.relpath(directory, root)
            prefix = "" if relative_dir == "." else relative_dir.replace(os.sep, "/") + "/"
            entries.extend((prefix + name, Path(directory) / name) for name in files)
    hits = sorted((relative, path) for relative, path in entries if regex.match(relative))
    return [path for _, path in hits]


def find_language_root(base: Path, folder: Optional[str]) -> Optional[Path]:
    """The treebank folder for a language: ``base/<folder>``, ``base`` itself, or ``base/*/<folder>``.

    ``folder`` is a glob (case-insensitive).  ``None`` means the base itself.
    """
    if not base.is_dir():
        return None
    if not folder:
        return base
    if matches(folder, base.name):
        return base
    for level in (base, *sorted(p for p in base.iterdir() if p.is_dir())):
        try:
            children = sorted(p for p in level.iterdir() if p.is_dir())
        except OSError:
            continue
        for child in children:
            if matches(folder, child.name):
                return child
    return None


def candidate_bases(source: Optional[Path], search_shared: bool) -> List[Candidate]:
    """Where to look, in order: ``--source`` alone if given; else ``$MLPARSE_DATA`` and the shared defaults."""
    if source is not None:
        return [Candidate(Path(source).expanduser(), "--source")]
    candidates = []
    env = os.environ.get(DATA_ENV)
    if env:
        candidates.append(Candidate(Path(env).expanduser(), f"${DATA_ENV}"))
    if search_shared:
        for path, origin in (
            (Path.cwd().parent / "shared" / "treebanks", "../shared/treebanks (from the current directory)"),
            (REPO_ROOT.parent / "shared" / "treebanks", "../shared/treebanks (from the repository root)"),
        ):
            if all(path.resolve() != c.path.resolve() for c in candidates):
                candidates.append(Candidate(path, origin))
    return candidates


def describe_candidates(candidates: Sequence[Candidate]) -> str:
    if not candidates:
        return "nowhere (no --source given and $MLPARSE_DATA is not set)"
    return "; ".join(f"{c.path} ({c.origin}{'' if c.path.is_dir() else ', does not exist'})" for c in candidates)


def locate(
    candidates: Sequence[Candidate], folder: Optional[str], probe: str
) -> Optional[Tuple[Path, Candidate]]:
    """The first candidate whose language folder holds at least one file matching ``probe``."""
    for candidate in candidates:
        root = find_language_root(candidate.path, folder)
        if root is not None and find_files(root, probe):
            return root, candidate
    return None
