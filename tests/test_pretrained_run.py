"""Runs over a pretrained encoder, end to end: the bundled recipes pointed at the tiny local BERT train,
checkpoint, resume and parse (``mlparse run``, ``mlparse export``, ``mlparse.load``), for the span and the
dependency parser; a frozen encoder that changed since is refused on resume and on load."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Dict, List

import pytest
import torch
from typer.testing import CliRunner

import mlparse
from mlparse.cli import app
from mlparse.config import load_recipe
from mlparse.package import PackageError
from mlparse.results import COMPLETE
from mlparse.run_dir import RunDir
from mlparse.train import checkpoint
from mlparse.train.runner import RunOptions, run_recipe
from helpers.dep_fixtures import TINY_BIAFFINE, TINY_DEP_MODEL, TINY_DEP_TRAIN, write_dep_recipe
from helpers.run_fixtures import TINY_MODEL, TINY_TRAIN, write_tiny_recipe
from helpers.train_fixtures import Interrupt, StopAfter, same_weights, weights

pytest.importorskip("transformers")

RECIPES = Path(__file__).resolve().parents[1] / "recipes"

#: The papers' models (../shared/papers): Li et al. (2019) BERT-Base (English uncased, Chinese); XLNet
#: behind Mrini et al. (2020); bert-large-cased for the span parser's English BERT recipe.
RECIPE_MODELS = {"english-bert.yaml": ("bert-large-cased", "constituency", True),
                 "english-xlnet.yaml": ("xlnet-large-cased", "constituency", True),
                 "chinese-bert.yaml": ("bert-base-chinese", "constituency", True),
                 "ud/english-ewt-bert.yaml": ("bert-base-uncased", "dependency", False)}


def overrides(sections: Dict[str, Dict[str, Any]]) -> List[str]:
    """``--set`` strings for every key of ``sections`` (values as JSON, which YAML reads)."""
    return [f"{section}.{key}={json.dumps(value)}" for section, keys in sections.items() for key, value in keys.items()]


def tiny_span_overrides(tmp_path: Path, model_dir: Path) -> List[str]:
    """A bundled span recipe made tiny: the hand-made trees, a one-layer parser, the tiny BERT."""
    data = load_recipe(write_tiny_recipe(tmp_path)).data
    model = {k: v for k, v in TINY_MODEL.items() if k not in ("use_words", "d_char_emb")}
    return overrides({"data": {"train": data.train, "dev": data.dev, "test": data.test}, "model": model,
                      "train": {**TINY_TRAIN, "max_epochs": 4}, "pretrained": {"model": str(model_dir), "lr": 0.001, "dropout": 0.0}})


def tiny_dep_overrides(tmp_path: Path, model_dir: Path) -> List[str]:
    data = load_recipe(write_dep_recipe(tmp_path)).data
    return overrides({"data": {"train": data.train, "dev": data.dev, "test": data.test, "tags": "gold"}, "model": TINY_DEP_MODEL,
                      "biaffine": TINY_BIAFFINE, "train": {**TINY_DEP_TRAIN, "max_epochs": 6},
                      "pretrained": {"model": str(model_dir), "dropout": 0.0}})


def copy_model(source: Path, tmp_path: Path) -> Path:
    target = tmp_path / "bert-copy"
    shutil.copytree(source, target)
    return target


@pytest.mark.parametrize("recipe", sorted(RECIPE_MODELS))
def test_the_pretrained_recipes_load_with_the_papers_models(recipe: str) -> None:
    config = load_recipe(RECIPES / recipe)
    model, task, fine_tune = RECIPE_MODELS[recipe]
    assert (config.pretrained.model, config.task, config.pretrained.fine_tune) == (model, task, fine_tune)
    assert config.pretrained.combine == "replace"
    if recipe.startswith("ud/"):  # Li et al. Table 3: the average of the top 4 layers
        assert (config.pretrained.layers, config.pretrained.top_k) == ("mean_top", 4)


@pytest.mark.parametrize("recipe", ["english-xlnet.yaml", "chinese-bert.yaml"])
def test_the_other_span_recipes_train_on_the_tiny_model(recipe: str, tiny_pretrained: Path, tmp_path: Path) -> None:
    config = load_recipe(RECIPES / recipe, tiny_span_overrides(tmp_path, tiny_pretrained) + ["train.max_epochs=1"])
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    assert results.status == COMPLETE and results.dev.f1 is not None
    # the recipe's deviation from Kitaev & Klein (a pretrained encoder instead of ELMo) shows in the name
    assert results.system == f"mlparse span ({tiny_pretrained.name} fine-tuned) [not the paper's: {config.deviation}]"
    assert config.deviation


def test_a_fine_tuned_span_run_trains_resumes_exports_and_parses(tiny_pretrained: Path, tmp_path: Path) -> None:
    model_dir = copy_model(tiny_pretrained, tmp_path)
    recipe = RECIPES / "english-bert.yaml"
    sets = tiny_span_overrides(tmp_path, model_dir)
    config = load_recipe(recipe, sets)
    reference = run_recipe(config, RunOptions(runs_dir=tmp_path / "ref"))
    with pytest.raises(Interrupt):  # 8 trees / batches of 4: killed after update 3, past the check of update 2
        run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), StopAfter(3))
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    saved = checkpoint.load(run_dir.last)
    assert saved["state"]["step"] == 2 and any(k.startswith("pretrained.transformer.") for k in saved["model"])
    assert [g["base_lr"] for g in saved["optimizer"]["param_groups"]] == [config.train.lr, 0.001]
    result = CliRunner().invoke(app, ["run", str(recipe), "--runs-dir", str(tmp_path / "runs"),
                                      *[part for s in sets for part in ("--set", s)]])
    assert result.exit_code == 0, result.output
    resumed = json.loads(run_dir.results.read_text())
    assert resumed["status"] == COMPLETE and resumed["dev"]["f1"] == reference.dev.f1
    assert same_weights(weights(RunDir.for_recipe(tmp_path / "ref", config).last), weights(run_dir.last))
    words = ["the", "dog", "saw", "a", "cat", "."]
    tree = mlparse.load(run_dir.path, device="cpu").parse(words, output="tree").to_bracketed()
    package = tmp_path / "package"
    result = CliRunner().invoke(app, ["export", str(run_dir.path), str(package)])
    assert result.exit_code == 0, result.output
    assert (package / "pretrained" / "config.json").is_file() and (package / "pretrained" / "tokenizer_config.json").is_file()
    assert not list((package / "pretrained").glob("*.safetensors"))  # fine-tuned: its weights are in model.pt
    shutil.rmtree(model_dir)  # the package needs nothing else; the run directory needs the model it names
    assert mlparse.load(package, device="cpu").parse(words, output="tree").to_bracketed() == tree
    with pytest.raises(PackageError, match=r"pretrained model '.*bert-copy' could not be loaded .*--set pretrained.model="):
        mlparse.load(run_dir.path, device="cpu")
    source = tmp_path / "input.txt"
    source.write_text(" ".join(words) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["parse", "--model", str(package), "--input", str(source), "--format", "text"])
    assert result.exit_code == 0 and result.stdout.strip() == tree, result.output  # mlparse parse reads the package too
    result = CliRunner().invoke(app, ["parse", "--model", str(run_dir.path), "--input", str(source), "--format", "text"])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "pretrained model" in result.output and "could not be loaded" in result.output


def test_a_frozen_dependency_run_parses_and_refuses_a_changed_encoder(tiny_pretrained: Path, tmp_path: Path) -> None:
    transformers = pytest.importorskip("transformers")
    model_dir = copy_model(tiny_pretrained, tmp_path)
    config = load_recipe(RECIPES / "ud" / "english-ewt-bert.yaml", tiny_dep_overrides(tmp_path, model_dir))
    with pytest.raises(Interrupt):
        run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), StopAfter(4))
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    assert not any("transformer" in key for key in weights(run_dir.last))  # frozen: re-loaded by name, not saved
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    assert results.status == COMPLETE and results.system == (
        "mlparse biaffine (self-attentive, bert-copy + gold UPOS) [not the paper's: UD English-EWT instead of PTB-SD]")
    assert results.dev.las is not None and results.dev.uas >= results.dev.las
    parser = mlparse.load(run_dir.path, device="cpu")
    sentence = [("the", "DET"), ("dog", "NOUN"), ("barks", "VERB"), (".", "PUNCT")]
    parsed = parser.parse(sentence)
    assert [token["form"] for token in parsed] == ["the", "dog", "barks", "."]
    package = tmp_path / "package"
    assert CliRunner().invoke(app, ["export", str(run_dir.path), str(package)]).exit_code == 0
    assert list((package / "pretrained").glob("*.safetensors"))  # frozen: its weights travel with the package
    torch.manual_seed(1)  # the same directory now holds another model: same configuration, other weights
    other = transformers.BertModel(transformers.AutoConfig.from_pretrained(str(model_dir)))
    other.save_pretrained(str(model_dir))
    with pytest.raises(PackageError, match=r"pretrained model '.*bert-copy' is not the one this parser was trained "
                                           r"with: its weights differ"):
        mlparse.load(run_dir.path, device="cpu")
    assert [t["head"] for t in mlparse.load(package, device="cpu").parse(sentence)] == \
        [t["head"] for t in parsed]  # the package's own copy
    again = load_recipe(RECIPES / "ud" / "english-ewt-bert.yaml", tiny_dep_overrides(tmp_path, model_dir) + ["train.seed=2"])
    with pytest.raises(Interrupt):
        run_recipe(again, RunOptions(runs_dir=tmp_path / "runs"), StopAfter(4))
    torch.manual_seed(2)
    transformers.BertModel(transformers.AutoConfig.from_pretrained(str(model_dir))).save_pretrained(str(model_dir))
    with pytest.raises(ValueError, match=r"cannot resume .* pretrained encoder \(the weights of '.*bert-copy' differ"):
        run_recipe(again, RunOptions(runs_dir=tmp_path / "runs"))
