"""Greedy repair of a predicted tree into the gold one (Kummerfeld et al. 2012, Section 3).

The bracket errors of a tree are the brackets it has that gold lacks (extra) and the gold brackets
it lacks (missing), counted as multisets of ``(start, end, label)`` keys: ``Σ |test - gold|`` over
keys, which is evalb's ``gold + test - 2 * matched``.  Each step applies the one transformation
that removes the most errors, among:

* **relabel** an extra bracket whose span a missing bracket has;
* **add** a missing bracket that crosses no bracket of the tree (over a run of one node's children;
  above the highest bracket of the same span when there is one);
* **remove** an extra bracket (its children go to its parent);
* **move** a run of a node's children (not all of them) to another bracket: down into an extra
  bracket at the end of the left neighbour's right edge (or the start of the right neighbour's
  left edge); or, when the source bracket is extra and the run is at its edge, out into an extra
  bracket that ends where the run starts (starts where it ends), or up to the source's parent and
  on to each further ancestor that shares the run's edge with the source.

The rules follow the original analyser, the Berkeley Parser Analyser of Kummerfeld et al. (2012, "Parser
Showdown at the Wall Street Corral: An Empirical Investigation of Error Types in Parser Output", EMNLP 2012;
``jkkummerfeld/berkeley-parser-analyser``, Copyright (c) 2014 Jonathan K. Kummerfeld, ISC licence), and its
candidate order: this is a re-implementation of its search, written here, checked step by step against it
(``benchmarks/error_classes_vs_analyser.py``), ties included.  Ties go to the first candidate in that order: relabels (missing brackets by span, ties in gold tree order; then extra
brackets by span, ties in tree order), adds, removes (extra brackets in the same order; a relabel or a
removal acts on the highest bracket with the key), moves (sources in tree order; targets down left,
down right, out left, out right, up left, up right).  Removing an extra bracket or adding a missing
one always removes one error, so every step makes progress and the search ends with the gold
brackets after at most as many steps as there were errors; the errors each step removed add up to
the sentence's errors.

A move does up to two more things in the same step, both counted in its errors and its class: when
it leaves the source with one child of the source's label (an X over X), the lower bracket goes; and
it adds the smallest gold bracket still missing after it that holds the moved nodes (and more)
within their new parent (none when the new parent is the bracket collapsed: the analyser then reads
that bracket's old span, which cannot hold them).

Kept only to agree with the analyser: the candidate order and its ties (any order reaches the gold brackets,
but the steps, and so the classes, differ); the bracket a move adds in the same step, and none added where the
new parent is the collapsed bracket; and an added bracket going above the highest bracket of its span.

Moves are scored without being applied: only the brackets on the paths from the source and the
target up to their lowest common ancestor change span, and the change in errors is summed over
their keys.  Cost per step: O(candidates · depth); a sentence of n words has O(n² · depth) moves.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Tuple

from .repair_tree import Key, Node, lowest_common_ancestor

RELABEL, ADD, REMOVE, MOVE = "relabel", "add", "remove", "move"


@dataclass
class RepairInfo:
    """What a repair did, in the terms the classifier reads (labels are cut labels; words give their tags)."""

    kind: str  # relabel | add | remove | move
    label: str = ""  # the bracket added, removed or relabelled (its new label)
    old_label: str = ""  # relabel: the label it had
    parent: str = ""  # the bracket's parent
    subtrees: List[str] = field(default_factory=list)  # the bracket's children
    family: List[str] = field(default_factory=list)  # remove: the parent's children, the bracket among them
    right_siblings: List[str] = field(default_factory=list)  # remove: the parent's children after the bracket
    over_word: bool = False  # the bracket holds a single word
    movers: List[str] = field(default_factory=list)  # move: the nodes moved
    old_parent: str = ""
    new_parent: str = ""
    start_left: List[str] = field(default_factory=list)  # move: siblings left of the run at its source
    start_right: List[str] = field(default_factory=list)
    end_left: List[str] = field(default_factory=list)  # move: siblings left of the run at its destination
    end_right: List[str] = field(default_factory=list)
    span: Tuple[int, int] = (0, 0)
    also_added: str = ""  # move: the label of the missing bracket added at the destination in the same step


@dataclass
class Repair:
    """One step of the search: what it did, how many bracket errors it removed, and its error class."""

    info: RepairInfo
    fixed: int
    error_class: str = ""


def _labels(nodes: List[Node]) -> List[str]:
    return [n.label for n in nodes]


class RepairSearch:
    """The search on one sentence: the current tree, the gold key counts and the current ones."""

    def __init__(self, tree: Node, gold: Counter, equivalent: Dict[str, str]) -> None:
        self.tree = tree
        self.gold = gold
        self.gold_spans: Dict[Tuple[int, int], List[str]] = {}
        for start, end, label in gold:  # the labels of a span in the gold tree's order
            self.gold_spans.setdefault((start, end), []).append(label)
        self.equivalent = equivalent
        self._recount()

    # -- errors ---------------------------------------------------------------------------------
    def key(self, label: str, start: int, end: int) -> Key:
        return (start, end, self.equivalent.get(label, label))

    def _recount(self) -> None:
        self.tree.refresh()
        self.counts: Counter = Counter(self.key(n.label, n.start, n.end) for n in self.tree.brackets())
        keys = set(self.counts) | set(self.gold)
        self.errors = sum(abs(self.counts[k] - self.gold[k]) for k in keys)

    def is_extra(self, node: Node) -> bool:
        key = self.key(node.label, node.start, node.end)
        return not node.is_word and not node.is_root and self.counts[key] > self.gold[key]

    def missing(self) -> List[Key]:
        """Missing keys, one entry per missing bracket, by span (ties in the gold tree's order)."""
        out: List[Key] = []
        for key in sorted(self.gold, key=lambda k: (k[0], k[1])):  # stable: ties in gold tree order
            out.extend([key] * max(0, self.gold[key] - self.counts[key]))
        return out

    def fixed_by(self, removed: List[Key], added: List[Key]) -> int:
        """How many errors fewer there are after the keys ``removed`` go and ``added`` come."""
        change: Dict[Key, int] = {}
        for key in removed:
            change[key] = change.get(key, 0) - 1
        for key in added:
            change[key] = change.get(key, 0) + 1
        counts, gold = self.counts, self.gold
        delta = 0
        for key, c in change.items():
            if c:
                now, want = counts.get(key, 0), gold.get(key, 0)
                delta += abs(now + c - want) - abs(now - want)
        return -delta

    # -- candidates -------------------------------------------------------------------------------
    def extra_brackets(self) -> List[Node]:
        """One bracket per extra key occurrence, as the analyser lists them: the tree's brackets sorted by
        ``(start, end)`` (ties in tree order), each key's first ``gold`` occurrences matched and the rest extra;
        each extra occurrence stands for the highest bracket with its key, the one a relabel or removal acts on."""
        ordered = sorted(self.tree.brackets(), key=lambda n: (n.start, n.end))
        highest: Dict[Key, Node] = {}
        for node in self.tree.brackets():
            highest.setdefault(self.key(node.label, node.start, node.end), node)
        left = Counter(self.gold)
        out: List[Node] = []
        for node in ordered:
            key = self.key(node.label, node.start, node.end)
            if left[key] > 0:
                left[key] -= 1
            else:
                out.append(highest[key])
        return out

    def candidates(self) -> Iterator[Tuple[int, Any, tuple]]:
        """``(errors fixed, info, action)`` for every candidate, in tie-breaking order; a move's ``info`` is a
        function that describes it (called for the move chosen only), None when the move removes no error."""
        extras = self.extra_brackets()
        missing = self.missing()
        for key in missing:
            for node in extras:
                if (node.start, node.end) == key[:2]:
                    old = self.key(node.label, node.start, node.end)
                    info = RepairInfo(RELABEL, label=key[2], old_label=node.label, parent=node.parent.label,
                                      subtrees=_labels(node.children), span=key[:2],
                                      over_word=len(node.children) == 1 and node.children[0].is_word)
                    yield self.fixed_by([old], [key]), info, (RELABEL, node, key[2])
        for key in dict.fromkeys(missing):
            place = self._add_place(key[0], key[1])
            if place is None:
                continue
            parent, first, last = place
            covered = parent.children[first:last + 1]
            info = RepairInfo(ADD, label=key[2], parent=parent.label, subtrees=_labels(covered), span=key[:2],
                              over_word=len(covered) == 1 and covered[0].is_word)
            yield self.fixed_by([], [key]), info, (ADD, parent, first, last, key[2])
        for node in extras:
            parent = node.parent
            index = parent.children.index(node)
            info = RepairInfo(REMOVE, label=node.label, parent=parent.label, subtrees=_labels(node.children),
                              family=_labels(parent.children), right_siblings=_labels(parent.children[index + 1:]),
                              over_word=len(node.children) == 1 and node.children[0].is_word, span=(node.start, node.end))
            yield self.fixed_by([self.key(node.label, node.start, node.end)], []), info, (REMOVE, node)
        extra_nodes = [n for n in self.tree.brackets() if self.is_extra(n)]  # every bracket of an extra key
        ends: Dict[int, List[Node]] = {}
        starts: Dict[int, List[Node]] = {}
        for node in extra_nodes:
            ends.setdefault(node.end, []).append(node)
            starts.setdefault(node.start, []).append(node)
        extra_ids = {id(node) for node in extra_nodes}
        for source in [self.tree] + list(self.tree.brackets()):
            yield from self._moves(source, extra_ids, ends, starts)

    def _add_place(self, start: int, end: int) -> Optional[Tuple[Node, int, int]]:
        """Where a bracket over ``[start, end)`` goes: (parent, first child, last child), or None if it crosses.

        Over brackets of the same span it goes above the highest of them, as the analyser adds it."""
        node = self.tree
        while True:
            inner = next((c for c in node.children if not c.is_word and c.start <= start and end <= c.end), None)
            if inner is None:
                break
            if (inner.start, inner.end) == (start, end):  # a unary above the highest such bracket
                index = node.children.index(inner)
                return node, index, index
            node = inner
        first = next((i for i, c in enumerate(node.children) if c.start == start), None)
        last = next((i for i, c in enumerate(node.children) if c.end == end), None)
        if first is None or last is None or last < first:
            return None
        return node, first, last

    def _moves(self, source: Node, extra_ids: set, ends: Dict[int, List[Node]],
               starts: Dict[int, List[Node]]) -> Iterator[Tuple[int, Any, tuple]]:
        """Moves of runs of ``source``'s children (``extra_ids``: the extra brackets; ``ends``/``starts``: them
        by their end and start)."""
        children = source.children
        count = len(children)
        source_extra = id(source) in extra_ids
        for left in range(count):
            for right in range(left, count):
                if left == 0 and right == count - 1:
                    continue
                targets: List[Tuple[Node, bool]] = []  # (new parent, the run goes at its end)
                if left > 0:
                    node = children[left - 1]
                    while not node.is_word:
                        if id(node) in extra_ids:
                            targets.append((node, True))
                        node = node.children[-1]
                if right < count - 1:
                    node = children[right + 1]
                    while not node.is_word:
                        if id(node) in extra_ids:
                            targets.append((node, False))
                        node = node.children[0]
                if source_extra and left == 0:  # out to the left
                    targets.extend((n, True) for n in ends.get(children[0].start, ()))
                if source_extra and right == count - 1:  # out to the right
                    targets.extend((n, False) for n in starts.get(children[-1].end, ()))
                if source_extra and left == 0:
                    targets.extend((a, False) for a in self._ancestors_up(source, left_edge=True))
                if source_extra and right == count - 1:
                    targets.extend((a, True) for a in self._ancestors_up(source, left_edge=False))
                for target, at_end in targets:
                    yield self._move_candidate(source, left, right, target, at_end)

    @staticmethod
    def _ancestors_up(source: Node, left_edge: bool) -> Iterator[Node]:
        """Ancestors (not the root) a run at ``source``'s edge can move up to: its parent, then each further
        ancestor while it shares that edge with ``source`` (as the analyser offers them)."""
        node = source.parent
        while node is not None and not node.is_root:
            yield node
            above = node.parent
            if above is None or (above.start != source.start if left_edge else above.end != source.end):
                break
            node = above

    def _move_candidate(self, source: Node, left: int, right: int, target: Node,
                        at_end: bool) -> Tuple[int, Any, tuple]:
        run = source.children[left:right + 1]
        begin, finish = run[0].start, run[-1].end
        top = lowest_common_ancestor(source, target)
        removed: List[Key] = []
        added: List[Key] = []
        if top is not target:  # the target and the brackets above it grow by the run
            for node in target.path_up():
                if node is top:
                    break
                removed.append(self.key(node.label, node.start, node.end))
                added.append(self.key(node.label, begin, node.end) if not at_end else
                             self.key(node.label, node.start, finish))
        for node in source.path_up():  # the source and the brackets above it lose the run
            if node is top:
                break
            removed.append(self.key(node.label, node.start, node.end))
            added.append(self.key(node.label, finish, node.end) if node.start == begin else
                         self.key(node.label, node.start, begin))
        collapsed = self._collapsed(source, left, right)
        if collapsed is not None:  # the X over X left at the source goes with the move
            new_span = (source.start, source.end) if top is source else \
                ((finish, source.end) if source.start == begin else (source.start, begin))
            removed.append(self.key(collapsed.label, *new_span))
        also = None
        if collapsed is not target:  # (the analyser reads the collapsed target's old span: nothing fits in it)
            also = self._also_added(source, run, target, top, at_end, removed, added)
        if also is not None:
            added.append(also)
        fixed = self.fixed_by(removed, added)
        action = (MOVE, source, left, right, target, at_end, also)
        if fixed <= 0:  # never chosen (a step must remove errors): no need to describe it
            return fixed, None, action

        def describe() -> RepairInfo:  # only for the move chosen, before it is applied
            if top is target:  # moved up: placed beside the child that holds the source
                holder = next(c for c in target.children if c.start <= source.start and source.end <= c.end)
                index = target.children.index(holder) + (1 if at_end else 0)
                end_left, end_right = target.children[:index], target.children[index:]
            else:
                end_left, end_right = (target.children, []) if at_end else ([], target.children)
            return RepairInfo(MOVE, movers=_labels(run), old_parent=source.label, new_parent=target.label,
                              start_left=_labels(source.children[:left]),
                              start_right=_labels(source.children[right + 1:]),
                              end_left=_labels(end_left), end_right=_labels(end_right), span=(begin, finish),
                              also_added=also[2] if also else "")
        return fixed, describe, action

    def _collapsed(self, source: Node, left: int, right: int) -> Optional[Node]:
        """The bracket a move of ``source``'s children ``left..right`` leaves as ``source``'s only child with
        ``source``'s label (an X over X), which the analyser collapses in the same step; None otherwise."""
        if len(source.children) - (right - left + 1) != 1:
            return None
        remaining = source.children[-1] if left == 0 else source.children[0]
        if remaining.is_word or self.equivalent.get(remaining.label, remaining.label) != \
                self.equivalent.get(source.label, source.label):
            return None
        return remaining

    def _also_added(self, source: Node, run: List[Node], target: Node, top: Node, at_end: bool,
                    removed: List[Key], added: List[Key]) -> Optional[Key]:
        """The missing bracket a move adds at its destination in the same step, as the original analyser does:
        the smallest gold bracket still missing after the move that holds the moved nodes (more than them) and
        lies within the new parent, over a run of its children; None when there is none."""
        begin, finish = run[0].start, run[-1].end
        moved = [(n.start, n.end) for n in run]
        if top is target:  # the child of the target that holds the source shrinks by the run
            holder = next(c for c in target.children if c.start <= source.start and source.end <= c.end)
            index = target.children.index(holder)
            shrunk = (finish, holder.end) if holder.start == begin else (holder.start, begin)
            before = [(c.start, c.end) for c in target.children[:index]]
            after = [(c.start, c.end) for c in target.children[index + 1:]]
            spans = before + ([shrunk] + moved if at_end else moved + [shrunk]) + after
        else:
            old = [(c.start, c.end) for c in target.children]
            spans = old + moved if at_end else moved + old
        starts = [a for a, _ in spans if a <= begin]
        ends = [b for _, b in spans if b >= finish]
        change: Dict[Key, int] = {}
        for key in removed:
            change[key] = change.get(key, 0) - 1
        for key in added:
            change[key] = change.get(key, 0) + 1
        best: Optional[Key] = None
        for start in starts:
            for end in ends:
                if (start, end) == (begin, finish):
                    continue
                for label in self.gold_spans.get((start, end), ()):
                    key = (start, end, label)
                    if self.counts.get(key, 0) + change.get(key, 0) < self.gold[key]:
                        if best is None or end - start < best[1] - best[0]:  # ties: the first in gold order
                            best = key
        return best

    # -- applying ---------------------------------------------------------------------------------
    def apply(self, action: tuple) -> None:
        kind = action[0]
        if kind == RELABEL:
            action[1].label = action[2]
        elif kind == ADD:
            _, parent, first, last, label = action
            node = Node(label, parent.children[first:last + 1])
            node.parent = parent
            parent.children[first:last + 1] = [node]
        elif kind == REMOVE:
            node = action[1]
            parent = node.parent
            index = parent.children.index(node)
            for child in node.children:
                child.parent = parent
            parent.children[index:index + 1] = node.children
        else:
            _, source, left, right, target, at_end, also = action
            collapsed = self._collapsed(source, left, right)
            run = source.children[left:right + 1]
            del source.children[left:right + 1]
            if target in list(source.path_up()):  # up: beside the child holding the source
                holder = next(n for n in source.path_up() if n.parent is target)
                index = target.children.index(holder) + (1 if at_end else 0)
            else:
                index = len(target.children) if at_end else 0
            target.children[index:index] = run
            for node in run:
                node.parent = target
            if collapsed is not None:  # the X over X left at the source: the lower X goes
                for child in collapsed.children:
                    child.parent = source
                source.children[:] = collapsed.children
            if also is not None:  # and the missing bracket at the destination
                self.tree.refresh()
                place = self._add_place(also[0], also[1])
                assert place is not None, ("the bracket added with a move crosses the tree", also)
                parent, first, last = place
                self.apply((ADD, parent, first, last, also[2]))
                return
        self._recount()

    def step(self) -> Optional[Repair]:
        """Apply the best repair; None when the tree has no error left."""
        if self.errors == 0:
            return None
        best: Optional[Tuple[int, RepairInfo, tuple]] = None
        for candidate in self.candidates():
            if best is None or candidate[0] > best[0]:
                best = candidate
        assert best is not None and best[0] > 0, "a tree with errors always has a repair that removes one"
        info = best[1]() if callable(best[1]) else best[1]
        before = self.errors
        self.apply(best[2])
        assert before - self.errors == best[0], (before, self.errors, info)
        return Repair(info, best[0])

    def run(self) -> List[Repair]:
        repairs: List[Repair] = []
        while (repair := self.step()) is not None:
            repairs.append(repair)
        return repairs
