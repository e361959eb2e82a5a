"""The dependency learning-curve benchmarks' own logic: minute marks, SuPar's log clock, the skip."""

import importlib
import sys
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

curve_bench = importlib.import_module("dep_learning_curve")
supar_bench = importlib.import_module("dep_vs_supar")
CurvePoint = curve_bench.CurvePoint

# A SuPar training log as its logger writes it (hand-written; the times are the point).
SUPAR_LOG = """\
2026-11-23 06:00:00 INFO Loading the data
2026-11-23 06:00:10 INFO Epoch 1 / 5000:
2026-11-23 06:01:40 INFO lr: 1.9963e-03 - loss: 6.1945 - UCM:  2.50% LCM:  0.00% UAS: 13.52% LAS:  1.77%
2026-11-23 06:01:50 INFO dev:  loss: 4.5421 - UCM: 10.67% LCM:  0.00% UAS: 58.36% LAS: 49.48%
2026-11-23 06:02:20 INFO test: loss: 4.8797 - UCM:  4.67% LCM:  0.00% UAS: 55.56% LAS: 48.11%
2026-11-23 06:02:21 INFO 0:02:11.000000s elapsed (saved)

2026-11-23 06:02:21 INFO Epoch 2 / 5000:
2026-11-23 06:03:11 INFO dev:  loss: 2.6827 - UCM: 11.33% LCM:  8.67% UAS: 77.50% LAS: 71.25%
"""


def test_by_minute_takes_the_last_check_at_or_before_each_mark():
    curve = [CurvePoint(0.4, 0.25, 40.0), CurvePoint(0.9, 0.5, 50.0), CurvePoint(1.0, 0.75, 55.0),
             CurvePoint(2.6, 1.0, 60.0)]
    assert curve_bench.by_minute(curve, 3) == [(1, 55.0), (2, 55.0), (3, 60.0)]
    assert curve_bench.by_minute(curve, 2.5) == [(1, 55.0), (2, 55.0), (3, 60.0)]
    assert curve_bench.by_minute([CurvePoint(1.5, 1.0, 70.0)], 2) == [(1, None), (2, 70.0)]


def test_first_reaching_is_the_first_check_at_or_above_the_target():
    curve = [CurvePoint(1.0, 1.0, 79.99), CurvePoint(2.0, 2.0, 80.0), CurvePoint(3.0, 3.0, 81.0)]
    assert curve_bench.first_reaching(curve, 80.0) == curve[1]
    assert curve_bench.first_reaching(curve, 90.0) is None


def test_supar_clock_counts_from_the_first_epoch_without_test_evaluations():
    clock = supar_bench.SuparClock()
    clock.read(SUPAR_LOG.splitlines())
    # Epoch 1's dev line: 100 s after the first epoch began; the 30 s test run after it is left out.
    assert [(round(p.minutes * 60), p.epoch, p.las) for p in clock.curve] == [(100, 1.0, 49.48), (151, 2.0, 71.25)]
    assert clock.test_seconds == 30.0
    # Now inside epoch 2's test evaluation: the clock stands still at its dev line.
    assert clock.seconds(datetime(2026, 11, 23, 6, 3, 41)) == 151.0
    assert not clock.saving


def test_supar_clock_says_when_a_checkpoint_may_be_being_written():
    lines = SUPAR_LOG.splitlines()[:5]  # up to epoch 1's test line: SuPar saves the best model next
    clock = supar_bench.SuparClock()
    clock.read(lines)
    assert clock.saving
    clock.read(SUPAR_LOG.splitlines()[:6])
    assert not clock.saving


def test_dep_vs_supar_skips_with_a_message_when_supar_cannot_be_imported(tmp_path, capsys):
    missing = tmp_path / "no-venv" / "bin" / "python"
    assert supar_bench.main(["--supar-python", str(missing), "--data-root", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("skipped: supar is not importable from " + str(missing))
    assert not (tmp_path / "ud").exists()  # nothing prepared, nothing trained
    assert supar_bench.main(["--data-root", str(tmp_path)]) == 0
    assert "no --supar-python given" in capsys.readouterr().out


def test_last_progress_reads_the_last_bar_supar_drew():
    output = ("\r 26%|####7             | 14/53 06:00<17:26, 26.83s/it, lr: 1.9984e-03 - loss: 7.0094"
              "\r 28%|#####             | 15/53 06:35<18:43, 29.56s/it, lr: 1.9983e-03 - loss: 6.1262")
    assert supar_bench.last_progress(output) == (15, 53)
    assert supar_bench.last_progress("Loading the data\n") is None
