"""The BiLSTM encoder of the deep biaffine parser (Dozat & Manning 2017): the baseline Li et al. compare with.

A stack of bidirectional LSTM layers (3 layers of 400 units per direction in the original);
each layer reads the concatenated outputs of both directions of the layer below.  Dropout (0.33)
on the input of every layer and on the output.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from mlparse.modules.transfer import to_device
from mlparse.modules.dropout import DropoutKind, make_dropout


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
        #: With gradient on a CPU, run over the padded rows (:meth:`_padded`); False: always packed (tests' reference).
        self.padded_on_cpu = True

    def forward(self, x: Tensor, mask: Tensor, lengths: Optional[Sequence[int]] = None) -> Tensor:
        """``lengths``: the real positions of each row (``mask``'s row sums) on the host; given, the rows are
        sorted longest first on the host and the device neither sorts them nor is read back (None: read from
        ``mask``, one wait on a GPU)."""
        if lengths is None:
            lengths = mask.sum(dim=1).cpu().tolist()
        counts = np.asarray(lengths, dtype=np.int64)
        if self.padded_on_cpu and x.device.type == "cpu" and torch.is_grad_enabled():
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
