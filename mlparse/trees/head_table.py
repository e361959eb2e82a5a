"""Head tables: which child of a phrase holds the phrase's head word, as data in a YAML file.

A head table is one YAML file (the bundled ones are in ``mlparse/trees/head_tables/``, one
file per table, named ``<name>.yaml``), so a language brings its own table without code::

    name: collins-ptb                      # the name the catalog uses (heads: collins-ptb)
    description: free text
    punctuation: [",", ".", ":", "``", "''"]   # child labels never chosen as head (see below)
    coordination: [CC]                     # optional: the coordination rule (see below)
    default:                               # the rule of a label the table does not list
      - {from: left}
    rules:
      ADJP:                                # a rule: steps tried in order
        - {from: left, priority: [NNS, QP, NN, $, ADVP, JJ]}
        - {from: left}
      NP:
        - {from: right, any: [NN, NNP, NNPS, NNS, NX, POS, JJR]}
        - {from: left, any: [NP]}
        - {from: right}

A *step* searches the children of a phrase from one side (``from: left`` scans left to
right, ``from: right`` right to left) and gives

* ``priority: [A, B, ...]``: for each category in list order, the first child (from that
  side) whose label is that category -- A anywhere beats B anywhere;
* ``any: [A, B, ...]``: the first child (from that side) whose label is any of them;
* neither: the first child from that side (always succeeds).

The first step that finds a child wins; the last step of every rule must be one with
neither list, so that every phrase gets a head.  A child's label is its phrase label, or
its POS tag for a word.  Labels are matched exactly (function tags are stripped before
head finding runs).

``punctuation``: children with these labels are removed from the search, and so also from
the coordination rule, unless every child is punctuation (then all are searched).

``coordination: [CC, ...]``: once the rule has chosen the child at position ``h`` of the
searched children, if ``h >= 2`` and the child at ``h - 1`` is one of these labels, the
child at ``h - 2`` becomes the head (the first conjunct of ``X CC X`` heads it).

:func:`load_head_table` reads and validates a file; every error is a :class:`HeadTableError`
naming the file and line.  :func:`bundled_head_table` finds a bundled table by name.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, FrozenSet, List, Optional, Tuple, Union

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

#: Folder of the tables shipped with mlparse (package data).
BUNDLED_TABLES = Path(__file__).resolve().parent / "head_tables"

TABLE_KEYS = ("name", "description", "punctuation", "coordination", "default", "rules")
STEP_KEYS = ("from", "priority", "any")
SIDES = ("left", "right")


class HeadTableError(ValueError):
    """A head table file that cannot be used, at ``source:line``."""

    def __init__(self, detail: str, source: str, line: Optional[int] = None) -> None:
        self.detail = detail
        self.source = source
        self.line = line
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: head table: {detail}")


@dataclass(frozen=True)
class SearchStep:
    """One step of a rule: search the children ``from`` one side for ``categories``.

    ``mode`` is ``"priority"`` (category-major), ``"any"`` (child-major) or ``"first"``
    (no categories: the first child from that side).
    """

    side: str
    mode: str
    categories: Tuple[str, ...] = ()


@dataclass(frozen=True)
class HeadTable:
    """A parsed head table (see the module doc); ``rules`` maps a phrase label to its steps."""

    name: str
    description: str
    punctuation: FrozenSet[str]
    coordination: FrozenSet[str]
    default: Tuple[SearchStep, ...]
    rules: Dict[str, Tuple[SearchStep, ...]]
    source: str = "<string>"
    #: ``find`` results by (label, child labels): a treebank repeats few distinct rules.
    _cache: Dict[Tuple[str, Tuple[str, ...]], Tuple[int, int]] = field(
        default_factory=dict, compare=False, repr=False)

    def rule(self, label: str) -> Tuple[SearchStep, ...]:
        """The steps for a phrase labelled ``label`` (the default rule when it is not listed)."""
        return self.rules.get(label, self.default)

    def find(self, label: str, children: Tuple[str, ...]) -> Tuple[int, int]:
        """``(head child index, step index)`` for a phrase ``label`` with child labels ``children``.

        The step index says which step of the rule chose the child (``len(rule)`` when the
        coordination rule then moved the head to the first conjunct).
        """
        key = (label, children)
        found = self._cache.get(key)
        if found is None:
            found = self._find(label, children)
            if len(self._cache) < 200_000:
                self._cache[key] = found
        return found

    def _find(self, label: str, children: Tuple[str, ...]) -> Tuple[int, int]:
        punctuation = self.punctuation
        searched = [k for k, child in enumerate(children) if child not in punctuation] or list(range(len(children)))
        steps = self.rules.get(label, self.default)
        for number, step in enumerate(steps):
            found = _search(step, searched, children)
            if found is not None:
                break
        else:  # pragma: no cover - the loader requires a last step that always finds a child
            raise AssertionError(f"rule for {label!r} found no head")
        if self.coordination:
            position = searched.index(found)
            if position >= 2 and children[searched[position - 1]] in self.coordination:
                return searched[position - 2], len(steps)
        return found, number


def _search(step: SearchStep, searched: List[int], children: Tuple[str, ...]) -> Optional[int]:
    order = searched if step.side == "left" else searched[::-1]
    if step.mode == "first":
        return order[0]
    if step.mode == "any":
        wanted = step.categories
        for k in order:
            if children[k] in wanted:
                return k
        return None
    for category in step.categories:
        for k in order:
            if children[k] == category:
                return k
    return None


# -- loading -------------------------------------------------------------------------------------

def load_head_table(path: Union[str, Path], source: Optional[str] = None) -> HeadTable:
    """Read and validate a head table file; errors (:class:`HeadTableError`) name file and line."""
    name = str(path) if source is None else source
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise HeadTableError(f"not UTF-8 text (byte {error.start})", name) from None
    except OSError as error:
        raise HeadTableError(f"cannot read: {error.strerror}", name) from None
    return parse_head_table(text, name)


def parse_head_table(text: str, source: str = "<string>") -> HeadTable:
    """A head table from the text of its YAML file (see :func:`load_head_table`)."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, "problem", None) or str(error)
        raise HeadTableError(f"not valid YAML: {problem}", source, mark.line + 1 if mark else None) from None
    if root is None:
        raise HeadTableError("the file is empty", source, 1)
    top = _mapping(root, source, "the file")
    unknown = [key for key in top if key not in TABLE_KEYS]
    if unknown:
        raise HeadTableError(f"unknown key {unknown[0]!r}; valid keys: {', '.join(TABLE_KEYS)}", source,
                             _line(top[unknown[0]][0]))
    for key in ("name", "rules", "default"):
        if key not in top:
            raise HeadTableError(f"missing required key {key!r}", source, _line(root))
    name = _string(top["name"][1], source, "name")
    description = _string(top["description"][1], source, "description") if "description" in top else ""
    punctuation = _labels(top["punctuation"][1], source, "punctuation") if "punctuation" in top else ()
    coordination = _labels(top["coordination"][1], source, "coordination") if "coordination" in top else ()
    default = _rule(top["default"][1], source, "default")
    rules_node = top["rules"][1]
    rules: Dict[str, Tuple[SearchStep, ...]] = {}
    for label, (key_node, value) in _mapping(rules_node, source, "rules").items():
        rules[label] = _rule(value, source, f"rule {label}")
    return HeadTable(name, description, frozenset(punctuation), frozenset(coordination), default, rules, source)


