"""Li et al. (2019), Eq. 5: a word's head distribution runs over the *other* positions.

The biaffine and joint parsers mask the self-loop in the arc softmax: a word's probability of heading
itself is exactly 0 in the scores, in an ensemble's averages, and the training loss is the cross-entropy
over the other positions only.
"""

from __future__ import annotations

from pathlib import Path

import torch
import torch.nn.functional as F

from helpers.joint_fixtures import write_joint_recipe
from mlparse.config import load_recipe
from mlparse.models.dep_parser import BiaffineParser, dependency_losses, mask_arc_scores
from mlparse.models.ensemble import EnsembleParser
from mlparse.models.joint_parser import JointParser
from mlparse.models.targets import dependency_targets
from mlparse.tasks import task_for
from mlparse.tasks.dependency import DependencyTask
from helpers.dep_fixtures import write_dep_recipe


def _dep_parser(tmp_path: Path, seed: int) -> tuple:
    config = load_recipe(write_dep_recipe(tmp_path))
    train = DependencyTask().read_split(Path(config.data.train))
    torch.manual_seed(seed)
    parser = BiaffineParser.build(config, train.examples)
    with torch.no_grad():  # zero-initialised biaffine weights give equal scores: make them differ
        parser.scorer.arc.weight.normal_()
        parser.scorer.relation.weight.normal_()
    return parser.eval(), train.examples


def _self_loop_probabilities(arc: torch.Tensor, lengths) -> list:
    """P(head(d) = d) for every word d = 1..n of every sentence."""
    probabilities = arc.exp()
    return [float(probabilities[b, d, d]) for b, n in enumerate(lengths) for d in range(1, n + 1)]


def _rows_sum_to_one(arc: torch.Tensor, lengths) -> None:
    for b, n in enumerate(lengths):
        total = arc[b, 1:n + 1, : n + 1].exp().sum(-1)
        assert torch.allclose(total, torch.ones_like(total), atol=1e-5)


def test_mask_arc_scores_masks_padding_and_the_diagonal_but_not_the_roots_row() -> None:
    arc = torch.zeros(1, 4, 4)
    mask = torch.tensor([[True, True, True, False]])  # root + 2 words, one padding position
    masked = mask_arc_scores(arc, mask)
    assert torch.isinf(masked[0, 1, 1]) and torch.isinf(masked[0, 2, 2])
    assert torch.isinf(masked[0, :, 3]).all()  # padding heads
    assert masked[0, 0, 0] == 0  # the root's row is never scored; never a row of -inf only
    probabilities = masked.log_softmax(-1).exp()
    assert torch.equal(probabilities[0, 1], torch.tensor([0.5, 0.0, 0.5, 0.0]))  # head 0 or 2, never itself


def test_a_biaffine_word_never_heads_itself_and_its_distribution_is_over_the_others(tmp_path: Path) -> None:
    parser, examples = _dep_parser(tmp_path, 1)
    batch = parser.make_batch(examples)
    with torch.no_grad():
        scores = parser.scores(batch)
    assert all(p == 0.0 for p in _self_loop_probabilities(scores.arc, batch.lengths))
    _rows_sum_to_one(scores.arc, batch.lengths)
    assert all(h != d for e in parser.predict(examples) for d, h in enumerate(e.heads, start=1))


def test_the_biaffine_training_loss_is_the_cross_entropy_over_the_other_positions(tmp_path: Path) -> None:
    parser, examples = _dep_parser(tmp_path, 1)
    batch = parser.make_batch(examples)
    golds = [parser.gold(e) for e in examples]
    with torch.no_grad():
        loss = parser(batch, golds)
        h = parser.input(batch)
        raw = parser.scorer.arc(parser.scorer.arc_dependent(h), parser.scorer.arc_head(h)).squeeze(1).float()
    expected = 0.0
    for b, n in enumerate(batch.lengths):  # brute force: each word's softmax over the other positions 0..n
        for d in range(1, n + 1):
            others = [k for k in range(n + 1) if k != d]
            logits = raw[b, d, others]
            target = others.index(golds[b].heads[d - 1])
            expected += float(F.cross_entropy(logits[None], torch.tensor([target])))
    assert abs(float(loss.parts["arc"]) - expected) < 1e-3 * max(1.0, expected)
    with_self_loop = dependency_losses(raw.masked_fill(~batch.mask.unsqueeze(1), float("-inf")),
                                       dependency_targets(golds, raw.shape[1], raw.device),
                                       lambda heads: parser.scorer.relation_scores_for(h, heads))[0]
    assert float(with_self_loop) > expected  # the unmasked softmax (before the fix) is a different loss


def test_an_ensembles_averaged_arc_distribution_keeps_the_self_loop_at_zero(tmp_path: Path) -> None:
    first, examples = _dep_parser(tmp_path, 1)
    second, _ = _dep_parser(tmp_path, 2)
    for mode in ("probability", "log-probability"):
        ensemble = EnsembleParser([first, second], mode=mode).eval()
        batch = ensemble.make_batch(examples)
        with torch.no_grad():
            both = ensemble.scores(batch)
        lengths = [len(e.words) for e in examples]
        assert all(p == 0.0 for p in _self_loop_probabilities(both.arc, lengths))
        if mode == "probability":
            _rows_sum_to_one(both.arc, lengths)


def test_a_joint_word_never_heads_itself(tmp_path: Path) -> None:
    config = load_recipe(write_joint_recipe(tmp_path))
    split = task_for("joint").read_split(Path(config.data.dev))
    torch.manual_seed(3)
    parser = JointParser.build(config, split.examples).eval()
    with torch.no_grad():
        parser.dependency_scorer.arc.weight.normal_()
        batch = parser.make_batch(split.input_sentences)
        scores = parser.scores(batch)
        golds = [parser.gold(e) for e in split.examples]
        loss = parser(batch, golds)
    assert all(p == 0.0 for p in _self_loop_probabilities(scores.arc, batch.lengths))
    _rows_sum_to_one(scores.arc, batch.lengths)
    assert torch.isfinite(loss.loss)
    for decoder in ("separate", "exact"):
        parser.joint_config.decoder = decoder
        for prediction in parser.predict(split.input_sentences):
            heads = prediction.dependencies.heads
            assert all(h != d for d, h in enumerate(heads, start=1))
