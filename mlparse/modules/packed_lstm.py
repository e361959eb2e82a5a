"""One bidirectional LSTM layer for a CPU: both directions in one time loop over the real words only, with a
backward pass written by hand.

Why not torch's own layer.  On a CPU, ``nn.LSTM`` over a padded batch runs oneDNN's fused layer, fast per
position but paid for every padded position, so a batch must be cut into sub-batches of similar lengths, and
then each step multiplies only a few dozen rows; over a packed batch torch steps through time in C++ with
autograd recording every slice (its backward builds a zero gradient of the whole batch for each one).  Here the
batch is packed time-major (the rows of step ``t`` are the sentences longer than ``t``, longest first), so:

- the input's share of the gates, ``x @ W_ih^T``, is one product over every word of the batch (no padding);
- each step multiplies the running states of both directions at once (``bmm`` of ``[2, B_t, H]`` by
  ``[2, H, 4H]``), ``B_t`` the sentences still running: few, large products instead of many small ones;
- the backward pass keeps only the recurrence in the time loop: the weight gradients and the input gradient are
  three products over every word after it.

The arithmetic is the LSTM's (torch's gate equations; the gates kept in the order i, f, o, g inside, so that
one sigmoid covers three of them); outputs and gradients equal ``nn.LSTM``'s up to float rounding (tested).
Optionally the products are computed in bfloat16 (``products``), a different arithmetic: the gate
pre-activations and the gradients then carry bfloat16's rounding (about 3 significant digits) while the cell
states and everything elementwise stay in float32.

Shapes: ``N`` words of a batch, ``H`` units per direction, ``D`` input size.  The layer works on packed rows:
``PackedLayout`` maps a padded batch ``[B, T, ...]`` (real positions a prefix of each row) to the packed rows
of each direction and back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np
import torch
from torch import Tensor, nn
from torch.autograd.function import once_differentiable


@dataclass(frozen=True, eq=False)  # tensors inside: identity, not a generated ==
class PackedLayout:
    """Where each word of a padded batch sits in the packed, time-major rows of both directions.

    ``steps[t] = (offset, count)``: the rows of time step ``t`` are ``offset .. offset + count``; ``count`` does
    not grow with ``t``, and the first ``count`` running sentences of step ``t`` are the first ``count`` of step
    ``t - 1``.  A direction's rows read each sentence from its start (forward) or its end (backward).  Index
    tensors (``LongTensor``, ``N`` words, ``B * T`` padded positions, ``b * T + t`` the flat position):

    - ``positions[N]``: the flat padded position of each forward row;
    - ``sentences[N]``: the sentence (batch row) of each forward row;
    - ``unpack[B * T]``: the forward row of each flat position, ``N`` (a zero row) at padding;
    - ``backward_from_forward[N]``: for each backward row, the forward row of the same word;
    - ``forward_from_backward[N]``: for each forward row, the backward row of the same word;
    - ``previous_rows[N]``: the row of the step before in the same sentence (the same in both directions),
      ``N`` at the first step."""

    batch: int
    length: int
    steps: Tuple[Tuple[int, int], ...]
    positions: Tensor
    sentences: Tensor
    unpack: Tensor
    backward_from_forward: Tensor
    forward_from_backward: Tensor
    previous_rows: Tensor

    @staticmethod
    def of(lengths: Sequence[int], padded_length: int) -> "PackedLayout":
        """The layout of a batch whose row ``b`` has ``lengths[b]`` real positions, padded to ``padded_length``."""
        counts = np.asarray(lengths, dtype=np.int64)
        if counts.size == 0 or counts.min() < 1 or counts.max() > padded_length:
            raise ValueError(f"lengths must be between 1 and {padded_length}: {list(counts)}")
        order = np.argsort(-counts, kind="stable")  # longest first
        sorted_counts = counts[order]
        longest = int(sorted_counts[0])
        per_step = (sorted_counts[None, :] > np.arange(longest)[:, None]).sum(axis=1)  # [T'] running sentences
        offsets = np.concatenate([[0], np.cumsum(per_step)[:-1]])
        words = int(per_step.sum())
        # packed row n = offsets[t] + k holds the k-th longest sentence at step t
        step_of_row = np.repeat(np.arange(longest), per_step)
        rank_of_row = np.arange(words) - offsets[step_of_row]
        sentence = order[rank_of_row]
        positions = sentence * padded_length + step_of_row
        backward_positions = sentence * padded_length + (counts[sentence] - 1 - step_of_row)
        unpack = np.full(len(counts) * padded_length, words, dtype=np.int64)
        unpack[positions] = np.arange(words)
        backward_from_forward = unpack[backward_positions]
        forward_from_backward = np.argsort(backward_from_forward)
        previous = np.where(step_of_row > 0, offsets[np.maximum(step_of_row - 1, 0)] + rank_of_row, words)
        steps = tuple((int(o), int(c)) for o, c in zip(offsets, per_step))
        tensors = (torch.from_numpy(np.ascontiguousarray(a)) for a in
                   (positions, sentence, unpack, backward_from_forward, forward_from_backward, previous))
        return PackedLayout(len(counts), padded_length, steps, *tensors)

    @property
    def words(self) -> int:
        """``N``, the real positions of the batch."""
        return int(self.positions.shape[0])

    def pack(self, x: Tensor) -> Tensor:
        """The words of ``x: Tensor[B, T, d]`` as forward rows: ``Tensor[N, d]``."""
        return x.reshape(self.batch * self.length, x.shape[-1]).index_select(0, self.positions)

    def drop(self, dropout: nn.Module, rows: Tensor) -> Tensor:
        """``dropout`` (a :mod:`mlparse.modules.dropout` module) on forward rows ``Tensor[N, d]``: the masks it would
        draw on the padded batch ``[B, T, d]``, on the words only."""
        return dropout.on_rows(rows, self.batch, self.length, self.sentences, self.positions)

    def gather_padded(self, values: Tensor) -> Tensor:
        """A padded per-position tensor ``values: Tensor[B, T, ...]`` at the forward rows: ``Tensor[N, ...]``."""
        return values.reshape((self.batch * self.length,) + values.shape[2:]).index_select(0, self.positions)

    def rows_at(self, steps: Tensor) -> Tensor:
        """The forward row of position ``steps[n]`` of row ``n``'s own sentence, for each forward row:
        ``steps: LongTensor[N]``, each a real position of that sentence -> ``LongTensor[N]``."""
        return self.unpack.index_select(0, self.sentences * self.length + steps)

    def unpack_rows(self, rows: Tensor) -> Tensor:
        """Forward rows ``Tensor[N, d]`` back in the padded batch: ``Tensor[B, T, d]``, zero at padding."""
        padded = torch.cat([rows, rows.new_zeros(1, rows.shape[1])])  # a zero row last, for padding
        return padded.index_select(0, self.unpack).view(self.batch, self.length, rows.shape[1])


def _gate_order(weight: Tensor, hidden: int) -> Tensor:
    """torch's gate rows (i, f, g, o) in this module's order (i, f, o, g): ``[4H, ...]`` -> ``[4H, ...]``."""
    return torch.cat([weight[:2 * hidden], weight[3 * hidden:], weight[2 * hidden:3 * hidden]])


#: With bfloat16 products the batch's rows are padded with zero rows to a multiple of this: oneDNN compiles a
#: kernel for each new shape of a bfloat16 product (10-30 ms on the 2-core Xeon, more than the product itself),
#: and a batch's word count is rarely seen twice, while its multiple of 128 is (at most 127 zero rows, about 3%).
ROW_QUANTUM = 128


def _rounded_up(rows: int) -> int:
    """``rows`` up to a multiple of :data:`ROW_QUANTUM`."""
    return -(-rows // ROW_QUANTUM) * ROW_QUANTUM


#: ``grad * (1 - y^2)`` and ``grad * y * (1 - y)`` in one kernel each (torch's own derivatives of tanh and sigmoid).
_tanh_backward = torch.ops.aten.tanh_backward
_sigmoid_backward = torch.ops.aten.sigmoid_backward


class _BidirectionalRecurrence(torch.autograd.Function):
    """Both directions of one LSTM layer over packed rows.

    Forward inputs: ``x: Tensor[2, N, D]`` (each direction's packed rows), ``w_ih: Tensor[2, 4H, D]``,
    ``w_hh: Tensor[2, 4H, H]``, ``bias: Tensor[2, 4H]`` (gates in the order i, f, o, g), the layout's ``steps``
    and ``previous_rows``, and ``products``, the dtype of the matrix products' operands (``x``'s: exact).
    Output ``Tensor[2, N, H]``: each direction's hidden states."""

    @staticmethod
    def forward(ctx, x: Tensor, w_ih: Tensor, w_hh: Tensor, bias: Tensor,  # type: ignore[override]
                steps: Tuple[Tuple[int, int], ...], previous_rows: Tensor, products: torch.dtype) -> Tensor:
        hidden = w_hh.shape[2]
        low = products != x.dtype  # the products' operands rounded to ``products``, their results used in float32
        words = x.shape[1]
        if low:  # zero rows up to a multiple of ROW_QUANTUM: the products' shapes recur (see ROW_QUANTUM)
            x_p = x.new_zeros(2, _rounded_up(words), x.shape[2], dtype=products)
            x_p[:, :words] = x
            gates = torch.bmm(x_p, w_ih.to(products).transpose(1, 2))[:, :words].to(x.dtype).add_(bias.unsqueeze(1))
        else:
            x_p = x
            gates = torch.baddbmm(bias.unsqueeze(1), x, w_ih.transpose(1, 2))  # [2, N, 4H], the input's share
        cells = x.new_empty(2, x.shape[1], hidden)
        cell_tanh = x.new_empty(2, x.shape[1], hidden)
        states = x.new_empty(2, x.shape[1], hidden)
        states_p = x.new_empty(2, x.shape[1], hidden, dtype=products) if low else states  # the recurrence's operand
        recurrent = w_hh.to(products).transpose(1, 2)  # [2, H, 4H]
        before = None  # the previous step's (offset, count)
        for offset, count in steps:
            g = gates[:, offset:offset + count]  # [2, B_t, 4H], becomes the gates' activations in place
            if before is not None:
                previous = states_p[:, before[0]:before[0] + count]
                if low:
                    g.add_(torch.bmm(previous, recurrent))
                else:
                    g.baddbmm_(previous, recurrent)
            g[..., :3 * hidden].sigmoid_()
            g[..., 3 * hidden:].tanh_()
            c = cells[:, offset:offset + count]
            torch.mul(g[..., :hidden], g[..., 3 * hidden:], out=c)  # i * g
            if before is not None:
                c.addcmul_(g[..., hidden:2 * hidden], cells[:, before[0]:before[0] + count])  # + f * c_{t-1}
            tc = cell_tanh[:, offset:offset + count]
            torch.tanh(c, out=tc)
            h = states[:, offset:offset + count]
            torch.mul(g[..., 2 * hidden:3 * hidden], tc, out=h)  # o * tanh(c)
            if low:
                states_p[:, offset:offset + count] = h
            before = (offset, count)
        ctx.save_for_backward(x_p, w_ih, w_hh, gates, cells, cell_tanh, states_p, previous_rows)
        ctx.steps = steps
        ctx.products = products
        ctx.low = low
        return states

    @staticmethod
    @once_differentiable  # the hand-written backward is not itself differentiable
    def backward(ctx, grad_states: Tensor):  # type: ignore[override]
        x_p, w_ih, w_hh, gates, cells, cell_tanh, states_p, previous_rows = ctx.saved_tensors
        steps, products, low = ctx.steps, ctx.products, ctx.low
        hidden = w_hh.shape[2]
        grad_h = grad_states.contiguous().clone()  # [2, N, H]; gains each step's carried-back share
        grad_gates = torch.empty_like(gates)  # [2, N, 4H], pre-activation gradients
        words = gates.shape[1]
        grad_gates_p = grad_gates  # the products' operand: in ``products``, with x_p's zero rows after the words
        if low:
            grad_gates_p = gates.new_empty(2, x_p.shape[1], gates.shape[2], dtype=products)
            grad_gates_p[:, words:].zero_()
        w_hh_p = w_hh.to(products)
        carry_c = None  # dL/dc_{t} carried from step t + 1, [2, B_{t+1}, H]
        for index in range(len(steps) - 1, -1, -1):
            offset, count = steps[index]
            rows = slice(offset, offset + count)
            a = gates[:, rows]
            i, f, o, g = (a[..., k * hidden:(k + 1) * hidden] for k in range(4))
            dh = grad_h[:, rows]
            tc = cell_tanh[:, rows]
            dc = _tanh_backward(dh * o, tc)  # through h = o * tanh(c)
            if carry_c is not None:
                dc[:, :carry_c.shape[1]].add_(carry_c)
            d = grad_gates[:, rows]
            torch.mul(dc, g, out=d[..., :hidden])  # di
            if index > 0:
                before = steps[index - 1][0]
                torch.mul(dc, cells[:, before:before + count], out=d[..., hidden:2 * hidden])  # df
            else:
                d[..., hidden:2 * hidden].zero_()
            torch.mul(dh, tc, out=d[..., 2 * hidden:3 * hidden])  # do
            d[..., :3 * hidden] = _sigmoid_backward(d[..., :3 * hidden], a[..., :3 * hidden])  # sigmoid'
            d[..., 3 * hidden:] = _tanh_backward(dc * i, g)  # dg, tanh'
            if low:
                grad_gates_p[:, rows] = d
            if index > 0:
                before = steps[index - 1][0]
                if low:  # dL/dh_{t-1}
                    grad_h[:, before:before + count].add_(torch.bmm(grad_gates_p[:, rows], w_hh_p))
                else:
                    grad_h[:, before:before + count].baddbmm_(d, w_hh)
                carry_c = dc * f
        padded_states = torch.cat([states_p, states_p.new_zeros(2, 1, hidden)], dim=1)
        if x_p.shape[1] > words:  # x_p's zero rows: zero states too
            previous_rows = torch.cat([previous_rows, previous_rows.new_full((x_p.shape[1] - words,), words)])
        previous_states = padded_states.index_select(1, previous_rows)  # [2, N, H], h_{t-1} of each row (0 first)
        dtype = gates.dtype
        grad_x = (torch.bmm(grad_gates_p, w_ih.to(products))[:, :words].to(dtype) if ctx.needs_input_grad[0]
                  else None)
        grad_w_ih = torch.bmm(grad_gates_p.transpose(1, 2), x_p).to(dtype)
        grad_w_hh = torch.bmm(grad_gates_p.transpose(1, 2), previous_states).to(dtype)
        grad_bias = grad_gates.sum(dim=1)
        return grad_x, grad_w_ih, grad_w_hh, grad_bias, None, None, None


