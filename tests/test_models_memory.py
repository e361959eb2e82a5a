"""The memory cost model: packing by the square of the length, its estimates against measured memory, the trainer."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import torch

from mlparse.config import ModelConfig, SpanConfig, load_recipe
from mlparse.data.batching import pack_by_tokens, padded_tokens
from benchmarks.instrumentation.dense_reference import dense_loss
from mlparse.models.memory import parsing_memory, subbatch_cost, training_memory
from benchmarks.instrumentation.memory_meter import peak_allocated_bytes
from mlparse.models.span_parser import build_parser
from mlparse.structs.chart import gold_spans
from mlparse.train.budget import resolve_budget
from mlparse.train.checkpoint import CheckpointFiles
from mlparse.tasks.treebank import TreeSplit, golds_of, sentence_of
from mlparse.tasks.constituency import ConstituencyTask
from mlparse.train.trainer import Trainer
from mlparse.trees.reader import parse_bracketed
from helpers.run_fixtures import REPO, TINY_TREES, write_tiny_recipe
from helpers.span_fixtures import random_gold


def recipe_model(name: str) -> tuple:
    """The recipe's encoder and span head settings (``model:``, ``span:``), as the memory model takes them."""
    recipe = load_recipe(REPO / "recipes" / f"{name}.yaml")
    return recipe.model, recipe.span


def test_a_long_sentence_gets_a_subbatch_of_its_own_and_short_ones_share() -> None:
    budget = resolve_budget(load_recipe(REPO / "recipes" / "base.yaml").train.subbatch_tokens, "train",
                            torch.device("cpu"), None)  # auto on a CPU: the budget base.yaml had
    cost = subbatch_cost(*recipe_model("base"), n_labels=60, training=True, decoder="cython")
    lengths = [20] * 30 + [500, 480]
    groups = pack_by_tokens(lengths, budget, cost)
    assert groups[:2] == [[30], [31]]  # each long sentence alone ...
    assert sorted(groups[2]) == list(range(30))  # ... the short ones all together
    for group in groups:
        assert len(group) * max(cost(lengths[i]) for i in group) <= budget or len(group) == 1
    assert {30, 31} <= set(pack_by_tokens(lengths, budget, padded_tokens)[0])  # counting tokens put them together


@pytest.mark.parametrize("recipe", ["base", "demo"])
@pytest.mark.parametrize("training", [True, False])
def test_token_equivalents_are_tokens_for_short_sentences_and_grow_with_the_square(recipe: str, training: bool) -> None:
    memory = (training_memory if training else parsing_memory)(*recipe_model(recipe), 60, "cython")
    costs = [memory.token_equivalents(n) for n in range(1, 501)]
    assert all(cost >= n + 2 for n, cost in zip(range(1, 501), costs))
    assert costs[4] <= 1.2 * (5 + 2)  # a 5-word sentence costs about its 7 positions
    assert all(b - a <= c - b + 1e-9 for a, b, c in zip(costs, costs[1:], costs[2:]))  # convex
    assert costs[399] > 2.5 * costs[199]  # 400 words cost far more than twice 200 words


def mid_size_model(labels_from: list) -> torch.nn.Module:
    """Demo-like sizes, with dropout (training keeps the dropout masks)."""
    torch.manual_seed(0)
    torch.set_num_threads(1)
    config = ModelConfig(num_layers=2, d_model=128, num_heads=4, d_kv=32, d_ff=256, d_char_emb=32,
                         use_words=True, max_len=200)
    return build_parser(config, labels_from, span=SpanConfig(d_label_hidden=64))


@pytest.mark.parametrize("length", [40, 120])
def test_estimates_follow_the_measured_peaks(length: int) -> None:
    """The cost model's bytes for one sentence against torch's measured peak allocations (CPU, Cython decoder)."""
    trees = [parse_bracketed(text).trees[0] for text in TINY_TREES]
    model = mid_size_model(trees)
    rng = random.Random(length)
    sentence = [("NN", "".join(rng.choice("abcdefgh") for _ in range(6))) for _ in range(length)]
    gold = random_gold(length, len(model.labels), rng)
    model.train()
    model.loss([sentence], [gold]).loss.backward()  # gradients exist, as from the second sub-batch of an update on
    train_peak, _ = peak_allocated_bytes(lambda: model.loss([sentence], [gold]).loss.backward())
    model.eval()
    parse_peak, _ = peak_allocated_bytes(lambda: model.parse([sentence]))
    n_labels = len(model.labels)
    train_estimate = training_memory(model.config, model.span_config, n_labels, "cython").subbatch_bytes([length])
    parse_estimate = parsing_memory(model.config, model.span_config, n_labels, "cython").subbatch_bytes([length])
    assert 0.7 <= train_estimate / train_peak <= 1.4
    assert 0.7 <= parse_estimate / parse_peak <= 1.4


def test_trainer_packs_by_memory_and_its_loss_equals_the_dense_loss_of_the_batch(tmp_path: Path) -> None:
    budget = 150
    long_tree = "(TOP (S " + " ".join(2 * [text[len("(TOP "):-1] for text in TINY_TREES]) + "))"  # 66 words
    recipe = write_tiny_recipe(tmp_path, model={"max_len": 80}, train={"subbatch_tokens": budget, "batch_size": 9})
    config = load_recipe(recipe)
    trees = [parse_bracketed(text).trees[0] for text in TINY_TREES + [long_tree]]
    long_index, long_length = len(trees) - 1, len(trees[-1].leaves())
    assert 2 * padded_tokens(long_length) <= budget  # counting tokens would give the long sentence a companion
    torch.manual_seed(0)
    model = build_parser(config.model, trees, span=config.span)
    golds = golds_of(trees, model.labels)
    split = TreeSplit(path=tmp_path / "train.trees", examples=trees)
    trainer = Trainer(config, model, ConstituencyTask(), split, golds, split, CheckpointFiles(tmp_path / "checkpoints"),
                      torch.device("cpu"))
    batch = list(range(len(trees)))
    model.train()
    reference = dense_loss(model, [sentence_of(t) for t in trees], [gold_spans(t, model.labels) for t in trees])
    (reference.loss / len(batch)).backward()
    expected = {name: p.grad.clone() for name, p in model.named_parameters()}
    groups, losses = [], []
    inputs_of_group, forward = trainer._inputs, model.forward

    def recorded_inputs(group):  # type: ignore[no-untyped-def]
        groups.append(list(group))
        return inputs_of_group(group)

    def recorded_forward(*args, **kwargs):  # type: ignore[no-untyped-def]
        out = forward(*args, **kwargs)
        losses.append(float(out.loss.detach()))
        return out

    trainer._inputs = recorded_inputs  # type: ignore[method-assign]
    model.forward = recorded_forward  # type: ignore[method-assign]
    trainer.train_step(batch)
    del model.forward
    assert len(losses) == len(groups)
    assert [long_index] in groups and max(map(len, groups)) >= 2  # the long sentence alone, short ones together
    assert sorted(i for group in groups for i in group) == batch
    assert sum(losses) == pytest.approx(reference.loss.item(), rel=1e-6)
    scale = max(float(grad.abs().max()) for grad in expected.values())
    for name, p in model.named_parameters():
        torch.testing.assert_close(p.grad, expected[name], rtol=1e-5, atol=1e-6 * scale)
