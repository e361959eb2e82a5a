"""benchmarks/gpu_suite.py runs without a GPU (its --quick smoke mode) and prints its one table."""

from __future__ import annotations

import re
import sys

import pytest
import torch

from helpers.run_fixtures import REPO

sys.path.insert(0, str(REPO))
from benchmarks import gpu_suite  # noqa: E402


def test_quick_suite_prints_the_table_and_says_which_rows_were_skipped(capsys: pytest.CaptureFixture) -> None:
    assert gpu_suite.main(["--quick", "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert f"torch {torch.__version__}" in out and "CUDA " in out
    rows = [line for line in out.splitlines() if line.startswith("| ")]
    figures = {line.split(" | ")[0][2:]: line for line in rows[1:]}
    for decoder in ("cython", "torch"):
        ops = figures[f"demo update, 32 sentences, {decoder} decoder: operations dispatched"]
        assert int(re.search(r"\| ([\d,]+) ops", ops).group(1).replace(",", "")) > 100
        syncs = figures[f"demo update, 32 sentences, {decoder} decoder: host syncs"]
        assert int(re.search(r"\| (\d+) syncs", syncs).group(1)) <= 1
        uploads = figures[f"demo update, 32 sentences, {decoder} decoder: uploads that wait"]
        assert int(re.search(r"\| (\d+) copies", uploads).group(1)) == 0
    casts = figures["demo update, 32 sentences, under bf16 autocast: weight casts"]
    weights = int(re.search(r"(\d+) weights", casts).group(1))
    assert int(re.search(r"\| (\d+) casts", casts).group(1)) == weights > 0  # once per update each
    for what in ("demo updates (32 sentences)", "demo dev parse"):
        for state in ("on", "off"):
            row = figures[f"{what}, train.overlap {state}"]
            assert float(re.search(r"\| ([\d,.]+) (updates|sent)/s", row).group(1).replace(",", "")) > 0
        assert "on/off CPU" in figures[f"{what}, train.overlap on"]
    cky = figures["of that batch: CKY width loop (batched torch decoder): operations / computing"]
    assert "issue 16: about 970 ops" in cky and int(re.search(r"\| ([\d,]+) ops", cky).group(1).replace(",", "")) > 0
    assert "compiled-encoder rows skipped (--quick)" in out
    speed = figures["base parse speed, dev after a warm-up pass"]
    assert float(re.search(r"\| ([\d,.]+) sent/s", speed).group(1).replace(",", "")) > 0
    if torch.cuda.is_available():
        assert "GPU busy share" in out and "skipped" not in speed
    else:
        assert "GPU rows skipped" in out and "| skipped |" in speed
