"""train.ema_decay: the moving average of the weights, what the dev checks and the checkpoints' ``model`` hold,
and an exact resume of a run that keeps one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from torch import nn

from mlparse.config import ConfigError, load_recipe
from mlparse.run_dir import RunDir
from mlparse.train import checkpoint
from mlparse.train.runner import RunOptions, run_recipe
from mlparse.train.weight_average import TRAINING_WEIGHTS, WeightAverage
from helpers.run_fixtures import Record, write_tiny_recipe
from helpers.train_fixtures import Interrupt, StopAfter, log_without_times, same_weights

NOISY_TRAIN = {"unk_word_dropout": True, "batch_size": 3, "evals_per_epoch": 2, "max_epochs": 4, "device": "cpu",
               "ema_decay": 0.9}


def test_the_average_follows_the_weights_by_the_warm_decay_schedule() -> None:
    model = nn.Linear(3, 2)
    average = WeightAverage(model, decay=0.9)
    start = [p.detach().clone() for p in model.parameters()]
    expected = [p.clone() for p in start]
    for step in (1, 2, 3, 100):
        with torch.no_grad():
            for p in model.parameters():
                p.add_(torch.randn_like(p))
        average.update(step)
        d = min(0.9, (1 + step) / (10 + step))
        expected = [d * e + (1 - d) * p.detach() for e, p in zip(expected, model.parameters())]
    assert average.decay_at(1) == pytest.approx(2 / 11) and average.decay_at(100) == 0.9 and average.decay_at(40) == pytest.approx(41 / 50)
    for got, want in zip(average.average, expected):
        assert torch.allclose(got, want, atol=1e-6)


def test_swapped_in_shows_the_average_and_restores_the_trained_weights() -> None:
    model = nn.Linear(4, 4)
    average = WeightAverage(model, decay=0.5)
    with torch.no_grad():
        model.weight.add_(1.0)
    average.update(100)
    trained = model.weight.detach().clone()
    x = torch.randn(2, 4)
    with average.swapped_in():
        assert torch.equal(model.weight, average.average[0])
        inside = model(x)
    assert torch.equal(model.weight, trained)
    assert not torch.allclose(inside, model(x))
    state = average.averaged_state(model.state_dict())
    assert torch.equal(state["weight"], average.average[0]) and torch.equal(state["bias"], average.average[1])
    assert torch.equal(model.state_dict()["weight"], trained)  # the model's own state is untouched


def test_frozen_parameters_are_not_averaged() -> None:
    model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 2))
    model[0].weight.requires_grad_(False)
    average = WeightAverage(model, decay=0.5)
    assert "0.weight" not in average.names and "0.bias" in average.names
    with torch.no_grad():
        model[0].weight.add_(1.0)  # changed outside training: the average shows the model's own
    average.update(100)
    state = average.averaged_state(model.state_dict())
    assert torch.equal(state["0.weight"], model[0].weight)


def test_a_decay_outside_0_1_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        WeightAverage(nn.Linear(2, 2), decay=1.0)
    recipe = write_tiny_recipe(tmp_path, train={"ema_decay": 1.5})
    with pytest.raises(ConfigError, match="train.ema_decay"):
        load_recipe(recipe)


def test_checkpoints_keep_the_average_as_model_and_the_trained_weights_beside_it(tmp_path: Path) -> None:
    config = load_recipe(write_tiny_recipe(tmp_path, train=NOISY_TRAIN))
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    saved = checkpoint.load(run_dir.last)
    averaged, trained = saved["model"], saved[TRAINING_WEIGHTS]
    assert averaged.keys() == trained.keys()
    assert not same_weights(averaged, trained)
    # the dev checks score the average: the best check's score is what the best checkpoint's weights give
    best = checkpoint.load(run_dir.best)
    assert results.dev is not None and results.dev.f1 == pytest.approx(best["state"]["best_score"])
    # without the key, checkpoints hold the trained weights only, and the results differ
    plain = load_recipe(write_tiny_recipe(tmp_path / "plain", train={**NOISY_TRAIN, "ema_decay": 0.0}))
    assert plain.hash() != config.hash()
    run_recipe(plain, RunOptions(runs_dir=tmp_path / "plain-runs"))
    plain_saved = checkpoint.load(RunDir.for_recipe(tmp_path / "plain-runs", plain).last)
    assert TRAINING_WEIGHTS not in plain_saved
    assert same_weights(plain_saved["model"], trained)  # the same updates: the average changed none of them


def test_a_run_with_an_average_resumes_to_the_same_result(tmp_path: Path) -> None:
    config = load_recipe(write_tiny_recipe(tmp_path, train=NOISY_TRAIN))
    reference = run_recipe(config, RunOptions(runs_dir=tmp_path / "ref"))
    with pytest.raises(Interrupt):
        run_recipe(config, RunOptions(runs_dir=tmp_path / "run"), StopAfter(5))
    again = Record()
    resumed = run_recipe(config, RunOptions(runs_dir=tmp_path / "run"), again)
    assert again.steps[0] == 4
    ref_dir, run_dir = RunDir.for_recipe(tmp_path / "ref", config), RunDir.for_recipe(tmp_path / "run", config)
    for name in ("model", TRAINING_WEIGHTS):
        assert same_weights(checkpoint.load(ref_dir.last)[name], checkpoint.load(run_dir.last)[name])
    assert log_without_times(ref_dir) == log_without_times(run_dir)
    assert resumed.dev.f1 == reference.dev.f1 and resumed.test.f1 == reference.test.f1
    assert json.loads(run_dir.results.read_text())["status"] == "complete"
