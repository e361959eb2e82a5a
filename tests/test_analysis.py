"""Attention analysis (Kitaev & Klein 2018, §4): probes, their plumbing, windowed training, `mlparse analyze`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Tuple

import pytest
import torch
from typer.testing import CliRunner

from mlparse.analysis.attention_probes import (
    ABLATION,
    BASELINE,
    WINDOW,
    Probe,
    ablation_probes,
    layer_description,
    run_probes,
    window_probes,
)
from mlparse.analysis.render import to_markdown
from mlparse.cli import app
from mlparse.config import ConfigError, ModelConfig, SpanConfig, load_recipe, recipe_from_yaml_text
from mlparse.config.layout import split_model_settings
from mlparse.models.span_parser import SpanParser, build_parser
from mlparse.modules.attention import AttentionWindow
from mlparse.run_dir import RunDir
from mlparse.train.runner import RunOptions, run_recipe
from helpers.run_fixtures import TINY_MODEL, TINY_SPAN, tiny_trees, write_tiny_recipe

runner = CliRunner()


def tiny_parser(**overrides: object) -> SpanParser:
    torch.manual_seed(0)
    model, span = split_model_settings(overrides)
    settings = {**TINY_MODEL, "num_layers": 4, **model}
    return build_parser(ModelConfig(**settings), tiny_trees(), span=SpanConfig(**{**TINY_SPAN, **span})).eval()  # type: ignore[arg-type]


def test_paper_table_1_rows_for_eight_layers() -> None:
    probes = ablation_probes(8)
    rows = [(layer_description(p.content_layers, 8), layer_description(p.position_layers, 8)) for p in probes]
    assert rows == [
        ("all 8 layers", "all 8 layers"),
        ("all 8 layers", "disabled"),
        ("disabled", "all 8 layers"),
        ("first 4 layers only", "all 8 layers"),
        ("last 4 layers only", "all 8 layers"),
        ("first 6 layers only", "all 8 layers"),
        ("last 6 layers only", "all 8 layers"),
    ]
    assert probes[0].kind == BASELINE and all(p.kind == ABLATION for p in probes[1:])


def test_ablation_rows_shrink_without_duplicates_for_two_layers() -> None:
    probes = ablation_probes(2)
    keys = [(p.content_layers, p.position_layers) for p in probes]
    assert len(keys) == len(set(keys)) == 5  # 3/4 of 2 layers rounds to both layers: the baseline again, dropped
    assert ((0,), (0, 1)) in keys and ((1,), (0, 1)) in keys


def test_probe_ablation_maps_layers_to_dropped_parts() -> None:
    probe = Probe("x", ABLATION, content_layers=(2, 3), position_layers=(0, 1, 2, 3))
    assert probe.ablation(4) == {0: frozenset({"content"}), 1: frozenset({"content"})}
    assert Probe("y", ABLATION, (), ()).ablation(2) == {0: frozenset({"content", "position"}),
                                                        1: frozenset({"content", "position"})}


def test_window_probes_pair_strict_and_relaxed() -> None:
    probes = window_probes(3, [5, 10])
    assert [(p.window.size, p.window.relaxed) for p in probes] == [(5, False), (5, True), (10, False), (10, True)]
    assert all(p.kind == WINDOW and p.content_layers == (0, 1, 2) for p in probes)
    with pytest.raises(ValueError, match="at least 1"):
        window_probes(3, [0])


def test_each_probe_reaches_the_encoder_and_the_model_is_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    parser = tiny_parser()
    gold = tiny_trees()
    before = [t.to_bracketed() for t in parser.parse([[(l.tag, l.word) for l in t.leaves()] for t in gold])]
    seen: List[Tuple[Tuple, Tuple]] = []
    original = parser.parse

    def spy(sentences, decoder="cython"):  # type: ignore[no-untyped-def]
        layers = parser.encoder.layers
        seen.append((tuple(tuple(sorted(layer.attention.ablate)) for layer in layers),
                     tuple(layer.attention.window for layer in layers)))
        return original(sentences, decoder=decoder)

    monkeypatch.setattr(parser, "parse", spy)
    probes = ablation_probes(4) + window_probes(4, [3])
    baseline, results = run_probes(parser, gold, "COLLINS.prm", probes, budget=10_000)
    assert len(results) == len(probes) - 1  # the baseline probe is the baseline, not a row
    by_call = seen  # one parse call per probe (one sub-batch), baseline first
    assert by_call[0] == (((),) * 4, (None,) * 4)
    content_first_two = by_call[1 + [p.name for p in probes[1:]].index("content in first 2 only")]
    assert content_first_two[0] == ((), (), ("content",), ("content",))
    strict = by_call[-2][1]
    assert strict == (AttentionWindow(3, relaxed=False),) * 4
    monkeypatch.undo()
    assert all(not layer.attention.ablate and layer.attention.window is None for layer in parser.encoder.layers)
    after = [t.to_bracketed() for t in parser.parse([[(l.tag, l.word) for l in t.leaves()] for t in gold])]
    assert after == before


def test_a_window_wider_than_every_sentence_changes_nothing() -> None:
    parser = tiny_parser()
    gold = tiny_trees()
    longest = max(len(t.leaves()) for t in gold)
    baseline, results = run_probes(parser, gold, "COLLINS.prm", window_probes(4, [longest + 2]))
    assert [r.delta_f1 for r in results] == [0.0, 0.0]
    assert all(r.scores.f1 == baseline.f1 for r in results)


def test_a_narrow_window_changes_the_span_scores() -> None:
    parser = tiny_parser()
    batch = parser.make_batch([[(l.tag, l.word) for l in tiny_trees()[6].leaves()]])
    with torch.no_grad():
        full, _ = parser(batch)
        parser.encoder.set_window(AttentionWindow(1))
        narrow, _ = parser(batch)
    assert not torch.allclose(full, narrow)


def test_ablation_of_an_unfactored_model_is_refused() -> None:
    parser = tiny_parser(factored=False)
    with pytest.raises(ValueError, match="factored"):
        run_probes(parser, tiny_trees(), "COLLINS.prm", ablation_probes(4))


def test_windowed_training_setting_is_part_of_the_model() -> None:
    parser = tiny_parser(attention_window=2, attention_window_relaxed=True)
    assert all(layer.attention.window == AttentionWindow(2, relaxed=True) for layer in parser.encoder.layers)
    again = SpanParser.from_spec(parser.spec())
    assert all(layer.attention.window == AttentionWindow(2, relaxed=True) for layer in again.encoder.layers)
    # probes put the trained window back afterwards
    run_probes(parser, tiny_trees(), "COLLINS.prm", window_probes(4, [1]))
    assert all(layer.attention.window == AttentionWindow(2, relaxed=True) for layer in parser.encoder.layers)


def test_an_old_checkpoint_spec_without_the_window_keys_loads() -> None:
    parser = tiny_parser()
    spec = parser.spec()
    for key in ("attention_window", "attention_window_relaxed"):
        spec["model_config"].pop(key)  # type: ignore[union-attr]
    assert SpanParser.from_spec(spec).trained_window() is None


@pytest.mark.parametrize("text, message", [
    ("model: {attention_window: 0}", "attention_window is a distance"),
    ("model: {attention_window_relaxed: true}", "needs a model.attention_window"),
])
def test_window_recipe_errors(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        recipe_from_yaml_text(text)


def test_new_switches_at_their_defaults_keep_existing_run_ids() -> None:
    """Run ids handed out before the window switches existed stay valid (or every run would start over)."""
    plain = recipe_from_yaml_text("name: x")
    windowed = recipe_from_yaml_text("name: x\nmodel: {attention_window: 5}")
    assert "attention_window" not in json.dumps(plain.to_dict()["train"])
    assert plain.hash() != windowed.hash()
    # the id of the bundled demo recipe, as handed out before model.attention_window was added
    demo = Path(__file__).resolve().parents[1] / "recipes" / "demo.yaml"
    assert load_recipe(demo, ["train.subbatch_tokens=400"]).hash()[:12] == DEMO_RUN_ID  # the recipe as it was then


DEMO_RUN_ID = "110be667da3c"  # what the code before model.attention_window gave recipes/demo.yaml


@pytest.fixture(scope="module")
def trained_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp_path = tmp_path_factory.mktemp("analyze")
    recipe = write_tiny_recipe(tmp_path, model={"num_layers": 2, "max_len": 12}, train={"max_epochs": 3})
    config = load_recipe(recipe)
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    return RunDir.for_recipe(tmp_path / "runs", config).path


def test_analyze_command_writes_both_tables(trained_run: Path) -> None:
    result = runner.invoke(app, ["analyze", "--model", str(trained_run), "--windows", "2,4", "--max-sentences", "6"])
    assert result.exit_code == 0, result.output
    data = json.loads((trained_run / "analysis" / "dev.json").read_text())
    assert data["sentences"] == 6 and data["num_layers"] == 2
    names = [probe["name"] for probe in data["probes"]]
    assert names[:2] == ["position disabled", "content disabled"]
    assert names[-4:] == ["strict window 2", "relaxed window 2", "strict window 4", "relaxed window 4"]
    for probe in data["probes"]:
        assert probe["delta_f1"] == pytest.approx(probe["scores"]["f1"] - data["baseline"]["f1"], abs=1e-3)
    markdown = (trained_run / "analysis" / "dev.md").read_text()
    assert "| Content attention | Position attention | F1 | Δ F1 |" in markdown
    assert "| ∞ |" in markdown
    assert "relaxed" in result.output or "relaxed" in result.stdout


def test_analyze_command_errors(trained_run: Path, tmp_path: Path) -> None:
    bad = runner.invoke(app, ["analyze", "--model", str(tmp_path)])
    assert bad.exit_code == 1 and "no recipe.yaml" in bad.output
    bad = runner.invoke(app, ["analyze", "--model", str(trained_run), "--windows", "3,x"])
    assert bad.exit_code == 2 and "--windows" in bad.output
    missing = runner.invoke(app, ["analyze", "--model", str(trained_run), "--data", str(tmp_path / "none.trees")])
    assert missing.exit_code == 1 and "not found" in missing.output
    assert "Traceback" not in bad.output + missing.output


def test_markdown_lists_every_probe() -> None:
    parser = tiny_parser()
    from mlparse.analysis.attention_probes import analyze

    analysis = analyze(parser, tiny_trees(), "COLLINS.prm", run_dir="r", split="dev", data="d", windows=[2])
    text = to_markdown(analysis)
    assert text.count("\n| ") == 1 + 1 + len(ablation_probes(4)) - 1 + 1 + 1 + 1  # headers, rows, ∞
