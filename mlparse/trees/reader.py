"""Reader for bracketed (Penn-style) trees: PTB ``.mrg``, SPMRL, CorpusSearch ``.psd``, CESS, Floresta.

Trees are read by bracket depth, never line by line, so one-tree-per-line and
multi-line files, CRLF, tabs and lines that close one tree and open the next
all read the same way.  Roots are kept as written: ``( (S ...) )`` becomes
``Tree("", [S...])``, ``(ROOT ...)`` stays ``ROOT``; normalising to ``TOP`` is
:func:`mlparse.trees.transforms.ensure_top`'s job.

Node rules (an *atom* is a run of characters that are neither whitespace nor
brackets; whitespace is Unicode whitespace, as in ``str.split``):

* ``(X word)`` -- exactly one atom child -- is ``Leaf(X, word)``.
* ``(X (..) (..))`` is ``Tree(X, [...])``; ``( (..))`` has the label ``""``.
* ``(X a b)``: several atoms is a :class:`MixedLeafError`, unless
  ``leaf_atoms="first"`` (CESS ``(tag word lemma)``), which keeps ``a``, or
  ``leaf_atoms="last"`` (Floresta's few broken ``(H+prop' M S} word)``
  leaves, whose tag was split by spaces), which keeps the last atom.
* ``(X a (Y b))``: atoms beside subtrees is always a :class:`MixedLeafError`.
* ``(X)`` / ``(X )``: a :class:`ChildlessNodeError`, unless ``childless="leaf"``
  (Floresta punctuation ``(,)``), which gives ``Leaf(",", ",")``.  ``()`` is
  always an error.
* A leaf at depth 0, ``(NN yes)`` on its own, is a one-word sentence without a
  phrase; it is returned as ``Tree("", [Leaf("NN", "yes")])``, the unlabelled
  root the PTB would have written around it.

Errors carry file, line and column (see :mod:`mlparse.trees.errors`).  In
tolerant mode two problems are repaired and recorded as :class:`Repair`: a
tree still open at the end of the text (or, with ``tree_start``, at the next
line that starts a tree) gets its missing ``)``, and a ``)`` at depth 0 is
dropped.  Everything else raises; nothing is dropped silently.

Speed: a compiled character scanner (``_scan.pyx``) reads well-formed text
(IcePaHC: about 100k trees/s on one core, 3x the pure-Python path); anything
it cannot handle alone -- errors, repairs -- is re-read by the pure-Python
parser below, which gives the positions and records the repairs.  The
pure-Python parser is one ``re.findall`` whose first alternative swallows a
whole one-line leaf ``(tag word)``, an explicit stack (trees can be hundreds
of levels deep), and positions computed only when an error is raised.  Wrap
bulk work in :func:`paused_gc` (see there): the cyclic garbage collector
otherwise triples the time of reading and transforming a large treebank.
"""

from __future__ import annotations

import codecs
import gc
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator, List, Optional, Tuple, Union

from mlparse.trees.bracket_parser import ReadResult, Repair, ParseFailure, tree_start_lines, token_offset, parse_text
from mlparse.trees.errors import TreeEncodingError, locate
from mlparse.trees.tree import Tree

_parse = parse_text  # the pure-Python parser, under the name the tests compare the compiled scanner with

PathLike = Union[str, "os.PathLike[str]"]

try:  # the compiled scanner (mlparse/trees/_scan.pyx); the pure-Python parser below is the fallback
    from mlparse.trees._scan import Fallback as _Fallback
    from mlparse.trees._scan import scan as _compiled_scan
except ImportError:  # not built: everything goes through parse_text
    _compiled_scan = None

    class _Fallback(Exception):  # type: ignore[no-redef]
        pass


#: Use the compiled scanner when it is built (tests switch it off to compare both paths).
USE_COMPILED = True


def compiled_scanner_available() -> bool:
    """Whether the Cython fast path of the reader is built."""
    return _compiled_scan is not None


LEAF_ATOMS_MODES = ("error", "first", "last")
CHILDLESS_MODES = ("error", "leaf")
#: leaf_atoms mode -> index of the atom kept as the word (None: several atoms are an error)
_ATOM_PICK = {"error": None, "first": 0, "last": -1}


