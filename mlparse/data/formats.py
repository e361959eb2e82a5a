r"""Format registry: format name (the catalog's ``reader: {format: ...}``) → reader function.

A reader takes a file, the name to report it by and the catalog options, and returns a
:class:`FileReading`: the trees in file order with the line each starts on, the repairs
made and the trees that had to be left out (each with file, line and reason).

* ``bracketed`` -- Penn brackets, one tree per line or multi-line (PTB ``.mrg``, SPMRL,
  CorpusSearch ``.psd``, CESS ``.tbf``, ICON).  Options: ``encoding``, ``tolerant``
  (repair an unclosed tree at the end of the text, drop a stray ``)``), ``leaf_atoms``
  (``first`` for CESS ``(tag word lemma)``), ``childless`` (``leaf`` for Floresta ``(,)``),
  ``comment_prefix`` (``#`` for Floresta: comment lines are removed and the text between
  them is read block by block, so that a block with a missing ``)`` cannot swallow the next),
  ``split_at`` (a regex; a matching line starts a new block: ``^\($`` for CESS) and
  ``text_fixes`` (``[{pattern, replace, reason}]``: regex fixes of known source errors,
  each application recorded as a repair).
* ``sinica`` -- Sinica ICG notation, one sentence per line (:mod:`mlparse.data.sinica`).
  The treebank marks heads and roles: its reading also gives each tree's dependency tree
  (``FileReading.heads``), which a catalog entry uses with ``heads: treebank``.

CoNLL-U is not a tree format here: the ``ud`` family goes through :mod:`mlparse.data.ud`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
import re
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from mlparse.data.issues import Issue, PrepareError
from mlparse.data.sinica import SinicaFormatError, parse_icg_sentence
from mlparse.trees.errors import TreeEncodingError, TreeReadError
from mlparse.trees.heads import TreeDependencies
from mlparse.trees.reader import ENCODING_GUESS, parse_bracketed, read_text
from mlparse.trees.tree import Tree

BRACKETED_OPTIONS = ("encoding", "tolerant", "leaf_atoms", "childless", "comment_prefix", "split_at", "text_fixes")


@dataclass(frozen=True)
class MarkedHeads:
    """The heads a treebank marks itself, for one tree: its dependency tree (over the tree's
    words as read) and how many phrases mark no head or several (resolved by the format's rule)."""

    dependencies: TreeDependencies
    without_head: int = 0
    several_heads: int = 0


@dataclass
class FileReading:
    trees: List[Tree] = field(default_factory=list)
    lines: List[int] = field(default_factory=list)
    repairs: List[Issue] = field(default_factory=list)
    exclusions: List[Issue] = field(default_factory=list)
    #: One per tree, for the formats of :data:`HEADED_FORMATS`; empty otherwise.
    heads: List[MarkedHeads] = field(default_factory=list)


def _check_options(fmt: str, options: Mapping[str, Any], allowed: tuple) -> None:
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise PrepareError(f"reader {fmt!r}: unknown option(s) {', '.join(unknown)}; valid: {', '.join(allowed)}")


def _text(path: Path, display: str, encoding: str) -> str:
    try:
        return read_text(path, encoding)
    except TreeEncodingError as error:
        detail = error.detail.replace(ENCODING_GUESS, "")  # the catalog hint below says what to change
        raise PrepareError(f"{display}:{error.line}:{error.column}: cannot decode: {detail}; the catalog entry of "
                           f"this treebank (treebanks/<family>.yaml) reads it as {encoding}: set its reader "
                           "encoding, e.g. reader: {format: bracketed, encoding: iso-8859-1}") from None
    except TreeReadError as error:
        raise PrepareError(f"{display}:{error.line}:{error.column}: {error.message}") from None
    except OSError as error:
        raise PrepareError(f"{display}: cannot read: {error.strerror}") from None


def read_bracketed_format(path: Path, display: str, options: Mapping[str, Any]) -> FileReading:
    """Bracketed trees; see the module doc for the options.

    With ``comment_prefix`` or ``split_at`` the text is cut into blocks that are read
    one by one: a block that cannot be read even tolerantly is excluded, one exclusion
    per top-level tree it holds (counted by bracket depth), so no tree goes unreported.
    """
    _check_options("bracketed", options, BRACKETED_OPTIONS)
    text = _text(path, display, options.get("encoding", "utf-8"))
    reading = FileReading()
    text = _apply_text_fixes(text, options.get("text_fixes") or [], display, reading)
    settings = dict(
        source=display,
        tolerant=bool(options.get("tolerant", False)),
        leaf_atoms=options.get("leaf_atoms", "error"),
        childless=options.get("childless", "error"),
    )
    prefix = options.get("comment_prefix")
    split_at = options.get("split_at")
    blockwise = bool(prefix or split_at)
    blocks = _blocks(text, prefix, re.compile(split_at) if split_at else None) if blockwise else [(1, text)]
    for first_line, block in blocks:
        try:
            result = parse_bracketed(block, first_line=first_line, **settings)
        except TreeReadError as error:
            if not blockwise:
                raise PrepareError(str(error)) from None
            for line in tree_start_lines(block, first_line):
                reading.exclusions.append(Issue(display, line, f"unreadable tree: {error.message} (line {error.line})"))
            continue
        reading.trees.extend(result.trees)
        reading.lines.extend(result.lines)
        reading.repairs.extend(Issue(display, r.line, r.message) for r in result.repairs)
    return reading


def _apply_text_fixes(text: str, fixes: List[Mapping[str, Any]], display: str, reading: FileReading) -> str:
    """Catalog-defined regex fixes of known source errors; each change is recorded as a repair."""
    for fix in fixes:
        unknown = sorted(set(fix) - {"pattern", "replace", "reason"})
        if unknown or "pattern" not in fix:
            raise PrepareError(f"text_fixes: each fix is {{pattern, replace, reason}}; got {dict(fix)!r}")
        regex = re.compile(str(fix["pattern"]))
        replace = str(fix.get("replace", ""))
        reason = str(fix.get("reason", f"text fix {fix['pattern']!r}"))
        for match in regex.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            reading.repairs.append(Issue(display, line, f"{reason}: {match.group(0)!r}"))
        text = regex.sub(replace, text)
    return text


def tree_start_lines(text: str, first_line: int = 1) -> List[int]:
    """Line of each top-level ``(`` (bracket depth 0 -> 1), ignoring stray ``)`` at depth 0."""
    starts = []
    depth = 0
    line = first_line
    for char in text:
        if char == "(":
            if depth == 0:
                starts.append(line)
            depth += 1
        elif char == ")":
            if depth:
                depth -= 1
        elif char == "\n":
            line += 1
    return starts


def _blocks(text: str, prefix: Optional[str], split_at: "Optional[re.Pattern[str]]") -> List[Tuple[int, str]]:
    """``(first line, text)`` of each block: comment lines end a block; a ``split_at`` line starts one."""
    blocks: List[Tuple[int, str]] = []
    current: List[str] = []
    start = 1

    def flush() -> None:
        if any(part.strip() for part in current):
            blocks.append((start, "\n".join(current)))

    for number, line in enumerate(text.splitlines(), start=1):
        if prefix and line.startswith(prefix):
            flush()
            current = []
            start = number + 1
            continue
        if split_at is not None and split_at.match(line):
            flush()
            current = []
        if not current:
            start = number
        current.append(line)
    flush()
    return blocks


def read_sinica_format(path: Path, display: str, options: Mapping[str, Any]) -> FileReading:
    _check_options("sinica", options, ("encoding",))
    text = _text(path, display, options.get("encoding", "utf-8"))
    reading = FileReading()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            sentence = parse_icg_sentence(line)
        except SinicaFormatError as error:
            reading.exclusions.append(Issue(display, number, f"not ICG notation: {error}"))
            continue
        reading.trees.append(sentence.tree)
        reading.lines.append(number)
        reading.heads.append(MarkedHeads(sentence.dependencies, sentence.headless, sentence.multi_headed))
    return reading


FORMATS: Dict[str, Callable[[Path, str, Mapping[str, Any]], FileReading]] = {
    "bracketed": read_bracketed_format,
    "sinica": read_sinica_format,
}

#: Formats whose reading gives the heads the treebank marks (``FileReading.heads``).
HEADED_FORMATS = ("sinica",)

#: Formats read as dependency trees, not constituency trees (prepared by :mod:`mlparse.data.ud`).
DEPENDENCY_FORMATS = ("conllu",)
