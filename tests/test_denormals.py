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


def test_the_threads_exact_environment_comes_back_with_one_flush_mode_set() -> None:
    """Flush-to-zero alone (SSE control register bit 15, no denormals-are-zero) is what the thread has after the
    block, not both modes: the environment is restored as it was, not switched off."""
    import ctypes
    import platform

    import pytest

    from mlparse.train.denormals import _Environment

    environment = _Environment()
    if platform.machine() != "x86_64" or not environment.available:
        pytest.skip("the SSE control register of x86-64 glibc")
    original = environment.save()
    assert original is not None
    mxcsr_offset = 28  # fenv_t's __mxcsr on x86-64 glibc
    ftz_only = ctypes.create_string_buffer(original.raw)
    value = int.from_bytes(original.raw[mxcsr_offset:mxcsr_offset + 4], "little") | 0x8000  # FTZ, not DAZ (0x40)
    ftz_only[mxcsr_offset:mxcsr_offset + 4] = value.to_bytes(4, "little")
    try:
        assert environment.restore(ftz_only)
        with flushing_denormals():
            pass
        after = environment.save()
        assert after is not None and after.raw[:32] == ftz_only.raw[:32]
    finally:
        environment.restore(original)
    assert not flushing_now()
