"""Pretrained word vectors in the word2vec / GloVe text format, to initialise word embeddings.

The file has one word per line followed by its numbers, separated by spaces; the word2vec
variant starts with a header line ``<count> <dimension>``.  Files may be gzip-compressed
(``.gz``).  Errors name the file and line.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Union

import numpy as np


class VectorFileError(ValueError):
    """A malformed vector file, with file and line in the message."""


@dataclass
class PretrainedVectors:
    """Vectors of the words that were asked for: ``vectors[k]`` belongs to ``words[k]``.

    ``dim``: the vector size; ``total``: how many words the file holds.
    """

    words: List[str]
    vectors: np.ndarray  # float32 [len(words), dim]
    dim: int
    total: int

    def index(self) -> Dict[str, int]:
        return {word: k for k, word in enumerate(self.words)}


def _open(path: Path):  # type: ignore[no-untyped-def]
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", errors="strict")
    return open(path, "r", encoding="utf-8", errors="strict")


def read_vectors(path: Union[str, Path], wanted: Optional[Iterable[str]] = None,
                 lowercase_fallback: bool = True) -> PretrainedVectors:
    """Read the vectors of ``wanted`` words (all when None).

    With ``lowercase_fallback`` a wanted word missing from the file takes the vector of its
    lower-cased form (GloVe's English vectors are lower-cased).
    """
    path = Path(path)
    if not path.is_file():
        raise VectorFileError(f"pretrained vector file not found: {path}")
    wanted_set = set(wanted) if wanted is not None else None
    lowered: Dict[str, List[str]] = {}
    if wanted_set is not None and lowercase_fallback:
        for word in wanted_set:
            lowered.setdefault(word.lower(), []).append(word)
    found: Dict[str, np.ndarray] = {}
    from_lower: Dict[str, np.ndarray] = {}
    dim, total = 0, 0
    try:
        with _open(path) as handle:
            for number, line in enumerate(handle, start=1):
                if number == 1 and line.lstrip("\ufeff").strip():
                    head = line.lstrip("\ufeff").split()
                    if len(head) == 2 and all(part.isdigit() for part in head):
                        dim = int(head[1])
                        continue
                parts = line.rstrip("\n").rstrip(" ").split(" ")
                if len(parts) < 2:
                    if not line.strip():
                        continue
                    raise VectorFileError(f"{path}:{number}: a word with no numbers")
                word, numbers = parts[0], parts[1:]
                if dim == 0:
                    dim = len(numbers)
                if len(numbers) != dim:
                    raise VectorFileError(f"{path}:{number}: {len(numbers)} numbers where the file has {dim} per word")
                total += 1
                exact = wanted_set is None or word in wanted_set
                lower_targets = lowered.get(word, []) if wanted_set is not None else []
                if not exact and not lower_targets:
                    continue
                try:
                    vector = np.asarray(numbers, dtype=np.float32)
                except ValueError:
                    raise VectorFileError(f"{path}:{number}: not a number among the values of {word!r}") from None
                if exact:
                    found[word] = vector
                for target in lower_targets:
                    from_lower.setdefault(target, vector)
    except UnicodeDecodeError as error:
        raise VectorFileError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    for word, vector in from_lower.items():
        found.setdefault(word, vector)
    words = sorted(found)
    vectors = np.stack([found[w] for w in words]) if words else np.zeros((0, dim), dtype=np.float32)
    return PretrainedVectors(words=words, vectors=vectors, dim=dim, total=total)
