"""The parser interface: what the trainer, the runner, ``mlparse parse`` and ensembles may ask of any parser.

A parser is a ``torch.nn.Module`` that declares its ``kind`` (``span``, ``biaffine``, ...) and the
``task`` it solves (``constituency``, ``dependency``).  The trainer never names a parser class; it
only uses the methods below, with *examples* as the task reads them from a prepared split (a
TOP-rooted :class:`~mlparse.trees.tree.Tree` for constituency, a dependency sentence for
dependency parsing):

- :meth:`Parser.build` makes an untrained parser from the recipe and the training examples
  (vocabularies, label inventories);
- :meth:`Parser.gold` turns a training example into the target the loss needs (gold spans, heads);
- :meth:`Parser.make_batch` indexes and pads examples on the parser's device, and
  :meth:`Parser.make_targets` puts a sub-batch's golds there as the loss reads them (both run in
  the trainer's worker thread, ahead of the device);
- calling the parser on ``(batch, targets)`` (or plain golds) returns a :class:`LossOutput` (going through
  ``forward`` lets DistributedDataParallel see the computation);
- :meth:`Parser.scores` gives the network's scores for a batch and :meth:`Parser.decode` turns
  scores into predictions, kept apart so that an ensemble can average the scores of several
  parsers before one decode; :meth:`Parser.predict` is the two together;
- :meth:`Parser.spec` is plain JSON-able data (with ``kind``) from which :meth:`Parser.from_spec`
  rebuilds the parser before its weights are loaded;
- ensembles (:mod:`mlparse.models.ensemble`) use :meth:`Parser.output_inventories` (the label lists
  that index the scores), :meth:`Parser.average_scores` (one scores object from the members' scores,
  in the ensemble's inventories) and :meth:`Parser.with_inventories` (a parser, weights shared, whose
  :meth:`Parser.decode` reads scores in those inventories).  A kind without them cannot be ensembled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch
from torch import Tensor, nn

from mlparse.models.kind import ParserKind


@dataclass
class LossOutput:
    """The summed loss of a sub-batch (differentiable, 0-dim) and its named parts for inspection: detached 0-dim
    tensors left on the device (reading one is a host synchronisation, so the training step never does).

    Every parser returns this one type.  Parts by kind: span ``hinge`` (and ``tag`` with a tagging head),
    biaffine ``arc`` and ``relation``, joint all of these.
    """

    loss: Tensor
    sentences: int
    parts: Dict[str, Tensor] = field(default_factory=dict)

    def part(self, name: str) -> float:
        """Part ``name`` as a float (a host synchronisation); 0.0 when this loss has no such part."""
        value = self.parts.get(name)
        return 0.0 if value is None else float(value)


class Parser(ParserKind, nn.Module):
    """Base class of every parser; subclasses declare their kind (:class:`~mlparse.models.kind.ParserKind`:
    ``kind``, ``task``, ``sections``, ``check``, ...) and implement the methods below.
    """

    # -- building -------------------------------------------------------------
    @classmethod
    def build(cls, config: Any, train: Sequence[Any]) -> "Parser":
        """An untrained parser for the recipe ``config`` with vocabularies from the training examples."""
        raise NotImplementedError

    @classmethod
    def from_spec(cls, spec: Dict[str, Any]) -> "Parser":
        """The parser described by :meth:`spec` (weights not loaded)."""
        raise NotImplementedError

    def spec(self) -> Dict[str, Any]:
        """Everything besides the weights that :meth:`from_spec` needs, as plain data, with ``kind``."""
        raise NotImplementedError

    def resume_mismatch(self, saved: Dict[str, Any]) -> Optional[str]:
        """None when a checkpoint's spec fits this parser (same settings and vocabularies); else what
        differs, in words (used when resuming: data prepared again since, say)."""
        from mlparse.config.layout import split_model_settings
        from mlparse.modules.pretrained import pretrained_mismatch

        if isinstance(saved.get("model_config"), dict):  # saved before recipe layout 2: the span head's keys go
            saved = {**saved, "model_config": split_model_settings(saved["model_config"])[0]}
        mine = self.spec()
        for key in mine:
            if key != "pretrained" and saved.get(key) != mine[key]:
                return key.replace("_", " ")
        return pretrained_mismatch(mine, saved)  # the encoder by its fingerprint, not its whole entry

    @staticmethod
    def describe(config: Any, eval_tags: Optional[str] = None) -> str:
        """The system's name in reports (``mlparse span (CharLSTM)``)."""
        raise NotImplementedError

    @property
    def reads_tags(self) -> bool:
        """Whether it reads POS tags as input. Default: its recipe's ``model.use_tags`` (``self.config``), if it
        keeps one."""
        return bool(getattr(getattr(self, "config", None), "use_tags", False))

    @property
    def predicts_tags(self) -> bool:
        """Whether its predictions carry tags of its own (a tagging head). Default: ``model.predict_tags``, as above."""
        return bool(getattr(getattr(self, "config", None), "predict_tags", False))

    # -- data -----------------------------------------------------------------
    @property
    def max_words(self) -> int:
        """The longest sentence this parser takes (its position table, say)."""
        raise NotImplementedError

    def gold(self, example: Any) -> Any:
        """The training target of one example (raises ``ValueError`` with a reason when it has none)."""
        raise NotImplementedError

    def make_batch(self, examples: Sequence[Any]) -> Any:
        """Indexed, padded inputs for ``examples`` on the parser's device."""
        raise NotImplementedError

    def make_targets(self, golds: Sequence[Any], batch: Any) -> Any:
        """The golds of the sub-batch ``batch`` as its loss reads them, on the parser's device (gold
        indices, charts, masks: :mod:`mlparse.models.targets`), made before the forward pass so that the
        step neither builds nor copies them.  Default: the golds as they are."""
        return list(golds)

    def device(self) -> torch.device:
        return next(self.parameters()).device

    def training_setup(self, config: Any, decoder: str = "cython") -> None:
        """Switch on what only training uses (word dropout by training counts, the decoder of a
        loss-augmented search, say). Default: nothing."""

    def optimizer_groups(self, config: Any) -> List[Dict[str, Any]]:
        """The optimizer's parameter groups, each with its ``base_lr`` and ``warmup_steps`` (the trainer's
        schedule sets every group's rate from them). Default: one group at ``train.lr`` / ``train.warmup_steps``."""
        return [{"params": list(self.parameters()), "base_lr": config.train.lr, "warmup_steps": config.train.warmup_steps}]

    def trains_on_real_positions(self, device: torch.device) -> bool:
        """Whether a training update's work on ``device`` grows with a sub-batch's words rather than with its
        padded positions (the BiLSTM biaffine parser on a CPU: :meth:`BiaffineParser.trains_on_real_positions`);
        ``train.subbatching: auto`` then cuts an update into the fewest sub-batches."""
        return False

    def memory_cost(self, training: bool, decoder: str) -> Callable[[int], float]:
        """The memory of one sentence of length n in token-equivalents, to pack sub-batches under a
        budget (:func:`mlparse.data.batching.pack_by_tokens`). Default: its positions, n + 2."""
        return lambda n: n + 2

    def position_bytes(self, training: bool, decoder: str) -> Optional[float]:
        """Bytes of one token-equivalent of :meth:`memory_cost` (one position's activations), which turns
        free device memory into a budget (``subbatch_tokens: auto``, :mod:`mlparse.train.budget`).
        Default: None (unknown): ``auto`` then keeps the CPU budgets on every device."""
        return None

    # -- scoring and decoding -------------------------------------------------
    def scores(self, batch: Any) -> Any:
        """The network's scores for ``batch`` (no gradient needed); :meth:`decode` reads them."""
        raise NotImplementedError

    def decode(self, batch: Any, scores: Any, examples: Sequence[Any], decoder: str = "auto") -> List[Any]:
        """Predictions for ``examples`` from ``scores`` (``decoder`` picks an implementation, e.g. cython or torch)."""
        raise NotImplementedError

    # -- ensembles (mlparse.models.ensemble) ----------------------------------
    def output_inventories(self) -> Dict[str, List[str]]:
        """The output vocabularies that index the scores, by name (``{"span labels": [...]}``; a joint
        parser names both its labels and its relations), special entries first."""
        raise NotImplementedError(f"parser kind {self.kind!r} cannot be ensembled (no output_inventories)")

    def with_inventories(self, inventories: Dict[str, List[str]]) -> "Parser":
        """This parser (weights shared, not copied) decoding scores indexed by ``inventories``: for each name
        of :meth:`output_inventories`, a list that starts with this parser's own list."""
        raise NotImplementedError(f"parser kind {self.kind!r} cannot be ensembled (no with_inventories)")

    @classmethod
    def average_scores(cls, scores: Sequence[Any], index_maps: Sequence[Dict[str, Tensor]],
                       sizes: Dict[str, int], mode: str) -> Any:
        """The members' :meth:`scores` (of one batch, each in its own inventories) combined into one scores
        object in the ensemble's inventories: ``index_maps[m][name]: LongTensor[L_m]`` is the position of
        member m's entry i in the ensemble's list ``name`` of ``sizes[name]`` entries.  ``mode``:
        ``probability`` (average the probabilities) or ``log-probability`` (average their logarithms)
        where the scores are distributions; span charts are averaged as they are."""
        raise NotImplementedError(f"parser kind {cls.kind!r} cannot be ensembled (no average_scores)")

    @torch.no_grad()
    def predict(self, examples: Sequence[Any], decoder: str = "auto") -> List[Any]:
        """Predictions (trees) for ``examples``, one sub-batch."""
        batch = self.make_batch(examples)
        return self.decode(batch, self.scores(batch), examples, decoder)
