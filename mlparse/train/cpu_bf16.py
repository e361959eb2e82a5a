"""``train.cpu_bf16``: the BiLSTM encoder's matrix products in bfloat16 while training on a CPU.

On a CPU with bf16 matrix units (Intel AMX, or AVX512-BF16) oneDNN multiplies bfloat16 matrices several times
faster than float32 ones (the 2-core Sapphire Rapids: about 4x at the LSTM's shapes, ``docs/benchmarks.md``).
The packed LSTM kernel (:mod:`mlparse.modules.packed_lstm`) can round the operands of its products to bfloat16
and use their results in float32; the weights, Adam's state, the gate arithmetic, the cell states and every
other layer stay in float32.  This is a different arithmetic from float32 training (each product's operands
carry about 3 significant digits), so it is a recipe key, hashed when on, and off by default; dev checks, tests
and parsing multiply exactly whichever way the model was trained.

Only the packed kernel is affected: a model without a :class:`~mlparse.modules.bilstm_encoder.BiLSTMEncoder`, a
GPU run (``train.bf16`` governs there) or a CPU without bf16 units (emulated bf16 would be slower) trains in
float32 with a note saying why.
"""

from __future__ import annotations

from typing import Optional

import torch
from torch import nn

from mlparse.modules.bilstm_encoder import BiLSTMEncoder


def cpu_has_bf16_units() -> bool:
    """Whether this CPU multiplies bfloat16 matrices in hardware (AMX tiles or AVX512-BF16), as torch sees it."""
    checks = (getattr(torch.cpu, "_is_amx_tile_supported", None), getattr(torch.cpu, "_is_avx512_bf16_supported", None))
    return any(check is not None and bool(check()) for check in checks)


def apply_cpu_bf16(model: nn.Module, wanted: bool, device: torch.device,
                   has_units: Optional[bool] = None) -> Optional[str]:
    """Set the training products of every BiLSTM encoder in ``model`` for ``train.cpu_bf16 = wanted`` on
    ``device``; returns a note for the user when ``wanted`` is not what happens (None otherwise).
    ``has_units``: whether the CPU has bf16 units (None: :func:`cpu_has_bf16_units`)."""
    encoders = [m for m in model.modules() if isinstance(m, BiLSTMEncoder)]
    for encoder in encoders:
        encoder.training_products = None
    if not wanted:
        return None
    if device.type != "cpu":
        return f"train.cpu_bf16 applies to CPU training only; on {device.type} train.bf16 sets the precision"
    if not encoders:
        return "train.cpu_bf16: this model has no BiLSTM encoder, the only layer it changes; training in float32"
    if not (cpu_has_bf16_units() if has_units is None else has_units):
        return ("train.cpu_bf16: this CPU has no bf16 matrix units (AMX or AVX512-BF16), where bfloat16 products "
                "would be slower; training in float32")
    for encoder in encoders:
        encoder.training_products = torch.bfloat16
    return None
