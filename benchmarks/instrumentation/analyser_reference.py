"""mlparse's error classes beside the Berkeley Parser Analyser's, on the analyser's own sample data.

The analyser (Kummerfeld et al. 2012, ``jkkummerfeld/berkeley-parser-analyser``, ISC licence) is not
part of this repository, nor are its sample parses (13 parsers' output on 10 Wall Street Journal
sentences, ``sample_data/*.mrg``, with the gold trees in ``sample_data/wsj01.mrg``): the WSJ text is
LDC-licensed and the analyser's repository states no terms for it, so neither the trees nor the
analyser's output on them (which prints the trees) are stored here.  Both sides are computed from a
copy kept outside the repository (``git clone`` of the analyser; it runs on Python 3):

* the original: ``berkeley_parse_analyser/classify_english.py GOLD TEST PREFIX`` run as a program in a
  temporary folder; its ``PREFIX.out`` lists, per sentence, each step as ``<errors fixed> Error:<class>``;
* mlparse: the same two files through evalb's bracket view (``COLLINS.prm``, the analyser's own
  Collins-style cleanup: punctuation and empty elements out, function tags cut, ``PRT`` equal to
  ``ADVP``) and :func:`mlparse.compare.breakdowns.error_classes.repair_sentence`.  The sample trees are
  rooted in ``(ROOT …)``, which is read as evalb's deleted ``TOP``.

A sentence agrees when both sides credit the same number of bracket errors to every class.

:func:`compare_predictions` does the same for a run's prediction file against its gold file.  The sample is
small (130 sentence pairs), so :func:`perturbed_pairs` makes more: WSJ trees of the PTB
sample (``../shared/treebanks/ptb-sample``: empty elements and function tags taken out first, so both
sides start from the same brackets) with one to four (or more) random changes each (a relabel, a bracket
removed, a bracket added over a run of siblings, an edge child moved into its neighbour or up a level).
Used by ``benchmarks/error_classes_vs_analyser.py`` and ``tests/test_error_classes_reference.py``.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from evalb import equivalent_label, load_params, sentence_brackets

from mlparse.compare.breakdowns import error_classes as ec
from mlparse.trees.reader import parse_bracketed, read_bracketed_file
from mlparse.trees.tree import Leaf, Tree

GOLD_NAME = "wsj01.mrg"
SCRIPT = Path("berkeley_parse_analyser") / "classify_english.py"

#: The analyser's class names, in mlparse's terms (its X-over-X unaries are unaries; an unclassified
#: step, ``UNSET <kind>``, is *other*).
ANALYSER_CLASSES: Dict[str, str] = {
    "PP Attachment": ec.PP_ATTACHMENT,
    "NP Attachment": ec.NP_ATTACHMENT,
    "VP Attachment": ec.VP_ATTACHMENT,
    "Clause Attachment": ec.CLAUSE_ATTACHMENT,
    "Modifier Attachment": ec.MODIFIER_ATTACHMENT,
    "NP Internal Structure": ec.NP_INTERNAL,
    "Co-ordination": ec.COORDINATION,
    "Unary": ec.UNARY,
    "XoverX Unary": ec.UNARY,
    "Different label": ec.DIFFERENT_LABEL,
    "Single Word Phrase": ec.SINGLE_WORD,
}

Steps = List[Tuple[str, int]]  # (class, bracket errors fixed), in the order taken


class ReferenceMissing(Exception):
    """The folder given is not a copy of the analyser with its sample data."""


@dataclass
class SentenceComparison:
    parser: str
    line: int
    errors: int  # bracket errors at the start (mlparse's count)
    ours: Steps
    theirs: Steps

    @property
    def agrees(self) -> bool:
        return _by_class(self.ours) == _by_class(self.theirs)


@dataclass
class Agreement:
    sentences: List[SentenceComparison] = field(default_factory=list)

    @property
    def agreeing(self) -> int:
        return sum(s.agrees for s in self.sentences)

    def totals(self, side: str) -> Counter:
        """Bracket errors per class over every sentence (``side``: ``ours`` or ``theirs``)."""
        total: Counter = Counter()
        for sentence in self.sentences:
            total.update(_by_class(getattr(sentence, side)))
        return total

    def repairs(self, side: str) -> Counter:
        return Counter(name for s in self.sentences for name, _ in getattr(s, side))

    def differing(self) -> List[SentenceComparison]:
        return [s for s in self.sentences if not s.agrees]


def _by_class(steps: Steps) -> Counter:
    total: Counter = Counter()
    for name, fixed in steps:
        total[name] += fixed
    return total


def analyser_class(name: str) -> str:
    if name.startswith("UNSET"):
        return ec.OTHER
    if name not in ANALYSER_CLASSES:
        raise ValueError(f"unknown class in the analyser's output: {name!r}")
    return ANALYSER_CLASSES[name]


def check_reference(folder: Path) -> None:
    if not (folder / SCRIPT).is_file() or not (folder / "sample_data" / GOLD_NAME).is_file():
        raise ReferenceMissing(f"{folder} holds no {SCRIPT} and sample_data/{GOLD_NAME}: not a copy of "
                               "jkkummerfeld/berkeley-parser-analyser")


def parsers(folder: Path) -> List[str]:
    """The sample parsers' names (their ``.mrg`` files beside the gold file), sorted."""
    return sorted(p.stem for p in (folder / "sample_data").glob("*.mrg") if p.name != GOLD_NAME)


