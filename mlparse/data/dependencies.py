"""The dependency version of a constituency treebank: every prepared tree's heads, as CoNLL-U.

A catalog language that names ``heads:`` gets, beside each ``<split>.trees``, a
``<split>.conllu`` holding the same sentences in the same order with the same words: UPOS
and XPOS are the tree's POS tag, HEAD and DEPREL come from

* a head table (``heads: collins-ptb``, any bundled table of :mod:`mlparse.trees.head_table`):
  :func:`mlparse.trees.heads.tree_dependencies` on the prepared tree, relations derived
  from the categories (``parent/head/dependent``);
* the treebank itself (``heads: treebank``, for formats that mark heads, see
  :data:`mlparse.data.formats.HEADED_FORMATS`): the heads and relations its reader gives.

The blocks are written by the CoNLL-U writer of :mod:`mlparse.trees.dependency`; LEMMA,
FEATS, DEPS and MISC are ``_``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from mlparse.data.formats import HEADED_FORMATS, MarkedHeads
from mlparse.data.specs import CatalogError, LanguageSpec
from mlparse.trees.dependency import DependencyPrediction, format_sentence, sentence_from_words
from mlparse.trees.head_table import HeadTable, bundled_head_table, bundled_table_names
from mlparse.trees.heads import TreeDependencies, tree_dependencies
from mlparse.trees.tree import Tree

#: ``heads:`` value for heads marked by the treebank.
TREEBANK_HEADS = "treebank"
#: ``relations`` of the manifest: from the categories, or the treebank's own.
DERIVED, FROM_TREEBANK = "derived", "treebank"


@dataclass(frozen=True)
class HeadSource:
    """Where a language's heads come from: a head table, or (``table`` None) the treebank."""

    name: str
    table: Optional[HeadTable]

    @property
    def relations(self) -> str:
        return DERIVED if self.table is not None else FROM_TREEBANK


def check_heads_setting(value: Any, reader_format: str, output: str, context: str) -> Optional[str]:
    """The catalog's ``heads:`` value, checked (None when absent); raises :class:`CatalogError`."""
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise CatalogError(f"{context}: heads must be a head table's name or {TREEBANK_HEADS!r}, not {value!r}")
    if output != "trees":
        raise CatalogError(f"{context}: heads is for constituency treebanks (output: trees), not output: {output}")
    if value == TREEBANK_HEADS:
        if reader_format not in HEADED_FORMATS:
            raise CatalogError(f"{context}: heads: {TREEBANK_HEADS} needs a format that marks heads "
                               f"({', '.join(HEADED_FORMATS)}); reader format {reader_format!r} does not")
        return value
    if value not in bundled_table_names():
        raise CatalogError(f"{context}: unknown head table {value!r}; bundled: {', '.join(bundled_table_names())} "
                           f"(or {TREEBANK_HEADS!r} for heads marked by the treebank)")
    return value


def head_source(spec: LanguageSpec) -> Optional[HeadSource]:
    """The heads of ``spec``'s dependency version, None where the catalog names none."""
    if spec.heads is None:
        return None
    if spec.heads == TREEBANK_HEADS:
        return HeadSource(TREEBANK_HEADS, None)
    return HeadSource(spec.heads, bundled_head_table(spec.heads))


def sentence_dependencies(tree: Tree, source: HeadSource, marked: Optional[MarkedHeads]) -> TreeDependencies:
    """The dependency tree of a prepared ``tree`` (``marked``: what the reader gave for it).

    Raises ``ValueError`` when the treebank's heads no longer fit the prepared tree (a
    pipeline step removed words).
    """
    if source.table is not None:
        return tree_dependencies(tree, source.table)
    if marked is None:
        raise ValueError("the reader gave no heads for this tree")
    words = len(tree.leaves())
    if marked.dependencies.words() != words:
        raise ValueError(f"the treebank marks heads for {marked.dependencies.words()} words, the prepared tree "
                         f"has {words}: a pipeline step removed words, so the marked heads no longer fit")
    return marked.dependencies


def conllu_block(tree: Tree, dependencies: TreeDependencies, source: str = "<tree>") -> str:
    """The CoNLL-U lines of one sentence (without the blank line that ends it).

    Raises ``ValueError`` for a word or label CoNLL-U cannot hold (a tab, only spaces).
    """
    leaves = tree.leaves()
    tags = [leaf.tag for leaf in leaves]
    sentence = sentence_from_words([leaf.word for leaf in leaves], source)
    prediction = DependencyPrediction(dependencies.heads[1:], dependencies.relations[1:], upos=tags, xpos=tags)
    return format_sentence(sentence, prediction)
