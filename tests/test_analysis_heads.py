"""``mlparse analyze --heads``: label attention head contributions to the predicted spans (Mrini et al. 2020,
Figures 6 and 8), the top heads per label, charts, and one span's head-to-word attention."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from typer.testing import CliRunner

from helpers.joint_fixtures import write_joint_recipe
from mlparse.analysis.head_contributions import span_contributions
from mlparse.cli import app
from mlparse.config import load_recipe
from mlparse.run_dir import RunDir
from mlparse.train.runner import RunOptions, run_recipe


def test_a_spans_head_contributions_are_its_heads_shares_of_the_span_vector() -> None:
    heads, d = 3, 4
    h = torch.zeros(1, 5, heads * d)
    h[0, :, d:2 * d] = torch.arange(5.0)[:, None]  # only head 1 changes along the sentence
    h[0, :, 2 * d:] = torch.arange(5.0)[:, None] * torch.tensor([3.0, 3.0, 0.0, 0.0])  # head 2: forward half only
    rows, left, right = torch.tensor([0, 0]), torch.tensor([0, 1]), torch.tensor([2, 3])
    shares = span_contributions(h, heads, rows, left, right)
    assert torch.allclose(shares.sum(-1), torch.ones(2))
    # spans of two words: head 1 differs by 2 on all four features (mean 2), head 2 by 6 on its two forward
    # features and 0 on its backward ones (mean 3): shares 2/5 and 3/5
    assert torch.allclose(shares, torch.tensor([[0.0, 0.4, 0.6], [0.0, 0.4, 0.6]]))
    h[0, :, 2 * d:] = 0
    assert torch.allclose(span_contributions(h, heads, rows, left, right), torch.tensor([[0.0, 1.0, 0.0]] * 2))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("heads")
    trained = {}
    for name, feed_forward in (("plain", False), ("ff", True)):
        config = load_recipe(write_joint_recipe(tmp / name, joint={"lal_feed_forward": feed_forward},
                                                train={"max_epochs": 2 if feed_forward else 3}))
        run_recipe(config, RunOptions(runs_dir=tmp / name / "runs"))
        trained[name] = RunDir.for_recipe(tmp / name / "runs", config).path
    return trained


def test_analyze_heads_writes_tables_charts_and_a_spans_attention(runs, tmp_path: Path) -> None:
    out = tmp_path / "analysis"
    result = CliRunner().invoke(app, ["analyze", "--model", str(runs["plain"]), "--heads", "--sentence", "7",
                                      "--span", "0,3", "--output-dir", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads((out / "heads-dev.json").read_text())
    assert data["heads"] == 4 and data["sentences"] == 8 and data["labels"]
    for entry in data["labels"]:
        assert abs(sum(entry["average"]) - 1.0) < 1e-6  # a span's contributions sum to 1, so do their averages
        assert abs(sum(percent for _, percent in entry["top"]) - 100.0) < 0.05
        assert [percent for _, percent in entry["top"]] == sorted((p for _, p in entry["top"]), reverse=True)
    spans = [entry["spans"] for entry in data["labels"]]
    assert spans == sorted(spans, reverse=True)
    attention = data["attention"]
    assert (attention["sentence"], attention["start"], attention["end"]) == (7, 0, 3)
    assert attention["words"] == ["the", "big", "dog"]
    assert abs(sum(attention["contributions"]) - 1.0) < 1e-3
    for head in attention["heads"]:  # every word of the sentence with start and stop, weights summing to 1
        assert len(head["attention"]) == 10 and abs(sum(w for _, w in head["attention"]) - 1.0) < 1e-3
    assert data["charts"] and all((out / name).read_bytes().startswith(b"\x89PNG") for name in data["charts"])
    markdown = (out / "heads-dev.md").read_text()
    assert "Top-contributing heads per predicted label" in markdown and "Head-to-word attention" in markdown


def test_analyze_heads_refuses_a_model_with_the_feed_forward_layer_and_bad_spans(runs) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["analyze", "--model", str(runs["ff"]), "--heads"])
    assert result.exit_code == 1 and "joint.lal_feed_forward: false" in result.output
    result = runner.invoke(app, ["analyze", "--model", str(runs["plain"]), "--heads", "--sentence", "1",
                                 "--span", "0,9"])
    assert result.exit_code == 1 and "sentence 1 has 4 words" in result.output
    result = runner.invoke(app, ["analyze", "--model", str(runs["plain"]), "--heads", "--span", "0,2"])
    assert result.exit_code == 2 and "--sentence and --span go together" in result.output
