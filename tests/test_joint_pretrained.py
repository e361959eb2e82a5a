"""The joint LAL parser over a pretrained encoder (Mrini et al. 2020 fine-tune XLNet): the bundled recipe
names the paper's model, and a tiny joint model over the tiny local BERT trains with the encoder's own
learning rate, resumes to the same weights, and parses from its run directory."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from helpers.joint_fixtures import write_joint_recipe
from mlparse.config import load_recipe
from mlparse.package import load_package
from mlparse.models.joint_parser import JointParser
from mlparse.results import COMPLETE
from mlparse.run_dir import RunDir
from mlparse.tasks import task_for
from mlparse.train import checkpoint
from mlparse.train.runner import RunOptions, run_recipe
from helpers.train_fixtures import Interrupt, StopAfter, same_weights, weights

pytest.importorskip("transformers")

RECIPES = Path(__file__).resolve().parents[1] / "recipes"


def test_the_lal_xlnet_recipe_is_the_papers_setting() -> None:
    config = load_recipe(RECIPES / "lal" / "english-xlnet.yaml")
    english = load_recipe(RECIPES / "lal" / "english.yaml")
    assert (config.model.kind, config.pretrained.model, config.pretrained.fine_tune) == ("joint", "xlnet-large-cased", True)
    assert config.joint == english.joint and config.model.num_layers == english.model.num_layers == 3
    assert (config.model.use_words, config.model.char_encoder, config.pretrained.combine) == (False, "none", "replace")


def test_a_joint_model_over_a_fine_tuned_encoder_trains_resumes_and_parses(tiny_pretrained: Path, tmp_path: Path) -> None:
    sets = [f"pretrained.model={tiny_pretrained}", "pretrained.fine_tune=true", "pretrained.lr=0.001",
            "pretrained.dropout=0.0", "train.max_epochs=3"]
    config = load_recipe(write_joint_recipe(tmp_path), sets)
    reference = run_recipe(config, RunOptions(runs_dir=tmp_path / "ref"))
    assert reference.status == COMPLETE
    assert None not in (reference.dev.f1, reference.dev.uas, reference.dev.las)
    with pytest.raises(Interrupt):  # 8 trees, batches of 4: killed after update 3
        run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), StopAfter(3))
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    saved = checkpoint.load(run_dir.last)
    assert any(key.startswith("pretrained.transformer.") for key in saved["model"])  # fine-tuned: in the checkpoint
    assert [group["base_lr"] for group in saved["optimizer"]["param_groups"]] == [config.train.lr, 0.001]
    resumed = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    assert (resumed.dev.f1, resumed.dev.las) == (reference.dev.f1, reference.dev.las)
    assert same_weights(weights(RunDir.for_recipe(tmp_path / "ref", config).last), weights(run_dir.last))
    parser = load_package(run_dir.path, torch.device("cpu"))[0]
    assert isinstance(parser, JointParser) and parser.pretrained is not None
    split = task_for("joint").read_split(Path(config.data.dev))
    predictions = parser.predict(split.input_sentences)
    assert [p.tree.to_bracketed() for p in predictions] == run_dir.pred("dev", ".trees").read_text().splitlines()
