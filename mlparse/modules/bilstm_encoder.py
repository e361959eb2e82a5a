"""The BiLSTM encoder of the deep biaffine parser (Dozat & Manning 2017): the baseline Li et al. compare with.

A stack of bidirectional LSTM layers (3 layers of 400 units per direction in the original);
each layer reads the concatenated outputs of both directions of the layer below.  Dropout (0.33)
on the input of every layer and on the output.
"""

from __future__ import annotations

from typing import Literal, Optional, Sequence

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from mlparse.modules.transfer import to_device
from mlparse.modules.dropout import DropoutKind, make_dropout
from mlparse.modules.packed_lstm import PackedLayout, packed_bidirectional_layer

#: How the layers run on a CPU: ``packed`` (both directions in one loop over the real words, a backward pass
#: written by hand: :mod:`mlparse.modules.packed_lstm`), ``padded`` (oneDNN's fused layer over the padded rows,
#: with gradient; packed ``nn.LSTM`` without), ``torch`` (``nn.LSTM`` over the packed batch), ``auto``
#: (:func:`packed_pays`). All give the same outputs and gradients up to float rounding (tested); off a CPU
#: ``torch`` is used (cuDNN).
CpuKernel = Literal["auto", "packed", "padded", "torch"]

#: ``auto`` runs the packed kernel from this many rows of a batch on, or when padding is this share of the words.
PACKED_FROM_ROWS = 64
PACKED_FROM_PADDING = 0.25


def packed_pays(lengths: np.ndarray, padded_length: int) -> bool:
    """Whether the packed kernel beats oneDNN's padded layer on a batch of rows of ``lengths`` padded to
    ``padded_length``. Measured on the 2-core machine (2026-11-28: a microbenchmark of 2- and 3-layer encoders of
    hidden 128-400, forward and backward, and the speed guard): the packed kernel's Python loop costs about 25
    operations a time step, so a batch of few rows of similar lengths (the tagger's 32 sentences in length
    buckets: 0.83x the updates with it) runs faster padded; from 64 rows, or with a quarter of padding, the packed
    kernel wins (1.3-5x)."""
    words = int(lengths.sum())
    return len(lengths) >= PACKED_FROM_ROWS or len(lengths) * padded_length >= (1 + PACKED_FROM_PADDING) * words


