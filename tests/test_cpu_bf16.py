"""``train.cpu_bf16``: the packed LSTM kernel with its products in bfloat16 stays close to the exact kernel, its
zero rows change nothing, dev checks and parsing multiply exactly, and the trainer turns it on only where it
can pay (a CPU with AMX, a model with a BiLSTM encoder), saying why otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch import nn

from mlparse.config import load_recipe
from mlparse.config.hashing import hash_payload
from mlparse.models.dep_parser import BiaffineParser
from mlparse.modules import packed_lstm
from mlparse.modules.bilstm_encoder import BiLSTMEncoder
from mlparse.modules.packed_lstm import PackedLayout, packed_bidirectional_layer
from mlparse.tasks.dependency import DependencyTask
from mlparse.train import checkpoint
from mlparse.train.cpu_bf16 import apply_cpu_bf16
from mlparse.train.trainer import Reporter, Trainer
from helpers.dep_fixtures import write_dep_recipe

LENGTHS = [7, 3, 1, 5, 7, 2]


def _layer_and_rows(lengths: list, seed: int = 0) -> tuple:
    torch.manual_seed(seed)
    lstm = nn.LSTM(12, 16, batch_first=True, bidirectional=True)
    layout = PackedLayout.of(lengths, max(lengths))
    rows = torch.randn(layout.words, 12, requires_grad=True)
    return lstm, layout, rows


def _output_and_gradients(products, lengths: list = LENGTHS) -> tuple:  # type: ignore[no-untyped-def]
    lstm, layout, rows = _layer_and_rows(lengths)
    out = packed_bidirectional_layer(lstm, rows, layout, products)
    weights = torch.randn(out.shape, generator=torch.Generator().manual_seed(1))
    (out * weights).sum().backward()
    return (out.detach(), rows.grad, *(p.grad for p in lstm.parameters()))


def _relative_error(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a.detach() - b.detach()).norm() / b.detach().norm())


def test_bfloat16_products_stay_within_bfloat16_rounding_of_the_exact_kernel() -> None:
    exact = _output_and_gradients(None)
    rounded = _output_and_gradients(torch.bfloat16)
    errors = [_relative_error(r, e) for r, e in zip(rounded, exact)]
    assert all(r.dtype == torch.float32 for r in rounded)
    assert max(errors) < 8e-3  # bfloat16 keeps 8 bits: about 4e-3 a rounding (a 1% error in a gradient fails)
    assert min(errors) > 0  # it is another arithmetic, not the exact one under another name


@pytest.mark.parametrize("lengths", [LENGTHS, list(range(1, 60)), [64, 64]],
                         ids=["25 words", "1770 words, 14 blocks", "128 words, no zero row"])
def test_the_zero_rows_up_to_the_row_quantum_change_nothing(monkeypatch: pytest.MonkeyPatch, lengths: list) -> None:
    quantised = _output_and_gradients(torch.bfloat16, lengths)
    monkeypatch.setattr(packed_lstm, "ROW_QUANTUM", 1)  # no zero rows
    plain = _output_and_gradients(torch.bfloat16, lengths)
    for a, b in zip(quantised, plain):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)


def test_the_encoder_multiplies_exactly_outside_training() -> None:
    torch.manual_seed(0)
    encoder = BiLSTMEncoder(12, 16, num_layers=2, dropout=0.0)
    encoder.cpu_kernel = "packed"
    x = torch.randn(len(LENGTHS), max(LENGTHS), 12)
    mask = torch.arange(max(LENGTHS))[None, :] < torch.tensor(LENGTHS)[:, None]
    exact_train, exact_eval = encoder(x, mask, LENGTHS), encoder.eval()(x, mask, LENGTHS)
    encoder.training_products = torch.bfloat16
    assert torch.equal(encoder(x, mask, LENGTHS), exact_eval)  # eval(): dev checks and parsing
    rounded = encoder.train()(x, mask, LENGTHS)
    assert not torch.equal(rounded, exact_train)
    assert _relative_error(rounded, exact_train) < 8e-3


def test_auto_runs_the_packed_kernel_in_training_when_products_are_bfloat16(monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch where ``auto`` would take oneDNN's padded layer (few rows of one length: the tagger's buckets) runs the
    packed kernel, the only one with bfloat16 products, once they are set; in eval ``auto`` is as before."""
    encoder = BiLSTMEncoder(12, 16, num_layers=1, dropout=0.0)
    lengths = [5, 5, 5]
    x, mask = torch.randn(3, 5, 12), torch.ones(3, 5, dtype=torch.bool)
    seen: list = []
    monkeypatch.setattr("mlparse.modules.bilstm_encoder.packed_bidirectional_layer",
                        lambda lstm, rows, layout, products=None: seen.append(products) or
                        packed_bidirectional_layer(lstm, rows, layout, products))
    encoder(x, mask, lengths)
    assert seen == []  # auto: padded, as packed_pays says for this batch
    encoder.training_products = torch.bfloat16
    encoder(x, mask, lengths)
    assert seen == [torch.bfloat16]
    encoder.eval()(x, mask, lengths)
    assert seen == [torch.bfloat16]  # eval: exact, by the padded path as before


