"""The main loop of the original programs: lines in lockstep, errors, MAX_ERROR, line counts.

``run`` is shared by the library API and both console scripts.  Each sentence
first goes to the compiled fast path (``evalb._fast``) when it is available and
debug output is off; any sentence the fast path declines (a parse problem, an
empty test tree, a length or word mismatch) is scored by the pure-Python
reference in :mod:`evalb.score`, which also produces every error message.

Strict mode refuses every sentence the original leaves out of the scores
(``problems``) except one kind: a sentence whose every word the parameter file
deletes, in the gold and in the test tree alike (``(TOP (. .))`` under
COLLINS.prm).  The original skips it (status 2) and so does the port, but it is
evalb's own rule at work, not a mismatch, so it goes to ``emptied`` instead.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Sequence

from .params import EvalbParams
from .parse import ParsedTree, parse_tree
from .report import format_debug, format_sentence
from .results import Problem, Row
from .score import SentenceScorer

#: Above this many repeats, the endless "Reading sentence" loop of the original
#: (it stops only at MAX_ERROR) is cut short with a single message.
_MAX_REPEATED_ERRORS = 1_000_000


class EvalbAbort(Exception):
    """Raised inside the loop when the error count passes MAX_ERROR (the original exits)."""


@dataclass
class Sink:
    """Collects what the original writes: per-sentence rows, stdout chunks, stderr lines."""

    max_error: int
    live_output: bool = False
    line: int = 0
    status: int = 0
    error_count: int = 0
    records: list[Row] = field(default_factory=list)
    stdout: list[bytes] = field(default_factory=list)
    stderr: list[bytes] = field(default_factory=list)
    errors: list[tuple[int, bytes]] = field(default_factory=list)

    def out(self, data: bytes) -> None:
        self.stdout.append(data)

    def raw_stderr(self, data: bytes) -> None:
        self.stderr.append(data)

    def error(self, message: bytes | str) -> None:
        if isinstance(message, str):
            message = message.encode()
        self.status = 1
        self.stderr.append(b"%d : %s" % (self.line, message))
        self.errors.append((self.line, message))
        count = self.error_count
        self.error_count += 1
        if count > self.max_error:
            raise EvalbAbort()

    def error_forever(self, message: bytes | str) -> None:
        """The original re-reports the same byte until MAX_ERROR ends the program."""
        if self.max_error - self.error_count > _MAX_REPEATED_ERRORS:
            self.error(message)
            raise EvalbAbort()
        while True:
            self.error(message)

    def sentence(self, length: int, matched: int, gold: int, test: int, crossing: int, words: int, correct: int) -> None:
        row = (self.line, length, self.status, matched, gold, test, crossing, words, correct)
        self.records.append(row)
        if self.live_output:
            self.stdout.append(format_sentence(row))


@dataclass
class EngineOutput:
    sink: Sink
    problems: list[Problem]
    aborted: bool
    #: lines skipped because DELETE_LABEL removed every word of both trees (same words): not problems
    emptied: list[int] = field(default_factory=list)


def _load_fast():
    if os.environ.get("EVALB_PURE_PYTHON"):
        return None
    try:
        from . import _fast
    except ImportError:
        return None
    return _fast


def make_fast_scorer(params: EvalbParams, spmrl: bool):
    """The compiled scorer for ``params``, or None when the extension is not built."""
    fast = _load_fast()
    if fast is None:
        return None
    return fast.FastScorer(
        params.delete_labels,
        params.delete_labels_for_length,
        params.eq_labels,
        params.eq_words,
        params.labeled != 0,
        spmrl,
    )


def _words(tree: ParsedTree | None) -> list[str]:
    return [] if tree is None else [w.decode("utf-8", "surrogateescape") for w in tree.words]


def run(
    gold_lines: Sequence[bytes],
    test_lines: Sequence[bytes],
    params: EvalbParams,
    *,
    spmrl: bool = False,
    count_unparsed: bool = False,
    max_sentences: int = -1,
    live_output: bool = False,
    use_fast: bool = True,
    gold_ends_with_newline: bool = True,
    test_ends_with_newline: bool = True,
) -> EngineOutput:
    """Score ``gold_lines`` against ``test_lines`` (one tree per element, no newline).

    ``max_sentences`` is evalb_spmrl's ``-K`` (-1: all); ``count_unparsed`` its ``-X``.
    ``live_output`` formats rows into ``sink.stdout`` as they come (needed with debug output).
    """
    gold_lines = list(gold_lines)
    test_lines = list(test_lines)
    sink = Sink(params.max_error, live_output=live_output or params.debug > 0)
    scorer = SentenceScorer(params, spmrl, count_unparsed)
    fast = make_fast_scorer(params, spmrl) if use_fast and params.debug == 0 else None
    has_deletes = bool(params.delete_labels)
    problems: list[Problem] = []
    emptied: list[int] = []
    debug = params.debug
    n_gold, n_test = len(gold_lines), len(test_lines)
    aborted = False
    quiet = False
    stopped_early = False
    # The -K limit stops after line max(K, 1); -1 means no limit.
    last = n_gold if max_sentences == -1 else min(n_gold, max(max_sentences, 1))
    fast_stop = min(last, n_test)
    index = 0
    try:
        while index < n_gold:
            if fast is not None and index < fast_stop:
                index = fast.score_many(gold_lines, test_lines, index, fast_stop, sink.records)
                if fast.any_nonempty and spmrl and has_deletes:
                    scorer.delete_truncated = True
                if index >= last:
                    quiet = max_sentences != -1 and last + 1 > max_sentences
                    break
                if index >= n_gold:
                    break
            line = index + 1
            sink.line = line
            sink.status = 0
            newline = index < n_gold - 1 or gold_ends_with_newline
            first_error = len(sink.errors)
            first_row = len(sink.records)
            gold = test = None
            try:
                gold = parse_tree(gold_lines[index], params, spmrl, sink, newline)
                if index >= n_test:
                    sink.error(b"Number of lines unmatch (too many lines in gold file)\n")
                    problems.append(Problem(line, "line-count", f"the gold file has more lines than the test file ({n_gold} > {n_test})"))
                    stopped_early = True
                    break
                test = parse_tree(test_lines[index], params, spmrl, sink, index < n_test - 1 or test_ends_with_newline)
                scorer.score(gold, test, sink)
                if debug >= 1:
                    sink.out(format_debug(gold, test))
            finally:
                _note_problem(problems, emptied, scorer, sink, line, first_error, first_row, gold, test)
            index += 1
            if max_sentences != -1 and line + 1 > max_sentences:
                quiet = True
                break
        if not quiet and not stopped_early and n_test > n_gold:
            sink.line = n_gold + 1
            problems.append(Problem(n_gold + 1, "line-count", f"the test file has more lines than the gold file ({n_test} > {n_gold})"))
            sink.error(b"Number of lines unmatch (too many lines in test file)\n")
    except EvalbAbort:
        aborted = True
    return EngineOutput(sink, problems, aborted, emptied)


def _note_problem(
    problems: list[Problem],
    emptied: list[int],
    scorer: SentenceScorer,
    sink: Sink,
    line: int,
    first_error: int,
    first_row: int,
    gold: ParsedTree | None,
    test: ParsedTree | None,
) -> None:
    """Record a sentence that had an error or was skipped (what ``--strict`` reports).

    A skip that :func:`_emptied_by_deletion` explains goes to ``emptied`` instead.
    """
    if test is None:
        return
    errors = [m.decode("utf-8", "surrogateescape").strip() for _, m in sink.errors[first_error:]]
    statuses = {r[2] for r in sink.records[first_row:]}
    if not errors and not statuses & {1, 2, 3}:
        return
    if not errors and statuses == {2} and _emptied_by_deletion(gold, test, scorer):
        emptied.append(line)
        return
    if not test.words:
        kind, message = "skip", "empty test tree (skipped: excluded from every total)"
        if 3 in statuses:
            message = "empty test tree (counted as unparsed by -X)"
    else:
        first = errors[0] if errors else ""
        kind = "length" if first.startswith("Length") else "words" if first.startswith("Words") else "malformed"
        message = "; ".join(dict.fromkeys(errors)) or "error"
    problems.append(Problem(line, kind, message, _words(gold), _words(test)))


class _Quiet:
    """A sink that drops everything (re-reading a line that was already read and reported once)."""

    def error(self, message: bytes | str) -> None:
        pass

    def error_forever(self, message: bytes | str) -> None:
        pass

    def raw_stderr(self, data: bytes) -> None:
        pass

    def out(self, data: bytes) -> None:
        pass


def _all_words(buf: bytes, params: EvalbParams) -> list[bytes]:
    """Every terminal's word of a line, the ones DELETE_LABEL removes included."""
    keep_all = params.copy()
    keep_all.delete_labels = []
    keep_all.debug = 0
    return parse_tree(buf, keep_all, False, _Quiet()).words


def _emptied_by_deletion(gold: ParsedTree | None, test: ParsedTree, scorer: SentenceScorer) -> bool:
    """Is this skip evalb's deletion rule at work rather than a mismatch?

    True when the standard program's DELETE_LABEL left no word in either tree
    and, before deletion, both trees had the same words (at least one; equal as
    evalb compares words, EQ_WORD included).  A punctuation-only sentence is
    the common case.  An empty test line against a non-empty gold tree, or
    different words, stay problems.  The SPMRL program never deletes terminals,
    so there an empty test tree is always a real one.
    """
    if scorer.spmrl or gold is None or gold.words or test.words or gold.malformed or test.malformed:
        return False
    gold_all = _all_words(gold.buf, scorer.params)
    test_all = _all_words(test.buf, scorer.params)
    return bool(gold_all) and len(gold_all) == len(test_all) and all(map(scorer.word_equal, gold_all, test_all))
