"""``--set data.tags=jackknife --set tagger.folds=2`` on any span, biaffine or joint recipe: a parser whose
recipe reads no tags gets a tag input for the run (said in the log, results.json and the system name), and
the jack-knifed tags never reach scoring (evalb and depeval score against the data's gold tags)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List

import pytest

from mlparse.config import ConfigError, load_recipe
from mlparse.config.loading import recipe_from_yaml_text
from mlparse.results import COMPLETE
from mlparse.run_dir import RunDir
from mlparse.train.jackknife import load_tags
from mlparse.train.runner import RunOptions, run_recipe
from mlparse.trees.reader import parse_bracketed
from helpers.dep_fixtures import write_dep_recipe
from helpers.joint_fixtures import write_joint_recipe
from helpers.run_fixtures import Record, write_tiny_recipe
from helpers.tagger_fixtures import ONE_AT_A_TIME, write_tagger_recipe

JACKKNIFE = ["data.tags=jackknife", "tagger.folds=2", ONE_AT_A_TIME]


def file_tags(path: Path) -> List[List[str]]:
    return [tree.tags() for tree in parse_bracketed(path.read_text(encoding="utf-8")).trees]


@pytest.fixture
def evalb_golds(monkeypatch: pytest.MonkeyPatch) -> List[List[List[str]]]:
    """The gold trees' tags of every evalb call (constituency and joint scoring)."""
    import mlparse.tasks.constituency as constituency

    seen: List[List[List[str]]] = []
    original = constituency.score_parses

    def spy(gold, predicted, params, predicted_tags=False):  # type: ignore[no-untyped-def]
        seen.append([tree.tags() for tree in gold])
        return original(gold, predicted, params, predicted_tags)

    monkeypatch.setattr(constituency, "score_parses", spy)
    return seen


def check_added(config: Any, results: Any, record: Record) -> None:
    assert results.status == COMPLETE
    assert results.input_tags["source"] == "jackknife" and results.input_tags["folds"] == 2
    assert results.input_tags["input_added"] is True
    assert "jack-knifed" in results.system and results.system.endswith("[tag input added]")
    assert any("turned its tag input on" in note for note in record.notes)
    saved = RunDir.for_recipe(Path(results_runs(config)), config).recipe.read_text(encoding="utf-8")
    again = recipe_from_yaml_text(saved)
    assert again.model.use_tags and again.tagger.input_added and again.hash() == config.hash()


def results_runs(config: Any) -> str:
    return str(Path(config.data.train).parent.parent / "runs")


def test_a_span_recipe_without_tags_reads_jackknifed_ones_and_evalb_scores_gold(tmp_path: Path,
                                                                                evalb_golds: list) -> None:
    path = write_tiny_recipe(tmp_path, train={"max_epochs": 1})
    tagger = write_tagger_recipe(tmp_path)
    assert not load_recipe(path).model.use_tags
    config = load_recipe(path, [*JACKKNIFE, f"tagger.recipe={tagger}"])
    assert config.model.use_tags and config.tagger.input_added
    explicit = load_recipe(path, ["model.use_tags=true", *JACKKNIFE, f"tagger.recipe={tagger}"])
    assert not explicit.tagger.input_added and explicit.hash() == config.hash()  # the same parser, the same run
    record = Record()
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), record)
    check_added(config, results, record)
    tagged = load_tags(config)
    assert tagged is not None
    gold = {split: file_tags(tmp_path / "data" / f"{split}.trees") for split in ("dev", "test")}
    assert evalb_golds and all(tags in (gold["dev"][: len(tags)], gold["test"][: len(tags)]) for tags in evalb_golds)
    # the predicted trees carry the tags the parser read (the dev tagger's), scored against the gold ones
    predicted = file_tags(RunDir.for_recipe(tmp_path / "runs", config).pred("dev", ".trees"))
    assert predicted == tagged.tags["dev"]


