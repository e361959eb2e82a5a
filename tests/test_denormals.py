"""A run flushes denormal floats to zero (x86 computes with them in microcode, up to 180 times slower) and gives the
calling thread its IEEE arithmetic back afterwards."""

from __future__ import annotations

import torch

from mlparse.train.denormals import flushing_denormals, flushing_now


def test_denormals_are_flushed_inside_the_block_and_kept_after_it() -> None:
    tiny = torch.full((4,), 1e-39)  # a denormal float32
    assert not flushing_now() and float(tiny[0]) != 0.0
    with flushing_denormals() as supported:
        if supported:  # x86 with SSE: every machine mlparse's CI runs on
            assert flushing_now()
            assert float((tiny * 1.0).sum()) == 0.0  # read as zero
    assert not flushing_now()
    assert float((tiny * 1.0).sum()) > 0.0


def test_a_run_restores_the_mode_it_found(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from mlparse.config import load_recipe
    from mlparse.train.runner import RunOptions, run_recipe
    from helpers.dep_fixtures import write_dep_recipe

    config = load_recipe(write_dep_recipe(tmp_path, train={"max_epochs": 1}))
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    assert not flushing_now()
