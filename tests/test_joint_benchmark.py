"""benchmarks/joint_decoder_speed.py: its quick mode prints every decoder side by side, and its checks bite."""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest

from helpers.run_fixtures import REPO

sys.path.insert(0, str(REPO))
from benchmarks import joint_decoder_speed as bench  # noqa: E402
from mlparse.structs import joint as joint_module  # noqa: E402


def test_quick_run_prints_every_decoder_and_the_ratios(capsys: pytest.CaptureFixture) -> None:
    assert bench.main(["--quick"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("machine: ") and "load average" in out
    rows = re.findall(r"^  (.+?)\s+(\d+) sentences/s  \((\d+) sentences\)$", out, flags=re.M)
    names = [name for name, _, _ in rows]
    for decoder in ("exact joint, Cython (decode_joint)", "exact joint, pure Python", "separate CKY + MST, Cython"):
        assert names.count(decoder) == 2  # the dev lengths and the fixed length
    assert all(int(speed) > 0 for _, speed, _ in rows)
    assert ("exact joint, pure Python", rows[2][1], "2") == rows[2]  # the reference decodes the subset only
    assert re.search(r"exact joint Cython at n = 8: [\d,]+ sentences/s, [\d.]+x the target of 1,000", out)
    assert len(re.findall(r"exact Cython / pure Python \(same 2 sentences\): +[\d.]+x", out)) == 2


def test_check_catches_decoders_that_disagree(monkeypatch: pytest.MonkeyPatch) -> None:
    sentences = bench.random_sentences(np.random.default_rng(0), [7, 9], 5)
    bench.check(sentences, 2)
    # Arc scores are log-probabilities: their columns sum to 1 in probability.
    np.testing.assert_allclose(np.exp(sentences[0][1]).sum(axis=0), 1.0, rtol=1e-5)
    monkeypatch.setattr(bench, "decode_joint", lambda spans, arcs: bench.decode_separate(spans, arcs))
    with pytest.raises(AssertionError, match="disagree"):
        bench.check(sentences, 2)


def test_says_when_the_compiled_decoder_is_missing(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setattr(joint_module, "_joint_core", None)
    assert bench.main(["--quick"]) == 1
    assert "not built" in capsys.readouterr().out
