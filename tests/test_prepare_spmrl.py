"""`mlparse prepare spmrl` on the hand-made SPMRL-layout fixture."""

import json
from pathlib import Path

from typer.testing import CliRunner

from mlparse.cli import app

FIXTURE = Path(__file__).parent / "fixtures" / "spmrl"
runner = CliRunner()


def test_spmrl_fixture_every_root_convention_and_train5k_fallback(tmp_path):
    result = runner.invoke(app, ["prepare", "spmrl", "--source", str(FIXTURE), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "found: german, hebrew, swedish" in result.output
    assert "not found: arabic" in result.output
    out = tmp_path / "spmrl"
    german = (out / "german" / "train.trees").read_text(encoding="utf-8").splitlines()
    assert german[0] == "(TOP (S (NP (ART Der) (NN Hund)) (VVFIN-HD bellt)) ($. .))"  # VROOT, ##features##
    assert len(german) == 3  # train/ wins over train5k/
    hebrew = (out / "hebrew" / "train.trees").read_text(encoding="utf-8").splitlines()
    assert hebrew == [  # ( (S ...)) and a bare (S ...)
        "(TOP (S (NP (NN ילד)) (VP (VB רץ)) (yyDOT .)))",
        "(TOP (S (NP (NNP דני)) (VP (VB אכל)) (yyDOT .)))",
    ]
    swedish = (out / "swedish" / "dev.trees").read_text(encoding="utf-8").splitlines()
    assert swedish == ["(TOP (NP (NN Hej) (MAD !)))"]  # ROOT, lower-case file name
    g = json.loads((out / "german" / "manifest.json").read_text())
    h = json.loads((out / "hebrew" / "manifest.json").read_text())
    assert g["split_definition"]["train"]["pattern"].startswith("gold/ptb/train/")
    assert h["split_definition"]["train"]["pattern"].startswith("gold/ptb/train5k/")
    assert g["evalb_param"] == "spmrl.prm"
    assert "strip_spmrl_features" in g["transforms"]


def test_one_language_and_an_unknown_one(tmp_path):
    result = runner.invoke(app, ["prepare", "spmrl", "-s", str(FIXTURE), "-o", str(tmp_path), "-l", "Swedish"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "spmrl").iterdir()) == ["swedish"]
    result = runner.invoke(app, ["prepare", "spmrl", "-s", str(FIXTURE), "-l", "german,french"])
    assert result.exit_code == 2
    assert "spmrl/french: looked for a folder 'FRENCH_SPMRL'" in result.output
    result = runner.invoke(app, ["prepare", "spmrl", "-s", str(FIXTURE), "-l", "latin"])
    assert result.exit_code == 2 and "unknown language(s) for spmrl: latin" in result.output
