"""Useful FLOPs of a training update, counted analytically from a model's sizes, and the machine's dense
matrix-multiply rate at the model's shapes: the figures behind ``benchmarks/train_vs_peers.py``'s "useful GFLOP/s"
and "% of the matmul rate", the one speed figure that compares across machines.

Counting rules (the same for every system that trains the architecture, whatever it computes besides):

- a multiply-add is 2 FLOPs; a training update is forward + backward = 3x the forward's multiply-adds
  (the backward computes the gradients of both the inputs and the weights of every product), so
  **training FLOPs = 6 x the forward's multiply-adds**;
- only matrix products count (embeddings, activations, layer norms, softmaxes and losses are left out);
- only real positions count: the words, plus the positions the architecture itself adds to a sentence
  (the root of a dependency parser, the start and stop tokens of the span parser), never padding;
- only what the loss needs: the relation biaffine at each word's gold head (not every pair of words), the
  arc biaffine against every head; the span label MLP's first layer, linear in the span's fencepost
  difference, once per fencepost (``g_j - g_i``), its second layer once per span ``i < j``;
- a cost quadratic in the sentence's length is taken at the mean length of the data (``mean_length``),
  as every figure here is per word.

The functions return training FLOPs per word.  Only the standard library is imported, except by
:func:`matmul_rate`, which imports torch.
"""

from __future__ import annotations

import time
from typing import Tuple

#: Training FLOPs per forward multiply-add: 2 FLOPs a multiply-add, x3 for forward + backward.
TRAINING_FLOPS_PER_MAC = 6


def lstm_macs(d_in: int, hidden: int) -> int:
    """Multiply-adds of one LSTM direction at one position: four gates of ``hidden`` from ``[x ; h]``."""
    return 4 * hidden * (d_in + hidden)


def bilstm_stack_macs(d_in: int, hidden: int, layers: int) -> int:
    """Multiply-adds of a stacked BiLSTM at one position (``hidden`` per direction; the first layer reads
    ``d_in`` features, the others the ``2 * hidden`` of the layer below)."""
    return sum(2 * lstm_macs(d_in if layer == 0 else 2 * hidden, hidden) for layer in range(layers))


def biaffine_head_macs(d_enc: int, d_arc: int, d_rel: int, n_rels: int, positions: float) -> float:
    """Multiply-adds of the biaffine scorer at one dependent of a sentence of ``positions`` (words + root):
    the four MLPs (arc and relation, dependent and head), the arc biaffine ``[r_d ; 1]^T W`` then its dot
    product with every head, and the relation biaffine ``[r_d ; 1]^T W_l [r_h ; 1]`` at the gold head only."""
    mlps = 2 * d_enc * d_arc + 2 * d_enc * d_rel
    arcs = (d_arc + 1) * d_arc + positions * d_arc
    relations = n_rels * (d_rel + 1) * (d_rel + 2)
    return mlps + arcs + relations


def attention_layer_macs(d_model: int, heads: int, d_kv: int, d_ff: int, positions: float, factored: bool) -> float:
    """Multiply-adds of one self-attention layer at one position: the query, key, value and output projections,
    the scores and the weighted values over ``positions``, and the feed-forward.  Factored (Kitaev & Klein's
    partitioned layers): every projection is block-diagonal over the content and position halves, which
    halves the projections' and the feed-forward's products; the attention over positions is unchanged."""
    projections = 4 * d_model * heads * d_kv
    feed_forward = 2 * d_model * d_ff
    if factored:
        projections, feed_forward = projections // 2, feed_forward // 2
    return projections + feed_forward + 2 * positions * heads * d_kv


