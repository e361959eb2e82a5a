"""Dynamic int8 quantization of a parser's linear layers, for parsing on a CPU (``--quantize``, opt-in).

Every ``nn.Linear`` of the model becomes torch's dynamically quantized linear layer: its weights are
rounded once to int8 (one scale per matrix), and each call quantizes its input rows to uint8 on the fly,
multiplies in integers (fbgemm) and returns float32.  Everything else (embeddings, the CharLSTM,
LayerNorm, attention's softmax, the biaffine scorers, the decoders) stays in float32.  Scores change by
the rounding, so trees can differ from the float model's; ``docs/benchmarks.md`` gives the measured F1
difference and the speed.  Packages keep their float weights: a package exported with ``--quantize``
says so in ``package.json`` and is quantized when it is loaded (``mlparse.package.load_package``), so
model files stay plain data.
"""

from __future__ import annotations

import warnings

import torch
from torch import nn

#: The one quantization mlparse offers, as ``package.json`` names it.
DYNAMIC_INT8 = "dynamic-int8"


class QuantizationError(ValueError):
    """A model that cannot be quantized here (not on the CPU), with a message for the user."""


def quantize_linear_layers(model: nn.Module) -> nn.Module:
    """``model`` (in eval mode, on the CPU) with every ``nn.Linear`` replaced, in place, by its dynamically
    quantized int8 version; returns ``model``.  Inputs and outputs of the layers keep their shapes
    (``Tensor[..., d_in] -> Tensor[..., d_out]``, float32).

    Raises :class:`QuantizationError` for a model with parameters off the CPU (torch's quantized kernels
    are CPU kernels) or in training mode (the quantized layers have no gradient).
    """
    devices = {parameter.device.type for parameter in model.parameters()}
    if devices - {"cpu"}:
        raise QuantizationError(f"int8 quantization runs on the CPU; this model is on {', '.join(sorted(devices))}: "
                                "load it with device='cpu'")
    if model.training:
        raise QuantizationError("int8 quantization is for parsing: put the model in eval mode first")
    with warnings.catch_warnings():  # torch announces the move of its eager quantization API to torchao
        warnings.simplefilter("ignore")
        torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8, inplace=True)
    return model


def is_quantized(model: nn.Module) -> bool:
    """Does ``model`` hold dynamically quantized linear layers?"""
    quantized = torch.ao.nn.quantized.dynamic.Linear
    return any(isinstance(module, quantized) for module in model.modules())