def packed_bidirectional_layer(lstm: nn.LSTM, rows: Tensor, layout: PackedLayout,
                               products: Optional[torch.dtype] = None) -> Tensor:
    """The one-layer bidirectional ``lstm`` over a batch's words ``rows: Tensor[N, D]`` (forward rows of
    ``layout``, :meth:`PackedLayout.pack`): ``Tensor[N, 2H]``, forward states then backward states of each word,
    as ``nn.LSTM`` over the packed batch gives, with gradients to ``rows`` and to ``lstm``'s weights.

    ``products``: the dtype of the matrix products (None: ``rows``'s). ``torch.bfloat16`` rounds the operands of
    every product (inputs, weights, the previous states, the gate gradients) to bfloat16, which a CPU with AMX
    (bf16 matrix units) multiplies several times faster; each product comes back in bfloat16 (summed in float32)
    and is read in ``rows``'s dtype, in which the gate arithmetic, the cell states, the outputs and the gradients
    stay."""
    if torch.is_autocast_enabled(rows.device.type):  # the kernel computes in float32, autocast off inside it
        with torch.autocast(rows.device.type, enabled=False):
            return packed_bidirectional_layer(lstm, rows.float(), layout, products)
    hidden = lstm.hidden_size
    inputs = torch.stack([rows, rows.index_select(0, layout.backward_from_forward)])  # [2, N, D]
    w_ih = torch.stack([_gate_order(lstm.weight_ih_l0, hidden), _gate_order(lstm.weight_ih_l0_reverse, hidden)])
    w_hh = torch.stack([_gate_order(lstm.weight_hh_l0, hidden), _gate_order(lstm.weight_hh_l0_reverse, hidden)])
    bias = torch.stack([_gate_order(lstm.bias_ih_l0 + lstm.bias_hh_l0, hidden),
                        _gate_order(lstm.bias_ih_l0_reverse + lstm.bias_hh_l0_reverse, hidden)])
    states = _BidirectionalRecurrence.apply(inputs, w_ih, w_hh, bias, layout.steps, layout.previous_rows,
                                            products or rows.dtype)
    return torch.cat([states[0], states[1].index_select(0, layout.forward_from_backward)], dim=1)


__all__: List[str] = ["PackedLayout", "packed_bidirectional_layer"]
