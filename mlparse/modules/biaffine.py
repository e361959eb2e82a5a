"""Biaffine scorers of the deep biaffine dependency parser (Dozat & Manning 2017; Li et al. 2019, §2).

Every word representation ``h_t`` goes through two MLPs, one for its role as a dependent and one
for its role as a head (§2.1, Eq. 3).  A biaffine form then scores every (dependent, head) pair
at once (Eq. 4):

    arc[b, d, h]      = [r_d ; 1]^T  W       r_h               (one score per pair)
    label[b, d, h, l] = [r_d ; 1]^T  W_l  [r_h ; 1]            (one score per pair and relation)

Orientation, used throughout mlparse's dependency code: the *last* axis is the head, so a
softmax over ``dim=-1`` of ``arc`` is the distribution over heads of every dependent (the
cross-entropy of §2.2).  Position 0 is the root pseudo-word.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from mlparse.modules.dropout import make_dropout
from mlparse.modules.packed_lstm import PackedLayout

#: Floats of the outer products :func:`bilinear_rows` forms at once (64 MiB): bounds its memory whatever the batch.
OUTER_PRODUCT_FLOATS = 1 << 24


class Biaffine(nn.Module):
    """``out[b, o, i, j] = [x_i ; 1]^T W_o [y_j ; 1]`` with optional bias rows/columns.

    Args:
        d_x, d_y: sizes of the two inputs.
        n_out: number of output channels (1 for arcs, the number of relations for labels).
        bias_x, bias_y: append a constant 1 to ``x`` / ``y`` (Dozat & Manning: arcs use ``bias_x``
            only, so a head's prior score does not depend on the dependent; labels use both).

    Inputs ``x: Tensor[B, T, d_x]``, ``y: Tensor[B, T', d_y]``.
    Output ``Tensor[B, n_out, T, T']``.
    """

    def __init__(self, d_x: int, d_y: int, n_out: int = 1, bias_x: bool = True, bias_y: bool = True) -> None:
        super().__init__()
        self.n_out, self.bias_x, self.bias_y = n_out, bias_x, bias_y
        # Zero initialisation, as Dozat & Manning: every arc starts equally likely.
        self.weight = nn.Parameter(torch.zeros(n_out, d_x + int(bias_x), d_y + int(bias_y)))

    def forward(self, x: Tensor, y: Tensor) -> Tensor:
        if self.bias_x:
            x = torch.cat([x, x.new_ones(x.shape[:-1] + (1,))], dim=-1)
        if self.bias_y:
            y = torch.cat([y, y.new_ones(y.shape[:-1] + (1,))], dim=-1)
        # one matrix product over every position, [B T, dx] @ [dx, o dy] -> [B, o, T, dy] (a broadcast [B, 1, T, dx] @
        # [o, dx, dy] runs B small products and sums the weight's gradient over an expanded copy: 1.5-6x slower on a
        # CPU, the same numbers); then @ [B, 1, dy, T'] -> [B, o, T, T']. Under autocast (bf16 on a GPU) the
        # broadcast form, which hands the weight itself to the product: autocast casts a weight once per update only
        # when the product reads the parameter, not a permuted copy of it
        if torch.is_autocast_enabled(x.device.type):
            return (x.unsqueeze(1) @ self.weight) @ y.unsqueeze(1).transpose(-1, -2)
        batch, length, d_x = x.shape
        n_out, _, d_y = self.weight.shape
        xw = (x.reshape(batch * length, d_x) @ self.weight.permute(1, 0, 2).reshape(d_x, n_out * d_y))
        return xw.view(batch, length, n_out, d_y).transpose(1, 2) @ y.unsqueeze(1).transpose(-1, -2)


def bilinear_rows(x: Tensor, weight: Tensor, y: Tensor) -> Tensor:
    """``out[..., l] = x[...]^T weight[l] y[...]`` position by position: ``x: Tensor[..., X]``, ``weight: Tensor[L, X, Y]``,
    ``y: Tensor[..., Y]`` -> ``Tensor[..., L]``.

    The outer products ``x ⊗ y`` of a chunk of positions times the flattened weights, one matrix product per
    chunk (at most :data:`OUTER_PRODUCT_FLOATS` floats of outer products): with the hundreds of relations of
    a head table (L = 1,101, X = Y = 251) this is 1.7x faster on a CPU than ``einsum("btx,lxy,bty->btl")``,
    whose sums it gives in another order (differences of 1e-6 of the scores).  Without gradient only.
    """
    length, d_x, d_y = weight.shape
    rows_x, rows_y = x.reshape(-1, d_x), y.reshape(-1, d_y)
    flat = weight.reshape(length, d_x * d_y)
    chunk = max(1, OUTER_PRODUCT_FLOATS // (d_x * d_y))
    out = x.new_empty((rows_x.shape[0], length))
    for start in range(0, rows_x.shape[0], chunk):
        outer = (rows_x[start:start + chunk, :, None] * rows_y[start:start + chunk, None, :]).reshape(-1, d_x * d_y)
        torch.matmul(outer, flat.t(), out=out[start:start + chunk])
    return out.reshape(x.shape[:-1] + (length,))


def relation_scores_at(dependent: Tensor, head: Tensor, heads: Tensor, weight: Tensor) -> Tensor:
    """The relation scores ``[r_d ; 1]^T W_l [r_h ; 1]`` of each word d with one head, ``heads[b, d]``, without the
    ``[B, T, T, L]`` tensor of every pair: ``Tensor[B, T, L]``.

    ``dependent, head: Tensor[B, T, r]`` (the relation MLPs' outputs), ``heads: LongTensor[B, T]`` (any value at
    the root and at padding), ``weight: Tensor[L, r+1, r+1]`` (the relation :class:`Biaffine`'s).  With
    gradient (training) an einsum; without, :func:`bilinear_rows`.
    """
    chosen = head.gather(1, heads.clamp(min=0).unsqueeze(-1).expand(-1, -1, head.shape[-1]))  # [B, T, r]
    ones = dependent.new_ones(dependent.shape[:-1] + (1,))
    x = torch.cat([dependent, ones], dim=-1)  # [B, T, r+1]
    y = torch.cat([chosen, ones], dim=-1)  # [B, T, r+1]
    if torch.is_grad_enabled() and (x.requires_grad or y.requires_grad or weight.requires_grad):
        return torch.einsum("btx,lxy,bty->btl", x, weight, y)
    return bilinear_rows(x, weight.to(x.dtype), y)


class MLP(nn.Module):
    """``dropout(LeakyReLU(W h + b))``: the head/dependent projections of the biaffine parser.

    Input ``Tensor[..., d_in]`` -> ``Tensor[..., d_out]``.  Dozat & Manning use a leaky ReLU
    (slope 0.1) and dropout 0.33 on the output.
    """

    def __init__(self, d_in: int, d_out: int, dropout: float = 0.33) -> None:
        super().__init__()
        self.linear = nn.Linear(d_in, d_out)
        self.activation = nn.LeakyReLU(0.1)
        self.dropout = make_dropout(dropout, "feature")
        nn.init.orthogonal_(self.linear.weight)
        nn.init.zeros_(self.linear.bias)

    def forward(self, h: Tensor) -> Tensor:
        return self.dropout(self.activation(self.linear(h)))

    def on_rows(self, rows: Tensor, layout: PackedLayout) -> Tensor:
        """:meth:`forward` on a batch's real positions only, ``rows: Tensor[N, d_in]`` laid out by ``layout``
        (the same dropout masks as on the padded batch) -> ``Tensor[N, d_out]``."""
        return layout.drop(self.dropout, self.activation(self.linear(rows)))


class BiaffineDependencyScorer(nn.Module):
    """Arc and relation scores from encoder outputs.

    Args:
        d_model: size of the encoder outputs ``h``.
        n_relations: number of dependency relations.
        d_arc, d_relation: MLP sizes (Dozat & Manning: 500 and 100).
        mlp_dropout: dropout on the MLP outputs (0.33).

    Input ``h: Tensor[B, T, d_model]`` with position 0 the root pseudo-word.
    Outputs of :meth:`forward`: ``arc: Tensor[B, T, T]`` (``[b, d, h]``: dependent d, head h) and
    ``relation: Tensor[B, T, T, n_relations]`` (``[b, d, h, l]``).
    """

    def __init__(self, d_model: int, n_relations: int, d_arc: int = 500, d_relation: int = 100,
                 mlp_dropout: float = 0.33) -> None:
        super().__init__()
        if n_relations < 1:
            raise ValueError(f"a dependency scorer needs at least one relation, got {n_relations}")
        self.arc_dependent = MLP(d_model, d_arc, mlp_dropout)
        self.arc_head = MLP(d_model, d_arc, mlp_dropout)
        self.relation_dependent = MLP(d_model, d_relation, mlp_dropout)
        self.relation_head = MLP(d_model, d_relation, mlp_dropout)
        self.arc = Biaffine(d_arc, d_arc, 1, bias_x=True, bias_y=False)
        self.relation = Biaffine(d_relation, d_relation, n_relations, bias_x=True, bias_y=True)

    def forward(self, h: Tensor) -> tuple[Tensor, Tensor]:
        arc = self.arc(self.arc_dependent(h), self.arc_head(h)).squeeze(1)  # [B, T, T]
        relation = self.relation(self.relation_dependent(h), self.relation_head(h)).permute(0, 2, 3, 1)  # [B, T, T, L]
        return arc, relation

    def arc_scores_on_rows(self, rows: Tensor, layout: PackedLayout) -> Tensor:
        """:meth:`forward`'s arc scores from the encoder's rows ``Tensor[N, d_model]`` (one per real position,
        ``layout``): the MLPs and the first product on the real positions only, then ``Tensor[B, T, T]`` (zero
        wherever a padded position is the dependent or the head)."""
        dependent = self.arc_dependent.on_rows(rows, layout)
        head = self.arc_head.on_rows(rows, layout)
        weight = self.arc.weight[0]  # [d_arc + 1, d_arc]: bias_x only
        scaled = torch.addmm(weight[-1], dependent, weight[:-1])  # [N, d_arc]: [r_d ; 1]^T W
        return layout.unpack_rows(scaled) @ layout.unpack_rows(head).transpose(1, 2)

    def relation_scores_on_rows(self, rows: Tensor, layout: PackedLayout, heads: Tensor) -> Tensor:
        """:meth:`relation_scores_for` on the real positions only: ``rows: Tensor[N, d_model]`` laid out by
        ``layout``, ``heads: LongTensor[N]`` (each row's head position in its sentence; any value at the root
        is read as 0) -> ``Tensor[N, n_relations]``."""
        dependent = self.relation_dependent.on_rows(rows, layout)
        head = self.relation_head.on_rows(rows, layout)
        chosen = head.index_select(0, layout.rows_at(heads.clamp(min=0)))  # [N, r]
        ones = dependent.new_ones(dependent.shape[0], 1)
        return torch.einsum("nx,lxy,ny->nl", torch.cat([dependent, ones], dim=-1), self.relation.weight,
                            torch.cat([chosen, ones], dim=-1))

    def relation_scores_for(self, h: Tensor, heads: Tensor) -> Tensor:
        """Relation scores for one given head per word, without the full ``[B, T, T, L]`` tensor.

        ``h: Tensor[B, T, d_model]``, ``heads: LongTensor[B, T]`` (any value at padding and at the
        root position).  Output ``Tensor[B, T, n_relations]``, equal to
        ``forward(h)[1][b, d, heads[b, d]]``.
        """
        return relation_scores_at(self.relation_dependent(h), self.relation_head(h), heads, self.relation.weight)
