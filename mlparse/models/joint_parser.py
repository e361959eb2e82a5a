"""The joint span + dependency parser with a Label Attention Layer (Mrini et al. 2020, §3).

Lexical inputs and the factored self-attentive encoder of the span parser (Kitaev & Klein 2018;
``model:``) → the Label Attention Layer (:mod:`mlparse.modules.label_attention`; ``joint.lal_*``) →

- (a) the span scorer of Kitaev & Klein with labels, its fencepost vectors split per head (§3.1),
  trained with the structured hinge loss (§3.2, Eq. 9);
- (b) the biaffine arc and relation scorer of Dozat & Manning (§3.3), with the start token as the
  root pseudo-word, trained with cross-entropy (Eq. 11).

Loss: hinge + arc cross-entropy + relation cross-entropy, summed over sentences (Eq. 12), plus the
scaled tag loss when ``span.predict_tags``.  Decoding (``joint.decoder``): ``separate`` decodes the
spans by CKY and the heads by MST or Eisner (``joint.arc_decoder``) independently (the heads need not
agree with the bracketing); ``exact`` finds the headed binary tree of highest span + arc
log-probability score (:func:`mlparse.structs.joint.decode_joint`, O(n^4) per sentence, on the host),
whose heads are consistent with its bracketing (Zhou & Zhao's joint span representation).  Each
word's relation is the best one for its decoded head.

Examples are :class:`~mlparse.trees.joint.JointExample` (a gold tree and its dependencies); inputs
are sentences of ``(tag, word)`` pairs as for the span parser; predictions are
:class:`~mlparse.trees.joint.JointPrediction`.

Shapes: B sentences of at most N words, T = N + 2 positions (start, words, stop); the span chart is
``[B, N+1, N+1, L]`` over fenceposts, the arc scores ``[B, N+1, N+1]`` over positions 0..N (root and
words, ``[b, d, h]``), the relation scores ``[B, N+1, N+1, R]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from mlparse.config import JointConfig, ModelConfig, PretrainedConfig, RecipeConfig, SpanConfig
from mlparse.data.dependency_vocab import REL_SPECIALS
from mlparse.data.vocab import ParserVocab, Vocab
from mlparse.models.base import LossOutput
from mlparse.models.declarations import JointKind
from mlparse.models.dep_parser import DependencyGold, decode_heads, dependency_losses, mask_arc_scores, relations_and_heads
from mlparse.models.ensemble import average_distributions
from mlparse.models.memory import subbatch_cost
from mlparse.models.span_parser import Sentence, SentenceBatch, SpanParser
from mlparse.models.targets import IGNORED, DependencyTargets, JointTargets, dependency_targets
from mlparse.modules.transfer import to_device
from mlparse.modules.biaffine import BiaffineDependencyScorer
from mlparse.modules.label_attention import HeadwiseSpanScorer, LabelAttentionLayer
from mlparse.modules.tag_head import TagHead
from mlparse.structs import cky, cky_torch
from mlparse.structs.chart import LabelVocab, gold_spans, tree_from_chart
from mlparse.structs.joint import decode_joint
from mlparse.structs.joint_tree import JointGold
from mlparse.trees.dependency import DependencyPrediction
from mlparse.trees.joint import JointExample, JointPrediction
from mlparse.trees.tree import Leaf, Tree


@dataclass
class JointScores:
    """What :meth:`JointParser.decode` reads: ``chart: Tensor[B, N+1, N+1, L]``, ``tag_logits:
    Tensor[B, T, n_tags] | None``, ``arc: Tensor[B, N+1, N+1]`` log-probabilities of head h (last axis)
    for dependent d, and ``words: Tensor[B, N+1, d_out]``, the label attention outputs of the root and
    the words, from which the relations of the decoded heads alone are scored (the ``[B, N+1, N+1, R]``
    tensor of every pair would cost far more with the hundreds of derived relations of a head table)."""

    chart: Tensor
    tag_logits: Optional[Tensor]
    arc: Tensor
    words: Tensor
    scorer: Optional[BiaffineDependencyScorer] = field(default=None, repr=False, compare=False)

    def relations_at(self, heads: Tensor) -> Tensor:
        """``Tensor[B, N+1, R]``: the relation log-probabilities of each word for ``heads: LongTensor[B, N+1]``."""
        assert self.scorer is not None, "JointScores made without its scorer"
        return self.scorer.relation_scores_for(self.words, heads).float().log_softmax(-1)


@dataclass
class AveragedJointScores:
    """An ensemble's joint scores, read by :meth:`JointParser.decode` like :class:`JointScores`: ``chart:
    Tensor[B, N+1, N+1, U]`` the members' mean span scores, ``tag_logits: Tensor[B, T, U_tags] | None`` their
    combined tag log-probabilities, ``arc: Tensor[B, N+1, N+1]`` their combined arc log-probabilities
    (:func:`average_distributions`), and :meth:`relations_at` their combined relation log-probabilities for the
    decoded heads only (each member scores them from its own word vectors)."""

    chart: Tensor
    tag_logits: Optional[Tensor]
    arc: Tensor
    members: List[JointScores]
    relation_maps: List[Optional[Tensor]]
    relations: int
    mode: str

    def relations_at(self, heads: Tensor) -> Tensor:
        """``Tensor[B, N+1, U_rel]``: the members' relation log-probabilities for ``heads``, combined."""
        return average_distributions([m.relations_at(heads) for m in self.members], self.relation_maps,
                                     self.relations, self.mode)


