"""Opt-in int8 quantization of the linear layers (``--quantize``): loading, exporting, parsing, the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List

import pytest
import torch
from typer.testing import CliRunner

import mlparse
from mlparse.cli import app
from mlparse.config import load_recipe
from mlparse.modules.quantize import DYNAMIC_INT8, QuantizationError, is_quantized, quantize_linear_layers
from mlparse.package import INFO_FILE, WEIGHTS_FILE
from mlparse.run_dir import RunDir
from mlparse.train import checkpoint
from mlparse.train.runner import RunOptions, run_recipe
from helpers.dep_fixtures import write_dep_recipe
from helpers.run_fixtures import train_tiny_span_run

SENTENCES = [["the", "dog", "barks", "."], ["a", "cat", "saw", "John", "on", "the", "mat", "."], ["hello"],
             ["the", "big", "dog", "saw", "a", "cat", "."]]


@pytest.fixture(scope="module")
def span_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return train_tiny_span_run(tmp_path_factory.mktemp("span"))


@pytest.fixture(scope="module")
def quantized_package(span_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("packages") / "int8"
    result = CliRunner().invoke(app, ["export", str(span_run), str(out), "--quantize"])
    assert result.exit_code == 0, result.output
    assert "int8" in result.output
    return out


def trees(loaded: mlparse.api.LoadedParser) -> List[str]:
    return [tree.to_bracketed() for tree in loaded.parse_sents(SENTENCES, output="tree")]


def test_quantize_replaces_the_linear_layers_and_the_parser_still_parses(span_run: Path) -> None:
    loaded = mlparse.load(span_run, quantize=True)
    assert loaded.info.quantization == DYNAMIC_INT8 and loaded.parser.device().type == "cpu"
    assert is_quantized(loaded.parser)
    assert not any(isinstance(m, torch.nn.Linear) and type(m) is torch.nn.Linear for m in loaded.parser.modules())
    parsed = list(loaded.parse_sents(SENTENCES, output="tree"))
    assert [[leaf.word for leaf in tree.leaves()] for tree in parsed] == SENTENCES
    float_parser = mlparse.load(span_run, device="cpu")
    assert float_parser.info.quantization == "" and not is_quantized(float_parser.parser)


def test_quantized_scores_stay_near_the_float_scores(span_run: Path) -> None:
    float_parser = mlparse.load(span_run, device="cpu").parser
    int8_parser = mlparse.load(span_run, quantize=True).parser
    sentences = [[("UNK", word) for word in sentence] for sentence in SENTENCES]
    with torch.no_grad():
        exact, _ = float_parser(float_parser.make_batch(sentences))
        rounded, _ = int8_parser(int8_parser.make_batch(sentences))
    scale = float(exact.abs().max())
    error = float((rounded - exact).abs().max())
    assert 0 < error < 0.05 * scale  # changed by the rounding, and only by a little


def test_an_exported_int8_package_says_so_keeps_float_weights_and_loads_quantized(
        span_run: Path, quantized_package: Path) -> None:
    info = json.loads((quantized_package / INFO_FILE).read_text(encoding="utf-8"))
    assert info["quantization"] == DYNAMIC_INT8
    saved = checkpoint.load(quantized_package / WEIGHTS_FILE)  # plain data, float weights as trained
    assert all(t.dtype == torch.float32 for t in saved["model"].values() if t.is_floating_point())
    assert "int8" in (quantized_package / "README.md").read_text(encoding="utf-8")
    loaded = mlparse.load(quantized_package)
    assert is_quantized(loaded.parser) and loaded.info.quantization == DYNAMIC_INT8
    assert trees(loaded) == trees(mlparse.load(span_run, quantize=True))  # quantized on loading: the same layers
    as_float = mlparse.load(quantized_package, quantize=False)
    assert not is_quantized(as_float.parser) and as_float.info.quantization == ""
    assert trees(as_float) == trees(mlparse.load(span_run, device="cpu"))


def test_mlparse_parse_quantizes_on_request_or_as_the_package_says(span_run: Path, quantized_package: Path,
                                                                   tmp_path: Path) -> None:
    source = tmp_path / "input.txt"
    source.write_text("".join(" ".join(s) + "\n" for s in SENTENCES), encoding="utf-8")

    def cli(model: Path, *options: str) -> List[str]:
        result = CliRunner().invoke(app, ["parse", "--model", str(model), "--input", str(source), "--format", "text", *options])
        assert result.exit_code == 0, result.output
        return result.stdout.splitlines()

    quantized = trees(mlparse.load(span_run, quantize=True))
    exact = trees(mlparse.load(span_run, device="cpu"))
    assert cli(span_run, "--quantize") == quantized
    assert cli(quantized_package) == quantized
    assert cli(quantized_package, "--no-quantize") == exact


def test_quantization_is_for_a_model_in_eval_mode(span_run: Path) -> None:
    parser = mlparse.load(span_run, device="cpu").parser
    with pytest.raises(QuantizationError, match="eval mode"):
        quantize_linear_layers(parser.train())


def test_a_dependency_model_parses_quantized(tmp_path: Path) -> None:
    config = load_recipe(write_dep_recipe(tmp_path, model={"use_tags": False}, train={"max_epochs": 3}))
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    run = RunDir.for_recipe(tmp_path / "runs", config).path
    loaded = mlparse.load(run, quantize=True)
    assert is_quantized(loaded.parser)
    parsed = list(loaded.parse_sents(SENTENCES, output="prediction"))
    assert [len(p.heads) for p in parsed] == [len(s) for s in SENTENCES]
    assert all(0 <= h <= len(s) for p, s in zip(parsed, SENTENCES) for h in p.heads)


def tiny_tagger(d_hidden: str) -> "TaggerParser":
    """A tagger built in-process (no training): its tag head is one linear layer (``null``) or two."""
    from mlparse.models.tagger import TaggerParser
    from mlparse.tasks.tagging import TaggedSentence

    sentences = [TaggedSentence(("the", "dog", "barks", "."), {"upos": ("DET", "NOUN", "VERB", "PUNCT")})]
    config = load_recipe("tagger", ["model.char_encoder=none", "model.encoder=bilstm", "tagger.lstm_hidden=8",
                                    "tagger.lstm_layers=1", "tagger.d_word_emb=8", f"tagger.d_hidden={d_hidden}"])
    return TaggerParser.build(config, sentences).eval()


@pytest.mark.parametrize("d_hidden", ["null", "8"])
def test_a_quantized_tagger_tags_whatever_its_head(d_hidden: str) -> None:
    tagger = tiny_tagger(d_hidden)
    float_tags = tagger.predict(SENTENCES)
    quantize_linear_layers(tagger)
    assert is_quantized(tagger) and tagger.device().type == "cpu"
    tags = tagger.predict(SENTENCES)  # a head of one linear layer has no parameters left once quantized
    assert [len(t) for t in tags] == [len(s) for s in SENTENCES]
    assert all(tag in tagger.tag_list for t in tags for tag in t) and len(float_tags) == len(tags)


def test_a_parser_carrying_a_quantized_tagger_tags_then_parses(tmp_path: Path) -> None:
    from mlparse.api import LoadedParser

    config = load_recipe(write_dep_recipe(tmp_path, train={"max_epochs": 1}))  # reads tags
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    loaded = mlparse.load(RunDir.for_recipe(tmp_path / "runs", config).path, quantize=True)
    tagger = quantize_linear_layers(tiny_tagger("null"))
    parsed = list(LoadedParser(loaded.parser, loaded.info, tagger).parse_sents(SENTENCES, output="prediction"))
    assert [len(p.heads) for p in parsed] == [len(s) for s in SENTENCES]
