"""The main loop of the original programs: lines in lockstep, errors, MAX_ERROR, line counts.

``run`` is shared by the library API and both console scripts.  Each sentence
first goes to the compiled fast path (``evalb._fast``) when it is available and
debug output is off; any sentence the fast path declines (a parse problem, an
empty test tree, a length or word mismatch) is scored by the pure-Python
reference in :mod:`evalb.score`, which also produces every error message.
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
                _note_problem(problems, sink, line, first_error, first_row, gold, test)
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
    return EngineOutput(sink, problems, aborted)


def _note_problem(
    problems: list[Problem], sink: Sink, line: int, first_error: int, first_row: int, gold: ParsedTree | None, test: ParsedTree | None
) -> None:
    """Record a sentence that had an error or was skipped (what ``--strict`` reports)."""
    if test is None:
        return
    errors = [m.decode("utf-8", "surrogateescape").strip() for _, m in sink.errors[first_error:]]
    statuses = {r[2] for r in sink.records[first_row:]}
    if not errors and not statuses & {1, 2, 3}:
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
