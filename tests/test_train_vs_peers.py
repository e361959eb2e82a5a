"""benchmarks/train_vs_peers.py's own logic: the useful-FLOP counts (against hand sums, the weights of torch's
LSTM and torch's FLOP counter), the figures of a worker's answer, the round order, the data counts and the
mlparse worker's update clock."""

import importlib
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

flops = importlib.import_module("useful_flops")
bench = importlib.import_module("train_vs_peers")
report = importlib.import_module("train_report")
worker = importlib.import_module("train_worker")


def test_lstm_counts_are_the_weights_of_torchs_lstm():
    lstm = nn.LSTM(200, 400, num_layers=3, bidirectional=True)
    weights = sum(p.numel() for name, p in lstm.named_parameters() if name.startswith("weight"))
    assert flops.bilstm_stack_macs(200, 400, 3) == weights
    assert flops.lstm_macs(3, 2) == 4 * 2 * (3 + 2)


def test_biaffine_head_by_hand():
    # MLPs 2*4*3 + 2*4*2; arc [r;1] W: 4*3, against 6 heads: 6*3; relations at the gold head: 5 * 3 * 4
    assert flops.biaffine_head_macs(4, 3, 2, 5, 6) == 24 + 16 + 12 + 18 + 60


def _attention_layer_flops(d_model: int, heads: int, d_kv: int, d_ff: int, length: int) -> int:
    """torch's FLOP counter over a plain unfactored attention layer's products at ``length`` positions."""
    x = torch.randn(1, length, d_model)
    wq, wk, wv = (nn.Linear(d_model, heads * d_kv, bias=False) for _ in range(3))
    wo = nn.Linear(heads * d_kv, d_model, bias=False)
    ff1, ff2 = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)
    with FlopCounterMode(display=False) as counter:
        split = [w(x).view(1, length, heads, d_kv).transpose(1, 2) for w in (wq, wk, wv)]
        attention = torch.softmax(split[0] @ split[1].transpose(-1, -2), dim=-1) @ split[2]
        y = wo(attention.transpose(1, 2).reshape(1, length, heads * d_kv))
        ff2(torch.relu(ff1(y)))
    return counter.get_total_flops()


def test_attention_layer_matches_torchs_flop_counter():
    counted = _attention_layer_flops(8, 2, 4, 16, 5)
    assert counted == 2 * 5 * flops.attention_layer_macs(8, 2, 4, 16, 5, factored=False)
    assert flops.attention_layer_macs(8, 2, 4, 16, 5, factored=False) == 4 * 8 * 8 + 2 * 8 * 16 + 2 * 5 * 2 * 4
    assert flops.attention_layer_macs(8, 2, 4, 16, 5, factored=True) == 2 * 8 * 8 + 8 * 16 + 2 * 5 * 2 * 4


def test_per_word_counts_are_six_times_the_forward_over_the_words():
    per_position = flops.bilstm_stack_macs(10, 6, 2) + flops.biaffine_head_macs(12, 5, 3, 4, 5)
    assert flops.bilstm_biaffine_flops_per_word(10, 6, 2, 5, 3, 4, 4.0) == pytest.approx(6 * per_position * 5 / 4)
    encoder = 2 * flops.attention_layer_macs(8, 2, 4, 16, 5, factored=False)
    head = flops.biaffine_head_macs(8, 5, 3, 4, 5)
    assert flops.transformer_biaffine_flops_per_word(6, 8, 2, 2, 4, 16, 5, 3, 4, 4.0) == \
        pytest.approx(6 * (6 * 8 + encoder + head) * 5 / 4)
    # span: n = 4 words, chars 3 + 2 markers, CharLSTM of d_model/2 = 4 (2 a direction), 6 positions, 5 fenceposts,
    # 10 spans, 3 non-empty labels
    char = 5 * 2 * flops.lstm_macs(2, 2)
    encoder = 6 * 1 * flops.attention_layer_macs(8, 2, 4, 16, 6, factored=True)
    labels = 5 * 8 * 7 + 10 * 7 * 3
    assert flops.span_parser_flops_per_word(8, 1, 2, 4, 16, 2, 3.0, 7, 4, 4.0) == \
        pytest.approx(6 * (4 * char + encoder + labels) / 4)