def _line(node: Node) -> int:
    return node.start_mark.line + 1


def _mapping(node: Node, source: str, what: str) -> Dict[str, Tuple[Node, Node]]:
    if not isinstance(node, MappingNode):
        raise HeadTableError(f"{what} must be a mapping", source, _line(node))
    out: Dict[str, Tuple[Node, Node]] = {}
    for key, value in node.value:
        label = _string(key, source, f"a key of {what}")
        if label in out:
            raise HeadTableError(f"{what}: {label!r} is given twice", source, _line(key))
        out[label] = (key, value)
    return out


def _string(node: Node, source: str, what: str) -> str:
    if not isinstance(node, ScalarNode) or not node.value or node.value.strip() != node.value:
        raise HeadTableError(f"{what} must be a non-empty string without surrounding spaces", source, _line(node))
    return str(node.value)


def _labels(node: Node, source: str, what: str) -> Tuple[str, ...]:
    if not isinstance(node, SequenceNode):
        raise HeadTableError(f"{what} must be a list of labels", source, _line(node))
    labels = tuple(_string(item, source, f"a label of {what}") for item in node.value)
    for item, label in zip(node.value, labels):
        if labels.count(label) > 1:
            raise HeadTableError(f"{what}: label {label!r} is listed twice", source, _line(item))
    return labels


