"""Vocabularies of words, POS tags and characters, built from training trees.

Every :class:`Vocab` reserves index 0 for padding and index 1 for unknown
tokens; word and tag vocabularies also hold the sentence start and stop
tokens.  The character vocabulary holds word-boundary markers and the
characters that spell the start and stop tokens.  Vocabularies are saved in
checkpoints as plain lists (:meth:`ParserVocab.to_dict`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Sequence

PAD, UNK, START, STOP = "<pad>", "<unk>", "<start>", "<stop>"
#: Character specials: padding, unknown, begin/end of word, sentence start/stop "letters".
CHAR_PAD, CHAR_UNK, CHAR_BOW, CHAR_EOW, CHAR_START, CHAR_STOP = "\x00pad", "\x00unk", "\x00bow", "\x00eow", "\x00start", "\x00stop"
CHAR_SPECIALS = (CHAR_PAD, CHAR_UNK, CHAR_BOW, CHAR_EOW, CHAR_START, CHAR_STOP)
TOKEN_SPECIALS = (PAD, UNK, START, STOP)
#: The tag written on leaves whose tag is unknown (raw-text input, no tagging head).
UNKNOWN_TAG = "UNK"
#: Keys of the sentence start and stop in the character-id cache (tuples: never a word).
_START_KEY, _STOP_KEY = (CHAR_START,), (CHAR_STOP,)


class Vocab:
    """A bijection between tokens and indices; unknown tokens map to index 1."""

    def __init__(self, tokens: Iterable[str], specials: Sequence[str] = TOKEN_SPECIALS) -> None:
        self.itos: List[str] = []
        self.stoi: Dict[str, int] = {}
        for token in list(specials) + list(tokens):
            if token not in self.stoi:
                self.stoi[token] = len(self.itos)
                self.itos.append(token)
        self.num_specials = len(specials)

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, token: str) -> bool:
        return token in self.stoi

    def index(self, token: str) -> int:
        return self.stoi.get(token, 1)

    def token(self, index: int) -> str:
        return self.itos[index]

    def to_list(self) -> List[str]:
        return list(self.itos)

    @classmethod
    def from_list(cls, tokens: Sequence[str], num_specials: int) -> "Vocab":
        vocab = cls(tokens[num_specials:], specials=tokens[:num_specials])
        return vocab


@dataclass
class ParserVocab:
    """Words (with training counts, for UNK replacement), tags and characters."""

    words: Vocab
    tags: Vocab
    chars: Vocab
    word_counts: Dict[str, int] = field(default_factory=dict)
    _char_cache: Dict[object, List[int]] = field(default_factory=dict, init=False, repr=False, compare=False)

    #: Words whose character ids :meth:`char_ids_cached` keeps before it starts over.
    CHAR_CACHE_LIMIT = 200_000

    @classmethod
    def build(cls, sentences: Iterable[Sequence[tuple]], word_min_count: int = 1) -> "ParserVocab":
        """From ``sentences``: sequences of (tag, word) pairs (e.g. ``[(l.tag, l.word) for l in tree.leaves()]``)."""
        word_counts: Counter = Counter()
        tags: Counter = Counter()
        chars: Counter = Counter()
        for sentence in sentences:
            for tag, word in sentence:
                word_counts[word] += 1
                tags[tag] += 1
                chars.update(word)
        words = sorted(w for w, c in word_counts.items() if c >= word_min_count)
        return cls(
            words=Vocab(words),
            tags=Vocab(sorted(tags)),
            chars=Vocab(sorted(chars), specials=CHAR_SPECIALS),
            word_counts=dict(word_counts),
        )

    # -- indices --------------------------------------------------------------
    def word_ids(self, words: Sequence[str]) -> List[int]:
        """Start, words, stop (unknown words map to UNK)."""
        get = self.words.stoi.get
        return [get(START, 1), *(get(w, 1) for w in words), get(STOP, 1)]

    def count_table(self) -> List[int]:
        """Training count of every word index (specials 0), for UNK dropout."""
        return [self.word_counts.get(token, 0) if i >= self.words.num_specials else 0 for i, token in enumerate(self.words.itos)]

    def tag_ids(self, tags: Sequence[str]) -> List[int]:
        get = self.tags.stoi.get
        return [get(START, 1), *(get(t, 1) for t in tags), get(STOP, 1)]

    def char_ids(self, words: Sequence[str]) -> List[List[int]]:
        """One list per position (start, words, stop): begin-of-word, characters, end-of-word."""
        bow, eow = self.chars.index(CHAR_BOW), self.chars.index(CHAR_EOW)
        out = [[bow, self.chars.index(CHAR_START), eow]]
        for word in words:
            out.append([bow] + [self.chars.index(c) for c in word] + [eow])
        out.append([bow, self.chars.index(CHAR_STOP), eow])
        return out

    def char_ids_cached(self, words: Sequence[str]) -> List[List[int]]:
        """:meth:`char_ids`, with each word's ids kept for the next call (lists shared: do not modify)."""
        cache = self._char_cache
        if len(cache) > self.CHAR_CACHE_LIMIT:
            cache.clear()
        start, stop = cache.get(_START_KEY), cache.get(_STOP_KEY)
        bow, eow = self.chars.index(CHAR_BOW), self.chars.index(CHAR_EOW)
        if start is None or stop is None:
            start = cache[_START_KEY] = [bow, self.chars.index(CHAR_START), eow]
            stop = cache[_STOP_KEY] = [bow, self.chars.index(CHAR_STOP), eow]
        lookup = self.chars.stoi.get
        out = [start]
        for word in words:
            ids = cache.get(word)
            if ids is None:
                ids = cache[word] = [bow, *(lookup(c, 1) for c in word), eow]
            out.append(ids)
        out.append(stop)
        return out

    # -- persistence ----------------------------------------------------------
    def to_dict(self) -> Dict[str, object]:
        return {
            "words": self.words.to_list(), "tags": self.tags.to_list(), "chars": self.chars.to_list(),
            "word_counts": dict(self.word_counts),
        }

    @classmethod
    def from_dict(cls, data: Dict[str, object]) -> "ParserVocab":
        return cls(
            words=Vocab.from_list(list(data["words"]), len(TOKEN_SPECIALS)),  # type: ignore[arg-type]
            tags=Vocab.from_list(list(data["tags"]), len(TOKEN_SPECIALS)),  # type: ignore[arg-type]
            chars=Vocab.from_list(list(data["chars"]), len(CHAR_SPECIALS)),  # type: ignore[arg-type]
            word_counts=dict(data.get("word_counts", {})),  # type: ignore[arg-type]
        )
