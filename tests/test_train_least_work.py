"""``train.subbatching``: cutting a batch into the least padded work gives the same update as filling the budget.

The loss is summed over a batch's sentences and normalised by the whole batch, so how a batch is cut into
sub-batches changes only how much padding the network computes. With dropout off (the modules in eval mode), a
span, a biaffine (BiLSTM and transformer) and a joint parser train the same losses and weights, float rounding
aside, whichever way their batches are cut, and the cuts do differ."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Dict, List

import pytest
import torch

from helpers.trainers import generic_trainer, tiny_trainer
from mlparse.train.trainer import Trainer, subbatching_of


def without_dropout(trainer: Trainer) -> Trainer:
    """The trainer's network stays in eval mode (no dropout) while ``train_step`` asks for training mode."""
    network = trainer.network
    network.eval()
    network.train = lambda mode=True: network  # type: ignore[method-assign,assignment]
    return trainer


def span(tmp_path: Path, subbatching: str) -> Trainer:
    return tiny_trainer(tmp_path, "cython", train={"subbatching": subbatching, "subbatch_overhead": 0})


def biaffine(overrides: List[str]) -> Callable[[Path, str], Trainer]:
    def make(tmp_path: Path, subbatching: str) -> Trainer:
        return generic_trainer(tmp_path, "biaffine", [f"train.subbatching={subbatching}", "train.subbatch_overhead=0",
                                                      *overrides])
    return make


def joint(tmp_path: Path, subbatching: str) -> Trainer:
    return generic_trainer(tmp_path, "joint", [f"train.subbatching={subbatching}", "train.subbatch_overhead=0"])


MAKERS: Dict[str, Callable[[Path, str], Trainer]] = {
    "span": span, "biaffine-transformer": biaffine([]), "biaffine-bilstm": biaffine(["model.encoder=bilstm"]),
    "joint": joint}


def first_gradients(trainer: Trainer, batch: List[int]) -> Dict[str, torch.Tensor]:
    """The gradients of one update over ``batch``, the optimizer held still."""
    step = trainer.optimizer.step
    trainer.optimizer.step = lambda *args, **kwargs: None  # type: ignore[method-assign]
    trainer.train_step(batch)
    trainer.optimizer.step = step  # type: ignore[method-assign]
    return {name: p.grad.clone() for name, p in trainer.model.named_parameters() if p.grad is not None}


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_least_work_trains_as_filling_does(tmp_path: Path, kind: str) -> None:
    """Same gradients of the first update (to float rounding: the sums run over other groups), same losses of three
    updates. Weights after Adam are not compared: Adam scales a gradient that is float noise (a padded position's
    exactly-zero gradient in one cut, 1e-12 in the other) to a full step."""
    losses: Dict[str, List[float]] = {}
    gradients: Dict[str, Dict[str, torch.Tensor]] = {}
    cuts: Dict[str, List[List[int]]] = {}
    for subbatching in ("fill", "least_work"):
        trainer = without_dropout(MAKERS[kind](tmp_path / subbatching, subbatching))
        assert trainer.subbatching == subbatching
        batch = list(range(len(trainer.train_sentences)))
        cuts[subbatching] = trainer.subbatches(batch)
        gradients[subbatching] = first_gradients(trainer, batch)
        losses[subbatching] = [trainer.train_step(batch) for _ in range(3)]
    assert cuts["fill"] != cuts["least_work"]  # the two really cut the batch differently
    assert losses["least_work"] == pytest.approx(losses["fill"], rel=1e-4, abs=1e-5)
    assert gradients["fill"].keys() == gradients["least_work"].keys()
    scale = max(float(g.abs().max()) for g in gradients["fill"].values())  # a gradient that is float noise: near 0
    for name, gradient in gradients["fill"].items():
        torch.testing.assert_close(gradients["least_work"][name], gradient, rtol=1e-3, atol=1e-5 * scale, msg=name)


def test_auto_is_least_work_on_a_cpu_and_fill_on_a_gpu() -> None:
    assert subbatching_of("auto", torch.device("cpu")) == "least_work"
    assert subbatching_of("auto", torch.device("cuda")) == "fill"
    assert subbatching_of("fill", torch.device("cpu")) == "fill"
    assert subbatching_of("least_work", torch.device("cuda")) == "least_work"
