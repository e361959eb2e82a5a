"""The self-attentive biaffine dependency parser (Li et al. 2019; Dozat & Manning 2017).

Inputs: word embeddings (optionally initialised from a pretrained vector file) ⊕ POS-tag
embeddings, optionally plus a CharLSTM word vector; position 0 is the root pseudo-word.  Encoder
(``model.encoder``): the self-attentive encoder of Kitaev & Klein with sinusoidal (Li et al.,
Eq. 8) or learned positions, factored or not, or the BiLSTM of Dozat & Manning.  Scorer: MLPs and
biaffine arc and relation scores (:mod:`mlparse.modules.biaffine`).  Loss (§2.2): cross-entropy of
each word's gold head over the other positions (Eq. 5: the self-loop is masked, :func:`mask_arc_scores`), plus cross-entropy of its gold relation given the gold
head.  Decoding: a well-formed tree with exactly one dependent of the root, by maximum spanning
tree (non-projective) or Eisner (projective) over the arc log-probabilities; each word's relation
is the best one for its decoded head.

With ``biaffine.predict_tags`` (a parser that reads no tags, ``data.tags: none``) a tagging head
(:class:`~mlparse.modules.tag_head.TagHead`) over the encoder predicts the ``biaffine.tag_column`` of every word
as UDPipe 2 and Stanza do, trained with the summed cross-entropy of the gold tags (weighted by
``biaffine.tag_loss_scale``) beside the arc and relation losses; predictions carry its tags, which the scorer
counts as tag accuracy.

The batches, golds, scores and the input layer are in :mod:`mlparse.models.dep_input`.

Shapes: B sentences, T = n_max + 1 positions (root + words), L relations, K tags.
"""

from __future__ import annotations

import copy
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from mlparse.config import BiaffineConfig, ModelConfig, PretrainedConfig, RecipeConfig
from mlparse.config.layout import split_model_settings
from mlparse.data.dependency_vocab import DependencyVocab
from mlparse.data.vocab import Vocab
from mlparse.models.base import LossOutput, Parser
from mlparse.models.declarations import BiaffineKind
from mlparse.models.ensemble import average_distributions
from mlparse.models.targets import IGNORED, DependencyTargets, dependency_targets
from mlparse.models.dep_input import (  # noqa: F401  (the tagger and tests import them from here too)
    UNK_ID, AffixInput, DependencyBatch, DependencyGold, DependencyInput, DependencyScores)
from mlparse.modules.transfer import to_device
from mlparse.modules.biaffine import BiaffineDependencyScorer
from mlparse.modules.bilstm_encoder import BiLSTMEncoder
from mlparse.modules.packed_lstm import PackedLayout
from mlparse.modules.tag_head import TagHead
from mlparse.structs import decode_eisner, decode_mst, eisner_torch
from mlparse.trees.dependency import DependencySentence, DependencyPrediction


def decode_heads(arc: Tensor, lengths: Sequence[int], algorithm: str, implementation: str = "cython") -> Tensor:
    """Well-formed trees (one root dependent) from arc scores ``arc: Tensor[B, T, T]`` (``[b, d, h]``).

    ``algorithm``: ``mst`` (non-projective) or ``eisner`` (projective); ``implementation``: ``cython``
    (per sentence on the host) or ``torch`` (batched Eisner on the scores' device; MST has no batched
    version and runs on the host).  Output ``LongTensor[B, T]`` of heads, -1 at the root and padding.
    """
    by_head = arc.transpose(1, 2)  # the decoders take scores[h, d]
    if algorithm == "eisner" and implementation == "torch":
        return eisner_torch.decode_batch(by_head, list(lengths))
    decode = decode_mst if algorithm == "mst" else decode_eisner
    array = by_head.detach().double().cpu().numpy()
    heads = np.full(arc.shape[:2], -1, dtype=np.int64)
    for b, n in enumerate(lengths):
        heads[b, : n + 1] = decode(array[b], length=n)
    return to_device(heads, arc.device)  # without waiting: the relations of these heads are scored next


