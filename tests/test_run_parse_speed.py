"""results.json's parse speed is measured after a warm-up pass: a slow first pass does not count."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from mlparse.config import load_recipe
from mlparse.train import train_run
from mlparse.train.runner import RunOptions, run_recipe
from helpers.run_fixtures import TINY_TREES, write_tiny_recipe

FIRST_PASS_SECONDS = 1.0


def test_parse_speed_leaves_out_the_first_slow_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = load_recipe(write_tiny_recipe(tmp_path, train={"max_epochs": 1, "device": "cpu"}))
    calls = []
    parse = train_run.predict_in_batches

    def first_pass_slow(model, inputs, lengths, budget, decoder, *rest):  # type: ignore[no-untyped-def]
        if not calls:
            time.sleep(FIRST_PASS_SECONDS)  # what a cold first pass costs on a GPU (allocation, kernel choice)
        calls.append(len(inputs))
        return parse(model, inputs, lengths, budget, decoder, *rest)

    monkeypatch.setattr(train_run, "predict_in_batches", first_pass_slow)
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    parsed = 2 * len(TINY_TREES)  # dev and test
    assert calls[0] <= train_run.WARMUP_SENTENCES and calls[-2:] == [len(TINY_TREES)] * 2
    assert results.parse_sentences_per_second > parsed / FIRST_PASS_SECONDS