class BiLSTMEncoder(nn.Module):
    """Context vectors from a multi-layer BiLSTM.

    Args:
        d_input: size of the input vectors.
        d_hidden: units per direction (output size ``2 * d_hidden``).
        num_layers: stacked layers.
        dropout: dropout between layers and on the output.
        dropout_kind: ``feature`` (one mask per sentence and feature, as the parsers) or ``element``.

    Inputs ``x: Tensor[B, T, d_input]``, ``mask: BoolTensor[B, T]`` (True on real positions, a prefix
    of each row).  Output ``Tensor[B, T, 2 * d_hidden]``, zero at padding.
    """

    def __init__(self, d_input: int, d_hidden: int = 400, num_layers: int = 3, dropout: float = 0.33,
                 dropout_kind: DropoutKind = "feature") -> None:
        super().__init__()
        self.d_output = 2 * d_hidden
        self.layers = nn.ModuleList(
            nn.LSTM(d_input if k == 0 else 2 * d_hidden, d_hidden, batch_first=True, bidirectional=True)
            for k in range(num_layers))
        self.dropout = make_dropout(dropout, dropout_kind)
        #: How the layers run on a CPU (:data:`CpuKernel`); tests compare the three.
        self.cpu_kernel: CpuKernel = "auto"
        #: The packed kernel's matrix products in training (None: in the inputs' dtype, exact; ``torch.bfloat16``:
        #: rounded operands, ``train.cpu_bf16``; ``auto`` then always runs the packed kernel in training). Dev checks
        #: and parsing (``eval()``) always multiply exactly.
        self.training_products: Optional[torch.dtype] = None

    def forward(self, x: Tensor, mask: Tensor, lengths: Optional[Sequence[int]] = None) -> Tensor:
        """``lengths``: the real positions of each row (``mask``'s row sums) on the host; given, the rows are
        sorted longest first on the host and the device neither sorts them nor is read back (None: read from
        ``mask``, one wait on a GPU)."""
        if lengths is None:
            lengths = mask.sum(dim=1).cpu().tolist()
        counts = np.asarray(lengths, dtype=np.int64)
        kernel = self.cpu_kernel
        if kernel == "auto":  # bfloat16 products (train.cpu_bf16) are the packed kernel's: it runs whenever they are set
            bf16 = self.training and self.training_products is not None
            kernel = "packed" if bf16 or packed_pays(counts, x.shape[1]) else "padded"
        if x.device.type == "cpu" and kernel == "packed":
            return self._packed(x, counts)
        if x.device.type == "cpu" and kernel == "padded" and torch.is_grad_enabled():
            return self._padded(x, mask, counts)
        order = np.argsort(-counts, kind="stable")  # longest first, chosen on the host
        index = to_device(order, x.device)
        restore = to_device(np.argsort(order), x.device)
        sorted_lengths = torch.from_numpy(counts[order])  # packing wants them on the host
        length = x.shape[1]
        for lstm in self.layers:
            # dropout in the batch's own order (one mask per sentence, as drawn before), then the rows sorted
            packed = pack_padded_sequence(self.dropout(x).index_select(0, index), sorted_lengths, batch_first=True,
                                          enforce_sorted=True)
            output, _ = lstm(packed)
            x, _ = pad_packed_sequence(output, batch_first=True, total_length=length)
            x = x.index_select(0, restore)
        return self.dropout(x) * mask.unsqueeze(-1).to(x.dtype)

    def _packed(self, x: Tensor, counts: np.ndarray) -> Tensor:
        """:meth:`forward` on a CPU by :func:`~mlparse.modules.packed_lstm.packed_bidirectional_layer`: each
        layer over the real words only, both directions in one loop; dropout drawn in the batch's own order and
        shapes, as the other kernels draw it.  ``x: Tensor[B, T, d]``, ``counts``: the row lengths on the host."""
        rows, layout = self.rows(x, counts)
        return layout.unpack_rows(rows)

    def rows(self, x: Tensor, lengths: Sequence[int]) -> "tuple[Tensor, PackedLayout]":
        """The packed kernel's outputs before they are put back in the padded batch: ``(Tensor[N, 2H], layout)``,
        one row per real position (:class:`~mlparse.modules.packed_lstm.PackedLayout`'s forward rows), output
        dropout applied.  ``x: Tensor[B, T, d]`` on a CPU, ``lengths``: each row's real positions."""
        layout = PackedLayout.of(lengths, x.shape[1])
        rows = layout.pack(x)  # [N, d]: the words only, from here to the output
        products = self.training_products if self.training else None
        for lstm in self.layers:
            rows = packed_bidirectional_layer(lstm, layout.drop(self.dropout, rows), layout, products)
        return layout.drop(self.dropout, rows), layout

    def runs_on_rows(self, x: Tensor) -> bool:
        """Whether a caller that can work on rows should call :meth:`rows` for ``x``: a CPU tensor and the packed
        kernel, or ``auto`` (a caller on rows saves the padding of its own layers too, so ``auto`` does not weigh
        :func:`packed_pays` here)."""
        return x.device.type == "cpu" and self.cpu_kernel in ("auto", "packed")

    def _padded(self, x: Tensor, mask: Tensor, counts: np.ndarray) -> Tensor:
        """:meth:`forward` for training on a CPU, without packing: each direction runs over the padded rows, the
        backward one over each row reversed within its length (padding stays at the end, after the words, so
        neither direction's words see it). The same outputs as the packed computation (float rounding aside),
        but torch's CPU LSTM takes a padded batch apart with one ``unbind`` where a packed one slices it step by
        step, and the gradient of every slice is a zero tensor of the whole batch: with EWT batches of 32
        sentences this made the packed backward pass about half of an update's time.

        ``x: Tensor[B, T, d]``, ``mask: BoolTensor[B, T]``, ``counts``: the row lengths on the host."""
        steps = np.arange(x.shape[1], dtype=np.int64)[None, :]
        reversed_steps = np.where(steps < counts[:, None], counts[:, None] - 1 - steps, steps)  # [B, T], an involution
        flip = to_device(reversed_steps, x.device)
        for lstm in self.layers:
            inputs = self.dropout(x)
            forward = _one_direction(lstm, inputs, "")
            backward = _one_direction(lstm, _gather_steps(inputs, flip), "_reverse")
            x = torch.cat([forward, _gather_steps(backward, flip)], dim=-1)
        return self.dropout(x) * mask.unsqueeze(-1).to(x.dtype)


def _gather_steps(x: Tensor, steps: Tensor) -> Tensor:
    """``out[b, t] = x[b, steps[b, t]]``: ``x: Tensor[B, T, d]``, ``steps: LongTensor[B, T]``."""
    return x.gather(1, steps.unsqueeze(-1).expand(-1, -1, x.shape[-1]))


def _one_direction(lstm: nn.LSTM, x: Tensor, suffix: str) -> Tensor:
    """One direction of the one-layer bidirectional ``lstm`` (its ``_l0`` weights, ``suffix`` ``""`` or
    ``"_reverse"``) run forward over ``x: Tensor[B, T, d]`` (batch first): ``Tensor[B, T, d_hidden]``."""
    weights = [getattr(lstm, f"{name}_l0{suffix}") for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    zeros = x.new_zeros(1, x.shape[0], lstm.hidden_size)
    output, _, _ = torch._VF.lstm(x, (zeros, zeros), weights, True, 1, 0.0, lstm.training, False, True)
    return output
