"""Lexical input layer: word, tag and character representations plus learned positions (§2.2, §3, §5.1).

The content representation of a position is the *sum* of the enabled inputs, each with its
own dropout (Table 8): word embedding (0.4), part-of-speech tag embedding (0.2) and the
CharLSTM / CharConcat word vector (0.2). Every input has the content size directly: CharConcat
packs its ``2 * 8`` letter embeddings into the content vector as in the paper (``2 * 8 * 32 =
512``), zero-filled at the end when the packed letters are fewer features than the content size
(see :mod:`mlparse.modules.char_concat`); more features than the content size is an error.

Factored mode: ``z_t = [content_t ; p_t]`` with content of size ``d_content`` and a learned
position embedding ``p_t`` of size ``d_position``. Unfactored mode: every embedding has the
full ``d_model = d_content + d_position`` features and ``z_t = content_t + p_t``. Either
way the result is LayerNorm-ed (as in the reference implementation; ``layer_norm=False``
turns it off) and has ``d_model`` features.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import torch
from torch import Tensor, nn

from mlparse.modules.char_concat import CharConcat
from mlparse.modules.char_lstm import CharLSTM
from mlparse.modules.dropout import DROPOUT_KINDS, DropoutKind, make_dropout

CharModel = Literal["lstm", "concat"]


@dataclass
class LexicalConfig:
    """Which lexical inputs to use and their sizes/dropouts (defaults from Table 8).

    ``num_words``, ``num_tags``, ``num_chars`` are vocabulary sizes (index 0 is padding in
    each). ``d_model = d_content + d_position`` in both modes.
    """

    num_words: int = 0
    num_tags: int = 0
    num_chars: int = 0
    use_words: bool = True
    use_tags: bool = False
    char_model: CharModel | None = "lstm"
    d_content: int = 512
    d_position: int = 512
    factored: bool = True
    max_len: int = 512
    d_char_emb_lstm: int = 64
    d_char_emb_concat: int = 32
    concat_chars: int = 8
    # True when every word's character ids start and end with begin/end-of-word markers
    # (as the span parser's do); CharConcat then skips them, so that they take no letter slot.
    char_boundary_markers: bool = False
    word_dropout: float = 0.4
    tag_dropout: float = 0.2
    char_dropout: float = 0.2  # on the CharLSTM/CharConcat word vectors
    char_input_dropout: float = 0.2  # on character embeddings at the CharLSTM input
    position_dropout: float = 0.0
    embedding_dropout: float = 0.0  # on the combined vector, before LayerNorm
    layer_norm: bool = True
    dropout_kind: DropoutKind = "feature"
    unk_word_index: int | None = None  # enables word-level UNK dropout (see LexicalEmbedding)
    use_extra: bool = False  # a further content input of size d_lexical given to forward (a pretrained encoder's)

    @property
    def d_model(self) -> int:
        return self.d_content + self.d_position

    @property
    def d_lexical(self) -> int:
        """Size of each content input: d_content (factored) or d_model (unfactored)."""
        return self.d_content if self.factored else self.d_model

    def validate(self) -> None:
        """Raise ``ValueError`` with a clear message for inconsistent settings."""
        if not (self.use_words or self.use_tags or self.char_model or self.use_extra):
            raise ValueError("lexical config enables no input: set use_words, use_tags, char_model or use_extra")
        if self.char_model not in (None, "lstm", "concat"):
            raise ValueError(f"char_model must be 'lstm', 'concat' or None, got {self.char_model!r}")
        if self.dropout_kind not in DROPOUT_KINDS:
            raise ValueError(f"dropout_kind must be one of {DROPOUT_KINDS}, got {self.dropout_kind!r}")
        for name, used in (("num_words", self.use_words), ("num_tags", self.use_tags),
                           ("num_chars", self.char_model is not None)):
            if used and getattr(self, name) <= 0:
                raise ValueError(f"{name} must be > 0 when that input is enabled")
        if self.d_content <= 0 or self.d_position < 0 or (self.factored and self.d_position == 0):
            raise ValueError("d_content must be > 0 and d_position > 0 in factored mode")
        if self.max_len <= 0:
            raise ValueError(f"max_len must be > 0, got {self.max_len}")
        packed = 2 * self.concat_chars * self.d_char_emb_concat
        if self.char_model == "concat" and packed > self.d_lexical:
            raise ValueError(
                f"CharConcat packs 2 x {self.concat_chars} letters x {self.d_char_emb_concat} features = {packed} "
                f"features, more than the content input of {self.d_lexical}; use smaller letter embeddings "
                f"(at most {self.d_lexical // (2 * self.concat_chars)}) or fewer letters")


class LexicalEmbedding(nn.Module):
    """Input vectors ``z_t`` for the encoder.

    Inputs to ``forward`` (all batch-first, T = max sentence length + 2):
        mask: ``BoolTensor[B, T]``, True on real positions (start/stop included).
        words: ``LongTensor[B, T]`` (needed when ``use_words``).
        tags: ``LongTensor[B, T]`` (needed when ``use_tags``).
        chars: ``LongTensor[B, T, C]`` and char_lengths: ``LongTensor[B, T]`` (needed when
            ``char_model`` is set; CharConcat derives prefixes/suffixes from them).
        extra: ``Tensor[B, T, d_lexical]`` (needed when ``use_extra``): one more content input, added
            as it is (a pretrained encoder's projected word vectors, :mod:`mlparse.modules.pretrained`).

    Output ``Tensor[B, T, d_model]``; padding positions are 0.

    Word-level UNK dropout (optional): after :meth:`set_word_counts`, in training mode each
    word at positions ``1 .. n`` (not the start/stop tokens) is replaced by
    ``unk_word_index`` with probability ``1 / (1 + count)``.
    """

    def __init__(self, config: LexicalConfig) -> None:
        super().__init__()
        config.validate()
        self.config = config
        d_lex = config.d_lexical
        kind = config.dropout_kind
        self.word_embedding = nn.Embedding(config.num_words, d_lex, padding_idx=0) if config.use_words else None
        self.word_dropout = make_dropout(config.word_dropout, kind)
        self.tag_embedding = nn.Embedding(config.num_tags, d_lex, padding_idx=0) if config.use_tags else None
        self.tag_dropout = make_dropout(config.tag_dropout, kind)
        self.char_lstm: CharLSTM | None = None
        self.char_concat: CharConcat | None = None
        if config.char_model == "lstm":
            self.char_lstm = CharLSTM(config.num_chars, config.d_char_emb_lstm, d_lex, config.char_input_dropout)
        elif config.char_model == "concat":
            self.char_concat = CharConcat(
                config.num_chars, config.d_char_emb_concat, config.concat_chars, d_out=d_lex,
                skip_boundary_markers=config.char_boundary_markers,
            )
        self.char_dropout = make_dropout(config.char_dropout, kind)
        d_pos = config.d_position if config.factored else config.d_model
        self.position_table = nn.Parameter(torch.randn(config.max_len, d_pos))
        self.position_dropout = make_dropout(config.position_dropout, kind)
        self.embedding_dropout = make_dropout(config.embedding_dropout, kind)
        self.norm = nn.LayerNorm(config.d_model) if config.layer_norm else None
        self.register_buffer("word_counts", None, persistent=False)

    def set_word_counts(self, counts: Tensor) -> None:
        """Training counts per word id, ``Tensor[num_words]``; enables UNK dropout (needs ``unk_word_index``)."""
        if self.config.unk_word_index is None:
            raise ValueError("set unk_word_index in LexicalConfig to use word-level UNK dropout")
        if counts.shape != (self.config.num_words,):
            raise ValueError(f"word counts must have shape ({self.config.num_words},), got {tuple(counts.shape)}")
        self.word_counts = counts.to(device=self.position_table.device, dtype=torch.float32)

    def _unk_dropout(self, words: Tensor, mask: Tensor) -> Tensor:
        if not self.training or self.word_counts is None:
            return words
        length = words.shape[1]
        pos = torch.arange(length, device=words.device).unsqueeze(0)
        last = mask.sum(dim=1, keepdim=True) - 1
        inner = mask & (pos > 0) & (pos < last)
        p_unk = 1.0 / (1.0 + self.word_counts[words])
        replace = inner & (torch.rand_like(p_unk) < p_unk)
        return words.masked_fill(replace, int(self.config.unk_word_index))  # type: ignore[arg-type]

    def _char_vectors(self, chars: Tensor, char_lengths: Tensor, host_char_lengths: Any = None) -> Tensor:
        """Word vectors from characters: ``Tensor[B, T, d_lexical]``.

        ``chars: LongTensor[B, T, C]``, ``char_lengths: LongTensor[B, T]``; ``host_char_lengths``: the
        same on the host (``ndarray[B, T]``), which spares the CharLSTM a wait for the device.
        """
        if self.char_lstm is not None:
            return self.char_lstm(chars, char_lengths, host_char_lengths)
        assert self.char_concat is not None
        return self.char_concat.forward_chars(chars, char_lengths)

    def content(
        self,
        mask: Tensor,
        words: Tensor | None = None,
        tags: Tensor | None = None,
        chars: Tensor | None = None,
        char_lengths: Tensor | None = None,
        host_char_lengths: Any = None,
        extra: Tensor | None = None,
    ) -> Tensor:
        """Sum of the enabled content inputs after their dropouts: ``Tensor[B, T, d_lexical]``."""
        parts: list[Tensor] = []
        if self.word_embedding is not None:
            if words is None:
                raise ValueError("this model uses word embeddings: pass words=[B, T]")
            parts.append(self.word_dropout(self.word_embedding(self._unk_dropout(words, mask))))
        if self.tag_embedding is not None:
            if tags is None:
                raise ValueError("this model uses tag embeddings: pass tags=[B, T]")
            parts.append(self.tag_dropout(self.tag_embedding(tags)))
        if self.char_lstm is not None or self.char_concat is not None:
            if chars is None or char_lengths is None:
                raise ValueError("this model uses a character model: pass chars=[B, T, C] and char_lengths=[B, T]")
            parts.append(self.char_dropout(self._char_vectors(chars, char_lengths, host_char_lengths)))
        if self.config.use_extra:
            if extra is None:
                raise ValueError("this model takes a further content input: pass extra=[B, T, d_lexical]")
            parts.append(extra)
        total = parts[0]
        for part in parts[1:]:  # plain additions (not stack): parts may differ in dtype under autocast
            total = total + part
        return total

    def forward(
        self,
        mask: Tensor,
        words: Tensor | None = None,
        tags: Tensor | None = None,
        chars: Tensor | None = None,
        char_lengths: Tensor | None = None,
        host_char_lengths: Any = None,
        extra: Tensor | None = None,
    ) -> Tensor:
        batch, length = mask.shape
        if length > self.config.max_len:
            raise ValueError(
                f"sentence of {length - 2} words (+ start/stop) exceeds the position table "
                f"(max_len={self.config.max_len}); raise max_len or filter long sentences"
            )
        content = self.content(mask, words, tags, chars, char_lengths, host_char_lengths, extra)
        positions = self.position_dropout(self.position_table[:length].unsqueeze(0).expand(batch, -1, -1))
        if self.config.factored:
            z = torch.cat([content, positions], dim=-1)
        else:
            z = content + positions
        z = self.embedding_dropout(z)
        if self.norm is not None:
            z = self.norm(z)
        return z * mask.unsqueeze(-1).to(z.dtype)
