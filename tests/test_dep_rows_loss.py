"""The BiLSTM biaffine parser trains on a CPU over its real positions only (the packed encoder's rows, the MLPs and
relation scores on them): its losses and updates are those of the padded computation, dropout included, and
``train.subbatching: auto`` then cuts an update into the fewest sub-batches."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import torch

from mlparse.config import load_recipe
from mlparse.models.dep_parser import BiaffineParser
from mlparse.tasks.dependency import DependencyTask
from mlparse.train.trainer import subbatching_of
from helpers.dep_fixtures import write_dep_recipe

DROPOUTS = {"mlp_dropout": 0.33, "embedding_dropout": 0.33, "lstm_dropout": 0.33, "lstm_hidden": 10, "lstm_layers": 2}


def _parser(tmp_path: Path, sets: list) -> tuple:
    config = load_recipe(write_dep_recipe(tmp_path, model={"encoder": "bilstm"}),
                         [f"biaffine.{k}={v}" for k, v in DROPOUTS.items()] + sets)
    train = DependencyTask().read_split(Path(config.data.train)).examples
    torch.manual_seed(0)
    parser = BiaffineParser.build(config, train)
    with torch.no_grad():  # zero-initialised biaffine weights: make the first losses depend on them
        parser.scorer.arc.weight.normal_()
        parser.scorer.relation.weight.normal_()
    return parser.train(), train


def _losses(parser: BiaffineParser, kernel: str, sentences: list, updates: int) -> list:
    """The losses of ``updates`` SGD updates on ``sentences`` (3 at a time) with the encoder's ``kernel``. Not Adam:
    its first steps move a weight by the learning rate whatever the size of its gradient, and the arc head MLP's bias
    has a gradient that is zero but for rounding (a shift of every head's vector shifts a dependent's scores
    alike), which Adam would turn into steps of opposite signs in the two computations."""
    parser.input.encoder.cpu_kernel = kernel
    optimizer = torch.optim.SGD(parser.parameters(), lr=0.02)
    torch.manual_seed(5)
    losses = []
    for k in range(updates):
        batch = sentences[3 * k % len(sentences):][:3]
        golds = [parser.gold(s) for s in batch]
        loss = parser(parser.make_batch(batch), golds)
        optimizer.zero_grad()
        loss.loss.backward()
        optimizer.step()
        losses.append(float(loss.loss.detach()))
    return losses


@pytest.mark.parametrize("sets", [[], ["data.tags=none", "biaffine.predict_tags=true"]])
def test_the_first_updates_on_rows_have_the_padded_computations_losses(tmp_path: Path, sets: list,
                                                                       one_thread: None) -> None:
    parser, sentences = _parser(tmp_path, sets)
    padded = _losses(copy.deepcopy(parser), "torch", sentences, 6)
    rows = _losses(copy.deepcopy(parser), "packed", sentences, 6)
    assert rows == pytest.approx(padded, rel=1e-5)
    assert len(set(round(x, 4) for x in rows)) > 3  # the updates changed the model: the losses are not one number


def test_the_loss_on_rows_is_the_padded_loss_and_its_parts(tmp_path: Path, one_thread: None) -> None:
    parser, sentences = _parser(tmp_path, [])
    batch = parser.make_batch(sentences[:4])
    golds = [parser.gold(s) for s in sentences[:4]]
    results = {}
    for kernel in ("torch", "packed"):
        parser.input.encoder.cpu_kernel = kernel
        parser.zero_grad()
        torch.manual_seed(3)
        out = parser(batch, golds)
        out.loss.backward()
        results[kernel] = (out, {n: p.grad.clone() for n, p in parser.named_parameters() if p.grad is not None})
    (padded, padded_grads), (rows, rows_grads) = results["torch"], results["packed"]
    for part in ("arc", "relation"):
        assert float(rows.parts[part]) == pytest.approx(float(padded.parts[part]), rel=1e-5)
    assert padded_grads.keys() == rows_grads.keys()
    for name, grad in padded_grads.items():
        assert torch.allclose(rows_grads[name], grad, atol=1e-5, rtol=1e-4), name


def test_auto_subbatching_is_fill_where_an_update_works_on_real_positions(tmp_path: Path) -> None:
    parser, _ = _parser(tmp_path, [])
    cpu = torch.device("cpu")
    assert parser.trains_on_real_positions(cpu)
    assert subbatching_of("auto", cpu, parser.trains_on_real_positions(cpu)) == "fill"
    assert subbatching_of("least_work", cpu, True) == "least_work"  # a recipe's own choice stands
    parser.input.encoder.cpu_kernel = "padded"
    assert not parser.trains_on_real_positions(cpu)
    assert subbatching_of("auto", cpu, parser.trains_on_real_positions(cpu)) == "least_work"
    transformer = load_recipe(write_dep_recipe(tmp_path / "t"))
    examples = DependencyTask().read_split(Path(transformer.data.train)).examples
    assert not BiaffineParser.build(transformer, examples).trains_on_real_positions(cpu)
