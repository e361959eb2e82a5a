"""bf16 autocast over a whole update: every weight cast once per update, not once per sub-batch, with the
gradients of per-sub-batch autocast blocks.  Measured with the CPU's autocast, which caches casts as CUDA's does."""

from __future__ import annotations

from pathlib import Path
from typing import Dict

import pytest
import torch

from mlparse.train.mixed_precision import UpdateAutocast
from benchmarks.instrumentation.step_count import count_weight_casts
from helpers.trainers import generic_trainer, tiny_trainer


class PerSubBatchAutocast(UpdateAutocast):
    """The former way: an autocast block of its own for each sub-batch's forward pass."""

    def __enter__(self) -> "UpdateAutocast":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

#: torch 2.13 (the version the install pins) reuses a weight's cast made under no_grad in a later use with
#: gradient; older versions (the H200's torch 2.11, say) cast it again in each sub-batch.
CASTS_CACHED_WITHOUT_GRAD = tuple(int(part) for part in torch.__version__.split("+")[0].split(".")[:2]) >= (2, 13)


def make(tmp_path: Path, kind: str):  # type: ignore[no-untyped-def]
    if kind == "span":
        return tiny_trainer(tmp_path, "torch", predict_tags=True)
    return generic_trainer(tmp_path, kind)


@pytest.mark.parametrize("kind", ["span", "biaffine"])
def test_each_weight_is_cast_once_per_update_whatever_the_sub_batches(tmp_path: Path, kind: str) -> None:
    trainer = make(tmp_path, kind)
    batch = list(range(len(trainer.train_sentences)))
    trainer.train_step(batch)
    figures = count_weight_casts(trainer, batch)
    assert figures.subbatches > 1
    assert figures.weights_cast > 0
    if CASTS_CACHED_WITHOUT_GRAD:
        assert figures.weight_casts == figures.weights_cast  # once each
    else:  # older torch casts a layer first used under no_grad once more per sub-batch (docs/gpu.md)
        assert figures.weight_casts < figures.weights_cast * figures.subbatches


def test_the_joint_parser_casts_only_its_label_query_vectors_again(tmp_path: Path) -> None:
    """The query vectors reach their matrix product through einsum's views, which autocast does not cache."""
    trainer = make(tmp_path, "joint")
    batch = list(range(len(trainer.train_sentences)))
    trainer.train_step(batch)
    figures = count_weight_casts(trainer, batch)
    if CASTS_CACHED_WITHOUT_GRAD:
        assert figures.weight_casts == figures.weights_cast + figures.subbatches - 1
    else:
        assert figures.weight_casts < figures.weights_cast * figures.subbatches


def gradients_after_one_update(tmp_path: Path, kind: str, precision_class: type) -> Dict[str, torch.Tensor]:
    torch.manual_seed(0)
    trainer = make(tmp_path, kind)
    trainer.precision = precision_class("cpu", True)
    trainer.config.train.overlap = False
    torch.manual_seed(1)
    trainer.train_step(list(range(len(trainer.train_sentences))))
    return {name: p.grad.clone() for name, p in trainer.model.named_parameters() if p.grad is not None}


@pytest.mark.parametrize("kind", ["span", "joint"])
def test_one_block_per_update_gives_the_gradients_of_one_block_per_sub_batch(tmp_path: Path, kind: str) -> None:
    one = gradients_after_one_update(tmp_path / "one", kind, UpdateAutocast)
    each = gradients_after_one_update(tmp_path / "each", kind, PerSubBatchAutocast)
    assert one.keys() == each.keys() and len(one) > 10
    for name in one:
        assert torch.equal(one[name], each[name]), name


def test_backward_runs_without_autocast_and_the_cache_lives_until_the_update_ends() -> None:
    weight = torch.nn.Parameter(torch.randn(4, 4))
    with UpdateAutocast("cpu", True) as precision:
        with precision.forward():
            assert torch.is_autocast_enabled("cpu")
            first = torch.mm(torch.randn(2, 4), weight)
        with precision.backward():
            assert not torch.is_autocast_enabled("cpu")
            first.float().sum().backward()
        assert torch.is_autocast_enabled("cpu")  # the outer block
    assert not torch.is_autocast_enabled("cpu")
    assert first.dtype == torch.bfloat16 and weight.grad is not None and weight.grad.dtype == torch.float32


def test_switched_off_it_does_nothing() -> None:
    with UpdateAutocast("cpu", False) as precision:
        with precision.forward():
            assert not torch.is_autocast_enabled("cpu")
            assert torch.mm(torch.randn(2, 2), torch.randn(2, 2)).dtype == torch.float32


@pytest.mark.skipif(not (torch.cuda.is_available() and torch.cuda.is_bf16_supported()), reason="no CUDA device with bf16")
def test_on_a_gpu_each_weight_is_cast_once_per_update(tmp_path: Path) -> None:
    trainer = tiny_trainer(tmp_path, "torch", device="cuda")
    assert trainer.precision.enabled
    batch = list(range(len(trainer.train_sentences)))
    trainer.train_step(batch)
    figures = count_weight_casts(trainer, batch, "cuda")
    # once each with torch 2.13; torch versions that do not cache a cast made without gradient cast the label
    # layer (scored under no_grad for the decoder first) once more per sub-batch: still far below once per use
    assert figures.subbatches > 1 and figures.weights_cast > 0
    assert figures.weight_casts < figures.weights_cast * figures.subbatches
    if CASTS_CACHED_WITHOUT_GRAD:
        assert figures.weight_casts == figures.weights_cast
