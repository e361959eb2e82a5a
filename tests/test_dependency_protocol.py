"""Issue 23 §1-§2: PTB scoring leaves out the treebank's own punctuation, and CLAS/MLAS/BLEX exist only over
UD relations (:mod:`mlparse.tasks.dependency_protocol`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import pytest
import yaml
from typer.testing import CliRunner

from depeval.cli import main as depeval_main
from mlparse.cli import app
from mlparse.config import ConfigError, load_recipe
from mlparse.data.catalog import punctuation_for
from mlparse.results import COMPLETE, RunResults
from mlparse.run_dir import RunDir
from mlparse.tasks.dependency import DependencyTask
from mlparse.tasks.dependency_protocol import UD_RELATIONS, non_ud_relations, resolve_punctuation
from mlparse.train.runner import RunOptions, run_recipe
from mlparse.trees.dependency import DependencyPrediction
from helpers.dep_fixtures import write_dep_recipe


def block(words: List[str], xpos: List[str], heads: List[int], deprels: List[str], upos: Optional[List[str]] = None) -> str:
    upos = upos or ["X"] * len(words)
    rows = [f"{k}\t{w}\t_\t{u}\t{x}\t_\t{h}\t{r}\t_\t_" for k, (w, u, x, h, r)
            in enumerate(zip(words, upos, xpos, heads, deprels), start=1)]
    return "\n".join(rows) + "\n\n"


#: A CTB-style sentence: two words and a final PU.  The system gets only the PU word's head wrong.
CTB_GOLD = block(["他", "来", "。"], ["PN", "VV", "PU"], [2, 0, 2], ["nsubj", "root", "punct"])
CTB_SYSTEM = block(["他", "来", "。"], ["PN", "VV", "PU"], [2, 0, 1], ["nsubj", "root", "punct"])


def _recipe(tmp_path: Path, gold: str, overrides: List[str], family: str = "tiny", language: str = "english"):
    path = write_dep_recipe(tmp_path, train={"max_epochs": 1}, dev_text=gold)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["data"].update(family=family, language=language)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return load_recipe(path, overrides)


def _score(tmp_path: Path, gold: str, system: str, overrides: List[str], **data):
    config = _recipe(tmp_path, gold, overrides, **data)
    task = DependencyTask()
    split = task.read_split(Path(config.data.dev))
    predicted = DependencyTask().read_split(_write(tmp_path / "system.conllu", system)).examples
    predictions = [DependencyPrediction(list(s.heads), list(s.deprels)) for s in predicted]
    return task.score(split, predictions, config)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# -- §1: punctuation per treebank ---------------------------------------------------------------------------------
def test_a_ctb_sentence_whose_only_wrong_head_is_pu_scores_100_with_the_recipes_punct_tags(tmp_path: Path) -> None:
    outcome = _score(tmp_path, CTB_GOLD, CTB_SYSTEM, ["eval.dependency_scoring=ptb", "eval.punct_tags=[PU]"],
                     family="ctb", language="chinese")
    assert (outcome.scores.uas, outcome.scores.las) == (100.0, 100.0)
    assert outcome.protocol["punct_tags"] == ["PU"] and outcome.protocol["punct_column"] == "xpos"
    assert outcome.protocol["punct_source"] == "recipe"
    assert "gold XPOS in PU" in outcome.report


def test_data_the_catalog_does_not_describe_falls_back_to_the_ptb_tags_and_says_so(tmp_path: Path) -> None:
    outcome = _score(tmp_path, CTB_GOLD, CTB_SYSTEM, ["eval.dependency_scoring=ptb"], family="ctb", language="chinese")
    assert outcome.scores.uas == 66.6667  # PU is not a PTB tag: the bug of issue 23 without eval.punct_tags
    assert outcome.protocol["punct_source"] == "default (PTB)"
    results = RunResults(dataset="ctb", language="chinese")
    results.record_dependency_scoring(outcome.protocol)
    assert any("eval.punct_tags" in note and "ctb/chinese" in note for note in results.notes)


def test_the_catalog_names_each_families_punctuation() -> None:
    ptb = punctuation_for("ptb", "english")
    assert ptb.tags == ("``", "''", ":", ",", ".") and ptb.column == "xpos"
    assert punctuation_for("ptb-sample", "english") == ptb == punctuation_for("free", "english")
    sinica = punctuation_for("free", "chinese")
    assert "COMMACATEGORY" in sinica.tags and "PERIODCATEGORY" in sinica.tags and sinica.column == "xpos"
    ud = punctuation_for("ud", "UD_English-EWT")
    assert (ud.tags, ud.column) == (("PUNCT",), "upos")
    assert punctuation_for("ud", "UD_Anything-Found") == ud  # any UD_* folder: the family's defaults
    assert punctuation_for("ctb", "chinese") is None and punctuation_for("spmrl", "hebrew") is None


def test_a_sinica_sentence_is_scored_without_its_category_punctuation(tmp_path: Path) -> None:
    gold = block(["他", "來", "。"], ["Nh", "VA", "PERIODCATEGORY"], [2, 0, 2], ["agent", "root", "punct"])
    system = block(["他", "來", "。"], ["Nh", "VA", "PERIODCATEGORY"], [2, 0, 1], ["agent", "root", "punct"])
    outcome = _score(tmp_path, gold, system, ["eval.dependency_scoring=ptb"], family="free", language="chinese")
    assert outcome.scores.uas == 100.0 and outcome.protocol["punct_source"] == "catalog free/chinese"


def test_ud_data_under_ptb_scoring_leaves_out_upos_punct(tmp_path: Path) -> None:
    gold = block(["Hi", "you", "!"], ["UH", "PRP", "."], [0, 1, 1], ["root", "vocative", "punct"],
                 upos=["INTJ", "PRON", "PUNCT"])
    system = block(["Hi", "you", "!"], ["UH", "PRP", "."], [0, 1, 2], ["root", "vocative", "punct"],
                   upos=["INTJ", "PRON", "PUNCT"])
    config = _recipe(tmp_path, gold, ["eval.dependency_scoring=ptb"], family="ud", language="UD_English-EWT")
    assert resolve_punctuation(config).column == "upos"
    outcome = _score(tmp_path, gold, system, ["eval.dependency_scoring=ptb"], family="ud", language="UD_English-EWT")
    assert outcome.scores.uas == 100.0 and outcome.protocol["punct_tags"] == ["PUNCT"]


def test_punct_settings_are_checked_and_need_ptb_scoring(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="needs eval.dependency_scoring: ptb"):
        _recipe(tmp_path, CTB_GOLD, ["eval.punct_tags=[PU]"])
    with pytest.raises(ConfigError, match="punct_column must be one of xpos, upos"):
        _recipe(tmp_path, CTB_GOLD, ["eval.dependency_scoring=ptb", "eval.punct_column=lemma"])
    with pytest.raises(ConfigError, match="at least one non-empty tag"):
        _recipe(tmp_path, CTB_GOLD, ["eval.dependency_scoring=ptb", "eval.punct_tags=[]"])
    plain = _recipe(tmp_path, CTB_GOLD, [])
    with_default = _recipe(tmp_path, CTB_GOLD, ["eval.punct_tags=null"])
    assert plain.hash() == with_default.hash()  # null (the catalog's) is hash-neutral: existing run ids stay


@pytest.mark.parametrize("tags", [["--punct-tags", "PU"], ["--punct-tags", "PU,PUNCT"], ["--punct-tags", "X", "--punct-tags", "PU"]])
def test_depeval_ptb_punct_takes_the_treebanks_tags(tmp_path: Path, tags: List[str], capsys) -> None:
    gold, system = _write(tmp_path / "gold.conllu", CTB_GOLD), _write(tmp_path / "system.conllu", CTB_SYSTEM)
    assert depeval_main(["--ptb-punct", str(gold), str(system)]) == 0
    assert "UAS F1 Score: 66.67" in capsys.readouterr().out  # the PTB default: PU counted
    assert depeval_main(["--ptb-punct", *tags, str(gold), str(system)]) == 0
    out = capsys.readouterr().out
    assert "UAS F1 Score: 100.00" in out and "PU" in out.splitlines()[0]
    result = CliRunner().invoke(app, ["depeval", "--ptb-punct", *tags, str(gold), str(system)])
    assert result.exit_code == 0 and "UAS F1 Score: 100.00" in result.output


def test_depeval_refuses_punct_tags_without_ptb_punct_and_keeps_the_comma_tag(tmp_path: Path, capsys) -> None:
    gold, system = _write(tmp_path / "gold.conllu", CTB_GOLD), _write(tmp_path / "system.conllu", CTB_SYSTEM)
    with pytest.raises(SystemExit):
        depeval_main(["--punct-tags", "PU", str(gold), str(system)])
    assert "needs --ptb-punct" in capsys.readouterr().err
    from depeval.ptb import parse_punct_tags

    assert parse_punct_tags([",", "PU,.", "PU"]) == (",", "PU", ".")
    result = CliRunner().invoke(app, ["depeval", "--punct-tags", "PU", str(gold), str(system)])
    assert result.exit_code == 1 and "needs --ptb-punct" in result.output


# -- §2: only metrics that mean something -------------------------------------------------------------------------
DERIVED_GOLD = block(["John", "saw", "Mary"], ["NNP", "VBD", "NNP"], [2, 0, 2], ["S/VP/NP", "root", "VP/VBD/NP"])
UD_GOLD = block(["John", "saw", "Mary"], ["NNP", "VBD", "NNP"], [2, 0, 2], ["nsubj", "root", "obj"])


def test_clas_mlas_blex_are_absent_for_collins_derived_relations_and_the_reason_is_given(tmp_path: Path) -> None:
    outcome = _score(tmp_path, DERIVED_GOLD, DERIVED_GOLD, [])
    assert outcome.scores.las == 100.0
    assert (outcome.scores.clas, outcome.scores.mlas, outcome.scores.blex) == (None, None, None)
    assert outcome.protocol["ud_relations"] is False and outcome.protocol["content_metrics"] == []
    assert "S/VP/NP" in outcome.protocol["absent_reason"] and "not UD v2 relations" in outcome.protocol["absent_reason"]
    assert "CLAS, MLAS and BLEX are left out" in outcome.report


def test_clas_mlas_blex_are_recorded_for_ud_relations_with_subtypes(tmp_path: Path) -> None:
    gold = UD_GOLD.replace("\tnsubj\t", "\tnsubj:pass\t")
    outcome = _score(tmp_path, gold, gold, [])
    assert (outcome.scores.clas, outcome.scores.mlas, outcome.scores.blex) == (100.0, 100.0, 100.0)
    assert outcome.protocol["ud_relations"] is True and outcome.protocol["content_metrics"] == ["clas", "mlas", "blex"]


def test_the_ud_relation_check() -> None:
    assert len(UD_RELATIONS) == 37
    assert non_ud_relations(["nsubj", "obl:tmod", "root", "punct"]) == []
    assert non_ud_relations(["theme", "root", "goal", "theme", "dobj"]) == ["theme", "goal", "dobj"]  # Sinica; UD v1


def test_a_run_on_derived_relations_records_the_protocol_and_the_report_says_why_clas_is_absent(tmp_path: Path) -> None:
    text = (DERIVED_GOLD + UD_GOLD.replace("\tnsubj\t", "\tNP/NNP/x\t")) * 2
    path = write_dep_recipe(tmp_path, train={"max_epochs": 1}, dev_text=text)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["data"]["train"] = data["data"]["dev"]
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    config = load_recipe(path, ["eval.dependency_scoring=ptb"])
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    assert results.status == COMPLETE and results.dev.clas is None and results.test.blex is None
    saved = json.loads(RunDir.for_recipe(tmp_path / "runs", config).results.read_text(encoding="utf-8"))
    scoring = saved["dependency_scoring"]
    assert scoring["convention"] == "ptb" and scoring["punct_tags"] == ["``", "''", ":", ",", "."]
    assert scoring["punct_column"] == "xpos" and scoring["ud_relations"] is False
    assert saved["dev"]["clas"] is None and "absent_reason" in scoring
    report = CliRunner().invoke(app, ["report", str(tmp_path / "runs"), "--format", "markdown"])
    assert report.exit_code == 0, report.output
    assert "CLAS, MLAS and BLEX are left out" in report.output
