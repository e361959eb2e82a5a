"""Scoring one sentence pair (the reference implementation, pure Python).

This mirrors the original ``calc_result`` step by step, for the standard
program and the SPMRL variant (``spmrl=True``).  The compiled fast path in
``_fast.pyx`` handles only the common, error-free case and must agree with
this module exactly; every unusual sentence goes through here.
"""

from __future__ import annotations

import re

from .params import EvalbParams
from .parse import Bracket, ErrorSink, ParsedTree, QuoteTerm

_CUT_STANDARD = re.compile(rb"[-=]")
_CUT_SPMRL = re.compile(rb"[-=#]")


class SentenceSink(ErrorSink):
    """Adds :meth:`sentence`, the ``individual_result`` of the original."""

    status: int

    def sentence(self, length: int, matched: int, gold: int, test: int, crossing: int, words: int, correct: int) -> None: ...


class SentenceScorer:
    """Scores sentence pairs under one parameter set, keeping the state the SPMRL program keeps.

    ``delete_truncated`` models a side effect of the SPMRL program: its label
    comparison truncates both arguments in place, so the DELETE_LABEL entries
    themselves are cut at ``-``/``=``/``#`` the first time a bracket is
    compared with them; from then on POS-tag checks in ``fix_quote`` see the
    cut labels.
    """

    def __init__(self, params: EvalbParams, spmrl: bool = False, count_unparsed: bool = False) -> None:
        self.params = params
        self.spmrl = spmrl
        self.count_unparsed = count_unparsed
        self._cut = _CUT_SPMRL if spmrl else _CUT_STANDARD
        self._eq_labels = {(a, b) for a, b in params.eq_labels} | {(b, a) for a, b in params.eq_labels}
        self._eq_words = {(a, b) for a, b in params.eq_words} | {(b, a) for a, b in params.eq_words}
        self.delete_truncated = False

    # -- label helpers ----------------------------------------------------------
    def cut(self, label: bytes) -> bytes:
        """``modify_label``: cut at the first ``-`` or ``=`` (and ``#`` for SPMRL)."""
        m = self._cut.search(label)
        return label if m is None else label[: m.start()]

    def label_equal(self, a: bytes, b: bytes) -> bool:
        """``label_comp`` on already prepared labels: equal, or an EQ_LABEL pair."""
        return a == b or (a, b) in self._eq_labels

    def word_equal(self, a: bytes, b: bytes) -> bool:
        return a == b or (a, b) in self._eq_words

    def bracket_delete_labels(self) -> list[bytes]:
        """DELETE_LABEL entries as compared with bracket labels (cut in place by SPMRL)."""
        if not self.spmrl:
            return self.params.delete_labels
        if self.params.delete_labels:
            self.delete_truncated = True
        return [self.cut(d) for d in self.params.delete_labels]

    def is_delete_label(self, tag: bytes) -> bool:
        """``is_deletelabel`` (exact comparison with the current DELETE_LABEL entries)."""
        if self.spmrl and self.delete_truncated:
            return tag in [self.cut(d) for d in self.params.delete_labels]
        return tag in self.params.delete_labels

    # -- the sentence -----------------------------------------------------------
    def score(self, gold: ParsedTree, test: ParsedTree, sink: SentenceSink) -> None:
        """Score one pair; results go to ``sink.sentence`` and errors to ``sink.error``."""
        debug = self.params.debug
        length = gold.length
        if debug > 1:
            sink.out(b"\n")
        if not test.words:
            if self.spmrl and self.count_unparsed:
                sink.status = 3
                n_gold = self._count_gold_only(gold)
                sink.sentence(length, 0, n_gold, 0, 0, len(gold.words), 0)
            else:
                sink.status = 2
                sink.sentence(length, 0, 0, 0, 0, 0, 0)
            return
        if len(gold.words) != len(test.words):
            self._fix_quote(gold, test, sink)
            if len(gold.words) != len(test.words):
                message = b"Length unmatch (%d|%d)\n" % (len(gold.words), len(test.words))
                if not self.spmrl:
                    sink.error(message)
                    sink.sentence(length, 0, 0, 0, 0, 0, 0)
                    return
                # SPMRL: counted before the error is raised (as a valid, complete match),
                # and a gold tree of at most one word goes on to be scored a second time.
                sink.sentence(length, 0, 0, 0, 0, 0, 0)
                if len(gold.words) > 1:
                    sink.error(message)
                    return
        for g, t in zip(gold.words, test.words):
            if not self.word_equal(g, t):
                sink.error(b"Words unmatch (%s|%s)\n" % (g, t))
                sink.sentence(length, 0, 0, 0, 0, 0, 0)
                return
        gold_n = self._massage(gold.brackets)
        test_n = self._massage(test.brackets)
        match = self._match(gold, test, sink)
        crossing = self._crossing(gold, test, sink)
        correct = self._tagging(gold, test)
        sink.sentence(length, match, gold_n, test_n, crossing, len(gold.words), correct)

    def _massage(self, brackets: list[Bracket]) -> int:
        """``massage_data``: drop empty spans and deleted labels; returns the kept count."""
        kept = 0
        deletes = None
        for b in brackets:
            b.result = 0
            if b.start == b.end:
                b.result = 5
                continue
            b.label = self.cut(b.label)
            if deletes is None:
                deletes = self.bracket_delete_labels()
            for d in deletes:
                if self.label_equal(b.label, d):
                    b.result = 5
            if b.result != 5:
                kept += 1
        return kept

    def _count_gold_only(self, gold: ParsedTree) -> int:
        """``massage_data_gold_only`` of the SPMRL program, over-count included (see README)."""
        count = 0
        for b in gold.brackets:
            b.result = 0
            if b.start == b.end:
                continue
            count += 1
            label = self.cut(b.label)
            for d in self.bracket_delete_labels():
                if not self.label_equal(label, d):
                    count += 1
        return count

    def _match(self, gold: ParsedTree, test: ParsedTree, sink: SentenceSink) -> int:
        """Greedy one-to-one matching in gold order, first free test bracket wins."""
        debug = self.params.debug
        labeled = self.params.labeled != 0
        test_brackets = test.brackets
        label_mismatch = [False] * len(test_brackets)
        match = 0
        for g in gold.brackets:
            found = False
            for j, t in enumerate(test_brackets):
                if debug > 1:
                    sink.out(
                        b"1.res=%d, 2.res=%d, 1.start=%d, 2.start=%d, 1.end=%d, 2.end=%d\n"
                        % (g.result, t.result, g.start, t.start, g.end, t.end)
                    )
                if g.result != 5 and t.result == 0 and g.start == t.start and g.end == t.end:
                    if not labeled or self.label_equal(g.label, t.label):
                        g.result = t.result = 1
                        match += 1
                        found = True
                        break
                    if debug > 1:
                        sink.out(b"  LABEL[%d-%d]: %s\n" % (g.start, g.end - 1, _text(gold, g)))
                    found = True
                    label_mismatch[j] = True
            if not found and g.result != 5 and debug > 1:
                sink.out(b"  BRACKET[%d-%d]: %s\n" % (g.start, g.end - 1, _text(gold, g)))
        if debug > 1:
            for j, t in enumerate(test_brackets):
                if t.result == 0 and not label_mismatch[j]:
                    sink.out(b"  EXTRA[%d-%d]: %s\n" % (t.start, t.end - 1, _text(test, t)))
        return match

    def _crossing(self, gold: ParsedTree, test: ParsedTree, sink: SentenceSink) -> int:
        """Test brackets that partially overlap at least one kept gold bracket."""
        debug = self.params.debug
        crossing = 0
        last_i = -1
        golds = [(i, g) for i, g in enumerate(gold.brackets) if g.result != 5]
        for t in test.brackets:
            if t.result == 5:
                continue
            ts, te = t.start, t.end
            for i, g in golds:
                gs, ge = g.start, g.end
                if (gs < ts < ge < te) or (ts < gs < te < ge):
                    if i != last_i:
                        if debug > 1:
                            sink.out(b"  CROSSING[%d-%d]: %s\n" % (gs, ge - 1, _text(gold, g)))
                        last_i = i
                    crossing += 1
                    break
        return crossing

    def _tagging(self, gold: ParsedTree, test: ParsedTree) -> int:
        correct = 0
        n = len(gold.words)
        gold.results = [9] * n
        test.results = [9] * len(test.words)
        for i in range(n):
            if self.spmrl:  # label_comp cuts the POS tags in place
                gold.tags[i] = self.cut(gold.tags[i])
                test.tags[i] = self.cut(test.tags[i])
            ok = 1 if self.label_equal(gold.tags[i], test.tags[i]) else 0
            gold.results[i] = test.results[i] = ok
            correct += ok
        return correct

    # -- fix_quote ----------------------------------------------------------------
    def _fix_quote(self, gold: ParsedTree, test: ParsedTree, sink: SentenceSink) -> None:
        """Re-insert a deleted quote terminal where gold and test disagree on its tag."""
        q1, q2 = gold.quotes, test.quotes
        if self.params.debug > 1:
            for i in range(max(len(q1), len(q2))):
                for q in (q1, q2):
                    if i < len(q):
                        sink.out(b"%d: %s - %s\n" % (q[i].index, q[i].label, q[i].word))
        for i in range(len(q2)):
            index = q2[i].index
            for j in range(len(q1)):
                if q1[j].index != index or q1[j].label == q2[i].label:
                    continue
                if self.is_delete_label(q1[j].label) and not self.is_delete_label(q2[i].label):
                    self._reinsert(q1[j], gold, sink)
                    for k in range(j, len(q1)):
                        q1[k].index += 1
                elif self.is_delete_label(q2[i].label) and not self.is_delete_label(q1[j].label):
                    self._reinsert(q2[i], test, sink)
                    for k in range(i, len(q2)):
                        q2[k].index += 1

    def _reinsert(self, quote: QuoteTerm, tree: ParsedTree, sink: SentenceSink) -> None:
        debug = self.params.debug
        tree.words.insert(quote.index, quote.word)
        tree.tags.insert(quote.index, quote.label)
        if debug > 1:
            sink.out(b"bra=%d, ind=%d\n" % (quote.bracket, quote.index))
        for k, b in enumerate(tree.brackets):
            if debug > 1:
                sink.out(b"bracket[%d]={%d,%d}\n" % (k, b.start, b.end))
            if k >= quote.bracket:
                b.start += 1
                b.end += 1
        if debug > 1:
            sink.out(b"endslen=%d\n" % len(quote.ends))
        for k in quote.ends:
            tree.brackets[k].end += 1


def _text(tree: ParsedTree, b: Bracket) -> bytes:
    """The source text of a bracket, from just after its label to its closing paren."""
    return tree.buf[b.buf_start : b.buf_end] if b.buf_end >= b.buf_start else b""
