"""``manifest.json`` of a prepared treebank: typed dataclasses, statistics, JSON round trip.

Statistics per split (constituency): sentences, tokens (leaves), maximum length,
phrase-label and POS inventories with counts, and the label inventory after
``collapse_unary`` (joint labels such as ``S::VP``: the labels a span parser predicts).
For CoNLL-U the label inventory is the dependency relations and POS is UPOS.

A constituency treebank with heads (a head table, or heads marked by the treebank) also has
its dependency version: ``SplitStats.dependencies`` names the split's ``.conllu`` file and
``Manifest.heads`` (:class:`HeadsInfo`) says where the heads and relations come from.  Both
are left out of the JSON when absent, so the manifests of other treebanks are as before; so is
``Manifest.ud`` (:class:`UdInfo`), which only Universal Dependencies treebanks have.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

from mlparse.data.issues import Issue
from mlparse.trees.transforms import collapse_unary
from mlparse.trees.tree import Tree

MANIFEST_NAME = "manifest.json"
MANIFEST_VERSION = 1


@dataclass
class SplitStats:
    """Counts for one written split file."""

    file: str
    sentences: int = 0
    tokens: int = 0
    max_length: int = 0
    labels: Dict[str, int] = field(default_factory=dict)
    pos: Dict[str, int] = field(default_factory=dict)
    collapsed_labels: Dict[str, int] = field(default_factory=dict)
    source_files: List[str] = field(default_factory=list)
    sha256: str = ""
    #: The split's dependency version (``train.conllu``), None without heads.
    dependencies: Optional[str] = None


@dataclass
class HeadsInfo:
    """Where the heads of a dependency version come from.

    ``table``: the head table's name (``collins-ptb``), or ``treebank`` for heads marked by the
    treebank itself; ``relations``: ``derived`` (from the categories, see
    :mod:`mlparse.trees.heads`) or ``treebank`` (the treebank's own labels).  For treebank
    heads, ``phrases_without_head`` and ``phrases_with_several_heads`` count the phrases of
    the written trees that do not mark exactly one head (the rule taken is the reader's).
    """

    table: str
    relations: str
    phrases_without_head: Optional[int] = None
    phrases_with_several_heads: Optional[int] = None

    def to_json(self) -> Dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if value is not None}


@dataclass
class UdInfo:
    """What a Universal Dependencies treebank says about itself (:mod:`mlparse.data.ud_metadata`), and
    what preparing it decided: ``test_only`` (no train split) and ``dev_carved`` (no dev split: the rule
    that carved one from train and its counts, :mod:`mlparse.data.ud_dev`)."""

    treebank: str
    language_code: Optional[str] = None  # the file prefix before "_": "en" for en_ewt-ud-train.conllu
    file_prefix: Optional[str] = None  # "en_ewt"
    readme: Optional[str] = None  # the README file the metadata came from
    license: Optional[str] = None
    includes_text: Optional[bool] = None  # None: the README does not say
    annotation_sources: Dict[str, str] = field(default_factory=dict)  # Lemmas/UPOS/XPOS/Features/Relations
    contributors: List[str] = field(default_factory=list)
    metadata: Dict[str, str] = field(default_factory=dict)  # the whole machine-readable block
    test_only: bool = False
    dev_carved: Optional[Dict[str, Any]] = None


@dataclass
class SourceFile:
    path: str
    sha256: str
    bytes: int
    split: str


@dataclass
class Manifest:
    family: str
    language: str
    mlparse_version: str
    created: str
    source_root: str
    format: str
    reader_options: Dict[str, Any]
    output_format: str  # "trees" or "conllu"
    evalb_param: Optional[str]
    split_definition: Dict[str, Any]
    missing_splits: List[str]
    transforms: List[str]
    splits: Dict[str, SplitStats]
    repairs: List[Issue] = field(default_factory=list)
    exclusions: List[Issue] = field(default_factory=list)
    source_files: List[SourceFile] = field(default_factory=list)
    notes: str = ""
    manifest_version: int = MANIFEST_VERSION
    heads: Optional[HeadsInfo] = None
    ud: Optional[UdInfo] = None  # Universal Dependencies treebanks only

    def to_json(self) -> Dict[str, Any]:
        data = asdict(self)
        for stats in data["splits"].values():
            if stats["dependencies"] is None:
                del stats["dependencies"]
        if self.heads is None:
            del data["heads"]
        else:
            data["heads"] = self.heads.to_json()
        if self.ud is None:
            del data["ud"]
        return data

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "Manifest":
        data = dict(data)
        data["splits"] = {name: SplitStats(**stats) for name, stats in data["splits"].items()}
        if data.get("heads") is not None:
            data["heads"] = HeadsInfo(**data["heads"])
        if data.get("ud") is not None:
            data["ud"] = UdInfo(**data["ud"])
        data["repairs"] = [Issue(**item) for item in data.get("repairs", [])]
        data["exclusions"] = [Issue(**item) for item in data.get("exclusions", [])]
        data["source_files"] = [SourceFile(**item) for item in data.get("source_files", [])]
        return cls(**data)

    @classmethod
    def load(cls, path: Path) -> "Manifest":
        with open(path, encoding="utf-8") as handle:
            return cls.from_json(json.load(handle))


class TreeStatsAccumulator:
    """Collects :class:`SplitStats` one tree at a time."""

    def __init__(self, file: str) -> None:
        self.stats = SplitStats(file=file)
        self._labels: Counter = Counter()
        self._pos: Counter = Counter()
        self._collapsed: Counter = Counter()

    def add(self, tree: Tree) -> None:
        leaves = tree.leaves()
        n = len(leaves)
        self.stats.sentences += 1
        self.stats.tokens += n
        if n > self.stats.max_length:
            self.stats.max_length = n
        self._pos.update(leaf.tag for leaf in leaves)
        self._labels.update(node.label for node in tree.subtrees())
        self._collapsed.update(node.label for node in collapse_unary(tree).subtrees())

    def finish(self) -> SplitStats:
        self.stats.labels = dict(self._labels.most_common())
        self.stats.pos = dict(self._pos.most_common())
        self.stats.collapsed_labels = dict(self._collapsed.most_common())
        return self.stats


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


__all__ = [
    "Issue",
    "Manifest",
    "HeadsInfo",
    "UdInfo",
    "SplitStats",
    "SourceFile",
    "TreeStatsAccumulator",
    "MANIFEST_NAME",
    "sha256_file",
    "sha256_bytes",
]
