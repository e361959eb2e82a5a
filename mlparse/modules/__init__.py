"""mlparse.modules: neural building blocks of the parsers (torch ``nn.Module``s).

Conventions: batch-first; a batch is padded to T = max sentence length + 2 positions (a start
and a stop token surround every sentence); ``mask: BoolTensor[B, T]`` is True on real
positions, start/stop included; ``d_model = d_content + d_position`` and, in factored mode,
vectors are ``[content ; position]``.
"""

from mlparse.modules.attention import (
    ABLATION_PARTS,
    AttentionWindow,
    FactoredMultiHeadAttention,
    allowed_pairs,
)
from mlparse.modules.char_concat import CharConcat, prefix_suffix_from_chars, prefix_suffix_ids
from mlparse.modules.char_lstm import CharLSTM
from mlparse.modules.dropout import FeatureDropout, make_dropout
from mlparse.modules.embeddings import LexicalConfig, LexicalEmbedding
from mlparse.modules.encoder import (
    EncoderLayer,
    PartitionedLayerNorm,
    PartitionedTransformerEncoder,
    PositionwiseFeedForward,
)
from mlparse.modules.span_scorer import SpanScorer, dense_span_scores, fencepost_vectors, span_indices
from mlparse.modules.tag_head import TagHead

__all__ = [
    "ABLATION_PARTS",
    "AttentionWindow",
    "CharConcat",
    "CharLSTM",
    "EncoderLayer",
    "FactoredMultiHeadAttention",
    "FeatureDropout",
    "LexicalConfig",
    "LexicalEmbedding",
    "PartitionedLayerNorm",
    "PartitionedTransformerEncoder",
    "PositionwiseFeedForward",
    "SpanScorer",
    "TagHead",
    "allowed_pairs",
    "dense_span_scores",
    "fencepost_vectors",
    "make_dropout",
    "prefix_suffix_from_chars",
    "prefix_suffix_ids",
    "span_indices",
]
