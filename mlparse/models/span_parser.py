"""The self-attentive span parser of Kitaev & Klein (2018).

Lexical inputs (words, tags, CharLSTM/CharConcat) + learned positions →
factored (or unfactored) transformer encoder → span label scores
``s(i, j, l)`` (label 0 = EMPTY, scored 0) → CKY.  Labels are collapsed unary
chains (``S::VP``) plus the EMPTY label of binarization nodes
(:mod:`mlparse.structs.chart`).

Training minimises the structured hinge loss
``max(0, max_T [s(T) + Δ(T, T*)] - s(T*))`` with Δ the Hamming distance on
labelled spans; the most violating tree comes from loss-augmented CKY, either
per sentence on the CPU (:mod:`mlparse.structs.cky`, Cython) or batched in
torch (:mod:`mlparse.structs.cky_torch`).  Gradients flow through the scores
of the predicted and gold spans.  An optional tagging head adds a softmax
over POS tags.

Memory: the decoder reads a chart scored without gradient, span by span over
the upper triangles only (:meth:`SpanScorer.chart`); the label MLP is then run
again, with gradient, on the predicted and gold spans alone, so the training
graph holds O(n) span activations instead of O(n^2).  The former dense
computation is kept in ``benchmarks/instrumentation/dense_reference.py`` (repository only) for tests and
benchmarks.

A *sentence* here is a list of ``(tag, word)`` pairs; the tag is the gold (or
given) POS tag, used as a tag-embedding input when ``use_tags`` and written on
the predicted tree's leaves unless the tagging head predicts them.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch
from torch import Tensor, nn

from mlparse.config import ModelConfig, PretrainedConfig, RecipeConfig, SpanConfig
from mlparse.data.vocab import ParserVocab, Vocab
from mlparse.models.base import LossOutput, Parser
from mlparse.models.declarations import SpanKind
from mlparse.models.ensemble import average_charts, average_distributions
from mlparse.models.memory import parsing_memory, subbatch_cost, training_memory
from mlparse.models.targets import SPAN_COLUMNS, SpanTargets, gold_label_array, span_rows, span_targets, word_mask_array
from mlparse.modules.transfer import to_device
from mlparse.modules.attention import AttentionWindow
from mlparse.modules.embeddings import LexicalConfig, LexicalEmbedding
from mlparse.modules.encoder import PartitionedTransformerEncoder
from mlparse.modules.span_scorer import SpanScorer
from mlparse.modules.subwords import SubwordBatch
from mlparse.modules.tag_head import TagHead
from mlparse.models.span_graph import hinge_on_device, padded_span_tensors
from mlparse.models.span_spec import (CHAR_CONCAT_WIRING, CheckpointFormatError, current_spec,  # noqa: F401
                                      model_config_of, span_config_of)
from mlparse.structs import cky, cky_torch
from mlparse.structs.chart import LabelVocab, gold_spans, tree_from_chart
from mlparse.structs.chart_tree import GoldSpans, hamming_cost
from mlparse.trees.tree import Leaf, Tree

Sentence = Sequence[Tuple[str, str]]  # (tag, word) pairs


@dataclass
class SentenceBatch:
    """Padded model inputs for B sentences of at most N words (T = N + 2 with start/stop).

    mask: BoolTensor[B, T]; words, tags: LongTensor[B, T]; chars: LongTensor[B, T, C];
    char_lengths: LongTensor[B, T]; lengths: the sentence lengths n_b; host_char_lengths: char_lengths
    on the host (int64 ndarray[B, T]; None: read from the device when needed); subwords: the pretrained
    encoder's input (None without one).
    """

    mask: Tensor
    words: Tensor
    tags: Tensor
    chars: Tensor
    char_lengths: Tensor
    lengths: List[int]
    host_char_lengths: Optional[np.ndarray] = None
    subwords: Optional[SubwordBatch] = None


class SentenceTooLongError(ValueError):
    """A sentence longer than the model's position table allows."""


