"""Learning-rate schedule of Kitaev & Klein (2018), Appendix A.2.

Linear warm-up from 0 to the base rate over the first ``warmup_steps``
updates; afterwards the rate is multiplied by ``decay_factor`` whenever the
dev score has not improved for ``patience_checks`` consecutive evaluations
(5 epochs × 4 evaluations per epoch in the paper).

The plateau rule only counts checks made once warm-up is over, as in the
authors' released code (its plateau scheduler is stepped only after the
warm-up batches): a small treebank warms up for many epochs (Faroese, about
11 epochs for 160 batches of 250 sentences), and a rate halved while it is
still rising would never reach the base rate.  Scores seen during warm-up
still set the best score that later checks must beat.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Dict


@dataclass
class WarmupPlateauSchedule:
    base_lr: float
    warmup_steps: int
    patience_checks: int
    decay_factor: float = 0.5
    scale: float = 1.0  # product of the decays so far
    best: float = float("-inf")
    bad_checks: int = 0

    def lr(self, step: int) -> float:
        """Learning rate for update number ``step`` (1-based)."""
        return self.lr_of(step, self.base_lr, self.warmup_steps)

    def lr_of(self, step: int, base_lr: float, warmup_steps: int) -> float:
        """The rate of a parameter group with its own base rate and warm-up (a fine-tuned pretrained
        encoder's, say) at update ``step``: its warm-up, then the decays the plateau rule made so far."""
        warm = min(1.0, step / warmup_steps) if warmup_steps > 0 else 1.0
        return base_lr * self.scale * warm

    def observe(self, score: float, step: int) -> bool:
        """Record the dev score measured after update ``step``; returns True when the rate was just decayed.

        Checks before the end of warm-up (``step < warmup_steps``) never count against the score.
        """
        if score > self.best:
            self.best = score
            self.bad_checks = 0
            return False
        if step < self.warmup_steps:
            self.bad_checks = 0
            return False
        self.bad_checks += 1
        if self.patience_checks > 0 and self.bad_checks >= self.patience_checks:
            self.scale *= self.decay_factor
            self.bad_checks = 0
            return True
        return False

    def state_dict(self) -> Dict[str, float]:
        return asdict(self)

    def load_state_dict(self, state: Dict[str, float]) -> None:
        for key, value in state.items():
            setattr(self, key, value)
