"""Library API: score trees in-process, no subprocess and no temporary files."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from .engine import run
from .lines import split_lines
from .params import EvalbParams, load_params
from .report import HEADER, format_sentences, format_summary
from .results import EvalbResult, Problem, SentenceResult, summarize


class EvalbError(Exception):
    """Base class of the errors the API raises."""


class EvalbStrictError(EvalbError):
    """Strict mode: some sentences were skipped or in error (or the files' line counts differ).

    Sentences that the parameter file's deletions leave empty on both sides are not counted here
    (see ``EvalbResult.emptied``).

    ``problems`` lists each one (line, kind, message, gold and test words);
    ``result`` holds the scores the original program would have printed.
    """

    def __init__(self, problems: list[Problem], result: EvalbResult) -> None:
        self.problems = problems
        self.result = result
        head = f"evalb: {len(problems)} sentence(s) would be excluded from the scores"
        if result.aborted:
            head += " (and the run stopped early: more errors than MAX_ERROR)"
        shown = "\n".join(p.describe() for p in problems[:20])
        more = f"\n... and {len(problems) - 20} more" if len(problems) > 20 else ""
        super().__init__(f"{head}:\n{shown}{more}")


class EvalbAbortedError(EvalbError):
    """More errors than MAX_ERROR: the original program stops without a summary."""

    def __init__(self, result: EvalbResult) -> None:
        self.result = result
        super().__init__(
            f"evalb stopped after {len(result.errors)} errors (more than MAX_ERROR); "
            f"first: {result.errors[0] if result.errors else '?'}"
        )


def _as_bytes(tree: str | bytes) -> bytes:
    return tree if isinstance(tree, bytes) else tree.encode("utf-8", "surrogateescape")


def score_trees(
    gold: Sequence[str | bytes],
    test: Sequence[str | bytes],
    params: str | Path | EvalbParams | None = "default",
    *,
    spmrl: bool = False,
    strict: bool = False,
    count_unparsed: bool = False,
    max_sentences: int | None = None,
    use_fast: bool = True,
) -> EvalbResult:
    """Score bracketed ``test`` trees against ``gold`` trees, one tree per element.

    ``params`` is an :class:`EvalbParams`, a shipped name (``COLLINS``, ``nk``,
    ``spmrl``, ``spmrl_hebrew``), a ``.prm`` path, or None for the program's
    built-in defaults; ``"default"`` means ``COLLINS`` (``spmrl`` with ``spmrl=True``).
    ``spmrl`` selects the evalb_spmrl program; ``count_unparsed`` and
    ``max_sentences`` are its ``-X`` and ``-K``.  A tree may span several lines
    (newlines are whitespace); sentence numbers are 1-based positions.

    Raises :class:`EvalbStrictError` in strict mode when any sentence is skipped or
    in error, and :class:`EvalbAbortedError` (not strict) when MAX_ERROR is passed.
    A sentence whose every word the parameter file deletes, in both trees alike
    (``(TOP (. .))`` under COLLINS.prm), is skipped as the original skips it but is
    no strict-mode problem: its line is in ``result.emptied``.
    """
    if isinstance(params, str) and params == "default":
        params = "spmrl" if spmrl else "COLLINS"
    prm = load_params(params)
    out = run(
        [_as_bytes(t) for t in gold],
        [_as_bytes(t) for t in test],
        prm,
        spmrl=spmrl,
        count_unparsed=count_unparsed,
        max_sentences=-1 if max_sentences is None else max_sentences,
        use_fast=use_fast,
    )
    every, short = summarize(out.sink.records, prm.cutoff_len, use_fast=use_fast)
    result = EvalbResult(
        sentences=[SentenceResult.from_row(r) for r in out.sink.records],
        all=every,
        cutoff=short,
        cutoff_len=prm.cutoff_len,
        errors=[f"{line} : {msg.decode('utf-8', 'surrogateescape').rstrip()}" for line, msg in out.sink.errors],
        problems=out.problems,
        aborted=out.aborted,
        spmrl=spmrl,
        emptied=out.emptied,
    )
    if strict and (out.problems or out.aborted):
        raise EvalbStrictError(out.problems, result)
    if out.aborted:
        raise EvalbAbortedError(result)
    return result


def format_report(result: EvalbResult) -> bytes:
    """The report the command would print for ``result``: header, rows, totals and both blocks.

    An aborted run has no summary, as in the original.
    """
    text = HEADER + format_sentences([r.to_row() for r in result.sentences])
    if not result.aborted:
        text += format_summary(result.all, result.cutoff, result.cutoff_len)
    return text


def read_tree_lines(path: str | Path) -> list[bytes]:
    """The lines of a one-tree-per-line file, split like ``fgets`` would (no limit on length)."""
    return split_lines(Path(path).read_bytes())[0]


def score_files(
    gold_path: str | Path,
    test_path: str | Path,
    params: str | Path | EvalbParams | None = "default",
    **options,
) -> EvalbResult:
    """:func:`score_trees` on two files with one tree per line (same options)."""
    return score_trees(read_tree_lines(gold_path), read_tree_lines(test_path), params, **options)