class SpanParser(SpanKind, Parser):
    """Span parser: ``forward(batch)`` gives ``(span scores [B, N+1, N+1, L], tag logits [B, T, n_tags] | None)``.

    Examples (training, gold) are TOP-rooted trees; inputs (what it parses) are sentences of
    ``(tag, word)`` pairs; predictions are trees.
    """

    @property
    def predicts_tags(self) -> bool:
        """Whether its trees carry the tags of its own tagging head (``predict_tags``)."""
        return bool(self.span_config.predict_tags)

    def __init__(self, config: ModelConfig, vocab: ParserVocab, labels: LabelVocab,
                 pretrained: Optional[PretrainedConfig] = None, saved_pretrained: Optional[Dict[str, Any]] = None,
                 span: Optional[SpanConfig] = None) -> None:
        """``config``: the encoder (``model:``); ``span``: the span scoring and tagging heads (``span:``, None:
        its defaults); ``pretrained``: a pretrained encoder's settings (None: none); ``saved_pretrained``: its
        spec entry when rebuilding a trained parser (:class:`~mlparse.modules.pretrained.PretrainedEncoder`)."""
        super().__init__()
        self.loss_decoder = "cython"  # the decoder of the loss-augmented CKY in training (training_setup)
        self.config = config
        self.span_config = span = span if span is not None else SpanConfig()
        self.vocab = vocab
        self.labels = labels
        half = config.d_model // 2
        char_model = None if config.char_encoder == "none" else config.char_encoder
        replace_words = pretrained is not None and pretrained.combine == "replace"
        lexical = LexicalConfig(
            num_words=len(vocab.words), num_tags=len(vocab.tags), num_chars=len(vocab.chars),
            use_words=config.use_words and not replace_words, use_tags=config.use_tags, char_model=char_model,  # type: ignore[arg-type]
            d_content=half, d_position=half, factored=config.factored, max_len=config.max_len,
            d_char_emb_lstm=config.d_char_emb, d_char_emb_concat=config.d_char_emb,
            concat_chars=config.char_concat_letters, char_boundary_markers=True,  # see ParserVocab.char_ids
            word_dropout=config.word_emb_dropout, tag_dropout=config.tag_emb_dropout,
            char_dropout=config.morpho_emb_dropout, char_input_dropout=config.char_input_dropout,
            unk_word_index=vocab.words.index("<unk>") if config.use_words and not replace_words else None,
            use_extra=pretrained is not None,
        )
        self.pretrained: Optional[nn.Module] = None
        if pretrained is not None:  # its word vectors, projected to the content size, join the sum of inputs
            from mlparse.modules.pretrained import PretrainedEncoder

            self.pretrained = PretrainedEncoder(pretrained, d_out=lexical.d_lexical, saved=saved_pretrained)
        self.embedding = LexicalEmbedding(lexical)
        self.encoder = PartitionedTransformerEncoder(
            n_layers=config.num_layers, d_content=half, d_position=half, n_heads=config.num_heads,
            d_k=config.d_kv, d_v=config.d_kv, d_ff=config.d_ff, attention_dropout=config.attention_dropout,
            relu_dropout=config.relu_dropout, residual_dropout=config.residual_dropout, factored=config.factored,
        )
        if config.attention_window is not None:  # windowed training (Table 3): the window is part of the model
            self.encoder.set_window(self.trained_window())
        self.scorer = SpanScorer(config.d_model, span.d_label_hidden, len(labels))
        self.tagger: Optional[TagHead] = TagHead(config.d_model, len(vocab.tags), span.d_tag_hidden) if span.predict_tags else None
        self.unk_dropout_enabled = False

    # -- inputs ---------------------------------------------------------------
    @property
    def max_words(self) -> int:
        """Longest sentence the position table allows (start and stop take two positions)."""
        return self.config.max_len - 2

    def trained_window(self) -> Optional[AttentionWindow]:
        """The attention window the model was trained with (``model.attention_window``), or None."""
        if self.config.attention_window is None:
            return None
        return AttentionWindow(self.config.attention_window, relaxed=self.config.attention_window_relaxed)

    def enable_unk_dropout(self) -> None:
        """Training: replace words of training count c by UNK with probability 1/(1+c)."""
        if self.embedding.word_embedding is not None:
            counts = torch.tensor(self.vocab.count_table(), dtype=torch.float32)
            self.embedding.set_word_counts(counts)
            self.unk_dropout_enabled = True

    def device(self) -> torch.device:
        return self.embedding.position_table.device

    def make_batch(self, sentences: Sequence[Sentence]) -> SentenceBatch:
        """Index and pad ``sentences`` (lists of (tag, word)) on the model's device (on a GPU through pinned
        memory, without waiting: the trainer makes the next sub-batch in a worker thread)."""
        for sentence in sentences:
            if len(sentence) == 0:
                raise ValueError("cannot parse an empty sentence")
            if len(sentence) > self.max_words:
                raise SentenceTooLongError(
                    f"sentence of {len(sentence)} words is longer than this model's maximum of {self.max_words} "
                    f"(model.max_len={self.config.max_len} positions, including start/stop)")
        lengths = [len(s) for s in sentences]
        batch, width = len(sentences), max(lengths) + 2
        vocab = self.vocab
        words = np.zeros((batch, width), dtype=np.int64)
        tags = np.zeros((batch, width), dtype=np.int64)
        char_rows = [vocab.char_ids_cached([w for _, w in s]) for s in sentences]
        max_chars = max(len(ids) for rows in char_rows for ids in rows)
        chars = np.zeros((batch, width, max_chars), dtype=np.int64)
        char_lengths = np.zeros((batch, width), dtype=np.int64)
        for b, sentence in enumerate(sentences):
            t = len(sentence) + 2
            words[b, :t] = vocab.word_ids([w for _, w in sentence])
            tags[b, :t] = vocab.tag_ids([tag for tag, _ in sentence])
            row, sizes = chars[b], char_lengths[b]
            for position, ids in enumerate(char_rows[b]):
                row[position, :len(ids)] = ids
                sizes[position] = len(ids)
        mask = np.arange(width)[None, :] < (np.asarray(lengths) + 2)[:, None]
        device = self.device()
        subwords = None
        if self.pretrained is not None:
            subwords = self.pretrained.make_batch([[w for _, w in s] for s in sentences], device)
        return SentenceBatch(*(to_device(a, device) for a in (mask, words, tags, chars, char_lengths)),
                             lengths=lengths, host_char_lengths=char_lengths, subwords=subwords)

    # -- model ----------------------------------------------------------------
    def encode_words(self, batch: SentenceBatch) -> Tensor:
        """The self-attentive encoder's outputs ``Tensor[B, T, d_model]`` over the lexical inputs (and a
        pretrained encoder's word vectors, when the parser has one)."""
        extra = None
        if self.pretrained is not None:  # [B, N, d_content] words → [B, T, d_content], 0 at start and stop
            assert batch.subwords is not None
            extra = torch.nn.functional.pad(self.pretrained(batch.subwords), (0, 0, 1, 1))
        z = self.embedding(batch.mask, words=batch.words, tags=batch.tags, chars=batch.chars, char_lengths=batch.char_lengths,
                           host_char_lengths=batch.host_char_lengths, extra=extra)
        return self.encoder(z, batch.mask)

    def encode(self, batch: SentenceBatch) -> Tuple[Tensor, Optional[Tensor]]:
        """Encoder outputs ``h: Tensor[B, T, d_model]`` and tag logits ``Tensor[B, T, n_tags]`` (or None)."""
        h = self.encode_words(batch)
        return h, (self.tagger(h) if self.tagger is not None else None)

    def forward(self, batch: SentenceBatch, golds: Optional[Sequence[GoldSpans]] = None,  # type: ignore[no-untyped-def]
                decoder: Optional[str] = None):
        """Without ``golds``: ``(scores [B, N+1, N+1, L], tag logits [B, T, n_tags] | None)``, the
        scores as :meth:`SpanScorer.chart` gives them (0 off the spans ``i < j <= n_b``).

        With ``golds`` (:class:`~mlparse.models.targets.SpanTargets` from :meth:`make_targets`, or one
        dict per sentence): the :class:`LossOutput` (going through ``forward`` lets a
        DistributedDataParallel wrapper see the computation).
        """
        h, tag_logits = self.encode(batch)
        projected = self.scorer.project(h)
        if golds is None:
            return self.scorer.chart(projected, batch.lengths), tag_logits
        targets = golds if isinstance(golds, SpanTargets) else self.make_targets(golds, batch)
        hinge = self._hinge(projected, batch.lengths, targets, decoder or self.loss_decoder)
        return self._loss_output(batch, hinge, tag_logits, targets.word_mask)

    def make_targets(self, golds: Sequence[GoldSpans], batch: SentenceBatch) -> SpanTargets:
        """The gold span table (and the gold label chart for the batched torch decoder, the word mask for
        the tag loss) on the model's device: :func:`~mlparse.models.targets.span_targets`."""
        return span_targets(golds, batch.lengths, self.device(), decoder_labels=self.loss_decoder in ("torch", "device"),
                            tag_mask=self.tagger is not None)

    # -- training -------------------------------------------------------------
    def loss(self, sentences: Sequence[Sentence], golds: Sequence[GoldSpans], decoder: str = "cython") -> LossOutput:
        """Summed hinge loss (plus the scaled tag loss) over ``sentences`` with gold spans ``golds``.

        ``decoder``: ``"cython"`` decodes each sentence on the CPU; ``"torch"`` decodes the batch on the model's device;
        ``"device"`` decodes it there and reads nothing back to the host (:meth:`_hinge_on_device`).
        """
        return self(self.make_batch(sentences), list(golds), decoder)

    def _hinge(self, projected: Tensor, lengths: List[int], targets: SpanTargets, decoder: str) -> Tensor:
        """Summed hinge loss from fencepost projections ``Tensor[B, N+1, d_hidden]`` (:meth:`SpanScorer.project`).

        The loss-augmented decoder reads a chart scored without gradient; the predicted and gold
        spans are then scored again with gradient. Same value as the loss over a differentiable
        dense chart (``dense_loss_from_scores`` of ``benchmarks/instrumentation/dense_reference.py``), with O(n) span activations
        kept for backward.
        What the host learns from decoding (the predicted spans, the Hamming costs) goes to the
        device in one non-blocking copy; the gold side was put there by :meth:`make_targets`.
        """
        if decoder == "device":
            if targets.labels is None or targets.lengths is None:
                targets = span_targets(targets.golds, lengths, projected.device, decoder_labels=True, tag_mask=False)
            return self._hinge_on_device(projected, targets.labels, targets.lengths)
        golds = targets.golds
        with torch.no_grad():
            chart = self.scorer.chart(projected, lengths)  # float32, [B, N+1, N+1, L]
            if decoder == "torch":
                gold_labels = targets.labels
                if gold_labels is None:  # targets made for a host decoder
                    gold_labels = to_device(gold_label_array(golds, chart.shape[1] - 1), chart.device)
                predicted = cky_torch.decode_batch(chart, lengths, gold=gold_labels)
            else:
                array = chart.cpu().numpy()
                predicted = [cky.decode(array[b], gold=golds[b], length=n) for b, n in enumerate(lengths)]
            del chart
        count = len(lengths)
        rows = span_rows([tree.spans for tree in predicted])
        hamming = np.asarray([hamming_cost(t.spans, g) for t, g in zip(predicted, golds)], dtype=np.int64)
        upload = to_device(np.concatenate([rows.reshape(-1), hamming]), projected.device)  # one copy
        table = torch.cat([upload[:rows.size].view(-1, SPAN_COLUMNS), targets.table])  # predicted, then gold spans
        values = self.scorer.scores_at(projected, table[:, 0], table[:, 1], table[:, 2]).float()
        values = values.gather(1, table[:, 3:4]).squeeze(1)
        sums = values.new_zeros(2 * count).index_add(0, table[:, 4], values)  # predicted sums, then gold sums
        costs = upload[rows.size:].to(sums.dtype)
        return torch.clamp(sums[:count] + costs - sums[count:], min=0.0).sum()

    # -- the training step as one graph (train.step: graph; mlparse/train/graph_step.py) ---------------------
    def graph_unsupported(self) -> Optional[str]:
        """None when :meth:`graph_loss` can be compiled for this model, else why not."""
        if self.pretrained is not None:
            return "a pretrained encoder's subword batches vary in shape"
        return None

    def graph_tensors(self, batch: SentenceBatch, targets: SpanTargets, positions: int, chars: int) -> Tuple[Tensor, ...]:
        """The inputs of :meth:`graph_loss`: the batch and its targets (with the device decoder's labels and lengths)
        padded to ``positions`` words axis positions (at most ``model.max_len``) and ``chars`` characters."""
        if targets.labels is None or targets.lengths is None:
            targets = span_targets(targets.golds, batch.lengths, batch.mask.device, decoder_labels=True,
                                   tag_mask=self.tagger is not None)
        return padded_span_tensors(batch, targets, min(positions, self.config.max_len), chars)

    def graph_loss(self, mask: Tensor, words: Tensor, tags: Tensor, chars: Tensor, char_lengths: Tensor,
                   labels: Tensor, lengths: Tensor, word_mask: Tensor) -> Tuple[Tensor, Dict[str, Tensor]]:
        """``(loss, parts)`` over :meth:`graph_tensors`: the training forward with golds in a form that
        ``torch.compile(fullgraph=True)`` takes as one graph (no Python number of the batch enters)."""
        batch = SentenceBatch(mask, words, tags, chars, char_lengths, lengths=[], host_char_lengths=None)
        h, tag_logits = self.encode(batch)
        hinge = self._hinge_on_device(self.scorer.project(h), labels, lengths)
        if tag_logits is None:
            return hinge, {"hinge": hinge}
        tag = TagHead.loss(tag_logits.float(), tags, word_mask, reduction="sum")
        return hinge + self.span_config.tag_loss_scale * tag, {"hinge": hinge, "tag": tag}

    def _hinge_on_device(self, projected: Tensor, gold: Tensor, lengths: Tensor) -> Tensor:
        """The summed hinge loss of :meth:`_hinge` with nothing read back to the host
        (:func:`mlparse.models.span_graph.hinge_on_device`)."""
        return hinge_on_device(self.scorer, projected, gold, lengths)

    def _loss_output(self, batch: SentenceBatch, hinge: Tensor, tag_logits: Optional[Tensor],
                     word_mask: Optional[Tensor] = None) -> LossOutput:
        """The hinge plus the scaled tag loss (when the model predicts tags) over the words ``word_mask``
        (``BoolTensor[B, T]``; None: made here from the lengths)."""
        total = hinge
        parts = {"hinge": hinge.detach()}
        if tag_logits is not None:
            if word_mask is None:
                word_mask = to_device(word_mask_array(batch.lengths, batch.mask.shape[1]), batch.mask.device)
            tag_loss = TagHead.loss(tag_logits.float(), batch.tags, word_mask, reduction="sum")
            total = total + self.span_config.tag_loss_scale * tag_loss
            parts["tag"] = tag_loss.detach()
        return LossOutput(loss=total, sentences=len(batch.lengths), parts=parts)

    # -- inference ------------------------------------------------------------
    @torch.no_grad()
    def parse(self, sentences: Sequence[Sentence], decoder: str = "cython") -> List[Tree]:
        """Trees for ``sentences`` (un-binarized, chains expanded, TOP-rooted).

        Leaves carry the input tags unless the model predicts tags.
        """
        batch = self.make_batch(sentences)
        scores, tag_logits = self(batch)
        return self._trees_from_scores(sentences, batch, scores, tag_logits, decoder)

    def _trees_from_scores(self, sentences: Sequence[Sentence], batch: SentenceBatch, scores: Tensor,
                           tag_logits: Optional[Tensor], decoder: str) -> List[Tree]:
        """Decode the chart ``scores [B, N+1, N+1, L]`` and build the trees (tags from ``tag_logits`` if any)."""
        scores = scores.float()
        if decoder == "torch":
            charts = cky_torch.decode_batch(scores, batch.lengths)
        else:
            array = scores.cpu().numpy()
            charts = [cky.decode(array[b], length=n) for b, n in enumerate(batch.lengths)]
        predicted_tags: Optional[np.ndarray] = None
        if tag_logits is not None:
            logits = tag_logits.float()
            logits[..., : self.vocab.tags.num_specials] = float("-inf")  # never predict pad/unk/start/stop
            predicted_tags = logits.argmax(-1).cpu().numpy()
        trees = []
        for b, (sentence, chart) in enumerate(zip(sentences, charts)):
            if predicted_tags is not None:
                leaves = [Leaf(self.vocab.tags.token(int(predicted_tags[b, k + 1])), word) for k, (_, word) in enumerate(sentence)]
            else:
                leaves = [Leaf(tag, word) for tag, word in sentence]
            trees.append(tree_from_chart(chart, self.labels, leaves))
        return trees

    # -- the parser interface (mlparse.models.base) ----------------------------
    @classmethod
    def build(cls, config: RecipeConfig, train: Sequence[Tree]) -> "SpanParser":
        pretrained = config.pretrained if config.pretrained.model is not None else None
        return build_parser(config.model, train, config.model.word_min_count, pretrained, span=config.span)

    def gold(self, example: Tree) -> GoldSpans:
        return gold_spans(example, self.labels)

    def training_setup(self, config: RecipeConfig, decoder: str = "cython") -> None:
        """Loss-augmented decoding with ``decoder`` (on the device without a wait for the host with
        ``train.step: graph``); UNK dropout by training counts (``train.unk_word_dropout``)."""
        graph = getattr(config.train, "step", "eager") == "graph"
        self.loss_decoder = "device" if graph else decoder
        if self.embedding.char_lstm is not None:
            self.embedding.char_lstm.static_shapes = graph
        if config.train.unk_word_dropout:
            self.enable_unk_dropout()
        if self.pretrained is not None:
            self.pretrained.training_setup(self.device())

    def optimizer_groups(self, config: RecipeConfig) -> List[Dict[str, Any]]:
        """A fine-tuned pretrained encoder trains with its own learning rate and warm-up."""
        from mlparse.modules.pretrained import parameter_groups

        return parameter_groups(self, self.pretrained, config)  # type: ignore[arg-type]

    def scores(self, batch: SentenceBatch) -> Tuple[Tensor, Optional[Tensor]]:
        """``(chart [B, N+1, N+1, L], tag logits [B, T, n_tags] | None)``."""
        return self(batch)

    def decode(self, batch: SentenceBatch, scores: Tuple[Tensor, Optional[Tensor]], examples: Sequence[Sentence],
               decoder: str = "cython") -> List[Tree]:
        chart, tag_logits = scores
        return self._trees_from_scores(examples, batch, chart, tag_logits, "torch" if decoder == "torch" else "cython")

    def predict(self, examples: Sequence[Sentence], decoder: str = "cython") -> List[Tree]:
        return self.parse(examples, decoder="torch" if decoder == "torch" else "cython")

    # -- ensembles (mlparse.models.ensemble) ------------------------------------
    def output_inventories(self) -> Dict[str, List[str]]:
        """The span labels (EMPTY first), and the tags when the model predicts them."""
        inventories = {"span labels": self.labels.to_list()}
        if self.tagger is not None:
            inventories["predicted tags"] = self.vocab.tags.to_list()
        return inventories

    def with_inventories(self, inventories: Dict[str, List[str]]) -> "SpanParser":
        """A shallow copy (the same modules) that names labels (and predicted tags) from ``inventories``."""
        view = copy.copy(self)
        view.labels = LabelVocab(inventories["span labels"])
        if "predicted tags" in inventories:
            view.vocab = copy.copy(self.vocab)
            view.vocab.tags = Vocab.from_list(inventories["predicted tags"], self.vocab.tags.num_specials)
        return view

    @classmethod
    def average_scores(cls, scores: Sequence[Tuple[Tensor, Optional[Tensor]]], index_maps: Sequence[Dict[str, Tensor]],
                       sizes: Dict[str, int], mode: str) -> Tuple[Tensor, Optional[Tensor]]:
        """The mean chart ``[B, N+1, N+1, U]`` (CKY reads it as one model's) and, with a tagging head, the
        averaged tag distributions ``[B, T, U_tags]``."""
        chart = average_charts([c for c, _ in scores], [m["span labels"] for m in index_maps], sizes["span labels"])
        tags = [t for _, t in scores]
        if any(t is None for t in tags):
            return chart, None
        return chart, average_distributions([t.float().log_softmax(-1) for t in tags],  # type: ignore[union-attr]
                                            [m["predicted tags"] for m in index_maps], sizes["predicted tags"], mode)

    def memory_cost(self, training: bool, decoder: str) -> Callable[[int], float]:
        cost = subbatch_cost(self.config, self.span_config, len(self.labels), training=training, decoder=decoder)
        encoder = self.pretrained
        if encoder is None:
            return cost
        unit = self.position_bytes(training, decoder)  # a pretrained encoder's bytes in the same token-equivalents
        return lambda n: cost(n) + encoder.memory_bytes(n, training) / unit

    def position_bytes(self, training: bool, decoder: str) -> float:
        """Bytes of one token-equivalent: the cost model's ``per_position`` (:mod:`mlparse.models.memory`)."""
        memory = (training_memory if training else parsing_memory)(self.config, self.span_config, len(self.labels), decoder)
        return memory.per_position

    @staticmethod
    def describe(config: RecipeConfig, eval_tags: Optional[str] = None) -> str:
        """The system's name in reports: ``mlparse span (CharLSTM + words)``."""
        parts = {"lstm": ["CharLSTM"], "concat": ["CharConcat"], "none": []}[config.model.char_encoder]
        pretrained = config.pretrained
        if pretrained.model is not None:
            from mlparse.modules.pretrained import pretrained_name

            parts.insert(0, pretrained_name(pretrained))
        if config.model.use_words and not (pretrained.model is not None and pretrained.combine == "replace"):
            parts.append("words")
        if config.model.use_tags:  # the tags given on dev/test tell apart systems that are not comparable
            parts.append(f"{eval_tags or 'gold'} tags")
        return f"mlparse span ({' + '.join(parts)})"

    def resume_mismatch(self, saved: Dict[str, Any]) -> Optional[str]:
        saved = SpanParser.current_spec(saved)
        mine = self.spec()
        for part, what in (("vocab", "vocabulary"), ("labels", "span labels"), ("model_config", "model settings"),
                           ("span_config", "span settings")):
            if saved.get(part) != mine[part]:
                return what
        from mlparse.modules.pretrained import pretrained_mismatch

        return pretrained_mismatch(mine, saved)

    # -- persistence ----------------------------------------------------------
    def spec(self) -> Dict[str, object]:
        """What :func:`SpanParser.from_spec` needs besides the weights: the encoder's settings (``model_config``)
        and the span head's (``span_config``)."""
        spec = {"kind": self.kind, "model_config": self.config.__dict__.copy(),
                "span_config": self.span_config.__dict__.copy(), "vocab": self.vocab.to_dict(),
                "labels": self.labels.to_list(), "char_concat_wiring": CHAR_CONCAT_WIRING}
        if self.pretrained is not None:  # parsers without one keep the specs they always had
            spec["pretrained"] = self.pretrained.spec()
        return spec

    @staticmethod
    def current_spec(spec: Dict[str, Any]) -> Dict[str, Any]:
        """:func:`mlparse.models.span_spec.current_spec`."""
        return current_spec(spec)

    @staticmethod
    def model_config_of(spec: Dict[str, object]) -> ModelConfig:
        """:func:`mlparse.models.span_spec.model_config_of`."""
        return model_config_of(spec)

    @staticmethod
    def span_config_of(spec: Dict[str, object]) -> SpanConfig:
        """:func:`mlparse.models.span_spec.span_config_of`."""
        return span_config_of(spec)

    @classmethod
    def from_spec(cls, spec: Dict[str, object]) -> "SpanParser":
        from mlparse.modules.pretrained import pretrained_config_of

        config = cls.model_config_of(spec)
        return cls(config, ParserVocab.from_dict(spec["vocab"]), LabelVocab(spec["labels"]),  # type: ignore[arg-type]
                   pretrained_config_of(spec), spec.get("pretrained"), span=cls.span_config_of(spec))  # type: ignore[arg-type]


def build_parser(config: ModelConfig, train_trees: Sequence[Tree], word_min_count: int = 1,
                 pretrained: Optional[PretrainedConfig] = None, span: Optional[SpanConfig] = None) -> SpanParser:
    """A fresh (untrained) parser with vocabularies and labels built from TOP-rooted training trees; ``span``:
    the span head's settings (None: :class:`~mlparse.config.schema.SpanConfig`'s defaults)."""
    sentences = [[(leaf.tag, leaf.word) for leaf in tree.leaves()] for tree in train_trees]
    vocab = ParserVocab.build(sentences, word_min_count)
    labels = LabelVocab.from_trees(train_trees)
    if len(labels) < 2:
        raise ValueError("the training trees hold no constituent at all (each is a lone word under TOP): "
                         "a span parser has no label to learn")
    return SpanParser(config, vocab, labels, pretrained, span=span)
