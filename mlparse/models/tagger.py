"""A part-of-speech tagger (``model.kind: tagger``): words and characters, an encoder, a softmax tag head.

The input and the encoder are the dependency parser's (:class:`~mlparse.models.dep_input.DependencyInput`,
without tag embeddings): word embeddings plus a CharLSTM vector (``model.char_encoder: lstm``), or a
pretrained encoder's vectors, then the self-attentive encoder of Kitaev & Klein (``model.encoder:
transformer``) or a BiLSTM (``bilstm``); position 0 is a start token.  The tag head
(:class:`~mlparse.modules.tag_head.TagHead`) gives a distribution over the training tags at every word;
the loss is the summed cross-entropy of the gold tags, and a prediction is each word's most probable tag.
It tags trees (``tagger.column: pos``) and CoNLL-U (``upos``, ``xpos``); the tagging task
(:mod:`mlparse.tasks.tagging`) reads the data and scores tag accuracy.

Shapes: B sentences, T = n_max + 1 positions (start + words), K tags (specials included).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np
import torch
from torch import Tensor

from mlparse.config import BiaffineConfig, ModelConfig, PretrainedConfig, RecipeConfig, TaggerConfig
from mlparse.config.layout import split_model_settings
from mlparse.data.affixes import AffixVocab
from mlparse.data.vocab import ParserVocab
from mlparse.models.base import LossOutput, Parser
from mlparse.models.declarations import TaggerKind
from mlparse.models.dep_input import AffixInput, DependencyBatch, DependencyInput
from mlparse.modules.transfer import to_device
from mlparse.modules.tag_head import IGNORED_TAG, TagHead
from mlparse.tasks.tagging import TaggedSentence

#: What a tagger reads: a sentence's words (a TaggedSentence, or a plain list of words).
Words = Sequence[str]


def words_of(example: Any) -> Sequence[str]:
    """The words of a sentence (a :class:`TaggedSentence`, or any sentence with ``words``, as the API's
    examples) or of a plain sequence of words."""
    return example.words if isinstance(example, TaggedSentence) or hasattr(example, "words") else example


def input_config(tagger: TaggerConfig) -> BiaffineConfig:
    """The lexical and BiLSTM sizes of :class:`DependencyInput` from the ``tagger`` section (no tag embeddings)."""
    return BiaffineConfig(d_word_emb=tagger.d_word_emb, embedding_dropout=tagger.embedding_dropout,
                          lstm_hidden=tagger.lstm_hidden, lstm_layers=tagger.lstm_layers,
                          lstm_dropout=tagger.lstm_dropout)


@dataclass
class TagGold:
    """The gold tag ids of one sentence's words (length n)."""

    tags: List[int]


