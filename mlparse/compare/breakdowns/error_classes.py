"""Kummerfeld et al. (2012)'s error classes: each repair of :mod:`.repairs` named by what it moved or changed.

Credit: the classes are those of Jonathan K. Kummerfeld, David Hall, James R. Curran and Dan Klein, "Parser
Showdown at the Wall Street Corral: An Empirical Investigation of Error Types in Parser Output", EMNLP 2012, and
the rules below re-implement, rule for rule and in its order, ``classify_english.py`` of their Berkeley Parser
Analyser (``jkkummerfeld/berkeley-parser-analyser``, Copyright (c) 2014 Jonathan K. Kummerfeld, ISC licence).
The code is written here; the rules, their order and the behaviours kept for agreement (below) are the analyser's;
``benchmarks/error_classes_vs_analyser.py`` checks that the two agree.

The rules, in order (labels are PTB labels after evalb's cuts; a word's label is its POS tag):

* a **move** next to a coordinating conjunction (``CC`` just left or right of the run at its
  source or destination, or first or last in the run) is *coordination*; otherwise the moved
  nodes decide: a ``PP`` among them is *PP attachment*, an ``NP`` *NP attachment*, a ``VP`` *VP
  attachment*, an ``S``, ``SINV`` or ``SBAR`` *clause attachment*, an ``RB``, ``ADVP`` or ``ADJP``
  *modifier attachment*; a move between two ``NP``/``QP`` brackets
  is *NP-internal structure* (a bracket's own label is tested by containment, as the analyser does:
  ``WHNP`` is an ``NP`` there, ``WHADVP`` an ``ADVP``);
* a bracket over a single word is *single-word phrase*; a relabel otherwise *different label*;
* adding a bracket over one node, or removing one that is its parent's only child or has one child,
  is *unary*;
* otherwise by the bracket added or removed: ``UCP``, or a removed bracket followed by ``CC``, is
  *coordination*; a ``PP`` after its first child is *PP attachment*; an ``S``/``SBAR``/``SINV``
  after its first child is *clause attachment*; in an ``NP`` over words only, *NP-internal
  structure*; an ``ADVP``/``ADJP`` bracket, or one holding one after its first child, *modifier
  attachment*; a bracket whose children all have its label is *NP-internal structure* for ``NP``,
  else *coordination*; anything else is *other*.

Labels are read as the analyser reads them after Collins's rules: ``PRT`` is ``ADVP``.  The analyser's
*X-over-X unary* is counted as *unary*, as in the paper's table.

Kept only to agree with the analyser (not what the paper or the PTB's label set asks for): a bracket's own label,
a move's source and its destination are tested by containment (``WHNP`` is an ``NP``, ``WHADVP`` an ``ADVP``);
``PRT`` is read as ``ADVP``; *VP attachment* is a class of its own (the paper counts it in *other*); and the
phrase labels that keep an ``NP``'s children from being "words only" (:data:`PHRASE_LABELS`) hold the
analyser's ``WHAVP`` spelling, which no PTB tree has.  One difference: that list here also has ``WHADVP``, the
PTB's label, which the analyser's lacks, so an ``NP`` over a ``WHADVP`` is not "words only" here.

The classes are English PTB constructions: on other treebanks most repairs come out as
*different label*, *unary*, *single-word phrase* or *other*.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Dict, Iterable, List

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evalb import SentenceBrackets

from .repair_tree import build_tree, gold_counts
from .repairs import ADD, MOVE, RELABEL, REMOVE, Repair, RepairInfo, RepairSearch
from .tables import Table

PP_ATTACHMENT = "PP attachment"
NP_ATTACHMENT = "NP attachment"
VP_ATTACHMENT = "VP attachment"
CLAUSE_ATTACHMENT = "clause attachment"
MODIFIER_ATTACHMENT = "modifier attachment"
NP_INTERNAL = "NP-internal structure"
COORDINATION = "coordination"
UNARY = "unary"
DIFFERENT_LABEL = "different label"
SINGLE_WORD = "single-word phrase"
OTHER = "other"

#: Display order: the paper's Table 3 order (by how many errors each class accounts for there), then VP
#: attachment, which the paper counts in *other* and the analyser names on its own.
CLASSES = (PP_ATTACHMENT, SINGLE_WORD, CLAUSE_ATTACHMENT, UNARY, MODIFIER_ATTACHMENT, DIFFERENT_LABEL,
           COORDINATION, NP_ATTACHMENT, NP_INTERNAL, VP_ATTACHMENT, OTHER)

#: Phrase labels (an ``NP`` over none of them holds words only): the analyser's list, its ``WHAVP`` spelling
#: kept for agreement, with the PTB's ``WHADVP`` added.
PHRASE_LABELS = frozenset({
    "S", "SBAR", "SBARQ", "SINV", "SQ", "ADJP", "ADVP", "CONJP", "FRAG", "INTJ", "LST", "NAC", "NP", "NX", "PP",
    "PRN", "PRT", "QP", "RRC", "UCP", "VP", "WHADJP", "WHAVP", "WHADVP", "WHNP", "WHPP", "X"})
CLAUSES = ("S", "SINV", "SBAR")
COORDINATORS = ("CC",)
#: Labels the analyser renames before it classifies (Collins's rules: a particle is an adverb phrase).
ANALYSER_LABELS = {"PRT": "ADVP"}


def _any(labels: Iterable[str], wanted: Iterable[str]) -> bool:
    wanted = set(wanted)
    return any(label in wanted for label in labels)


def _within(label: str, parts: Iterable[str]) -> bool:
    """The analyser tests a bracket's own label by containment: ``WHNP`` counts as an ``NP``, ``WHADVP`` as an
    ``ADVP`` (lists of labels, such as the moved nodes, by membership)."""
    return any(part in label for part in parts)


def _move_class(info: RepairInfo) -> str:
    edges = [info.start_left[-1:], info.start_right[:1], info.end_left[-1:], info.end_right[:1],
             info.movers[:1], info.movers[-1:]]
    if any(_any(edge, COORDINATORS) for edge in edges):
        return COORDINATION
    if "PP" in info.movers:
        return PP_ATTACHMENT
    if "NP" in info.movers:
        return NP_ATTACHMENT
    if "VP" in info.movers:
        return VP_ATTACHMENT
    if _any(info.movers, CLAUSES):
        return CLAUSE_ATTACHMENT
    if _any(info.movers, ("RB", "ADVP", "ADJP")):
        return MODIFIER_ATTACHMENT
    if _within(info.old_parent, ("NP", "QP")) and _within(info.new_parent, ("NP", "QP")):
        return NP_INTERNAL
    return ""


def _analyser_labels(info: RepairInfo) -> RepairInfo:
    """``info`` with every label read as the analyser reads it (``PRT`` as ``ADVP``)."""
    def one(label: str) -> str:
        return ANALYSER_LABELS.get(label, label)

    def many(labels: List[str]) -> List[str]:
        return [one(label) for label in labels]
    return replace(info, label=one(info.label), old_label=one(info.old_label), parent=one(info.parent),
                   subtrees=many(info.subtrees), family=many(info.family), right_siblings=many(info.right_siblings),
                   movers=many(info.movers), old_parent=one(info.old_parent), new_parent=one(info.new_parent),
                   start_left=many(info.start_left), start_right=many(info.start_right),
                   end_left=many(info.end_left), end_right=many(info.end_right), also_added=one(info.also_added))


def classify(info: RepairInfo) -> str:
    """The error class of one repair (the module text gives the rules)."""
    info = _analyser_labels(info)
    if info.kind == MOVE:
        found = _move_class(info)
        if found:
            return found
    if info.over_word and info.kind != MOVE:
        return SINGLE_WORD
    if info.kind == RELABEL:
        return DIFFERENT_LABEL
    if info.kind == ADD and len(info.subtrees) == 1:
        return UNARY
    if info.kind == REMOVE and (len(info.family) == 1 or len(info.subtrees) == 1):
        return UNARY
    if info.kind not in (ADD, REMOVE):
        return OTHER
    after_first = info.subtrees[1:]
    if _within(info.label, ("UCP",)) or (info.kind == REMOVE and info.right_siblings[:1] == ["CC"]):
        return COORDINATION
    if "PP" in after_first:
        return PP_ATTACHMENT
    if _any(after_first, CLAUSES):
        return CLAUSE_ATTACHMENT
    if _within(info.parent, ("NP",)) and not _any(info.subtrees, PHRASE_LABELS):
        return NP_INTERNAL
    if _within(info.label, ("ADVP", "ADJP")) or _any(after_first, ("ADVP", "ADJP")):
        return MODIFIER_ATTACHMENT
    if info.subtrees and all(label == info.label for label in info.subtrees):
        return NP_INTERNAL if info.label == "NP" else COORDINATION
    return OTHER


@dataclass
class SentenceRepairs:
    line: int
    errors: int  # bracket errors before repair: gold + test - 2 * matched
    repairs: List[Repair] = field(default_factory=list)


def repair_sentence(sentence: SentenceBrackets, equivalent: Dict[str, str]) -> SentenceRepairs:
    """Repair one sentence's predicted tree into gold and classify every step."""
    tree = build_tree(sentence.test, sentence.test_tags)
    search = RepairSearch(tree, gold_counts(sentence.gold, equivalent), equivalent)
    result = SentenceRepairs(sentence.line, search.errors)
    for repair in search.run():
        repair.error_class = classify(repair.info)
        result.repairs.append(repair)
    return result


def error_class_table(repaired: Iterable[SentenceRepairs]) -> Table:
    """Per class: the repairs made and the bracket errors they fixed (``errors``), with its share of all errors."""
    table = Table("error_classes", "Error classes (Kummerfeld et al. 2012)", ["repairs", "errors", "share"],
                  note="errors: bracket errors (missing + extra) the class's repairs fixed; share: of all errors",
                  rates=False)
    for name in CLASSES:
        table.row(name)
    total = 0
    for sentence in repaired:
        total += sentence.errors
        for repair in sentence.repairs:
            row = table.row(repair.error_class)
            row.extra["repairs"] = row.extra.get("repairs", 0) + 1
            row.extra["errors"] = row.extra.get("errors", 0) + repair.fixed
    for row in table.rows:
        row.gold = total  # the denominator of ``share``
        row.extra["share"] = row.extra.get("errors", 0)
    table.columns = ["repairs", "errors", "pct:share"]
    return table
