"""A parser kind written outside mlparse (``toy``), for the tests that a kind needs one module and one registration.

:class:`ToyParser` solves the dependency task with one word embedding per word: an arc's score is a bilinear
form of the head's and the dependent's vectors (the tree: mlparse's MST decoder), a dependent's relation a
linear layer over its own vector and its head's.  It owns no recipe section and reads only ``model.d_kv`` (the
vector size) and ``model.use_tags`` (refused: it reads words only).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch
from torch import Tensor, nn

from mlparse.config import ConfigError
from mlparse.models.base import LossOutput, Parser
from mlparse.structs import decode_mst
from mlparse.trees.dependency import DependencyPrediction

KIND = "toy"


class ToyParser(Parser):
    """Words only; ``scores(batch)`` gives per sentence ``(arcs [n, n+1] dependents x heads, vectors [n+1, d])``."""

    kind = KIND
    task = "dependency"

    def __init__(self, words: List[str], relations: List[str], size: int) -> None:
        super().__init__()
        self.words, self.relations, self.size = words, relations, size
        self.index = {word: k + 2 for k, word in enumerate(words)}  # 0: unknown word, 1: the root
        self.embedding = nn.Embedding(len(words) + 2, size)
        self.bilinear = nn.Parameter(torch.zeros(size, size))
        self.label = nn.Linear(2 * size, len(relations))

    # -- the kind ---------------------------------------------------------------------------------
    @classmethod
    def check(cls, config: Any, source: str) -> None:
        if config.model.use_tags:
            raise ConfigError(f"{source}: the toy parser reads words only (set model.use_tags: false).")

    @staticmethod
    def describe(config: Any, eval_tags: Optional[str] = None) -> str:
        return "toy bilinear arcs (words)"

    # -- building and persistence -----------------------------------------------------------------
    @classmethod
    def build(cls, config: Any, train: Sequence[Any]) -> "ToyParser":
        words = sorted({word for sentence in train for word in sentence.words})
        relations = sorted({rel for sentence in train for rel in sentence.deprels})
        return cls(words, relations, config.model.d_kv)

    @classmethod
    def from_spec(cls, spec: Dict[str, Any]) -> "ToyParser":
        return cls(spec["words"], spec["relations"], spec["size"])

    def spec(self) -> Dict[str, Any]:
        return {"kind": self.kind, "words": self.words, "relations": self.relations, "size": self.size}

    # -- data -------------------------------------------------------------------------------------
    @property
    def max_words(self) -> int:
        return 40

    def gold(self, example: Any) -> Tuple[Tensor, Tensor]:
        relations = {rel: k for k, rel in enumerate(self.relations)}
        device = self.bilinear.device
        return (torch.tensor([int(h) for h in example.heads], device=device),
                torch.tensor([relations.get(rel, 0) for rel in example.deprels], device=device))

    def make_batch(self, examples: Sequence[Any]) -> List[Tensor]:
        device = self.bilinear.device  # a parser of any kind puts its batch where its weights are (CPU or CUDA)
        return [torch.tensor([1] + [self.index.get(word, 0) for word in sentence.words], device=device)
                for sentence in examples]

    # -- scoring ----------------------------------------------------------------------------------
    def _score(self, ids: Tensor) -> Tuple[Tensor, Tensor]:
        vectors = self.embedding(ids)  # [n+1, d]
        return vectors[1:] @ self.bilinear @ vectors.T, vectors  # [n, n+1]

    def _relations(self, vectors: Tensor, heads: Tensor) -> Tensor:
        return self.label(torch.cat([vectors[1:], vectors[heads]], dim=-1))  # [n, R]

    def forward(self, batch: List[Tensor], golds: Sequence[Tuple[Tensor, Tensor]]) -> LossOutput:
        loss = torch.zeros((), device=self.bilinear.device)
        for ids, (heads, relations) in zip(batch, golds):
            arcs, vectors = self._score(ids)
            loss = loss + nn.functional.cross_entropy(arcs, heads, reduction="sum")
            loss = loss + nn.functional.cross_entropy(self._relations(vectors, heads), relations, reduction="sum")
        return LossOutput(loss=loss, sentences=len(batch))

    def scores(self, batch: List[Tensor]) -> List[Tuple[Tensor, Tensor]]:
        return [self._score(ids) for ids in batch]

    def decode(self, batch: Any, scores: Any, examples: Sequence[Any], decoder: str = "auto") -> List[DependencyPrediction]:
        out = []
        for arcs, vectors in scores:
            by_head = np.full((arcs.shape[1], arcs.shape[1]), -1e9)
            by_head[:, 1:] = arcs.detach().T.cpu().numpy()
            heads = [int(h) for h in decode_mst(by_head)[1:]]
            labels = self._relations(vectors, torch.tensor(heads, device=vectors.device)).argmax(-1).tolist()
            out.append(DependencyPrediction(heads, [self.relations[k] for k in labels]))
        return out
