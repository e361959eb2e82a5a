"""Gold targets made ahead of the forward pass (Parser.make_targets, in the trainer's worker thread):
the same tensors the loss used to build inside forward, and the same losses."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from mlparse.models.targets import IGNORED, DependencyTargets, JointTargets, SpanTargets, dependency_targets, span_targets
from mlparse.structs.cky_torch import gold_label_tensor
from mlparse.structs.chart import gold_spans
from mlparse.tasks.treebank import sentence_of
from helpers.span_fixtures import make_model
from helpers.trainers import generic_trainer, tiny_trainer


def test_span_targets_hold_the_gold_spans_their_chart_and_the_words() -> None:
    golds = [{(0, 3): 2, (0, 1): 0, (1, 3): 5}, {(0, 2): 1, (1, 2): 4}]  # label 0: EMPTY, left out of the table
    targets = span_targets(golds, [3, 2], torch.device("cpu"), decoder_labels=True, tag_mask=True)
    assert targets.table.tolist() == [[0, 0, 3, 2, 2], [0, 1, 3, 5, 2], [1, 0, 2, 1, 3], [1, 1, 2, 4, 3]]
    assert torch.equal(targets.labels, gold_label_tensor(golds, 3))
    assert targets.word_mask.tolist() == [[False, True, True, True, False], [False, True, True, False, False]]
    bare = span_targets(golds, [3, 2], torch.device("cpu"), decoder_labels=False, tag_mask=False)
    assert bare.labels is None and bare.word_mask is None and torch.equal(bare.table, targets.table)


def test_dependency_targets_ignore_the_root_and_the_padding() -> None:
    golds = [SimpleNamespace(heads=[2, 0], relations=[3, 1]), SimpleNamespace(heads=[0], relations=[2])]
    targets = dependency_targets(golds, 3, torch.device("cpu"))
    assert targets.heads.tolist() == [[0, 2, 0], [0, 0, 0]]
    assert targets.targets.tolist() == [[[IGNORED, 2, 0], [IGNORED, 0, IGNORED]],
                                        [[IGNORED, 3, 1], [IGNORED, 2, IGNORED]]]


@pytest.mark.parametrize("decoder", ["torch", "cython"])
def test_the_span_loss_from_made_targets_is_the_loss_from_golds(decoder: str) -> None:
    model, trees, labels = make_model(predict_tags=True, d_tag_hidden=16)
    model.loss_decoder = decoder
    sentences = [sentence_of(t) for t in trees]
    golds = [gold_spans(t, labels) for t in trees]
    batch = model.make_batch(sentences)
    targets = model.make_targets(golds, batch)
    assert isinstance(targets, SpanTargets) and (targets.labels is not None) == (decoder == "torch")
    model.eval()  # no dropout: both passes see the same network
    from_targets = model(batch, targets, decoder).loss
    from_golds = model(batch, golds, decoder).loss
    assert from_targets.item() > 0 and torch.equal(from_targets, from_golds)


@pytest.mark.parametrize("kind", ["biaffine", "joint"])
def test_the_dependency_and_joint_losses_from_made_targets_are_the_losses_from_golds(tmp_path: Path, kind: str) -> None:
    trainer = generic_trainer(tmp_path, kind)
    model = trainer.model
    model.eval()
    group = list(range(len(trainer.train_sentences)))[:3]
    batch, targets = trainer._inputs(group)  # what the trainer's worker makes
    assert isinstance(targets, DependencyTargets if kind == "biaffine" else JointTargets)
    golds = [trainer.train_golds[i] for i in group]
    assert torch.equal(model(batch, targets).loss, model(batch, golds).loss)


def test_the_trainer_makes_the_targets_with_the_batch(tmp_path: Path) -> None:
    trainer = tiny_trainer(tmp_path, "torch")
    batch, targets = trainer._inputs([0, 1])
    assert isinstance(targets, SpanTargets)
    assert targets.labels is not None and targets.labels.shape == (2, max(batch.lengths) + 1, max(batch.lengths) + 1)
    expected = sorted((b, i, j, label) for b in (0, 1) for (i, j), label in trainer.train_golds[b].items() if label)
    assert sorted(map(tuple, np.asarray(targets.table)[:, :4].tolist())) == expected