def test_a_biaffine_recipe_without_tags_reads_jackknifed_ones_and_depeval_scores_gold(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import mlparse.tasks.dependency as dependency

    golds: List[str] = []
    original = dependency.evaluate_text

    def spy(gold, system, **kwargs):  # type: ignore[no-untyped-def]
        golds.append(gold)
        return original(gold, system, **kwargs)

    monkeypatch.setattr(dependency, "evaluate_text", spy)
    path = write_dep_recipe(tmp_path, model={"use_tags": False}, train={"max_epochs": 1})
    tagger = write_tagger_recipe(tmp_path)
    config = load_recipe(path, [*JACKKNIFE, f"tagger.recipe={tagger}"])
    assert config.model.use_tags and config.tagger.input_added
    record = Record()
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), record)
    check_added(config, results, record)
    assert "jack-knifed UPOS" in results.system
    def upos(text: str) -> List[str]:  # the syntactic words' UPOS column
        rows = [line.split("\t") for line in text.splitlines() if line and line[0].isdigit()]
        return [row[3] for row in rows if row[0].isdigit()]

    gold_upos = upos((tmp_path / "data" / "dev.conllu").read_text(encoding="utf-8"))
    scored = [upos(text) for text in golds]
    assert scored and all(upos == gold_upos[: len(upos)] for upos in scored)  # depeval's gold: the file's UPOS


def test_a_joint_recipe_without_tags_reads_jackknifed_ones(tmp_path: Path, evalb_golds: list) -> None:
    path = write_joint_recipe(tmp_path, train={"max_epochs": 1})
    tagger = write_tagger_recipe(tmp_path)
    assert not load_recipe(path).model.use_tags
    config = load_recipe(path, [*JACKKNIFE, f"tagger.recipe={tagger}"])
    record = Record()
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), record)
    check_added(config, results, record)
    gold = file_tags(Path(config.data.dev))
    assert evalb_golds and all(tags == gold[: len(tags)] for tags in evalb_golds)


def test_a_recipe_that_reads_tags_is_not_marked_and_gold_tags_add_nothing() -> None:
    dep = load_recipe("demo-dep", JACKKNIFE)
    assert dep.model.use_tags and not dep.tagger.input_added  # demo-dep reads UPOS itself
    span = load_recipe("demo")
    assert not span.model.use_tags and not span.tagger.input_added  # gold tags: nothing turned on
    assert load_recipe("demo", JACKKNIFE).hash() != span.hash()
    assert load_recipe("tagger").tagger.input_added is False


def test_the_report_says_the_tag_input_was_added() -> None:
    from mlparse.report.details import input_tags_text
    from mlparse.results import RunResults

    class Run:
        results = RunResults(input_tags={"source": "jackknife", "folds": 2, "accuracy": {"dev": 91.04, "test": 90.47},
                                         "input_added": True})

    assert input_tags_text(Run()) == "jack-knifed, 2 folds, test 90.5%, tag input added"  # type: ignore[arg-type]
    Run.results = RunResults(input_tags={"source": "files", "accuracy": {"dev": 91.04}})
    assert input_tags_text(Run()) == "tag files, dev 91.0%"  # type: ignore[arg-type]  # no test figure: dev, named


def test_every_bundled_parser_recipe_takes_jackknifed_tags() -> None:
    from mlparse.config.loading import bundled_recipe_names

    parsers = 0
    for name in bundled_recipe_names():
        if load_recipe(name).model.kind == "tagger":
            continue
        if load_recipe(name).biaffine.predict_tags:  # a parser that predicts its tags reads none (data.tags: none)
            with pytest.raises(ConfigError, match="would copy it"):
                load_recipe(name, JACKKNIFE)
            continue
        config = load_recipe(name, JACKKNIFE)
        assert config.model.use_tags and config.data.tags == "jackknife", name
        parsers += 1
    assert parsers > 20
