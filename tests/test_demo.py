"""``mlparse demo``: finds data or falls back to the synthetic treebank, trains, prints scores."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mlparse.data.sources as sources
from mlparse.cli import app


@pytest.fixture
def nowhere(tmp_path, monkeypatch):
    """A world with no WSJ sample: empty cwd, no $MLPARSE_DATA, no ../shared, no NLTK data."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(sources.DATA_ENV, raising=False)
    monkeypatch.setattr(sources, "REPO_ROOT", tmp_path / "repo")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COLUMNS", "200")
    return tmp_path


def test_demo_falls_back_to_synthetic_treebank_and_says_so(nowhere):
    result = CliRunner().invoke(app, ["demo", "--prepare-only", "--source", str(nowhere / "missing")])
    assert result.exit_code == 0, result.output
    assert "No WSJ sample found" in result.output
    assert "missing (does not exist)" in " ".join(result.output.split())  # rich wraps a long path anywhere
    manifest = json.loads((nowhere / "data" / "synthetic" / "english" / "manifest.json").read_text())
    assert manifest["splits"]["train"]["sentences"] > 0


@pytest.mark.slow
def test_demo_trains_and_prints_dev_and_test_scores(nowhere):
    result = CliRunner().invoke(app, ["demo", "--minutes", "0.1"])
    assert result.exit_code == 0, result.output
    results_files = list(Path("runs").glob("demo-synthetic/*/results.json"))
    assert len(results_files) == 1
    results = json.loads(results_files[0].read_text())
    assert results["status"] == "complete"
    for split in ("dev", "test"):
        f1 = results[split]["f1"]
        assert f"{f1:.2f}" in result.output
    # A second demo shows the finished run instead of training again.
    again = CliRunner().invoke(app, ["demo", "--minutes", "0.1"])
    assert again.exit_code == 0, again.output
    assert "A finished demo run exists" in again.output