class JointParser(JointKind, SpanParser):
    """Span + dependency parser over a Label Attention Layer (see the module docstring)."""


    def __init__(self, config: ModelConfig, joint: JointConfig, vocab: ParserVocab, labels: LabelVocab,
                 relations: Vocab, pretrained: Optional[PretrainedConfig] = None,
                 saved_pretrained: Optional[Dict[str, Any]] = None, span: Optional[SpanConfig] = None) -> None:
        """``pretrained`` / ``saved_pretrained``: a pretrained encoder under the lexical inputs, as for
        :class:`SpanParser` (Mrini et al. fine-tune XLNet there); ``span``: the span scoring and tagging heads
        (the ``span:`` section; None: its defaults)."""
        super().__init__(config, vocab, labels, pretrained, saved_pretrained, span=span)
        span = self.span_config
        self.joint_config = joint
        self.relations = relations
        self.lal = LabelAttentionLayer(
            config.d_model, joint.lal_heads, joint.lal_d_head, query=joint.lal_query, combine=joint.lal_combine,
            feed_forward=joint.lal_feed_forward, d_ff=joint.lal_d_ff, residual_dropout=joint.lal_residual_dropout,
            attention_dropout=joint.lal_attention_dropout, relu_dropout=config.relu_dropout)
        d_out = self.lal.d_out
        heads = joint.lal_heads if joint.lal_combine == "concat" else None
        self.scorer = HeadwiseSpanScorer(d_out, span.d_label_hidden, len(labels), heads)
        self.tagger = TagHead(d_out, len(vocab.tags), span.d_tag_hidden) if span.predict_tags else None
        self.dependency_scorer = BiaffineDependencyScorer(d_out, len(relations), joint.d_arc, joint.d_relation,
                                                          joint.mlp_dropout)

    # -- building and persistence ----------------------------------------------
    @classmethod
    def build(cls, config: RecipeConfig, train: Sequence[JointExample]) -> "JointParser":  # type: ignore[override]
        trees = [example.tree for example in train]
        sentences = [[(leaf.tag, leaf.word) for leaf in tree.leaves()] for tree in trees]
        vocab = ParserVocab.build(sentences, config.model.word_min_count)
        labels = LabelVocab.from_trees(trees)
        if len(labels) < 2:
            raise ValueError("the training trees hold no constituent at all (each is a lone word under TOP): "
                             "a span parser has no label to learn")
        relations = Vocab(sorted({rel for example in train for rel in example.dependencies.deprels}),
                          specials=REL_SPECIALS)
        pretrained = config.pretrained if config.pretrained.model is not None else None
        return cls(config.model, config.joint, vocab, labels, relations, pretrained, span=config.span)

    def spec(self) -> Dict[str, object]:
        return {**super().spec(), "joint_config": dict(self.joint_config.__dict__),
                "relations": self.relations.to_list(), "relation_specials": self.relations.num_specials}

    @classmethod
    def from_spec(cls, spec: Dict[str, Any]) -> "JointParser":  # type: ignore[override]
        from mlparse.modules.pretrained import pretrained_config_of

        return cls(cls.model_config_of(spec), JointConfig(**spec["joint_config"]), ParserVocab.from_dict(spec["vocab"]),
                   LabelVocab(spec["labels"]), Vocab.from_list(spec["relations"], spec["relation_specials"]),
                   pretrained_config_of(spec), spec.get("pretrained"), span=cls.span_config_of(spec))  # type: ignore[arg-type]

    def resume_mismatch(self, saved: Dict[str, Any]) -> Optional[str]:
        saved = SpanParser.current_spec(saved)
        mine = self.spec()
        for part, what in (("vocab", "vocabulary"), ("labels", "span labels"), ("relations", "dependency relations"),
                           ("model_config", "model settings"), ("span_config", "span settings"),
                           ("joint_config", "joint settings")):
            if saved.get(part) != mine[part]:
                return what
        from mlparse.modules.pretrained import pretrained_mismatch

        return pretrained_mismatch(mine, saved)

    @staticmethod
    def describe(config: RecipeConfig, eval_tags: Optional[str] = None) -> str:
        """``mlparse joint LAL (CharLSTM + words)``; the Table 1-2 ablations are named when set."""
        base = SpanParser.describe(config, eval_tags)
        j = config.joint
        changes = ([] if j.lal_feed_forward else ["no PFL"]) + (["RD"] if j.lal_residual_dropout else []) + (
            ["query matrix"] if j.lal_query == "matrix" else []) + (["projection"] if j.lal_combine == "projection" else [])
        inputs = base[base.index("("):]
        return f"mlparse joint LAL{' [' + ', '.join(changes) + ']' if changes else ''} {inputs}"

    # -- data ------------------------------------------------------------------
    def gold(self, example: JointExample) -> JointGold:  # type: ignore[override]
        deps = example.dependencies
        unknown = [r for r in deps.deprels if r not in self.relations]
        if unknown:
            raise ValueError(f"relation {unknown[0]!r} does not occur in the training data")
        return JointGold(gold_spans(example.tree, self.labels), [-1] + [int(h) for h in deps.heads],
                         [self.relations.index(r) for r in deps.deprels])

    def make_targets(self, golds: Sequence[JointGold], batch: SentenceBatch) -> JointTargets:  # type: ignore[override]
        """The span targets (:meth:`SpanParser.make_targets`) and the gold heads and relations, on the device."""
        golds = list(golds)
        words = [DependencyGold(list(g.heads[1:]), list(g.relations)) for g in golds]  # heads[0] is the root's -1
        return JointTargets(super().make_targets([g.spans for g in golds], batch),
                            dependency_targets(words, max(batch.lengths) + 1, self.device()))

    def memory_cost(self, training: bool, decoder: str) -> Callable[[int], float]:
        """The span parser's cost model (:mod:`mlparse.models.memory`) grown by the share of the Label Attention
        Layer's wider word vectors and the arc/relation scores; an estimate, not calibrated against measured
        peaks as the span parser's is."""
        span = subbatch_cost(self.config, self.span_config, len(self.labels), training=training, decoder=decoder)
        widen = 1.0 + self.lal.d_out / (4.0 * self.config.d_model * max(1, self.config.num_layers))
        square = self.lal.n_heads + (0 if training else len(self.relations))
        unit = 4.0 * self.config.d_model * max(1, self.config.num_layers)
        encoder = self.pretrained
        if encoder is None:
            return lambda n: span(n) * widen + (n + 1) ** 2 * square / unit
        per_position = SpanParser.position_bytes(self, training, decoder)  # a pretrained encoder's bytes, same units
        return lambda n: span(n) * widen + (n + 1) ** 2 * square / unit + encoder.memory_bytes(n, training) / per_position

    def position_bytes(self, training: bool, decoder: str) -> Optional[float]:  # type: ignore[override]
        return None  # not calibrated: subbatch_tokens: auto keeps the CPU budgets

    # -- network ---------------------------------------------------------------
    def encode(self, batch: SentenceBatch) -> tuple:
        """Label attention outputs ``h: Tensor[B, T, d_out]`` and tag logits ``Tensor[B, T, n_tags]`` (or None)."""
        h = self.lal(self.encode_words(batch), batch.mask)
        return h, (self.tagger(h) if self.tagger is not None else None)

    def _dependency_inputs(self, h: Tensor, batch: SentenceBatch) -> tuple:
        """Positions 0..N (root = start token, then the words): ``h: Tensor[B, N+1, d_out]`` and their mask
        ``BoolTensor[B, N+1]``, position t < n_b + 1, which is the input mask shifted by one (a view)."""
        width = max(batch.lengths) + 1
        return h[:, :width], batch.mask[:, 1:width + 1]

    def _arc_scores(self, h: Tensor, mask: Tensor) -> Tensor:
        s = self.dependency_scorer
        arc = s.arc(s.arc_dependent(h), s.arc_head(h)).squeeze(1).float()  # [B, N+1, N+1]
        return mask_arc_scores(arc, mask)  # padding and self-loops: a word never heads itself

    def forward(self, batch: SentenceBatch, golds: Optional[Sequence[JointGold]] = None,  # type: ignore[override]
                decoder: Optional[str] = None) -> Any:
        """Without ``golds``: :class:`JointScores`; with ``golds``: the summed loss (:class:`LossOutput`)."""
        h, tag_logits = self.encode(batch)
        projected = self.scorer.project(h)
        dep_h, dep_mask = self._dependency_inputs(h, batch)
        arc = self._arc_scores(dep_h, dep_mask)
        if golds is None:
            return JointScores(self.scorer.chart(projected, batch.lengths), tag_logits, arc.log_softmax(-1), dep_h,
                               self.dependency_scorer)
        targets = golds if isinstance(golds, JointTargets) else self.make_targets(golds, batch)
        hinge = self._hinge(projected, batch.lengths, targets.spans, decoder or self.loss_decoder)
        arc_loss, relation_loss = dependency_losses(
            arc, targets.dependency, lambda heads: self.dependency_scorer.relation_scores_for(dep_h, heads))
        total = hinge + arc_loss + relation_loss
        parts = {"hinge": hinge.detach(), "arc": arc_loss.detach(), "relation": relation_loss.detach()}
        if tag_logits is not None:
            span_loss = self._loss_output(batch, hinge, tag_logits, targets.spans.word_mask)
            total = total + (span_loss.loss - hinge)
            if "tag" in span_loss.parts:
                parts["tag"] = span_loss.parts["tag"]
        return LossOutput(loss=total, sentences=len(batch.lengths), parts=parts)

    # -- the training step as one graph (train.step: graph; mlparse/train/graph_step.py) ---------------------
    def graph_tensors(self, batch: SentenceBatch, targets: JointTargets, positions: int,  # type: ignore[override]
                      chars: int) -> Tuple[Tensor, ...]:
        """The span parser's :meth:`~SpanParser.graph_tensors`, then the gold heads, head and relation targets over
        the root and the words, padded alike (``[B, T' - 1]``, :data:`IGNORED` where there is no word)."""
        spans = super().graph_tensors(batch, targets.spans, positions, chars)
        dependency = targets.dependency
        grow = spans[0].shape[1] - 1 - dependency.heads.shape[1]
        return (*spans, F.pad(dependency.heads, (0, grow)), F.pad(dependency.targets[0], (0, grow), value=IGNORED),
                F.pad(dependency.targets[1], (0, grow), value=IGNORED))

    def graph_loss(self, mask: Tensor, words: Tensor, tags: Tensor, chars: Tensor,  # type: ignore[override]
                   char_lengths: Tensor, labels: Tensor, lengths: Tensor, word_mask: Tensor, heads: Tensor,
                   head_targets: Tensor, relation_targets: Tensor) -> Tuple[Tensor, Dict[str, Tensor]]:
        """``(loss, parts)`` of :meth:`forward` with golds over :meth:`graph_tensors`: the hinge decoded on the device,
        the arcs and relations over positions 0..T'-2, in one graph."""
        batch = SentenceBatch(mask, words, tags, chars, char_lengths, lengths=[], host_char_lengths=None)
        h, tag_logits = self.encode(batch)
        hinge = self._hinge_on_device(self.scorer.project(h), labels, lengths)
        width = h.shape[1] - 1  # the root (start token) and the words: the input mask shifted by one
        dep_h = h[:, :width]
        arc = self._arc_scores(dep_h, mask[:, 1:width + 1])
        targets = DependencyTargets(heads=heads, targets=torch.stack([head_targets, relation_targets]), tags=None)
        arc_loss, relation_loss = dependency_losses(
            arc, targets, lambda gold: self.dependency_scorer.relation_scores_for(dep_h, gold))
        total = hinge + arc_loss + relation_loss
        parts = {"hinge": hinge, "arc": arc_loss, "relation": relation_loss}
        if tag_logits is not None:
            tag = TagHead.loss(tag_logits.float(), tags, word_mask, reduction="sum")
            total = total + self.span_config.tag_loss_scale * tag
            parts["tag"] = tag
        return total, parts

    # -- decoding --------------------------------------------------------------
    def scores(self, batch: SentenceBatch) -> JointScores:  # type: ignore[override]
        return self(batch)

    def decode(self, batch: SentenceBatch, scores: "JointScores | AveragedJointScores",  # type: ignore[override]
               examples: Sequence[Sentence], decoder: str = "cython") -> List[JointPrediction]:
        implementation = "torch" if decoder == "torch" else "cython"
        chart = scores.chart.float()
        if self.joint_config.decoder == "exact":
            charts, heads = self._decode_exact(chart, scores.arc, batch.lengths)
        else:
            if implementation == "torch":
                charts = cky_torch.decode_batch(chart, batch.lengths)
            else:
                array = chart.cpu().numpy()
                charts = [cky.decode(array[b], length=n) for b, n in enumerate(batch.lengths)]
            heads = decode_heads(scores.arc, batch.lengths, self.joint_config.arc_decoder, implementation)
        # the relation log-probabilities of each word for its decoded head: [B, N+1, R]
        chosen = scores.relations_at(heads).clone()
        chosen[..., : self.relations.num_specials] = float("-inf")
        labels, heads_np = relations_and_heads(chosen, heads)
        predicted_tags: Optional[np.ndarray] = None
        if scores.tag_logits is not None:
            logits = scores.tag_logits.float()
            logits[..., : self.vocab.tags.num_specials] = float("-inf")
            predicted_tags = logits.argmax(-1).cpu().numpy()
        out = []
        for b, (sentence, spans) in enumerate(zip(examples, charts)):
            if predicted_tags is not None:
                leaves = [Leaf(self.vocab.tags.token(int(predicted_tags[b, k + 1])), word)
                          for k, (_, word) in enumerate(sentence)]
            else:
                leaves = [Leaf(tag, word) for tag, word in sentence]
            n = batch.lengths[b]
            dependencies = DependencyPrediction(heads=[int(h) for h in heads_np[b, 1:n + 1]],
                                                deprels=[self.relations.token(int(r)) for r in labels[b, 1:n + 1]])
            out.append(JointPrediction(tree_from_chart(spans, self.labels, leaves), dependencies))
        return out

    def _decode_exact(self, chart: Tensor, arc: Tensor, lengths: Sequence[int]) -> tuple:
        """Spans and heads maximising span + arc log-probability scores together over headed binary trees
        (:func:`mlparse.structs.joint.decode_joint`, exact, O(n^4)): the heads are consistent with the bracketing."""
        charts = chart.cpu().numpy()
        by_head = arc.transpose(1, 2).detach().double().cpu().numpy()  # decode_joint takes scores[h, d]
        heads = np.full(arc.shape[:2], -1, dtype=np.int64)
        trees = []
        for b, n in enumerate(lengths):
            result = decode_joint(np.ascontiguousarray(charts[b, : n + 1, : n + 1]),
                                  np.ascontiguousarray(by_head[b, : n + 1, : n + 1]))
            trees.append(list(result.spans))
            heads[b, : n + 1] = result.heads
        return trees, to_device(heads, arc.device)

    # -- ensembles (mlparse.models.ensemble) ------------------------------------
    def output_inventories(self) -> Dict[str, List[str]]:
        """The span labels (EMPTY first), the relations, and the tags when the model predicts them."""
        return {**super().output_inventories(), "relations": self.relations.to_list()}

    def with_inventories(self, inventories: Dict[str, List[str]]) -> "JointParser":
        """A shallow copy (the same modules) that names labels, relations (and tags) from ``inventories``."""
        view = super().with_inventories(inventories)
        view.relations = Vocab.from_list(inventories["relations"], self.relations.num_specials)
        return view  # type: ignore[return-value]

    @classmethod
    def average_scores(cls, scores: Sequence[JointScores], index_maps: Sequence[Dict[str, Tensor]],  # type: ignore[override]
                       sizes: Dict[str, int], mode: str) -> "AveragedJointScores":
        """The mean chart ``[B, N+1, N+1, U]`` (and tag distributions) as for the span kind, the arc and relation
        distributions as for the biaffine kind (:class:`AveragedJointScores`)."""
        chart, tags = SpanParser.average_scores([(s.chart, s.tag_logits) for s in scores], index_maps, sizes, mode)
        arc = average_distributions([s.arc for s in scores], [None] * len(scores), scores[0].arc.shape[-1], mode)
        return AveragedJointScores(chart, tags, arc, list(scores), [m["relations"] for m in index_maps],
                                   sizes["relations"], mode)

    @torch.no_grad()
    def predict(self, examples: Sequence[Sentence], decoder: str = "cython") -> List[JointPrediction]:  # type: ignore[override]
        batch = self.make_batch(examples)
        return self.decode(batch, self.scores(batch), examples, decoder)

    @torch.no_grad()
    def parse(self, sentences: Sequence[Sentence], decoder: str = "cython") -> List[Tree]:
        """The predicted trees alone (``mlparse parse`` of a joint model writes trees)."""
        return [p.tree for p in self.predict(sentences, decoder)]
