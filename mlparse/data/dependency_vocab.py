"""Vocabularies of a dependency parser, built from training sentences (:class:`DependencySentence`).

Words (with their training counts, for UNK replacement, and a minimum count), POS tags from
the UPOS or the XPOS column, and characters form a :class:`~mlparse.data.vocab.ParserVocab`,
the one the span parser's embeddings take, so the same input modules serve both parsers.  The
dependency relations (DEPREL, subtypes such as ``nmod:poss`` kept whole) are a :class:`Vocab`
with padding at 0 and unknown at 1: a relation not seen in training maps to unknown, which a
parser never predicts.  :meth:`DependencyVocab.to_dict` gives plain lists and dicts (JSON).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Dict, Iterable, List, Sequence

from mlparse.data.vocab import PAD, UNK, ParserVocab, Vocab
from mlparse.trees.dependency import DependencySentence

#: The columns a dependency parser may take its POS tags from.
TAG_COLUMNS = ("upos", "xpos")
#: Specials of the relation vocabulary: padding (0) and unknown (1).
REL_SPECIALS = (PAD, UNK)


def _check_column(tag_column: str) -> None:
    if tag_column not in TAG_COLUMNS:
        raise ValueError(f"tag_column must be one of {', '.join(TAG_COLUMNS)}, not {tag_column!r}")


@dataclass
class DependencyVocab:
    """Words, tags and characters (``lexical``), relations (``rels``), and which column the tags are."""

    lexical: ParserVocab
    rels: Vocab
    tag_column: str = "upos"

    @classmethod
    def build(cls, sentences: Iterable[DependencySentence], word_min_count: int = 1,
              tag_column: str = "upos") -> "DependencyVocab":
        """From training sentences; words seen fewer than ``word_min_count`` times are left out."""
        _check_column(tag_column)
        pairs: List[List[tuple]] = []
        relations: Counter = Counter()
        for sentence in sentences:
            pairs.append(list(zip(getattr(sentence, tag_column), sentence.words)))
            relations.update(sentence.deprels)
        return cls(ParserVocab.build(pairs, word_min_count), Vocab(sorted(relations), specials=REL_SPECIALS), tag_column)

    def tags_of(self, sentence: DependencySentence) -> Sequence[str]:
        """The sentence's tags from this vocabulary's column; length ``n``."""
        return getattr(sentence, self.tag_column)

    def rel_ids(self, deprels: Sequence[str]) -> List[int]:
        """Relation indices, one per word (length ``n``; no start or stop); unseen relations map to 1."""
        get = self.rels.stoi.get
        return [get(rel, 1) for rel in deprels]

    def to_dict(self) -> Dict[str, object]:
        return {"lexical": self.lexical.to_dict(), "rels": self.rels.to_list(), "tag_column": self.tag_column}

    @classmethod
    def from_dict(cls, data: Dict[str, object]) -> "DependencyVocab":
        tag_column = str(data.get("tag_column", "upos"))
        _check_column(tag_column)
        return cls(
            lexical=ParserVocab.from_dict(data["lexical"]),  # type: ignore[arg-type]
            rels=Vocab.from_list(list(data["rels"]), len(REL_SPECIALS)),  # type: ignore[call-overload]
            tag_column=tag_column,
        )