class TaggerParser(TaggerKind, Parser):
    """A softmax tagger over the dependency parser's encoder (see the module docstring)."""

    def __init__(self, model: ModelConfig, tagger: TaggerConfig, vocab: ParserVocab,
                 pretrained: Optional[PretrainedConfig] = None, saved_pretrained: Optional[Dict[str, Any]] = None,
                 affixes: Optional[AffixVocab] = None) -> None:
        super().__init__()
        if model.use_tags:
            raise ValueError("a tagger cannot take POS tags as input (model.use_tags must be false)")
        if bool(tagger.affixes) != (affixes is not None):
            raise ValueError("tagger.affixes and the affix vocabulary go together")
        self.config, self.tagger_config, self.vocab, self.affixes = model, tagger, vocab, affixes
        self.input = DependencyInput(model, input_config(tagger), vocab, pretrained, saved_pretrained,
                                     AffixInput(affixes, tagger.d_affix_emb) if affixes is not None else None,
                                     tagger.unk_replacement, tagger.dropout_kind)
        self.head = TagHead(self.input.d_out, len(vocab.tags), tagger.d_hidden)

    # -- building and persistence ----------------------------------------------
    @classmethod
    def build(cls, config: RecipeConfig, train: Sequence[TaggedSentence]) -> "TaggerParser":
        column = config.tagger.column
        vocab = ParserVocab.build((list(zip(s.tags(column), s.words)) for s in train), config.model.word_min_count)
        t = config.tagger
        affixes = (AffixVocab.build((w for s in train for w in s.words), t.affixes, t.affix_min_count)
                   if t.affixes else None)
        return cls(config.model, t, vocab, config.pretrained if config.pretrained.model is not None else None,
                   affixes=affixes)

    def spec(self) -> Dict[str, Any]:
        spec = {"kind": self.kind, "model_config": dict(self.config.__dict__),
                "tagger_config": dict(self.tagger_config.__dict__), "vocab": self.vocab.to_dict()}
        if self.input.pretrained is not None:
            spec["pretrained"] = self.input.pretrained.spec()
        if self.affixes is not None:
            spec["affixes"] = self.affixes.to_dict()
        return spec

    @classmethod
    def from_spec(cls, spec: Dict[str, Any]) -> "TaggerParser":
        from mlparse.modules.pretrained import pretrained_config_of

        model, _ = split_model_settings(spec["model_config"])  # saved before recipe layout 2: the span keys go
        affixes = AffixVocab.from_dict(spec["affixes"]) if spec.get("affixes") else None
        return cls(ModelConfig(**model), TaggerConfig(**spec["tagger_config"]),  # keys added later: their defaults
                   ParserVocab.from_dict(spec["vocab"]), pretrained_config_of(spec), spec.get("pretrained"), affixes)

    def resume_mismatch(self, saved: Dict[str, Any]) -> Optional[str]:
        """As every parser, except that the keys saying how taggers are jack-knifed may differ: they are not what
        this tagger is."""
        from mlparse.config.hashing import TAGGER_JACKKNIFE_KEYS

        mine = self.spec()["tagger_config"]
        section = {**(saved.get("tagger_config") or {}), **{k: mine[k] for k in TAGGER_JACKKNIFE_KEYS if k in mine}}
        return Parser.resume_mismatch(self, {**saved, "tagger_config": section})

    def training_setup(self, config: RecipeConfig, decoder: str = "cython") -> None:
        if self.input.pretrained is not None:
            self.input.pretrained.training_setup(self.device())

    def optimizer_groups(self, config: RecipeConfig) -> List[Dict[str, Any]]:
        from mlparse.modules.pretrained import parameter_groups

        return parameter_groups(self, self.input.pretrained, config)  # type: ignore[arg-type]

    @staticmethod
    def describe(config: RecipeConfig, eval_tags: Optional[str] = None) -> str:
        """``mlparse tagger (BiLSTM, CharLSTM + words, UPOS)``."""
        m = config.model
        parts = ((["CharLSTM"] if m.char_encoder == "lstm" else []) + (["words"] if m.use_words else [])
                 + (["affixes"] if config.tagger.affixes else []))
        encoder = "BiLSTM" if m.encoder == "bilstm" else "self-attentive"
        return f"mlparse tagger ({encoder}, {' + '.join(parts) or 'no lexical input'}, {config.tagger.column.upper()})"

    # -- data ------------------------------------------------------------------
    @property
    def max_words(self) -> int:
        return self.config.max_len - 1  # the start token takes position 0

    def device(self) -> torch.device:
        # the input's, not the head's: a head of one linear layer holds no parameters once quantized (--quantize)
        return next(self.input.parameters()).device

    @property
    def tag_list(self) -> List[str]:
        return self.vocab.tags.to_list()

    def gold(self, example: TaggedSentence) -> TagGold:
        tags = example.tags(self.tagger_config.column)
        return TagGold(self.vocab.tag_ids(tags)[1:-1])  # no start/stop; unseen tags are UNK (1)

    def make_batch(self, examples: Sequence[Any]) -> DependencyBatch:
        """Words of ``examples`` (TaggedSentence or word lists), indexed and padded: ``DependencyBatch`` with
        ``tags`` all padding."""
        sentences = [list(words_of(e)) for e in examples]
        lengths = [len(s) for s in sentences]
        for n in lengths:
            if n == 0:
                raise ValueError("cannot tag an empty sentence")
            if n > self.max_words:
                raise ValueError(f"sentence of {n} words is longer than this model's maximum of {self.max_words} "
                                 f"(model.max_len={self.config.max_len} positions, including the start)")
        batch, width = len(sentences), max(lengths) + 1
        vocab = self.vocab
        words = np.zeros((batch, width), dtype=np.int64)
        tags = np.zeros((batch, width), dtype=np.int64)
        reads_chars = self.input.char_lstm is not None
        char_rows = [vocab.char_ids_cached(s)[:-1] for s in sentences] if reads_chars else []
        max_chars = max(len(ids) for rows in char_rows for ids in rows) if reads_chars else 1
        chars = np.zeros((batch, width, max_chars), dtype=np.int64)
        char_lengths = np.zeros((batch, width), dtype=np.int64)
        for b, sentence in enumerate(sentences):
            words[b, :lengths[b] + 1] = vocab.word_ids(sentence)[:-1]
            for position, ids in enumerate(char_rows[b] if reads_chars else ()):
                chars[b, position, :len(ids)] = ids
                char_lengths[b, position] = len(ids)
        mask = np.arange(width)[None, :] < (np.asarray(lengths) + 1)[:, None]
        device = self.device()
        subwords = None
        if self.input.pretrained is not None:
            subwords = self.input.pretrained.make_batch(sentences, device)
        affixes = None
        if self.affixes is not None:  # [B, T, F]; the start position and padding keep the padding ids (0)
            table = np.zeros((batch, width, len(self.affixes.names)), dtype=np.int64)
            for b, sentence in enumerate(sentences):
                table[b, 1:lengths[b] + 1] = self.affixes.ids(sentence)
            affixes = to_device(table, device)
        return DependencyBatch(*(to_device(a, device) for a in (mask, words, tags, chars, char_lengths)),
                               lengths=lengths, subwords=subwords, host_char_lengths=char_lengths, affixes=affixes)

    def make_targets(self, golds: Sequence[TagGold], batch: DependencyBatch) -> Tensor:
        """``LongTensor[B, T]``: gold tag ids at words 1..n, :data:`IGNORED_TAG` at the start and padding."""
        width = max(batch.lengths) + 1
        target = np.full((len(golds), width), IGNORED_TAG, dtype=np.int64)
        for b, gold in enumerate(golds):
            target[b, 1:len(gold.tags) + 1] = gold.tags
        return to_device(target, self.device())

    # -- network ---------------------------------------------------------------
    def forward(self, batch: DependencyBatch, golds: Any = None) -> Any:
        """With golds (targets or :class:`TagGold`): the summed cross-entropy; without: the tag log-probabilities."""
        if golds is None:
            return self.scores(batch)
        targets = golds if isinstance(golds, Tensor) else self.make_targets(golds, batch)
        logits = self.head(self.input(batch)).float()
        loss = TagHead.loss(logits, targets, targets != IGNORED_TAG)
        return LossOutput(loss=loss, sentences=len(batch.lengths), parts={"tag": loss.detach()})

    def scores(self, batch: DependencyBatch) -> Tensor:
        """``Tensor[B, T, K]``: log-probabilities of each tag at each position; the special entries (padding,
        unknown, start, stop) are never predicted (-inf)."""
        logits = self.head(self.input(batch)).float()
        logits[..., : self.vocab.tags.num_specials] = float("-inf")
        return logits.log_softmax(-1)

    def decode(self, batch: DependencyBatch, scores: Tensor, examples: Sequence[Any],
               decoder: str = "auto") -> List[List[str]]:
        best = scores.argmax(-1).cpu().numpy()
        itos = self.vocab.tags.itos
        return [[itos[int(i)] for i in best[b, 1:n + 1]] for b, n in enumerate(batch.lengths)]

    def memory_cost(self, training: bool, decoder: str) -> Callable[[int], float]:
        """Positions, plus the (n + 1)² attention of a self-attentive encoder in units of one position's
        activations (about 4 · d_model numbers per layer)."""
        if self.config.encoder == "bilstm":
            return lambda n: n + 1
        width = self.input.d_out * 4 * max(1, self.config.num_layers)
        square = self.config.num_heads * max(1, self.config.num_layers)
        return lambda n: (n + 1) + (n + 1) ** 2 * square / width
