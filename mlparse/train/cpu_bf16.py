"""``train.cpu_bf16``: the BiLSTM encoder's matrix products in bfloat16 while training on a CPU.

On a CPU with Intel AMX (bf16 matrix tiles: Sapphire Rapids and later Xeons) oneDNN multiplies bfloat16 matrices
several times faster than float32 ones (the 2-core Sapphire Rapids: 5-8x at the LSTM's shapes,
``docs/benchmarks.md``).
The packed LSTM kernel (:mod:`mlparse.modules.packed_lstm`) can compute its products in bfloat16 (operands
rounded, sums in float32, results written in bfloat16) and read them in float32; the weights, Adam's state, the gate arithmetic, the cell states and every
other layer stay in float32.  This is a different arithmetic from float32 training (each product's operands
carry about 3 significant digits), so it is a recipe key, hashed when on, and off by default; dev checks, tests
and parsing multiply exactly whichever way the model was trained.

Only the packed kernel is affected: a model without a :class:`~mlparse.modules.bilstm_encoder.BiLSTMEncoder`, a
GPU run (``train.bf16`` governs there) or a CPU without AMX trains in float32 with a note saying why.  CPUs with
AVX512-BF16 but no AMX (Cooper Lake, AMD Zen 4) multiply bfloat16 at most twice as fast as float32 and pay the
conversions; nobody has measured the kernel there, so it stays float32 on them.
"""

from __future__ import annotations

from typing import Optional

import torch
from torch import nn

from mlparse.modules.bilstm_encoder import BiLSTMEncoder


def cpu_has_amx() -> bool:
    """Whether this CPU has AMX tiles (bfloat16 matrix units), as torch sees it."""
    check = getattr(torch.cpu, "_is_amx_tile_supported", None)
    return check is not None and bool(check())


def apply_cpu_bf16(model: nn.Module, wanted: bool, device: torch.device,
                   has_units: Optional[bool] = None) -> Optional[str]:
    """Set the training products of every BiLSTM encoder in ``model`` for ``train.cpu_bf16 = wanted`` on
    ``device``; returns a note for the user when ``wanted`` is not what happens (None otherwise).
    ``has_units``: whether the CPU has AMX (None: :func:`cpu_has_amx`)."""
    encoders = [m for m in model.modules() if isinstance(m, BiLSTMEncoder)]
    for encoder in encoders:
        encoder.training_products = None
    if not wanted:
        return None
    if device.type != "cpu":
        return f"train.cpu_bf16 applies to CPU training only; on {device.type} train.bf16 sets the precision"
    if not encoders:
        return "train.cpu_bf16: this model has no BiLSTM encoder, the only layer it changes; training in float32"
    if not (cpu_has_amx() if has_units is None else has_units):
        return ("train.cpu_bf16: this CPU has no AMX (bfloat16 matrix units), the only CPU where bfloat16 products "
                "were measured faster; training in float32")
    for encoder in encoders:
        encoder.training_products = torch.bfloat16
    return None
