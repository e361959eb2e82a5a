"""The biaffine parser's data and input layer (:mod:`mlparse.models.dep_parser`): its padded batches, gold heads and
relations, arc and relation scores, and the layer that turns a batch into encoder states (word, tag, character,
affix or pretrained vectors, positions, the encoder). The tagger (:mod:`mlparse.models.tagger`) reads its words
through the same layer.

Shapes: B sentences, T = n_max + 1 positions (root + words), L relations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional

import numpy as np

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from mlparse.config import BiaffineConfig, ModelConfig, PretrainedConfig
from mlparse.data.affixes import AffixVocab
from mlparse.data.vocab import TOKEN_SPECIALS, UNK, ParserVocab
from mlparse.modules.affix_embedding import AffixEmbedding
from mlparse.modules.biaffine import relation_scores_at
from mlparse.modules.bilstm_encoder import BiLSTMEncoder
from mlparse.modules.packed_lstm import PackedLayout
from mlparse.modules.char_lstm import CharLSTM
from mlparse.modules.dropout import DropoutKind, make_dropout
from mlparse.modules.encoder import PartitionedTransformerEncoder
from mlparse.modules.positions import sinusoidal_table
from mlparse.modules.subwords import SubwordBatch


@dataclass
class DependencyBatch:
    """Padded inputs: ``mask: BoolTensor[B, T]`` (root and words), ``words, tags: LongTensor[B, T]``,
    ``chars: LongTensor[B, T, C]``, ``char_lengths: LongTensor[B, T]``, ``lengths``: words per sentence,
    ``subwords``: the pretrained encoder's input (None without one), ``host_char_lengths``: ``char_lengths``
    as an int64 array on the host."""

    mask: Tensor
    words: Tensor
    tags: Tensor
    chars: Tensor
    char_lengths: Tensor
    lengths: List[int]
    subwords: Optional[SubwordBatch] = None
    host_char_lengths: Optional[np.ndarray] = None  # char_lengths on the host (the CharLSTM packs from them)
    affixes: Optional[Tensor] = None  # LongTensor[B, T, F]: the affix feature ids of each position (a tagger's)


#: The index of the unknown word in every word vocabulary.
UNK_ID = TOKEN_SPECIALS.index(UNK)


@dataclass
class AffixInput:
    """Affix features for :class:`DependencyInput` (the tagger's): their vocabulary and the size of each feature's
    vectors."""

    vocab: AffixVocab
    d_emb: int


@dataclass
class DependencyGold:
    """Gold heads (0 = root) and relation ids of one sentence's words, and their tag ids for a tagging head."""

    heads: List[int]
    relations: List[int]
    tags: Optional[List[int]] = None


@dataclass
class DependencyScores:
    """What :meth:`BiaffineParser.decode` reads (and an ensemble averages).

    ``arc: Tensor[B, T, T]``: log-probabilities of head h (last axis) for dependent d.  Relations are
    scored on demand from the relation MLPs' outputs ``relation_dependent, relation_head: Tensor[B, T, r]``
    and the biaffine ``relation_weight: Tensor[L, r+1, r+1]``: a decode needs them only for the decoded
    heads (:meth:`relations_at`, O(T·L) per sentence), never the ``[B, T, T, L]`` tensor of every pair
    (:meth:`all_relations`, kept for checks).  ``tags: Tensor[B, T, K]``: a tagging head's log-probabilities
    (None without one)."""

    arc: Tensor
    relation_dependent: Tensor
    relation_head: Tensor
    relation_weight: Tensor
    tags: Optional[Tensor] = None

    def relations_at(self, heads: Tensor) -> Tensor:
        """Relation log-probabilities ``Tensor[B, T, L]`` of each word d for the head ``heads[b, d]``
        (``heads: LongTensor[B, T]``; any value at the root and padding)."""
        return relation_scores_at(self.relation_dependent, self.relation_head, heads,
                                  self.relation_weight).float().log_softmax(-1)

    def all_relations(self) -> Tensor:
        """Relation log-probabilities ``Tensor[B, T, T, L]`` of every (dependent d, head h) pair."""
        ones = self.relation_dependent.new_ones(self.relation_dependent.shape[:-1] + (1,))
        x = torch.cat([self.relation_dependent, ones], dim=-1)  # [B, T, r+1]
        y = torch.cat([self.relation_head, ones], dim=-1)
        return torch.einsum("bdx,lxy,bhy->bdhl", x, self.relation_weight, y).float().log_softmax(-1)


class DependencyInput(nn.Module):
    """Lexical vectors → encoder input, and the encoder.

    ``forward(batch) -> Tensor[B, T, d_out]``.  The lexical vector of a position is the concatenation
    of its word embedding (plus the CharLSTM vector when enabled), a pretrained encoder's word vector
    (H features, 0 at the root; ``pretrained.combine: replace`` drops the word embedding) and its tag
    embedding, and the embeddings of its affix features (``affixes``, a tagger's).  In training, a word of
    training count c is read as UNK with probability ``unk_replacement / (unk_replacement + c)`` (0: never).
    ``dropout_kind``: the embedding and BiLSTM dropouts' masks, per sentence (``feature``) or per element.
    Transformer encoder, unfactored: ``x = W lex + pos`` (``W`` only when sizes differ; Li et al. choose
    100 + 100 = d_model 200); factored: ``x = [W lex ; pos]`` as Kitaev & Klein.  BiLSTM encoder:
    ``x = lex``.
    """

    def __init__(self, model: ModelConfig, dep: BiaffineConfig, vocab: ParserVocab,
                 pretrained: Optional[PretrainedConfig] = None, saved_pretrained: Optional[Dict[str, Any]] = None,
                 affixes: Optional[AffixInput] = None, unk_replacement: float = 0.0,
                 dropout_kind: DropoutKind = "feature") -> None:
        super().__init__()
        self.model_config = model
        self.pretrained: Optional[nn.Module] = None
        d_pretrained = 0
        if pretrained is not None:
            from mlparse.modules.pretrained import PretrainedEncoder

            self.pretrained = PretrainedEncoder(pretrained, saved=saved_pretrained)
            d_pretrained = self.pretrained.d_out
        use_words = model.use_words and not (pretrained is not None and pretrained.combine == "replace")
        self.word_embedding = nn.Embedding(len(vocab.words), dep.d_word_emb, padding_idx=0) if use_words else None
        self.tag_embedding = nn.Embedding(len(vocab.tags), dep.d_tag_emb, padding_idx=0) if model.use_tags else None
        self.char_lstm = (CharLSTM(len(vocab.chars), model.d_char_emb, dep.d_word_emb, model.char_input_dropout)
                          if model.char_encoder == "lstm" else None)
        self.affix_embedding = AffixEmbedding(affixes.vocab.sizes, affixes.d_emb) if affixes is not None else None
        d_lexical = (dep.d_word_emb if (use_words or self.char_lstm is not None) else 0) + (
            dep.d_tag_emb if model.use_tags else 0) + d_pretrained + (
            self.affix_embedding.d_out if self.affix_embedding is not None else 0)
        chance: Optional[Tensor] = None  # [V]: the probability that a training word is read as UNK
        if unk_replacement > 0 and self.word_embedding is not None:
            counts = torch.tensor(vocab.count_table(), dtype=torch.float32)
            chance = torch.where(counts > 0, unk_replacement / (unk_replacement + counts), torch.zeros_like(counts))
        self.register_buffer("unk_replacement", chance, persistent=False)
        self.dropout = make_dropout(dep.embedding_dropout, dropout_kind)
        self.projection: Optional[nn.Linear] = None
        self.position_table: Optional[Tensor] = None
        if model.encoder == "bilstm":
            self.encoder: nn.Module = BiLSTMEncoder(d_lexical, dep.lstm_hidden, dep.lstm_layers, dep.lstm_dropout,
                                                    dropout_kind)
            self.d_out = 2 * dep.lstm_hidden
            return
        d_content = model.d_model // 2 if model.factored else model.d_model
        d_position = model.d_model - d_content if model.factored else model.d_model
        if d_lexical != d_content:
            self.projection = nn.Linear(d_lexical, d_content, bias=False)
        if model.positions == "sinusoidal":
            self.register_buffer("sinusoids", sinusoidal_table(model.max_len, d_position), persistent=False)
        else:
            self.learned_positions = nn.Parameter(torch.randn(model.max_len, d_position) * 0.02)
        self.norm = nn.LayerNorm(model.d_model)
        self.encoder = PartitionedTransformerEncoder(
            n_layers=model.num_layers, d_content=d_content if model.factored else model.d_model,
            d_position=d_position if model.factored else 0, n_heads=model.num_heads, d_k=model.d_kv, d_v=model.d_kv,
            d_ff=model.d_ff, attention_dropout=model.attention_dropout, relu_dropout=model.relu_dropout,
            residual_dropout=model.residual_dropout, factored=model.factored)
        self.d_out = model.d_model

    def positions(self, length: int) -> Tensor:
        """``Tensor[length, d_position]``."""
        table = self.sinusoids if self.model_config.positions == "sinusoidal" else self.learned_positions
        return table[:length]

    def lexical(self, batch: DependencyBatch) -> Tensor:
        """``Tensor[B, T, d_lexical]``."""
        parts: List[Tensor] = []
        words = batch.words
        if self.training and self.unk_replacement is not None:  # word of training count c: UNK with p = a / (a + c)
            words = words.masked_fill(torch.bernoulli(self.unk_replacement[words]).bool(), UNK_ID)
        word: Optional[Tensor] = self.word_embedding(words) if self.word_embedding is not None else None
        if self.char_lstm is not None:
            chars = self.char_lstm(batch.chars, batch.char_lengths, batch.host_char_lengths)
            word = chars if word is None else word + chars
        if word is not None:
            parts.append(word)
        if self.pretrained is not None:  # [B, n_max, H] words → [B, T, H], 0 at the root
            assert batch.subwords is not None
            parts.append(F.pad(self.pretrained(batch.subwords), (0, 0, 1, 0)))
        if self.tag_embedding is not None:
            parts.append(self.tag_embedding(batch.tags))
        if self.affix_embedding is not None:
            assert batch.affixes is not None, "a model with affix features needs batch.affixes"
            parts.append(self.affix_embedding(batch.affixes))
        return torch.cat(parts, dim=-1) if len(parts) > 1 else parts[0]

    def rows(self, batch: DependencyBatch) -> "Optional[tuple[Tensor, PackedLayout]]":
        """The BiLSTM encoder's outputs as one row per real position (the root and the words), with their layout
        (:meth:`BiLSTMEncoder.rows`), where its packed CPU kernel runs: ``(Tensor[N, d_out], layout)``; None
        elsewhere (use :meth:`forward`).  Draws the same dropout masks as :meth:`forward`."""
        if not isinstance(self.encoder, BiLSTMEncoder) or not self.encoder.runs_on_rows(batch.words):
            return None
        x = self.dropout(self.lexical(batch))
        return self.encoder.rows(x, [n + 1 for n in batch.lengths])

    def forward(self, batch: DependencyBatch) -> Tensor:
        x = self.dropout(self.lexical(batch))
        if isinstance(self.encoder, BiLSTMEncoder):
            return self.encoder(x, batch.mask, [n + 1 for n in batch.lengths])  # the root and the words
        if self.projection is not None:
            x = self.projection(x)
        positions = self.positions(x.shape[1]).unsqueeze(0).to(x.dtype)
        if self.model_config.factored:
            x = torch.cat([x, positions.expand(x.shape[0], -1, -1)], dim=-1)
        else:
            x = x + positions
        x = self.norm(x) * batch.mask.unsqueeze(-1).to(x.dtype)
        return self.encoder(x, batch.mask)