def _check_mode(name: str, value: str, allowed: Tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, not {value!r}")


def parse_bracketed(
    text: str,
    *,
    source: str = "<string>",
    first_line: int = 1,
    tolerant: bool = False,
    leaf_atoms: str = "error",
    childless: str = "error",
    tree_start: Optional[str] = None,
) -> ReadResult:
    """Every top-level tree of ``text``.

    ``first_line`` is the line number of the text's first line in its file
    (for blocks cut out of a larger file); it offsets ``ReadResult.lines``,
    repairs and error positions.

    ``tree_start`` is an optional regular expression for lines that always
    begin a new tree in this format (CESS: ``r"\\($"``, a line holding only
    ``(``).  When such a line comes while a tree is still open, that tree is
    missing ``)``: it is an :class:`UnclosedBracketError`, or in tolerant mode
    the tree is closed there (a :class:`Repair`), instead of swallowing the
    trees that follow.
    """
    _check_mode("leaf_atoms", leaf_atoms, LEAF_ATOMS_MODES)
    _check_mode("childless", childless, CHILDLESS_MODES)
    starts = tree_start_lines(text, tree_start, first_line) if tree_start else None
    pick = _ATOM_PICK[leaf_atoms]
    if _compiled_scan is not None and USE_COMPILED and not starts:
        try:
            with paused_gc():
                trees, lines = _compiled_scan(text, first_line, pick, childless == "leaf")
            return ReadResult(trees, lines, [])
        except _Fallback:
            pass  # errors and repairs: the pure-Python parser gives positions and records repairs
    try:
        with paused_gc():
            return parse_text(
                text, source, first_line, tolerant, pick, childless == "leaf", starts
            )
    except ParseFailure as failure:
        offset = token_offset(text, failure.index)
        line, column, snippet, caret = locate(text, offset, first_line)
        raise failure.cls(
            failure.detail, source=source, line=line, column=column, snippet=snippet, caret=caret
        ) from None


@contextmanager
def paused_gc(freeze: bool = False) -> Iterator[None]:
    """Pause the cyclic garbage collector while building many trees (trees hold no cycles).

    Every tree node and children list is a container the collector traverses:
    with a treebank in memory, collections triple the time of reading and
    transforming.  Reference counting still frees everything as usual.

    The objects made inside the pause are still young, so the first collection
    after it walks them all once.  ``freeze=True`` calls :func:`gc.freeze` on
    exit, moving every live object to the permanent generation that the
    collector never walks: use it around bulk preparation in a command-line
    process (reference cycles alive at that moment are then never collected,
    until ``gc.unfreeze()``).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if enabled:
            gc.enable()


def read_bracketed_file(
    path: PathLike,
    *,
    encoding: str = "utf-8",
    tolerant: bool = False,
    leaf_atoms: str = "error",
    childless: str = "error",
    tree_start: Optional[str] = None,
) -> ReadResult:
    """All trees of a file; errors and repairs name the file (as given in ``path``).

    Options as in :func:`parse_bracketed`.
    """
    text = read_text(path, encoding)
    return parse_bracketed(
        text,
        source=str(path),
        tolerant=tolerant,
        leaf_atoms=leaf_atoms,
        childless=childless,
        tree_start=tree_start,
    )


#: Appended to a decoding error's detail: a guess, not an instruction (callers that know how the
#: encoding is chosen, such as the prepare pipeline's catalog, replace it with their own hint).
ENCODING_GUESS = "; the file may be in another encoding, such as ISO-8859-1 (Latin-1)"


def read_text(path: PathLike, encoding: str = "utf-8") -> str:
    """The file's text; a decoding failure becomes a :class:`TreeEncodingError` with its position.

    A UTF-8 byte-order mark at the start of a UTF-8 file is read as such, not as text.
    """
    return decode_text(Path(path).read_bytes(), encoding, str(path))


def has_utf8_bom(data: bytes, encoding: str) -> bool:
    """Whether ``data`` starts with a UTF-8 byte-order mark and is read as UTF-8."""
    return data.startswith(codecs.BOM_UTF8) and codecs.lookup(encoding).name == "utf-8"


def decode_text(data: bytes, encoding: str = "utf-8", source: str = "<string>") -> str:
    """``data`` decoded, without the byte-order mark of a UTF-8 text (see :func:`has_utf8_bom`).

    A decoding failure is a :class:`TreeEncodingError` at the line and column of the bad byte.
    """
    if has_utf8_bom(data, encoding):
        data = data[len(codecs.BOM_UTF8):]
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        good = data[: error.start].decode(encoding, errors="replace")
        line = good.count("\n") + 1
        column = len(good) - (good.rfind("\n") + 1) + 1
        raise TreeEncodingError(
            f"byte 0x{data[error.start]:02x} is not valid {encoding}{ENCODING_GUESS}",
            source=source,
            line=line,
            column=column,
        ) from None


def iter_bracketed_lines(
    lines: Iterable[str],
    *,
    source: str = "<string>",
    tolerant: bool = False,
    leaf_atoms: str = "error",
    childless: str = "error",
    repairs: Optional[List[Repair]] = None,
    tree_start: Optional[str] = None,
) -> Iterator[Tuple[int, Tree]]:
    """Stream ``(line, tree)`` from an iterable of lines (an open file), holding one tree at a time.

    Lines are grouped by bracket depth, so multi-line trees are fine.  In
    tolerant mode pass a list as ``repairs``: the repairs made are appended
    to it (so that none goes unreported).
    """
    if tolerant and repairs is None:
        raise ValueError("tolerant=True needs a list in repairs= to report the repairs made")
    buffer: List[str] = []
    depth = 0
    start = 1
    number = 0
    for number, text in enumerate(lines, start=1):
        if not buffer:
            if not text.strip():
                continue
            start = number
        buffer.append(text if text.endswith("\n") else text + "\n")
        depth += text.count("(") - text.count(")")
        if depth <= 0:
            yield from _flush(buffer, start, source, tolerant, leaf_atoms, childless, repairs, tree_start)
            buffer = []
            depth = 0
    if buffer:
        yield from _flush(buffer, start, source, tolerant, leaf_atoms, childless, repairs, tree_start)


def _flush(
    buffer: List[str],
    start: int,
    source: str,
    tolerant: bool,
    leaf_atoms: str,
    childless: str,
    repairs: Optional[List[Repair]],
    tree_start: Optional[str],
) -> Iterator[Tuple[int, Tree]]:
    result = parse_bracketed(
        "".join(buffer),
        source=source,
        first_line=start,
        tolerant=tolerant,
        leaf_atoms=leaf_atoms,
        childless=childless,
        tree_start=tree_start,
    )
    if repairs is not None:
        repairs.extend(result.repairs)
    yield from zip(result.lines, result.trees)
