"""An exponential moving average of a model's weights (``train.ema_decay``), the weights its dev checks score.

Adam at a constant learning rate leaves the weights moving around a minimum; their average over the last few
hundred updates sits nearer it. With ``train.ema_decay: d`` (0 < d < 1) the trainer keeps, beside the weights it
trains, ``average = average + (1 - d_t) * (weights - average)`` after every update, where
``d_t = min(d, (1 + t) / (10 + t))`` at update ``t`` (so that the first updates, when the average would still
remember the random initialisation, count for more). The dev checks, the best checkpoint's ``model`` weights and
so everything loaded from it (the final dev and test scores, exported packages, ``mlparse.load``) use the
average; the checkpoints also keep the trained weights (``training_weights``), which a resumed run continues
from. Only trained parameters are averaged: buffers and frozen parameters (a frozen pretrained encoder) are
the model's own. The average costs one more copy of the trained parameters in memory, two while a dev
check runs, and a larger checkpoint (both sets of weights).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Dict, Iterator, List

import torch
from torch import Tensor, nn

#: The checkpoint key of the trained weights when the ``model`` key holds their average.
TRAINING_WEIGHTS = "training_weights"


class WeightAverage:
    """The moving average of ``model``'s trained (floating-point, ``requires_grad``) parameters, decay ``decay``
    (in (0, 1))."""

    def __init__(self, model: nn.Module, decay: float) -> None:
        if not 0.0 < decay < 1.0:
            raise ValueError(f"an average's decay is in (0, 1), got {decay}")
        self.decay = decay
        trained = [(name, p) for name, p in model.named_parameters() if p.is_floating_point() and p.requires_grad]
        self.names: List[str] = [name for name, _ in trained]
        self.params: List[Tensor] = [p for _, p in trained]
        self.average: List[Tensor] = [p.detach().clone() for p in self.params]

    def decay_at(self, step: int) -> float:
        """The decay used after update ``step`` (1-based): ``min(decay, (1 + step) / (10 + step))``."""
        return min(self.decay, (1.0 + step) / (10.0 + step))

    @torch.no_grad()
    def update(self, step: int) -> None:
        """Move the average towards the weights after update ``step``."""
        torch._foreach_lerp_(self.average, self.params, 1.0 - self.decay_at(step))

    @contextmanager
    def swapped_in(self) -> Iterator[None]:
        """Inside the block the model's parameters hold the average; after it, the trained weights again."""
        with torch.no_grad():
            trained = [p.detach().clone() for p in self.params]
            for p, a in zip(self.params, self.average):
                p.copy_(a)
        try:
            yield
        finally:
            with torch.no_grad():
                for p, t in zip(self.params, trained):
                    p.copy_(t)

    def averaged_state(self, state: Dict[str, Tensor]) -> Dict[str, Tensor]:
        """``state`` (the model's ``state_dict()``) with the averaged parameters in place of the trained ones."""
        averaged = dict(state)
        for name, a in zip(self.names, self.average):
            averaged[name] = a.detach().clone()
        return averaged

    @torch.no_grad()
    def load(self, averaged: Dict[str, Tensor]) -> None:
        """Take the average from a checkpoint's ``model`` weights (those :meth:`averaged_state` wrote)."""
        for name, a in zip(self.names, self.average):
            a.copy_(averaged[name])
