"""Dependency breakdowns from depeval's alignment: by relation, arc length, distance to root, UPOS, projectivity.

Each table row counts arcs: gold arcs in the row (``gold``, recall's denominator), system arcs in
the row (``test``, precision's), and LAS hits among the gold arcs (``matched``) and among the system
arcs (``matched_test``); ``uas`` and
``uas_test`` count UAS hits among the row's gold and system arcs.  A gold arc is binned by the gold
tree, a system arc by the system tree, as precision and recall are everywhere else.  Hits come from
:func:`depeval.word_hits` (the scorer's own tests on its own alignment), so each table's hits add up
to the scorer's UAS and LAS correct counts.  Under the PTB convention punctuation words (by gold
tag) are left out of every row, and relations are compared whole.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence

import depeval
from depeval.conllu import DEPREL, ROOT, UNIVERSAL_DEPREL, UPOS, Treebank

from .constituency import bucket_of
from .tables import Table

ARC_BUCKETS = ((1, 1), (2, 2), (3, 6), (7, None))
DEPTH_BUCKETS = ((1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, None))
COLUMNS = ["precision", "recall", "f1", "pct:uas", "pctt:uas_test", "gold", "test"]
ROOT_ROW = "root"


def depths(bank: Treebank) -> List[int]:
    """Each word's distance to the root: 1 for the root's dependent (heads must form a tree)."""
    out = [0] * bank.n_words
    for word in range(bank.n_words):
        path = []
        node = word
        while node != ROOT and out[node] == 0:
            path.append(node)
            node = bank.parents[node]
        base = 0 if node == ROOT else out[node]
        for offset, visited in enumerate(reversed(path), start=1):
            out[visited] = base + offset
    return out


def nonprojective(bank: Treebank) -> List[bool]:
    """Whether each word's incoming arc is non-projective: some word strictly between head and dependent
    is not dominated by the head (root arcs span nothing and are projective)."""
    parents = bank.parents
    out = [False] * bank.n_words
    for word, head in enumerate(parents):
        if head == ROOT:
            continue
        for inner in range(min(word, head) + 1, max(word, head)):
            node = inner
            while node != ROOT and node != head:
                node = parents[node]
            if node != head:
                out[word] = True
                break
    return out


def _arc_length(bank: Treebank, word: int) -> str:
    head = bank.parents[word]
    return ROOT_ROW if head == ROOT else bucket_of(abs(word - head), ARC_BUCKETS)


class _Sides:
    """Both treebanks and the per-word facts the tables bin by."""

    def __init__(self, gold: Treebank, system: Treebank, ptb_punct: Optional[str]) -> None:
        self.gold, self.system = gold, system
        self.relation = UNIVERSAL_DEPREL if ptb_punct is None else DEPREL
        self.gold_depth, self.system_depth = depths(gold), depths(system)
        self.gold_np, self.system_np = nonprojective(gold), nonprojective(system)


Binner = Callable[[_Sides, Treebank, int, bool], str]


def _by_relation(sides: _Sides, bank: Treebank, word: int, gold: bool) -> str:
    return bank.columns[word][sides.relation]


def _by_arc(sides: _Sides, bank: Treebank, word: int, gold: bool) -> str:
    return _arc_length(bank, word)


def _by_depth(sides: _Sides, bank: Treebank, word: int, gold: bool) -> str:
    return bucket_of((sides.gold_depth if gold else sides.system_depth)[word], DEPTH_BUCKETS)


def _by_upos(sides: _Sides, bank: Treebank, word: int, gold: bool) -> str:
    return bank.columns[word][UPOS]


def _by_projectivity(sides: _Sides, bank: Treebank, word: int, gold: bool) -> str:
    return "non-projective" if (sides.gold_np if gold else sides.system_np)[word] else "projective"


TABLES: Sequence[tuple] = (
    ("relations", "By relation", _by_relation, None),
    ("arc_length", "By arc length", _by_arc, ["1", "2", "3-6", "7 or more", ROOT_ROW]),
    ("root_distance", "By distance to the root", _by_depth, ["1", "2", "3", "4", "5", "6", "7 or more"]),
    ("upos", "By the dependent's UPOS", _by_upos, None),
    ("projectivity", "Projective and non-projective arcs", _by_projectivity, ["projective", "non-projective"]),
)


def _rename(key: str) -> str:
    return "7 or more" if key == "over 6" else key


def dependency_tables(gold: Treebank, system: Treebank, *, ptb_punct: Optional[str] = None,
                      punct_tags: Sequence[str] = depeval.PTB_PUNCT_TAGS) -> List[Table]:
    """Every dependency table of ``system`` against ``gold`` (both read by depeval; their texts must match)."""
    depeval.check_same_text(gold, system)
    alignment = depeval.align_words(gold, system)
    tags = tuple(punct_tags)
    hits = depeval.word_hits(gold, system, alignment, ptb_punct=ptb_punct, punct_tags=tags)
    gold_kept = depeval.kept_words(gold, ptb_punct, tags)
    system_kept = depeval.kept_words(system, ptb_punct, tags)
    for g, s in zip(alignment.gold, alignment.system):  # an aligned system word goes with its gold word
        system_kept[s] = gold_kept[g]
    sides = _Sides(gold, system, ptb_punct)
    tables = []
    for name, title, binner, order in TABLES:
        table = Table(name, title, list(COLUMNS),
                      note="precision, recall, F1: LAS; uas: UAS recall (of gold arcs), uas_test: UAS precision")
        for key in order or []:
            table.row(key)
        for row in table.rows:
            row.matched_test = 0
        for word in range(gold.n_words):
            if gold_kept[word]:
                table.row(_rename(binner(sides, gold, word, True))).gold += 1
        for word in range(system.n_words):
            if system_kept[word]:
                table.row(_rename(binner(sides, system, word, False))).test += 1
        for hit in hits:
            gold_row = table.row(_rename(binner(sides, gold, hit.gold, True)))
            test_row = table.row(_rename(binner(sides, system, hit.system, False)))
            gold_row.matched += hit.label
            test_row.matched_test = (test_row.matched_test or 0) + hit.label
            gold_row.extra["uas"] = gold_row.extra.get("uas", 0) + hit.head
            test_row.extra["uas_test"] = test_row.extra.get("uas_test", 0) + hit.head
        for row in table.rows:
            row.matched_test = row.matched_test or 0
        if order is None:
            table.rows.sort(key=lambda r: (-r.gold, -r.test, r.key))
        tables.append(table)
    return tables


def sum_column(table: Table, column: str) -> int:
    if column in ("matched", "gold", "test"):
        return sum(getattr(row, column) for row in table.rows)
    return sum(row.extra.get(column, 0) for row in table.rows)


def hits_of(tables: List[Table]) -> Dict[str, int]:
    """UAS and LAS hits over the first table (every table holds the same hits)."""
    return {"uas": sum_column(tables[0], "uas"), "las": sum_column(tables[0], "matched")}
