"""Each sentence's brackets as the scorer sees them: after the parameter file's deletions, with their match.

The corpus scores say how many brackets matched; error analyses (per-label scores, scores by
span length, the repair-based error classes of Kummerfeld et al. 2012) need to know *which*.
:func:`sentence_brackets` runs the reference scorer (:class:`evalb.score.SentenceScorer`) on each
pair and reads back the state it leaves on the brackets: kept or deleted (``DELETE_LABEL``, empty
spans), labels cut at ``-``/``=`` (and ``#`` for SPMRL), and matched or not under ``EQ_LABEL``.
So every count here is the scorer's own: the matched, gold and test brackets of a sentence equal
its row of the report.

Sentences the scorer excludes (length or word mismatch, a malformed tree, an empty test tree)
raise :class:`BracketError` naming the line; a sentence whose every word the parameter file
deletes in both trees (``(TOP (. .))``) comes back with ``emptied=True`` and no brackets, as the
scorer skips it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Sequence

from .engine import _emptied_by_deletion
from .params import EvalbParams, load_params
from .parse import Bracket, ParsedTree, parse_tree
from .score import SentenceScorer


class BracketError(ValueError):
    """A sentence the scorer would exclude; ``line`` is 1-based."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}")


@dataclass(frozen=True, slots=True)
class KeptBracket:
    """One bracket the scorer counts: words ``[start, end)`` (kept words only), its cut label, matched or not."""

    start: int
    end: int
    label: str
    matched: bool


@dataclass(slots=True)
class SentenceBrackets:
    """One sentence pair as scored: kept words and tags, both sides' kept brackets in opening order."""

    line: int
    length: int  # the report's Len column (words not in DELETE_LABEL_FOR_LENGTH)
    words: list[str] = field(default_factory=list)
    gold_tags: list[str] = field(default_factory=list)
    test_tags: list[str] = field(default_factory=list)
    gold: list[KeptBracket] = field(default_factory=list)
    test: list[KeptBracket] = field(default_factory=list)
    emptied: bool = False

    @property
    def matched(self) -> int:
        return sum(b.matched for b in self.gold)


class _Recorder:
    """The sink the scorer writes to: keeps the row and the error messages of one sentence."""

    def __init__(self) -> None:
        self.status = 0
        self.row: tuple | None = None
        self.errors: list[str] = []

    def error(self, message: bytes | str) -> None:
        text = message.decode("utf-8", "surrogateescape") if isinstance(message, bytes) else message
        self.errors.append(text.strip())

    def error_forever(self, message: bytes | str) -> None:
        self.error(message)

    def raw_stderr(self, data: bytes) -> None:
        pass

    def out(self, data: bytes) -> None:
        pass

    def sentence(self, length: int, matched: int, gold: int, test: int, crossing: int, words: int, correct: int) -> None:
        self.row = (length, matched, gold, test)


def _text(value: bytes) -> str:
    return value.decode("utf-8", "surrogateescape")


def _kept(brackets: list[Bracket]) -> list[KeptBracket]:
    return [KeptBracket(b.start, b.end, _text(b.label), b.result == 1) for b in brackets if b.result != 5]


def equivalent_label(params: EvalbParams) -> dict[str, str]:
    """``EQ_LABEL`` as a map from each label of an equivalence group to the group's first label."""
    parent: dict[str, str] = {}

    def find(label: str) -> str:
        while parent.get(label, label) != label:
            label = parent[label]
        return label

    for a, b in params.eq_labels:
        ra, rb = find(_text(a)), find(_text(b))
        parent.setdefault(ra, ra)
        parent.setdefault(rb, rb)
        if ra != rb:
            parent[rb] = ra
    return {label: find(label) for label in parent}


def sentence_brackets(
    gold: Sequence[str | bytes],
    test: Sequence[str | bytes],
    params: str | Path | EvalbParams | None = "default",
    *,
    spmrl: bool = False,
) -> Iterator[SentenceBrackets]:
    """The scored brackets of each sentence pair, in order (one tree per element, as :func:`evalb.score_trees`).

    Raises :class:`BracketError` at the first sentence the scorer would exclude, and when the
    two sequences differ in length.
    """
    if isinstance(params, str) and params == "default":
        params = "spmrl" if spmrl else "COLLINS"
    prm = load_params(params)
    if len(gold) != len(test):
        raise BracketError(min(len(gold), len(test)) + 1, f"the gold side has {len(gold)} trees, the test side {len(test)}")
    scorer = SentenceScorer(prm, spmrl)
    for index, (gold_line, test_line) in enumerate(zip(gold, test)):
        line = index + 1
        sink = _Recorder()
        gold_tree = parse_tree(_bytes(gold_line), prm, spmrl, sink)
        test_tree = parse_tree(_bytes(test_line), prm, spmrl, sink)
        if not sink.errors:
            scorer.score(gold_tree, test_tree, sink)
        yield _result(line, sink, gold_tree, test_tree, scorer)


def _bytes(tree: str | bytes) -> bytes:
    return tree if isinstance(tree, bytes) else tree.encode("utf-8", "surrogateescape")


def _result(line: int, sink: _Recorder, gold: ParsedTree, test: ParsedTree, scorer: SentenceScorer) -> SentenceBrackets:
    if sink.errors:
        raise BracketError(line, "; ".join(dict.fromkeys(sink.errors)))
    assert sink.row is not None
    if sink.status != 0:
        if sink.status == 2 and _emptied_by_deletion(gold, test, scorer):
            return SentenceBrackets(line, sink.row[0], emptied=True)
        raise BracketError(line, "empty test tree (the scorer skips it)")
    result = SentenceBrackets(
        line, sink.row[0], [_text(w) for w in gold.words], [_text(t) for t in gold.tags],
        [_text(t) for t in test.tags], _kept(gold.brackets), _kept(test.brackets),
    )
    matched, n_gold, n_test = sink.row[1], sink.row[2], sink.row[3]
    if (result.matched, len(result.gold), len(result.test)) != (matched, n_gold, n_test):  # pragma: no cover - invariant
        raise AssertionError(f"line {line}: bracket view disagrees with the scorer's row")
    return result