def test_apply_sets_every_bilstm_encoder_or_says_why_not() -> None:
    model = nn.ModuleList([BiLSTMEncoder(4, 3, 1), nn.Sequential(BiLSTMEncoder(6, 3, 2))])
    encoders = [m for m in model.modules() if isinstance(m, BiLSTMEncoder)]
    cpu = torch.device("cpu")
    assert apply_cpu_bf16(model, True, cpu, has_units=True) is None
    assert all(e.training_products == torch.bfloat16 for e in encoders)
    assert apply_cpu_bf16(model, False, cpu, has_units=True) is None  # off: back to exact
    assert all(e.training_products is None for e in encoders)
    note = apply_cpu_bf16(model, True, cpu, has_units=False)
    assert "no AMX" in note and all(e.training_products is None for e in encoders)
    assert "CPU training only" in apply_cpu_bf16(model, True, torch.device("cuda"), has_units=True)
    assert "no BiLSTM encoder" in apply_cpu_bf16(nn.Linear(2, 2), True, cpu, has_units=True)


def test_the_key_is_hashed_only_when_on(tmp_path: Path) -> None:
    recipe = write_dep_recipe(tmp_path, model={"encoder": "bilstm"})
    off, on = load_recipe(recipe), load_recipe(recipe, ["train.cpu_bf16=true"])
    assert "cpu_bf16" not in hash_payload(off)["train"]  # run ids as before the key
    assert off.hash() != on.hash()


class _Notes(Reporter):
    def __init__(self) -> None:
        self.notes: list = []

    def on_note(self, message: str) -> None:
        self.notes.append(message)


@pytest.mark.parametrize("has_units", [True, False])
def test_the_trainer_turns_it_on_where_it_pays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               has_units: bool) -> None:
    monkeypatch.setattr("mlparse.train.cpu_bf16.cpu_has_amx", lambda: has_units)
    config = load_recipe(write_dep_recipe(tmp_path, model={"encoder": "bilstm"}),
                         ["train.cpu_bf16=true", "biaffine.lstm_hidden=8", "biaffine.lstm_layers=1",
                          "train.max_updates=2"])
    task = DependencyTask()
    train = task.read_split(Path(config.data.train))
    torch.manual_seed(0)
    model = BiaffineParser.build(config, train.examples)
    notes = _Notes()
    trainer = Trainer(config, model, task, train, [model.gold(e) for e in train.examples], train,
                      checkpoint.CheckpointFiles(tmp_path / "checkpoints"), torch.device("cpu"), reporter=notes)
    encoder = model.input.encoder
    assert encoder.training_products == (torch.bfloat16 if has_units else None)
    assert any("no AMX" in n for n in notes.notes) != has_units
    seen: list = []
    monkeypatch.setattr("mlparse.modules.bilstm_encoder.packed_bidirectional_layer",
                        lambda lstm, rows, layout, products=None: seen.append((products, lstm.training)) or
                        packed_bidirectional_layer(lstm, rows, layout, products))
    state = trainer.fit()  # the kernel trains with it, and dev checks multiply exactly
    assert state.step == 2 and all(torch.isfinite(p).all() for p in model.parameters())
    trained = {products for products, training in seen if training}
    assert trained == ({torch.bfloat16} if has_units else {None})
    assert {products for products, training in seen if not training} <= {None}


def test_mlparse_run_with_cpu_bf16_from_another_folder_writes_relative_runs(tmp_path: Path) -> None:
    """As docs/protocol.md tells a user: ``mlparse run RECIPE --set train.cpu_bf16=true`` from a working folder of
    one's own, the default relative ``runs`` folder. On a CPU with AMX the run trains in bfloat16; without, it
    says why and trains in float32; either way results.json records the CPU's AMX and the recipe's setting."""
    import json
    import os
    import subprocess
    import sys

    import yaml

    from mlparse.train.cpu_bf16 import cpu_has_amx

    recipe = write_dep_recipe(tmp_path / "recipe", model={"encoder": "bilstm"})
    work = tmp_path / "work"
    work.mkdir()
    env = dict(os.environ, OMP_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-m", "mlparse", "run", str(recipe), "--set", "train.cpu_bf16=true",
                           "--set", "biaffine.lstm_hidden=8", "--set", "biaffine.lstm_layers=1",
                           "--set", "train.max_updates=2"],
                          cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    found = list((work / "runs").rglob("results.json"))
    assert len(found) == 1  # under the working folder's runs/, nowhere else
    results = json.loads(found[0].read_text(encoding="utf-8"))
    assert results["status"] == "complete" and results["hardware"]["cpu_amx"] == cpu_has_amx()
    saved = yaml.safe_load((found[0].parent / "recipe.yaml").read_text(encoding="utf-8"))
    assert saved["train"]["cpu_bf16"] is True
    said_why = any("no AMX" in note for note in results["notes"])
    assert said_why != cpu_has_amx() and said_why == ("no AMX" in done.stdout + done.stderr)