def mask_arc_scores(arc: Tensor, mask: Tensor) -> Tensor:
    """Arc scores ``arc: Tensor[B, T, T]`` (``[b, d, h]``) with every impossible head at ``-inf``: padding
    heads (``mask: BoolTensor[B, T]``, true at the root and the words) and each word itself (the diagonal,
    d >= 1).  Li et al. (2019), Eq. 5 normalise a word's head distribution over the *other* positions, so a
    softmax over the last axis gives a word exactly probability 0 of heading itself, in the training loss,
    the arc probabilities and an ensemble's averages alike.  The root's row (d = 0) is never scored (its
    target is ignored) and keeps its diagonal, so a row never holds only ``-inf``."""
    width = arc.shape[-1]
    impossible = ~mask[:, None, :width]  # [B, 1, T]
    self_loop = torch.eye(width, dtype=torch.bool, device=arc.device)
    self_loop[0, 0] = False
    return arc.masked_fill(impossible | self_loop, float("-inf"))


def relations_and_heads(chosen: Tensor, heads: Tensor) -> "tuple[np.ndarray, np.ndarray]":
    """The best relation ids ``chosen.argmax(-1)`` (``chosen: [B, T, L]``) and the ``heads: LongTensor[B, T]``
    on the host, read back in one copy (one wait for the device)."""
    host = torch.stack([chosen.argmax(-1), heads]).cpu().numpy()
    return host[0], host[1]


def arc_cross_entropy(arc: Tensor, heads: Tensor) -> Tensor:
    """The summed cross-entropy of the gold heads: ``arc: Tensor[B, T, T]`` (padding ``-inf``), ``heads:
    LongTensor[B, T]`` (``IGNORED`` at the root and at padding) -> a 0-dim tensor."""
    width = arc.shape[1]
    return F.cross_entropy(arc.reshape(-1, width), heads.reshape(-1), ignore_index=IGNORED, reduction="sum")


def dependency_losses(arc: Tensor, targets: "DependencyTargets | Sequence[Any]",
                      relation_scores_for: Callable[[Tensor], Tensor]) -> "tuple[Tensor, Tensor]":
    """Summed cross-entropies of the gold heads and of the gold relations at the gold heads.

    Args:
        arc: float scores ``[B, T, T]`` (dependent, head) over positions 0..T-1, position 0 the root,
            padding already ``-inf``.
        targets: :class:`~mlparse.models.targets.DependencyTargets` on the device (from ``make_targets``),
            or per sentence ``heads`` and ``relations`` (indices) of words 1..n, made into them here.
        relation_scores_for: gold heads ``[B, T]`` → relation scores ``[B, T, L]`` at those heads.

    Returns:
        (arc loss, relation loss), 0-dim, summed over the words (the root has no head).
    """
    width = arc.shape[1]
    if not isinstance(targets, DependencyTargets):
        targets = dependency_targets(targets, width, arc.device)
    # Targets of the root and of padding are IGNORED: no boolean indexing, which would make the host wait.
    gold = targets.targets
    arc_loss = arc_cross_entropy(arc, gold[0])
    relation = relation_scores_for(targets.heads).float()
    relation_loss = F.cross_entropy(relation.reshape(-1, relation.shape[-1]), gold[1].reshape(-1),
                                    ignore_index=IGNORED, reduction="sum")
    return arc_loss, relation_loss