def read_analyser_output(text: str) -> List[Steps]:
    """Per sentence (in order), the steps of the analyser's ``.out`` file."""
    sentences: List[Steps] = []
    for line in text.splitlines():
        if re.fullmatch(r"Sentence \d+:", line):
            sentences.append([])
            continue
        step = re.fullmatch(r"(\d+) Error:(.*)", line)
        if step and sentences:
            sentences[-1].append((analyser_class(step.group(2)), int(step.group(1))))
    return sentences


def run_analyser(folder: Path, gold: Path, test: Path, python: str = sys.executable) -> List[Steps]:
    """Run the original ``classify_english.py`` on one file pair; its steps per sentence."""
    with tempfile.TemporaryDirectory(prefix="bpa-") as work:
        prefix = Path(work) / "classified"
        done = subprocess.run([python, str(folder / SCRIPT), str(gold), str(test), str(prefix)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            last = done.stderr.strip().splitlines()[-1:] or ["no message"]
            raise RuntimeError(f"the analyser failed on {test} (exit status {done.returncode}): {last[0]}")
        return read_analyser_output(prefix.with_suffix(".out").read_text(encoding="utf-8"))


def as_top(line: str) -> str:
    """A ``(ROOT …)`` tree as evalb's ``(TOP …)``, whose bracket the parameter file deletes."""
    return re.sub(r"^\s*\(ROOT\b", "(TOP", line)


def run_mlparse(gold: Path, test: Path, params: str = "COLLINS") -> List[Tuple[int, Steps]]:
    """mlparse's (bracket errors, steps) per sentence of one file pair."""
    gold_lines = [as_top(line) for line in gold.read_text(encoding="utf-8").splitlines() if line.strip()]
    test_lines = [as_top(line) for line in test.read_text(encoding="utf-8").splitlines() if line.strip()]
    equivalent = equivalent_label(load_params(params))
    out: List[Tuple[int, Steps]] = []
    for sentence in sentence_brackets(gold_lines, test_lines, params):
        repaired = ec.repair_sentence(sentence, equivalent)
        out.append((repaired.errors, [(r.error_class, r.fixed) for r in repaired.repairs]))
    return out


def compare_files(folder: Path, gold: Path, test: Path, name: str, agreement: Agreement,
                  python: str = sys.executable) -> None:
    """Both classifications of one file pair (one ``(ROOT …)`` tree a line), added to ``agreement``."""
    theirs = run_analyser(folder, gold, test, python)
    ours = run_mlparse(gold, test)
    if len(theirs) != len(ours):
        raise ValueError(f"{test}: the analyser read {len(theirs)} sentences, mlparse {len(ours)}")
    for line, ((errors, our_steps), their_steps) in enumerate(zip(ours, theirs), start=1):
        agreement.sentences.append(SentenceComparison(name, line, errors, our_steps, their_steps))


def compare(folder: Path, only: Optional[Sequence[str]] = None, python: str = sys.executable) -> Agreement:
    """Both classifications of every sample parser's output (or of the parsers ``only`` names)."""
    check_reference(folder)
    gold = folder / "sample_data" / GOLD_NAME
    agreement = Agreement()
    for parser in only or parsers(folder):
        compare_files(folder, gold, folder / "sample_data" / f"{parser}.mrg", parser, agreement, python)
    return agreement


# -- perturbed WSJ trees -------------------------------------------------------------------------------
PERTURB_LABELS = ("NP", "VP", "PP", "S", "SBAR", "ADJP", "ADVP", "QP", "PRT", "UCP", "NX")


def _clean(node: Tree) -> Optional[Tree]:
    """``node`` without empty elements, function tags and brackets left empty (None when nothing is left)."""
    children: List = []
    for child in node.children:
        if isinstance(child, Leaf):
            if child.tag != "-NONE-":
                children.append(child)
        else:
            kept = _clean(child)
            if kept is not None:
                children.append(kept)
    if not children:
        return None
    label = node.label if node.label.startswith("-") else re.split(r"[-=]", node.label)[0]
    return Tree(label, children)


def _phrases(tree: Tree) -> List[Tuple[Tree, Optional[Tree]]]:
    """(bracket, its parent) for every bracket below the root."""
    out: List[Tuple[Tree, Optional[Tree]]] = []
    stack: List[Tuple[Tree, Optional[Tree]]] = [(tree, None)]
    while stack:
        node, parent = stack.pop()
        if parent is not None:
            out.append((node, parent))
        stack.extend((c, node) for c in node.children if isinstance(c, Tree))
    return out


def _perturb_once(tree: Tree, rng: random.Random) -> None:
    phrases = _phrases(tree)
    kind = rng.choice(("relabel", "remove", "add", "move"))
    if kind == "relabel" and phrases:
        rng.choice(phrases)[0].label = rng.choice(PERTURB_LABELS)
    elif kind == "remove" and len(phrases) > 1:
        node, parent = rng.choice(phrases[1:])  # never the sentence's top bracket
        index = parent.children.index(node)
        parent.children[index:index + 1] = node.children
    elif kind == "add":
        parents = [n for n, _ in phrases if len(n.children) > 2]
        if parents:
            node = rng.choice(parents)
            first = rng.randrange(len(node.children) - 1)
            last = rng.randrange(first + 1, min(len(node.children), first + 1 + len(node.children) - 1))
            if last - first + 1 < len(node.children):
                node.children[first:last + 1] = [Tree(rng.choice(PERTURB_LABELS), node.children[first:last + 1])]
    elif kind == "move":
        choices = [(n, p) for n, p in phrases if len(n.children) > 1]
        if choices:
            node, parent = rng.choice(choices)
            at_end = rng.random() < 0.5
            child = node.children.pop() if at_end else node.children.pop(0)
            index = parent.children.index(node)
            neighbour_index = index + 1 if at_end else index - 1
            neighbour = parent.children[neighbour_index] if 0 <= neighbour_index < len(parent.children) else None
            if isinstance(neighbour, Tree) and rng.random() < 0.5:  # into the neighbour, at its near edge
                neighbour.children.insert(0 if at_end else len(neighbour.children), child)
            else:  # up, beside the bracket it left
                parent.children.insert(index + 1 if at_end else index, child)


def _as_root_line(tree: Tree) -> str:
    return f"(ROOT {' '.join(c.to_bracketed() for c in tree.children)})"


def perturbed_pairs(treebank: Path, count: int, seed: int = 1, changes: int = 4,
                    max_words: int = 30) -> Tuple[List[str], List[str]]:
    """``count`` (gold, test) lines: cleaned WSJ trees of at most ``max_words`` words from the ``.mrg`` files
    under ``treebank``, each test tree the gold one with one to ``changes`` random changes (at least one
    bracket error)."""
    trees: List[Tree] = []
    for path in sorted(treebank.rglob("*.mrg")):
        for tree in read_bracketed_file(path).trees:
            cleaned = _clean(tree)
            if cleaned is not None and len(cleaned) <= max_words and any(
                    isinstance(c, Tree) for c in cleaned.children):
                trees.append(cleaned)
    rng = random.Random(seed)
    gold: List[str] = []
    test: List[str] = []
    while len(gold) < count:
        tree = rng.choice(trees)
        changed = tree.copy()
        for _ in range(rng.randint(1, changes)):
            _perturb_once(changed, rng)
        if changed.to_bracketed() != tree.to_bracketed():
            gold.append(_as_root_line(tree))
            test.append(_as_root_line(changed))
    return gold, test


def compare_lines(folder: Path, gold: Sequence[str], test: Sequence[str], name: str, agreement: Agreement,
                  python: str = sys.executable) -> None:
    """:func:`compare_files` on trees given as lines (written to a temporary folder for the analyser)."""
    with tempfile.TemporaryDirectory(prefix="bpa-lines-") as work:
        gold_path, test_path = Path(work) / "gold.mrg", Path(work) / "test.mrg"
        gold_path.write_text("\n".join(gold) + "\n", encoding="utf-8")
        test_path.write_text("\n".join(test) + "\n", encoding="utf-8")
        compare_files(folder, gold_path, test_path, name, agreement, python)


def compare_perturbed(folder: Path, treebank: Path, count: int, seed: int = 1, changes: int = 4,
                      python: str = sys.executable) -> Agreement:
    """Both classifications of :func:`perturbed_pairs`."""
    check_reference(folder)
    gold, test = perturbed_pairs(treebank, count, seed, changes)
    agreement = Agreement()
    compare_lines(folder, gold, test, "perturbed", agreement, python)
    return agreement


def compare_predictions(folder: Path, gold: Path, pred: Path, python: str = sys.executable) -> Tuple[Agreement, int]:
    """Both classifications of a prediction file against its gold file (one tree a line, as ``mlparse`` writes
    them), and how many sentences were left out: those whose predicted tree has no single bracket under its
    root, on which the analyser stops (it relabels the root and looks for the root's parent)."""
    check_reference(folder)
    gold_lines = [line for line in gold.read_text(encoding="utf-8").splitlines() if line.strip()]
    pred_lines = [line for line in pred.read_text(encoding="utf-8").splitlines() if line.strip()]
    if len(gold_lines) != len(pred_lines):
        raise ValueError(f"{pred}: {len(pred_lines)} trees, but {gold} has {len(gold_lines)}")
    keep = [i for i, line in enumerate(pred_lines) if len(parse_bracketed(line).trees[0].children) == 1]
    agreement = Agreement()
    compare_lines(folder, [gold_lines[i] for i in keep], [pred_lines[i] for i in keep], pred.parent.name,
                  agreement, python)
    for sentence in agreement.sentences:  # lines of the prediction file
        sentence.line = keep[sentence.line - 1] + 1
    return agreement, len(pred_lines) - len(keep)
