"""``train.compile`` (mlparse/train/compile.py): the encoder through torch.compile over length buckets.

The wiring is checked with torch.compile's ``eager`` backend (MLPARSE_COMPILE_BACKEND), which traces and
guards as inductor does but compiles no kernels, so these tests take seconds; inductor itself (minutes on
the 2-core CI machine) is measured by benchmarks/gpu_suite.py."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from mlparse.config import ConfigError, load_recipe
from mlparse.models.span_parser import build_parser
from mlparse.tasks.constituency import ConstituencyTask
from mlparse.train.checkpoint import CheckpointFiles
from mlparse.train.compile import BACKEND_VARIABLE, BUCKETS, bucket, compile_encoder, compiled_graphs, uncompile_encoder
from mlparse.tasks.treebank import TreeSplit, golds_of, sentence_of
from mlparse.train.trainer import Trainer
from helpers.run_fixtures import tiny_trees, write_tiny_recipe


@pytest.fixture(autouse=True)
def eager_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BACKEND_VARIABLE, "eager")
    torch._dynamo.reset()


def test_buckets_hold_every_length_with_little_padding() -> None:
    sizes = [bucket(n) for n in range(1, 302)]
    assert all(size >= n for n, size in zip(range(1, 302), sizes))
    assert sizes == sorted(sizes)
    assert all(size <= max(16, n + max(8, n / 3)) for n, size in zip(range(1, 302), sizes))  # a third more at most
    assert len(set(sizes)) <= 16  # a few shapes for every WSJ length (and 2 start/stop positions)
    assert BUCKETS[0] == 16 and bucket(10**6) == 10**6  # beyond the last bucket: the length itself


def test_compiled_encoder_equals_the_eager_one_and_compiles_few_graphs(tmp_path: Path) -> None:
    config = load_recipe(write_tiny_recipe(tmp_path))
    torch.manual_seed(0)
    parser = build_parser(config.model, tiny_trees(), span=config.span).eval()
    sentences = [sentence_of(t) for t in tiny_trees()]
    keys = list(parser.state_dict())
    with torch.no_grad():
        batches = [parser.make_batch(sentences[:k]) for k in range(1, len(sentences) + 1)]
        batches += [parser.make_batch(sentences[k:]) for k in range(1, len(sentences))]
        eager = [parser(b)[0] for b in batches]
        before = compiled_graphs()
        assert compile_encoder(parser, "encoder", torch.device("cpu")) is not None
        compiled = [parser(b)[0] for b in batches]
    shapes = {tuple(b.words.shape) for b in batches}
    assert len(shapes) > 4
    assert 1 <= compiled_graphs() - before <= 2  # one bucket; the batch axis becomes dynamic after the first
    for a, b in zip(eager, compiled):
        assert a.shape == b.shape
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
    assert list(parser.state_dict()) == keys  # checkpoints as from an uncompiled run
    uncompile_encoder(parser)
    assert "forward" not in parser.encoder.__dict__


def test_compile_is_hash_neutral_when_off_and_checked(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path)
    plain = load_recipe(recipe)
    off = load_recipe(recipe, ["train.compile=off", "train.overlap=false"])
    on = load_recipe(recipe, ["train.compile=encoder"])
    assert plain.train.compile == "off" and plain.train.overlap is True
    assert off.train.compile == "off"  # YAML reads a bare off as false: taken as the word
    assert plain.hash() == off.hash() != on.hash()  # the overlap never changes results, compiling may (float)
    with pytest.raises(ConfigError, match="train.compile must be one of off, encoder, encoder-graphs"):
        load_recipe(recipe, ["train.compile=everything"])
    with pytest.raises(ConfigError, match="model.encoder: bilstm has none"):
        load_recipe(recipe, ["model.kind=biaffine", "model.encoder=bilstm", "train.compile=encoder"])


def test_training_with_a_compiled_encoder(tmp_path: Path) -> None:
    losses = {}
    for mode in ("off", "encoder"):
        config = load_recipe(write_tiny_recipe(tmp_path / mode, train={"compile": mode, "subbatch_tokens": 30},
                                               model={"attention_dropout": 0.0, "relu_dropout": 0.0,
                                                      "residual_dropout": 0.0}))
        trees = tiny_trees()
        torch.manual_seed(0)
        parser = build_parser(config.model, trees, span=config.span)
        split = TreeSplit(path=tmp_path / "train.trees", examples=trees)
        trainer = Trainer(config, parser, ConstituencyTask(), split, golds_of(trees, parser.labels), split,
                          CheckpointFiles(tmp_path / mode / "checkpoints"), torch.device("cpu"))
        assert (trainer.compiled is None) == (mode == "off")
        torch.manual_seed(1)
        losses[mode] = [trainer.train_step(list(range(len(trees)))) for _ in range(2)]
    assert losses["encoder"] == pytest.approx(losses["off"], rel=1e-4)
