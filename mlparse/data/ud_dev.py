"""A dev split for a treebank released without one, carved from its train split.

The rule (:data:`RULE`): the last tenth of train's sentences, in file order (rounded up, at least one),
become dev; train keeps the rest.  A contiguous tail keeps documents together, so that no document is
split between the two (UD files keep documents in order), and the same files always give the same
split.  A train split of fewer than :data:`MIN_TRAIN` sentences is not carved (there would be nothing
left to learn from), and the manifest says so.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence, Tuple, TypeVar

T = TypeVar("T")

#: The fraction of train that becomes dev.
DEV_FRACTION = 0.1
#: Fewer training sentences than this are not carved.
MIN_TRAIN = 2
RULE = "the last 10% of train's sentences in file order (rounded up, at least 1) become dev; train keeps the rest"


def dev_size(train_sentences: int) -> int:
    """How many of ``train_sentences`` go to dev (0 when fewer than :data:`MIN_TRAIN`)."""
    if train_sentences < MIN_TRAIN:
        return 0
    return min(train_sentences - 1, max(1, math.ceil(train_sentences * DEV_FRACTION)))


def carve_dev(train: Sequence[T]) -> Tuple[List[T], List[T], Optional[Dict[str, Any]]]:
    """(train, dev, record): ``record`` is what the manifest and results.json keep (None: not carved)."""
    size = dev_size(len(train))
    if size == 0:
        return list(train), [], None
    keep = len(train) - size
    record = {
        "rule": RULE,
        "from": "train",
        "train_sentences_before": len(train),
        "dev_sentences": size,
        "train_sentences": keep,
        "dev_first_sentence": keep + 1,  # 1-based position in the original train file(s)
    }
    return list(train[:keep]), list(train[keep:]), record
