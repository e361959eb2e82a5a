"""How much memory a sentence costs the span parser, from the model's sizes: the cost model of sub-batching.

A sentence of n words padded into a sub-batch occupies T = n + 2 positions (start and stop
included), T^2 attention pairs, and (n + 1)^2 cells of the chart ``[N+1, N+1, L]`` that the
decoders read. :class:`SentenceMemory` gives its bytes from coefficients counted from the
implementation (float32 activations) and checked against measured peaks
(``benchmarks/span_memory.py``, ``tests/test_models_memory.py``):

* ``per_position``: embeddings (the CharLSTM reads every character: ``CHARS_PER_WORD`` are
  assumed) and the encoder; in training also the span activations kept for the gradient,
  which are O(n): only the predicted and gold spans (fewer than ``SPANS_PER_WORD`` per word)
  go through the label MLP with gradient (:meth:`mlparse.models.span_parser.SpanParser._hinge`).
* ``per_pair``: attention. Training keeps every layer's probabilities and dropout, three
  floats per head and pair (the math kernel of ``scaled_dot_product_attention``, the CPU path
  with dropout; a GPU's fused kernels keep less, so this is an upper bound there). Parsing
  runs the fused kernel one layer at a time: only the masks grow with T^2.
* ``per_cell``: the float32 chart of L labels, the span index, the decoder's tables (the
  batched torch decoder's loss-augmented copy of the chart in training). The label MLP itself
  runs over the n (n + 1) / 2 spans in chunks of
  :data:`mlparse.modules.span_scorer.CHART_CHUNK_SPANS` without gradient, a bounded transient
  (``per_chunk_span``): no ``d_hidden``-wide activation grows with n^2 any more.

Budgets (``train.subbatch_tokens``, ``eval.subbatch_tokens``, ``--batch-tokens``) count
*token-equivalents*: ``bytes(n) / per_position``, i.e. T plus the quadratic memory expressed
in positions' worth of linear memory. An ordinary sentence costs about its T positions, as
when budgets counted padded tokens, so recipes keep their sub-batches of ordinary sentences;
a long one costs what its attention and chart take, so it gets fewer companions or a
sub-batch of its own. A budget of ``free_bytes / per_position`` token-equivalents fills
``free_bytes`` (how ``subbatch_tokens: auto`` can be derived from a device's free memory).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from mlparse.config import ModelConfig, SpanConfig
from mlparse.modules.span_scorer import CHART_CHUNK_SPANS

#: Characters per word the CharLSTM is assumed to read (about 6.5 on English with the
#: begin/end-of-word marks; longer words elsewhere).
CHARS_PER_WORD = 8
#: Non-empty predicted plus gold spans per word scored with gradient in training (a binarized
#: tree of n words has 2n - 1 spans; the non-empty ones of the two trees stay below 4n).
SPANS_PER_WORD = 4
FLOAT_BYTES = 4
#: Per chart cell besides the chart itself with the Cython decoder: the span index (24) and the
#: decoder's float64 values and index tables (32).
CYTHON_CELL_BYTES = 56


@dataclass(frozen=True)
class SentenceMemory:
    """Bytes of the sentences of a sub-batch, in two parts that peak at different moments.

    *Encoder*: ``per_position T + per_pair T^2`` (training: the autograd graph of embeddings,
    encoder and the O(n) span activations; parsing: the largest transient, of the embeddings
    or of one layer). *Chart*: ``per_cell (n+1)^2 + chart_per_position T`` (the chart, the
    decoder's tables, what else is alive beside them), plus, once per sub-batch, the chunk of
    spans being scored (``per_chunk_span`` bytes for each of at most ``CHART_CHUNK_SPANS``
    spans). In training the encoder's graph is still alive while the chart exists
    (``encoder_with_chart``), so the parts add up; in parsing the encoder's transients are
    gone by then and the larger part counts.
    """

    per_position: float
    per_pair: float
    per_cell: float
    chart_per_position: float = 0.0
    per_chunk_span: float = 0.0
    encoder_with_chart: bool = True

    def encoder_bytes(self, length: int) -> float:
        positions = length + 2
        return self.per_position * positions + self.per_pair * positions ** 2

    def chart_bytes(self, length: int) -> float:
        return self.per_cell * (length + 1) ** 2 + self.chart_per_position * (length + 2)

    def bytes(self, length: int) -> float:
        """Bytes of one sentence of ``length`` words in a sub-batch (which pads it to its longest), chunk aside."""
        encoder, chart = self.encoder_bytes(length), self.chart_bytes(length)
        return encoder + chart if self.encoder_with_chart else max(encoder, chart)

    def token_equivalents(self, length: int) -> float:
        """The cost of one sentence of ``length`` words in token-equivalents: ``bytes / per_position`` (>= length + 2)."""
        return self.bytes(length) / self.per_position

    def subbatch_bytes(self, lengths: Sequence[int]) -> float:
        """Estimated peak bytes of one sub-batch of sentences of these lengths, the chunk of spans included."""
        if not lengths:
            return 0.0
        count, longest = len(lengths), max(lengths)
        spans = sum(n * (n + 1) // 2 for n in lengths)
        encoder = count * self.encoder_bytes(longest)
        chart = count * self.chart_bytes(longest) + self.per_chunk_span * min(spans, CHART_CHUNK_SPANS)
        return encoder + chart if self.encoder_with_chart else max(encoder, chart)


def _d_lexical(config: ModelConfig) -> int:
    return config.d_model // 2 if config.factored else config.d_model


def _embedding_floats(config: ModelConfig) -> float:
    """Floats per position that the lexical layer keeps for the gradient."""
    floats = 1.5 * config.d_model  # the combined vector and its LayerNorm
    if config.char_encoder == "lstm":  # per character: gates and states of both directions, the char embedding
        floats += CHARS_PER_WORD * (7 * _d_lexical(config) + 2 * config.d_char_emb)
    elif config.char_encoder == "concat":
        floats += 4 * config.char_concat_letters * config.d_char_emb + _d_lexical(config)
    return floats


def _layer_floats(config: ModelConfig) -> float:
    """Floats per position that one encoder layer keeps for the gradient: input, q/k/v, attended values
    and their projection input, the two LayerNorm inputs, the feed-forward hidden layer twice."""
    return 4 * config.d_model + 2 * config.d_ff + 5 * config.num_heads * config.d_kv


def _chunk_span_bytes(span: SpanConfig) -> float:
    """Scoring a chunk of spans, per span: two gathered fencepost rows and their difference, ``d_hidden`` wide."""
    return 3 * FLOAT_BYTES * span.d_label_hidden


def training_memory(config: ModelConfig, span: SpanConfig, n_labels: int, decoder: str = "torch") -> SentenceMemory:
    """Memory of a training step (forward, loss-augmented decoding, backward) per sentence: ``config`` the
    encoder (``model:``), ``span`` the span and tagging heads (``span:``).

    ``decoder``: ``"torch"`` (the batched decoder, which copies the chart) or ``"cython"``.
    """
    span_floats = config.d_model + span.d_label_hidden + SPANS_PER_WORD * (2 * span.d_label_hidden + n_labels)
    tag_floats = 3 * span.d_tag_hidden if span.predict_tags else 0
    per_position = FLOAT_BYTES * (_embedding_floats(config) + config.num_layers * _layer_floats(config)
                                  + span_floats + tag_floats)
    # probabilities and dropout of every head in every layer and their mask, plus one layer's gradients in backward
    per_pair = (config.num_layers + 1) * (3 * FLOAT_BYTES * config.num_heads + 1)
    # the chart and the span index; the torch decoder's loss-augmented copy of the chart and float64/int64 tables
    per_cell = 2 * FLOAT_BYTES * n_labels + 96 if decoder == "torch" else FLOAT_BYTES * n_labels + CYTHON_CELL_BYTES
    return SentenceMemory(per_position, per_pair, per_cell, per_chunk_span=_chunk_span_bytes(span))


def parsing_memory(config: ModelConfig, span: SpanConfig, n_labels: int, decoder: str = "torch") -> SentenceMemory:
    """Peak memory of parsing (no gradient) per sentence: the embeddings or one layer at a time, then the chart."""
    if config.char_encoder == "lstm":  # the input projections of both directions for every character
        embedding = CHARS_PER_WORD * (4 * _d_lexical(config) + config.d_char_emb)
    else:
        embedding = 2 * config.d_model
    layer = 3 * config.d_model + 2 * config.d_ff + 8 * config.num_heads * config.d_kv
    per_position = FLOAT_BYTES * (max(embedding, layer) + config.d_model)
    per_pair = 16  # the attention masks; the fused attention kernel keeps no probabilities without gradient
    # the chart, the span index, the decoder's tables
    per_cell = FLOAT_BYTES * n_labels + (80 if decoder == "torch" else CYTHON_CELL_BYTES)
    chart_per_position = FLOAT_BYTES * (config.d_model + span.d_label_hidden)  # h and its fencepost projections
    return SentenceMemory(per_position, per_pair, per_cell, chart_per_position, _chunk_span_bytes(span),
                          encoder_with_chart=False)


def subbatch_cost(config: ModelConfig, span: SpanConfig, n_labels: int, training: bool,
                  decoder: str = "torch") -> Callable[[int], float]:
    """The cost of one sentence of a given length in token-equivalents, for :func:`mlparse.data.batching.pack_by_tokens`."""
    memory = (training_memory if training else parsing_memory)(config, span, n_labels, decoder)
    return memory.token_equivalents
