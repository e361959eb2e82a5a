"""Affix and shape features of words, and their vocabularies, for the tagger's lexical input.

A word's *features* are short strings read off its spelling: its last 1-4 characters (lowercased), its
first 1-3 characters (lowercased), and its *shape* (each character written as ``X`` upper case, ``x``
lower case, ``d`` digit, or itself, with runs of the same symbol written once, at most six symbols:
``Mr.`` → ``Xx.``, ``1,000`` → ``d,d``), and the whole word lowercased (``lower``: a capitalised or
all-capitals spelling shares the entry of the lower-case word, which the case-sensitive word embedding
does not). They tell a tagger most of what it needs about a word it never
saw in training (``-ly``, ``-ing``, a capital, a number), at the cost of a table lookup each, which is
far cheaper on a CPU than running a character LSTM over every word.

:class:`AffixVocab` keeps one vocabulary per feature, built from the training words; a feature value seen
fewer than ``min_count`` times maps to unknown (index 1), index 0 is padding. :meth:`AffixVocab.ids` gives
the ``[n, F]`` table of a sentence's words (cached per word type), and the vocabulary is saved in model
files as plain lists.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Sequence

import numpy as np

PAD, UNK = "<pad>", "<unk>"


def word_shape(word: str, limit: int = 6) -> str:
    """``X`` upper case, ``x`` lower case, ``d`` digit, other characters as themselves; runs of one symbol
    written once; at most ``limit`` symbols."""
    out: List[str] = []
    for char in word:
        symbol = "X" if char.isupper() else "x" if char.islower() else "d" if char.isdigit() else char
        if not out or out[-1] != symbol:
            out.append(symbol)
            if len(out) == limit:
                break
    return "".join(out)


def _suffix(k: int) -> Callable[[str], str]:
    return lambda word: word[-k:].lower()


def _prefix(k: int) -> Callable[[str], str]:
    return lambda word: word[:k].lower()


#: Every feature by name: what it reads off a word.
FEATURES: Dict[str, Callable[[str], str]] = {
    "suffix1": _suffix(1), "suffix2": _suffix(2), "suffix3": _suffix(3), "suffix4": _suffix(4),
    "prefix1": _prefix(1), "prefix2": _prefix(2), "prefix3": _prefix(3),
    "shape": word_shape,
    "lower": str.lower,  # the whole word, lowercased: a sentence-initial or all-capitals word shares its entry
}


def check_features(names: Sequence[str]) -> None:
    """``ValueError`` naming the known features when a name is not one of them, or names repeat."""
    unknown = [name for name in names if name not in FEATURES]
    if unknown:
        raise ValueError(f"unknown affix feature(s) {', '.join(unknown)}; known: {', '.join(FEATURES)}")
    if len(set(names)) != len(names):
        raise ValueError(f"affix features listed twice: {', '.join(names)}")


@dataclass
class AffixVocab:
    """One vocabulary (``itos`` list, padding and unknown first) per feature, in ``names`` order."""

    names: List[str]
    tables: List[List[str]]
    _index: List[Dict[str, int]] = field(default_factory=list, init=False, repr=False, compare=False)
    _cache: Dict[str, List[int]] = field(default_factory=dict, init=False, repr=False, compare=False)

    #: Word types whose ids :meth:`ids` keeps before it starts over.
    CACHE_LIMIT = 200_000

    def __post_init__(self) -> None:
        check_features(self.names)
        if len(self.tables) != len(self.names):
            raise ValueError(f"{len(self.names)} affix features but {len(self.tables)} vocabularies")
        self._index = [{value: i for i, value in enumerate(table)} for table in self.tables]

    @classmethod
    def build(cls, words: Iterable[str], names: Sequence[str], min_count: int = 2) -> "AffixVocab":
        """From every training word (with repeats: counts decide what is kept)."""
        check_features(names)
        counts = Counter(words)
        tables = []
        for name in names:
            feature = FEATURES[name]
            values: Counter = Counter()
            for word, count in counts.items():
                values[feature(word)] += count
            tables.append([PAD, UNK] + sorted(v for v, c in values.items() if c >= min_count))
        return cls(list(names), tables)

    @property
    def sizes(self) -> List[int]:
        """Entries of each feature's vocabulary (padding and unknown included)."""
        return [len(table) for table in self.tables]

    def word_ids(self, word: str) -> List[int]:
        """The F feature ids of one word (cached)."""
        ids = self._cache.get(word)
        if ids is None:
            if len(self._cache) > self.CACHE_LIMIT:
                self._cache.clear()
            ids = self._cache[word] = [index.get(FEATURES[name](word), 1) for name, index in zip(self.names, self._index)]
        return ids

    def ids(self, words: Sequence[str]) -> np.ndarray:
        """``int64[n, F]``: the feature ids of each word."""
        if not words:
            return np.zeros((0, len(self.names)), dtype=np.int64)
        return np.asarray([self.word_ids(word) for word in words], dtype=np.int64)

    def to_dict(self) -> Dict[str, object]:
        return {"names": list(self.names), "tables": [list(table) for table in self.tables]}

    @classmethod
    def from_dict(cls, data: Dict[str, object]) -> "AffixVocab":
        return cls(list(data["names"]), [list(table) for table in data["tables"]])  # type: ignore[union-attr]
