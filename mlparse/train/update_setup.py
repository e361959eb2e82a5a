"""How the trainer sets up an update for its device: bf16 autocast where the GPU has it, Adam as one fused kernel
where torch has one, the sub-batch budgets (the recipe's numbers or what free memory holds) and the way a batch is
cut into sub-batches (``train.subbatching``)."""

from __future__ import annotations

import sys
from typing import Any, Dict, Sequence

import torch
from torch import nn

from mlparse.config import RecipeConfig
from mlparse.models.base import Parser
from mlparse.train.budget import parameter_bytes, resolve_budget


def bf16_autocast(device: torch.device, wanted: bool, warn: bool = True) -> bool:
    """Use bf16 autocast?  Only on CUDA, and only where the GPU supports bf16 (pre-Ampere GPUs
    such as the V100 or T4 do not: torch would refuse at the first step); then fp32, with a warning."""
    if not wanted or device.type != "cuda":
        return False
    if not torch.cuda.is_bf16_supported():
        if warn:
            sys.stderr.write("warning: this GPU does not support bf16; training in fp32 (train.bf16 ignored)\n")
        return False
    return True


def make_adam(params: Any, betas: Sequence[float], eps: float, device: torch.device) -> torch.optim.Adam:
    """Adam (learning rate set by the schedule at every update) as one fused kernel where this torch has it
    for ``device``: the per-parameter loop launches a dozen operations per parameter and reads every
    step count back to the host; otherwise the multi-tensor version on CUDA, the plain one elsewhere.
    ``params``: a module's parameters, or parameter groups (:meth:`Parser.optimizer_groups`)."""
    params = list(params.parameters()) if isinstance(params, nn.Module) else list(params)
    options: Dict[str, Any] = {"lr": 0.0, "betas": tuple(betas), "eps": eps}
    try:
        return torch.optim.Adam(params, fused=True, **options)
    except (RuntimeError, ValueError, TypeError):  # no fused kernel for this device or these tensors
        return torch.optim.Adam(params, foreach=device.type == "cuda", **options)


def subbatch_budgets(config: RecipeConfig, model: Parser, device: torch.device, decoder: str) -> tuple:
    """``(train, eval)`` sub-batch budgets in token-equivalents: the recipe's numbers, or for ``auto``
    what the device's free memory holds (:mod:`mlparse.train.budget`)."""
    weights = parameter_bytes(model)
    return (resolve_budget(config.train.subbatch_tokens, "train", device, model.position_bytes(True, decoder), weights),
            resolve_budget(config.eval.subbatch_tokens, "eval", device, model.position_bytes(False, decoder)))


def subbatching_of(setting: str, device: torch.device, real_positions: bool = False) -> str:
    """``train.subbatching`` resolved for ``device``: ``auto`` is ``least_work`` on a CPU, where every padded
    position costs its full work (the BiLSTM parser on EWT with oneDNN's padded layer: 1.9x its words computed with
    ``fill``, 1.16x with ``least_work``, 1.42-1.55x the words per second; docs/benchmarks.md, "Training speed"), and
    ``fill`` on a GPU, where a sub-batch's fixed cost (launches, a host wait) outweighs padding that runs in
    parallel.  ``real_positions``: the model's update works on the real positions only there
    (:meth:`Parser.trains_on_real_positions`), so ``auto`` is ``fill``: its larger sub-batches make larger
    products, and the padding they bring costs little."""
    if setting == "auto":
        return "least_work" if device.type == "cpu" and not real_positions else "fill"
    return setting