class BiaffineParser(BiaffineKind, Parser):
    """Biaffine dependency parser over a self-attentive or BiLSTM encoder (see the module docstring)."""

    def __init__(self, model: ModelConfig, dep: BiaffineConfig, vocab: DependencyVocab,
                 pretrained: Optional[PretrainedConfig] = None, saved_pretrained: Optional[Dict[str, Any]] = None) -> None:
        super().__init__()
        self.config, self.dep_config = model, dep
        self.dep_vocab = vocab
        self.vocab, self.relations = vocab.lexical, vocab.rels
        self.input = DependencyInput(model, dep, vocab.lexical, pretrained, saved_pretrained)
        self.scorer = BiaffineDependencyScorer(self.input.d_out, len(vocab.rels), dep.d_arc, dep.d_relation,
                                               dep.mlp_dropout)
        self.tag_head: Optional[TagHead] = (TagHead(self.input.d_out, len(vocab.lexical.tags), dep.d_tag_hidden)
                                            if dep.predict_tags else None)

    # -- building and persistence ----------------------------------------------
    @classmethod
    def build(cls, config: RecipeConfig, train: Sequence[DependencySentence]) -> "BiaffineParser":
        vocab = DependencyVocab.build(train, config.model.word_min_count, config.biaffine.tag_column)
        parser = cls(config.model, config.biaffine, vocab, config.pretrained if config.pretrained.model is not None else None)
        if config.biaffine.pretrained_vectors and parser.input.word_embedding is not None:
            parser.load_pretrained(config.biaffine.pretrained_vectors)
        return parser

    def load_pretrained(self, path: str) -> int:
        """Initialise the rows of words found in the vector file; returns how many were found."""
        from mlparse.data.pretrained_vectors import read_vectors

        embedding = self.input.word_embedding
        assert embedding is not None
        vectors = read_vectors(path, wanted=self.vocab.words.itos[self.vocab.words.num_specials:])
        if vectors.dim != embedding.embedding_dim:
            raise ValueError(f"{path}: vectors of {vectors.dim} numbers, but biaffine.d_word_emb is "
                             f"{embedding.embedding_dim}; set biaffine.d_word_emb: {vectors.dim}")
        with torch.no_grad():
            rows = torch.tensor([self.vocab.words.index(w) for w in vectors.words], dtype=torch.long)
            if len(rows):
                embedding.weight[rows] = torch.from_numpy(vectors.vectors)
        return len(vectors.words)

    def spec(self) -> Dict[str, Any]:
        spec = {"kind": self.kind, "model_config": dict(self.config.__dict__),
                "biaffine_config": dict(self.dep_config.__dict__), "vocab": self.dep_vocab.to_dict()}
        if self.input.pretrained is not None:  # parsers without one keep the specs they always had
            spec["pretrained"] = self.input.pretrained.spec()
        return spec

    @staticmethod
    def biaffine_config_of(spec: Dict[str, Any]) -> BiaffineConfig:
        """The spec's ``biaffine`` settings; keys added since it was saved (the tagging head's) take their defaults,
        which build the parser it was."""
        return BiaffineConfig(**spec["biaffine_config"])

    @classmethod
    def from_spec(cls, spec: Dict[str, Any]) -> "BiaffineParser":
        from mlparse.modules.pretrained import pretrained_config_of

        model, _ = split_model_settings(spec["model_config"])  # saved before recipe layout 2: the span keys go
        return cls(ModelConfig(**model), cls.biaffine_config_of(spec),
                   DependencyVocab.from_dict(spec["vocab"]), pretrained_config_of(spec), spec.get("pretrained"))

    def resume_mismatch(self, saved: Dict[str, Any]) -> Optional[str]:
        """As every parser, with the settings of a spec saved before the tagging head existed read with their
        defaults (a checkpoint of such a parser resumes)."""
        try:
            current = {**saved, "biaffine_config": self.biaffine_config_of(saved).__dict__}
        except (TypeError, KeyError):  # settings this version does not know: they differ from any parser's
            current = saved
        return Parser.resume_mismatch(self, current)

    @property
    def predicts_tags(self) -> bool:
        """Whether its predictions carry the tags of its own tagging head (``biaffine.predict_tags``)."""
        return self.tag_head is not None

    def training_setup(self, config: RecipeConfig, decoder: str = "cython") -> None:
        if self.input.char_lstm is not None:  # train.step: graph: the CharLSTM in fixed shapes
            self.input.char_lstm.static_shapes = getattr(config.train, "step", "eager") == "graph"
        if self.input.pretrained is not None:
            self.input.pretrained.training_setup(self.device())

    def optimizer_groups(self, config: RecipeConfig) -> List[Dict[str, Any]]:
        """A fine-tuned pretrained encoder trains with its own learning rate and warm-up."""
        from mlparse.modules.pretrained import parameter_groups

        return parameter_groups(self, self.input.pretrained, config)  # type: ignore[arg-type]

    # -- data ------------------------------------------------------------------
    @property
    def max_words(self) -> int:
        return self.config.max_len - 1  # the root takes position 0

    def device(self) -> torch.device:
        return self.scorer.arc.weight.device

    def trains_on_real_positions(self, device: torch.device) -> bool:
        """The BiLSTM encoder's packed CPU kernel and the heads on its rows (:meth:`_loss_on_rows`) work on the
        real positions only; the arc scores' ``[B, T, T]`` is what a sub-batch's padding still costs."""
        encoder = self.input.encoder
        return device.type == "cpu" and isinstance(encoder, BiLSTMEncoder) and encoder.cpu_kernel in ("auto", "packed")

    def memory_cost(self, training: bool, decoder: str) -> Callable[[int], float]:
        """Token-equivalents of a sentence of n words: its n + 1 positions, plus what grows with (n + 1)²
        (attention of every head; when parsing, the arc scores), in units of one position's activations
        (about 4 · d_model numbers per layer).  Parsing scores relations for the decoded heads only (O(n·L)),
        never the (n + 1)² · L relation scores of every pair."""
        width = self.input.d_out * 4 * max(1, self.config.num_layers)
        square = self.config.num_heads * max(1, self.config.num_layers) + (0 if training else 1)
        encoder, unit = self.input.pretrained, self.position_bytes(training, decoder)
        if encoder is not None:  # a pretrained encoder's bytes in the same token-equivalents
            return lambda n: (n + 1) + (n + 1) ** 2 * square / width + encoder.memory_bytes(n, training) / unit
        return lambda n: (n + 1) + (n + 1) ** 2 * square / width

    def position_bytes(self, training: bool, decoder: str) -> float:
        """Bytes of one token-equivalent of :meth:`memory_cost`: its unit, 4 · d_model float32 numbers per layer."""
        return 4.0 * self.input.d_out * 4 * max(1, self.config.num_layers)

    @staticmethod
    def describe(config: RecipeConfig, eval_tags: Optional[str] = None) -> str:
        """``mlparse biaffine (self-attentive, words + gold tags)``."""
        m, p = config.model, config.pretrained
        from mlparse.modules.pretrained import pretrained_name

        replaced = p.model is not None and p.combine == "replace"
        parts = ([pretrained_name(p)] if p.model is not None else []) + (
            ["CharLSTM"] if m.char_encoder == "lstm" else []) + (["words"] if m.use_words and not replaced else []) + (
            [f"{eval_tags or 'gold'} {config.biaffine.tag_column.upper()}"] if m.use_tags else [])
        encoder = "BiLSTM" if m.encoder == "bilstm" else "self-attentive"
        head = f"; predicts {config.biaffine.tag_column.upper()}" if config.biaffine.predict_tags else ""
        return f"mlparse biaffine ({encoder}, {' + '.join(parts)}{head})"

    def gold(self, example: DependencySentence) -> DependencyGold:
        unknown = [r for r in example.deprels if r not in self.relations]
        if unknown:
            raise ValueError(f"relation {unknown[0]!r} does not occur in the training data")
        tags = self.vocab.tag_ids(self.dep_vocab.tags_of(example))[1:-1] if self.tag_head is not None else None
        return DependencyGold([int(h) for h in example.heads], self.dep_vocab.rel_ids(example.deprels), tags)

    def make_batch(self, examples: Sequence[DependencySentence]) -> DependencyBatch:
        lengths = [len(s.words) for s in examples]
        for n in lengths:
            if n == 0:
                raise ValueError("cannot parse an empty sentence")
            if n > self.max_words:
                raise ValueError(f"sentence of {n} words is longer than this model's maximum of {self.max_words} "
                                 f"(model.max_len={self.config.max_len} positions, including the root)")
        batch, width = len(examples), max(lengths) + 1
        vocab = self.vocab
        words = np.zeros((batch, width), dtype=np.int64)
        tags = np.zeros((batch, width), dtype=np.int64)
        char_rows = [vocab.char_ids_cached(s.words)[:-1] for s in examples]  # root ("start"), words; no stop
        max_chars = max(len(ids) for rows in char_rows for ids in rows)
        chars = np.zeros((batch, width, max_chars), dtype=np.int64)
        char_lengths = np.zeros((batch, width), dtype=np.int64)
        for b, sentence in enumerate(examples):
            t = lengths[b] + 1
            words[b, :t] = vocab.word_ids(sentence.words)[:-1]
            tags[b, :t] = vocab.tag_ids(self.dep_vocab.tags_of(sentence))[:-1]
            for position, ids in enumerate(char_rows[b]):
                chars[b, position, :len(ids)] = ids
                char_lengths[b, position] = len(ids)
        mask = np.arange(width)[None, :] < (np.asarray(lengths) + 1)[:, None]
        device = self.device()
        subwords = None
        if self.input.pretrained is not None:
            subwords = self.input.pretrained.make_batch([s.words for s in examples], device)
        return DependencyBatch(*(to_device(a, device) for a in (mask, words, tags, chars, char_lengths)),
                               lengths=lengths, subwords=subwords, host_char_lengths=char_lengths)

    def make_targets(self, golds: Sequence[DependencyGold], batch: DependencyBatch) -> DependencyTargets:
        """Gold heads and relations on the model's device (:func:`~mlparse.models.targets.dependency_targets`)."""
        return dependency_targets(golds, max(batch.lengths) + 1, self.device())

    # -- network ---------------------------------------------------------------
    def forward(self, batch: DependencyBatch, golds: Optional[Sequence[DependencyGold]] = None) -> Any:
        """With ``golds``: the summed cross-entropy :class:`LossOutput`; without: :class:`DependencyScores`."""
        if golds is None:
            return self.scores(batch)
        if not isinstance(golds, DependencyTargets):
            golds = dependency_targets(golds, max(batch.lengths) + 1, self.device())
        packed = self.input.rows(batch)
        if packed is not None:
            return self._loss_on_rows(batch, golds, *packed)
        h = self.input(batch)
        arc = self.scorer.arc(self.scorer.arc_dependent(h), self.scorer.arc_head(h)).squeeze(1).float()
        arc = mask_arc_scores(arc, batch.mask)
        arc_loss, relation_loss = dependency_losses(arc, golds,
                                                    lambda heads: self.scorer.relation_scores_for(h, heads))
        return self._loss_output(batch, golds, arc_loss, relation_loss, lambda: h)

    def _loss_on_rows(self, batch: DependencyBatch, golds: DependencyTargets, rows: Tensor,
                      layout: PackedLayout) -> LossOutput:
        """:meth:`forward`'s loss from the BiLSTM's rows (one per real position, ``rows: Tensor[N, d]``): the
        MLPs and the relation scores on the real positions only (a batch of shuffled sentences is several times
        its words when padded), the arc scores ``[B, T, T]`` padded as before; the same losses, the same dropout
        masks."""
        arc = mask_arc_scores(self.scorer.arc_scores_on_rows(rows, layout).float(), batch.mask)
        arc_loss = arc_cross_entropy(arc, golds.targets[0])
        relation = self.scorer.relation_scores_on_rows(rows, layout, layout.gather_padded(golds.heads)).float()
        relation_loss = F.cross_entropy(relation, layout.gather_padded(golds.targets[1]), ignore_index=IGNORED,
                                        reduction="sum")
        return self._loss_output(batch, golds, arc_loss, relation_loss, lambda: layout.unpack_rows(rows))

    def _loss_output(self, batch: DependencyBatch, golds: DependencyTargets, arc_loss: Tensor,
                     relation_loss: Tensor, encoded: Callable[[], Tensor]) -> LossOutput:
        """The summed loss and its parts; with a tagging head, its loss on ``encoded()`` (``Tensor[B, T, d]``, made
        only then) added at ``biaffine.tag_loss_scale``."""
        parts = {"arc": arc_loss.detach(), "relation": relation_loss.detach()}
        loss = arc_loss + relation_loss
        if self.tag_head is not None:
            if golds.tags is None:
                raise ValueError("a parser with a tagging head needs the gold tags of its training sentences")
            tag_loss = TagHead.loss(self.tag_head(encoded()).float(), golds.tags, golds.tags != IGNORED)
            loss = loss + self.dep_config.tag_loss_scale * tag_loss
            parts["tag"] = tag_loss.detach()
        return LossOutput(loss=loss, sentences=len(batch.lengths), parts=parts)

    # -- the training step as one graph (train.step: graph; mlparse/train/graph_step.py) ---------------------
    def graph_unsupported(self) -> Optional[str]:
        """None when :meth:`graph_loss` can be compiled for this model, else why not."""
        from mlparse.modules.bilstm_encoder import BiLSTMEncoder

        if self.input.pretrained is not None:
            return "a pretrained encoder's subword batches vary in shape"
        if isinstance(self.input.encoder, BiLSTMEncoder):
            return "the BiLSTM encoder packs by lengths it reads on the host"
        if self.input.affix_embedding is not None:
            return "affix features"
        return None

    def graph_tensors(self, batch: DependencyBatch, targets: DependencyTargets, positions: int,
                      chars: int) -> tuple:
        """The inputs of :meth:`graph_loss`, padded to ``positions`` positions (root and words; at most
        ``model.max_len``) and ``chars`` characters: the batch's five tensors, then the gold heads, the head and
        relation targets and the tag targets (:data:`IGNORED` where there are none), each ``[B, T']``."""
        grow = max(0, min(positions, self.input.model_config.max_len) - batch.mask.shape[1])
        gold_tags = targets.tags if targets.tags is not None else torch.full_like(targets.heads, IGNORED)
        return (F.pad(batch.mask, (0, grow), value=False), F.pad(batch.words, (0, grow)), F.pad(batch.tags, (0, grow)),
                F.pad(batch.chars, (0, max(0, chars - batch.chars.shape[2]), 0, grow)), F.pad(batch.char_lengths, (0, grow)),
                F.pad(targets.heads, (0, grow)), F.pad(targets.targets[0], (0, grow), value=IGNORED),
                F.pad(targets.targets[1], (0, grow), value=IGNORED), F.pad(gold_tags, (0, grow), value=IGNORED))

    def graph_loss(self, mask: Tensor, words: Tensor, tags: Tensor, chars: Tensor, char_lengths: Tensor, heads: Tensor,
                   head_targets: Tensor, relation_targets: Tensor, tag_targets: Tensor) -> tuple:
        """``(loss, parts)`` of :meth:`forward` with golds over :meth:`graph_tensors`, in a form that
        ``torch.compile(fullgraph=True)`` takes as one graph (no Python number of the batch enters)."""
        batch = DependencyBatch(mask, words, tags, chars, char_lengths, lengths=[])
        h = self.input(batch)
        arc = mask_arc_scores(self.scorer.arc(self.scorer.arc_dependent(h), self.scorer.arc_head(h)).squeeze(1).float(),
                              mask)
        targets = DependencyTargets(heads=heads, targets=torch.stack([head_targets, relation_targets]), tags=None)
        arc_loss, relation_loss = dependency_losses(arc, targets, lambda gold: self.scorer.relation_scores_for(h, gold))
        parts = {"arc": arc_loss, "relation": relation_loss}
        loss = arc_loss + relation_loss
        if self.tag_head is not None:
            tag_loss = TagHead.loss(self.tag_head(h).float(), tag_targets, tag_targets != IGNORED)
            loss = loss + self.dep_config.tag_loss_scale * tag_loss
            parts["tag"] = tag_loss
        return loss, parts

    def scores(self, batch: DependencyBatch) -> DependencyScores:
        """Arc log-probabilities and the relation MLP outputs (relations are scored per decoded head)."""
        h = self.input(batch)
        scorer = self.scorer
        arc = scorer.arc(scorer.arc_dependent(h), scorer.arc_head(h)).squeeze(1).float()
        arc = mask_arc_scores(arc, batch.mask)
        tags = None
        if self.tag_head is not None:  # the special entries (padding, unknown, start, stop) are never predicted
            logits = self.tag_head(h).float()
            logits[..., : self.vocab.tags.num_specials] = float("-inf")
            tags = logits.log_softmax(-1)
        return DependencyScores(arc=arc.log_softmax(-1), relation_dependent=scorer.relation_dependent(h),
                                relation_head=scorer.relation_head(h), relation_weight=scorer.relation.weight,
                                tags=tags)

    def decode(self, batch: DependencyBatch, scores: DependencyScores, examples: Sequence[DependencySentence],
               decoder: str = "auto") -> List[DependencyPrediction]:
        implementation = "torch" if decoder == "torch" else "cython"
        heads = decode_heads(scores.arc, batch.lengths, self.dep_config.decoder, implementation)
        chosen = scores.relations_at(heads).clone()  # [B, T, L]
        chosen[..., : self.relations.num_specials] = float("-inf")
        labels, heads_np = relations_and_heads(chosen, heads)
        tag_scores = getattr(scores, "tags", None)  # an ensemble's averaged scores have none
        best_tags = tag_scores.argmax(-1).cpu().numpy() if tag_scores is not None else None
        out = []
        for b, n in enumerate(batch.lengths):
            tags = {}
            if best_tags is not None:  # written into the column it predicts (upos or xpos)
                tags[self.dep_config.tag_column] = [self.vocab.tags.token(int(t)) for t in best_tags[b, 1:n + 1]]
            out.append(DependencyPrediction(heads=[int(h) for h in heads_np[b, 1:n + 1]],
                                            deprels=[self.relations.token(int(r)) for r in labels[b, 1:n + 1]],
                                            **tags))
        return out

    # -- ensembles (mlparse.models.ensemble) ------------------------------------
    def output_inventories(self) -> Dict[str, List[str]]:
        return {"relations": self.relations.to_list()}

    def with_inventories(self, inventories: Dict[str, List[str]]) -> "BiaffineParser":
        """A shallow copy (the same modules) that names relations from ``inventories``."""
        view = copy.copy(self)
        view.relations = Vocab.from_list(inventories["relations"], self.relations.num_specials)
        return view

    @classmethod
    def average_scores(cls, scores: Sequence[DependencyScores], index_maps: Sequence[Dict[str, Tensor]],
                       sizes: Dict[str, int], mode: str) -> "AveragedDependencyScores":
        return AveragedDependencyScores(scores, [m["relations"] for m in index_maps], sizes["relations"], mode)


class AveragedDependencyScores:
    """An ensemble's dependency scores, read by :meth:`BiaffineParser.decode` like :class:`DependencyScores`:
    ``arc: Tensor[B, T, T]`` combines the members' arc log-probabilities (:func:`average_distributions`), and
    :meth:`relations_at` combines their relation log-probabilities for the decoded heads only."""

    def __init__(self, members: Sequence[DependencyScores], relation_maps: Sequence[Tensor], relations: int,
                 mode: str) -> None:
        self.members, self.relation_maps, self.relations, self.mode = list(members), list(relation_maps), relations, mode
        self.arc = average_distributions([m.arc for m in members], [None] * len(members), members[0].arc.shape[-1], mode)

    def relations_at(self, heads: Tensor) -> Tensor:
        """``Tensor[B, T, U]``: the members' relation log-probabilities for ``heads: LongTensor[B, T]``, combined."""
        return average_distributions([m.relations_at(heads) for m in self.members], self.relation_maps,
                                     self.relations, self.mode)