def _rule(node: Node, source: str, what: str) -> Tuple[SearchStep, ...]:
    if not isinstance(node, SequenceNode) or not node.value:
        raise HeadTableError(f"{what} must be a non-empty list of steps", source, _line(node))
    steps = tuple(_step(item, source, f"{what}, step {number}") for number, item in enumerate(node.value, start=1))
    for item, step in zip(node.value[:-1], steps[:-1]):
        if step.mode == "first":
            raise HeadTableError(f"{what}: a step without 'priority' or 'any' always finds a child, so the "
                                 "steps after it are never used; make it the last step", source, _line(item))
    if steps[-1].mode != "first":
        raise HeadTableError(f"{what}: the last step must have neither 'priority' nor 'any' (e.g. "
                             "{from: left}), so that every phrase gets a head", source, _line(node.value[-1]))
    return steps


def _step(node: Node, source: str, what: str) -> SearchStep:
    fields = _mapping(node, source, what)
    unknown = [key for key in fields if key not in STEP_KEYS]
    if unknown:
        raise HeadTableError(f"{what}: unknown key {unknown[0]!r}; valid keys: {', '.join(STEP_KEYS)}", source,
                             _line(fields[unknown[0]][0]))
    if "from" not in fields:
        raise HeadTableError(f"{what}: missing 'from: left' or 'from: right'", source, _line(node))
    side = _string(fields["from"][1], source, f"{what}: from")
    if side not in SIDES:
        raise HeadTableError(f"{what}: 'from' must be left or right, not {side!r}", source, _line(fields["from"][1]))
    if "priority" in fields and "any" in fields:
        raise HeadTableError(f"{what}: give either 'priority' or 'any', not both", source, _line(node))
    for mode in ("priority", "any"):
        if mode in fields:
            categories = _labels(fields[mode][1], source, f"{what}: {mode}")
            if not categories:
                raise HeadTableError(f"{what}: {mode} is an empty list", source, _line(fields[mode][1]))
            return SearchStep(side, mode, categories)
    return SearchStep(side, "first")


@functools.lru_cache(maxsize=None)
def bundled_head_table(name: str) -> HeadTable:
    """The bundled table ``name`` (``mlparse/trees/head_tables/<name>.yaml``)."""
    path = BUNDLED_TABLES / f"{name}.yaml"
    if not path.is_file():
        known = ", ".join(bundled_table_names()) or "none"
        raise HeadTableError(f"no bundled head table {name!r}; bundled: {known}", str(BUNDLED_TABLES))
    table = load_head_table(path)
    if table.name != name:
        raise HeadTableError(f"the file of table {name!r} names itself {table.name!r}", str(path))
    return table


def bundled_table_names() -> List[str]:
    """Names of the bundled head tables."""
    return sorted(path.stem for path in BUNDLED_TABLES.glob("*.yaml"))