def test_matmul_rate_is_positive():
    assert flops.matmul_rate((16, 16, 16), threads=1, repeats=1, min_seconds=0.001) > 0


def test_figures_sum_the_updates_and_skip_the_first_when_asked():
    answer = {"times": [4.0, 1.0, 3.0], "sentences": [10, 10, 10], "words": [100, 200, 100], "first": 4.0}
    f = report.figures_of(answer)
    assert (f.sentences_per_second, f.words_per_second, f.median_seconds) == (3.75, 50.0, 3.0)
    assert (f.updates, f.words) == (3, 400)
    g = report.figures_of(answer, skip_first=True)
    assert (g.words_per_second, g.updates, g.first) == (75.0, 2, 4.0)
    assert report.figures_of({"times": [], "sentences": [], "words": []}) is None
    assert report.median_figures([f, g, f]).words_per_second == 50.0


def test_round_ratios_pair_the_rounds_where_both_ran():
    def fig(words):
        return report.Figures(1.0, words, 1.0, 1, 1, None)

    assert report.round_ratios([fig(200), fig(300), None], [fig(100), None, fig(50)]) == 2.0
    assert report.round_ratios([None], [fig(1)]) is None


def test_rotated_starts_each_round_with_the_next_system():
    assert bench.rotated(["a", "b", "c"], 0) == ["a", "b", "c"]
    assert bench.rotated(["a", "b", "c"], 4) == ["b", "c", "a"]


def test_conllu_words_counts_syntactic_words_only(tmp_path):
    path = tmp_path / "x.conllu"
    path.write_text("# text = a\n1-2\tdon't\n1\tdo\n2\tn't\n3\tgo\n3.1\tx\n\n1\tyes\n")
    assert bench.conllu_words(path) == (2, 4)


def test_a_stopped_worker_leaves_its_printed_updates():
    lines = [json.dumps({"update": [9.0, 32, 700], "to_first": 12.0}), "noise",
             json.dumps({"update": [0.5, 32, 800], "to_first": 12.0})]
    answer = bench.partial_answer("\n".join(lines))
    assert answer["times"] == [9.0, 0.5] and answer["words"] == [700, 800] and answer["first"] == 9.0
    assert answer["partial"] and answer["to_first"] == 12.0
    assert bench.partial_answer("")["times"] == []


class _Trainer:
    def __init__(self):
        self.state = SimpleNamespace(train_sentences=0, train_tokens=0)


def _update(trainer, batch):
    trainer.state.train_sentences += len(batch)
    trainer.state.train_tokens += 10 * len(batch)
    return 0.0


def test_step_clock_times_updates_and_leaves_out_dev_checks(monkeypatch, capsys):
    ticks = iter([0.0, 1.0, 3.0, 3.5, 100.0, 101.0, 104.0])
    monkeypatch.setattr(bench.time, "perf_counter", lambda: next(ticks))
    clock = worker.StepClock(seconds=5.0, profile_updates=0, skip_first=False)  # created at 0
    trainer = _Trainer()
    clock.step(trainer, [1, 2], _update)   # starts at 1
    clock.on_step(None)                    # 3: 2 s
    clock.step(trainer, [3], _update)      # the next starts where the last ended
    clock.on_step(None)                    # 3.5: 0.5 s
    clock.on_eval(None, True, False)       # a dev check: the interval up to the next update is not timed
    clock.step(trainer, [4, 5, 6], _update)  # starts at 100
    with pytest.raises(worker.Enough):
        clock.on_step(None)                # 101: 1 s... not yet 5 s in all
        clock.step(trainer, [7], _update)
        clock.on_step(None)                # 104: 3 s -> 6.5 s: enough
    assert clock.times == [2.0, 0.5, 1.0, 3.0]
    assert clock.sentences == [2, 1, 3, 1] and clock.words == [20, 10, 30, 10]
    assert clock.to_first == 3.0
    assert len(capsys.readouterr().out.strip().splitlines()) == 4