def bilstm_biaffine_flops_per_word(d_in: int, hidden: int, layers: int, d_arc: int, d_rel: int, n_rels: int,
                                   mean_length: float) -> float:
    """Training FLOPs per word of Dozat & Manning's parser: a ``layers`` x ``hidden`` BiLSTM over the
    ``d_in`` lexical features (word ⊕ tag embeddings) of the words and the root, and the biaffine scorer
    (:func:`biaffine_head_macs`), at sentences of ``mean_length`` words."""
    positions = mean_length + 1
    per_position = bilstm_stack_macs(d_in, hidden, layers) + biaffine_head_macs(2 * hidden, d_arc, d_rel, n_rels,
                                                                                positions)
    return TRAINING_FLOPS_PER_MAC * per_position * positions / mean_length


def transformer_biaffine_flops_per_word(d_lexical: int, d_model: int, layers: int, heads: int, d_kv: int, d_ff: int,
                                        d_arc: int, d_rel: int, n_rels: int, mean_length: float) -> float:
    """Training FLOPs per word of Li et al.'s self-attentive biaffine parser (unfactored layers): the input
    projection when ``d_lexical != d_model``, ``layers`` attention layers (:func:`attention_layer_macs`) over
    the words and the root, and the biaffine scorer, at sentences of ``mean_length`` words."""
    positions = mean_length + 1
    projection = d_lexical * d_model if d_lexical != d_model else 0
    encoder = layers * attention_layer_macs(d_model, heads, d_kv, d_ff, positions, factored=False)
    per_position = projection + encoder + biaffine_head_macs(d_model, d_arc, d_rel, n_rels, positions)
    return TRAINING_FLOPS_PER_MAC * per_position * positions / mean_length


def span_parser_flops_per_word(d_model: int, layers: int, heads: int, d_kv: int, d_ff: int, d_char_emb: int,
                               chars_per_word: float, d_label: int, n_labels: int, mean_length: float,
                               factored: bool = True) -> float:
    """Training FLOPs per word of Kitaev & Klein's span parser with CharLSTM input (no word or tag
    embeddings): a CharLSTM of ``d_model / 2`` (factored: the content half; ``d_model`` otherwise) over the
    ``chars_per_word`` characters of each word plus its two boundary markers, the encoder over the words
    and the start and stop tokens, and the span label MLP (first layer per fencepost, second per span; the
    empty label's score is fixed, so ``n_labels - 1`` outputs), at sentences of ``mean_length`` words."""
    n = mean_length
    d_char_out = d_model // 2 if factored else d_model
    char_lstm = (chars_per_word + 2) * 2 * lstm_macs(d_char_emb, d_char_out // 2)
    encoder = (n + 2) * layers * attention_layer_macs(d_model, heads, d_kv, d_ff, n + 2, factored)
    labels = (n + 1) * d_model * d_label + n * (n + 1) / 2 * d_label * (n_labels - 1)
    return TRAINING_FLOPS_PER_MAC * (n * char_lstm + encoder + labels) / n


def matmul_rate(shape: Tuple[int, int, int], threads: int, repeats: int = 5, min_seconds: float = 0.2,
                dtype: str = "float32") -> float:
    """The machine's dense matrix-multiply rate in FLOP/s at ``shape = (m, k, n)``: ``[m x k] @ [k x n]`` in
    ``dtype`` (``float32``, ``bfloat16``) on ``threads`` torch threads, the best of ``repeats`` timings of at least
    ``min_seconds`` each."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        m, k, n = shape
        kind = getattr(torch, dtype)
        a, b = torch.randn(m, k).to(kind), torch.randn(k, n).to(kind)
        out = torch.empty(m, n, dtype=kind)
        torch.matmul(a, b, out=out)  # warm-up
        best = 0.0
        for _ in range(repeats):
            count, start = 0, time.perf_counter()
            while True:
                torch.matmul(a, b, out=out)
                count += 1
                elapsed = time.perf_counter() - start
                if elapsed >= min_seconds:
                    break
            best = max(best, 2.0 * m * k * n * count / elapsed)
        return best
    finally:
        torch.set_num_threads(before)
