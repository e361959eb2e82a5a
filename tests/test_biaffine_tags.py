"""Parsers that tag for themselves (issue 31 §4): ``data.tags: none`` reads no tags, ``biaffine.predict_tags`` adds
a tagging head whose tags the predictions carry and the scorer counts; older checkpoints and run ids stay valid."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from mlparse.config import ConfigError, load_recipe
from mlparse.models.dep_parser import BiaffineParser
from mlparse.models.targets import IGNORED
from mlparse.report.details import input_tags_text
from mlparse.results import COMPLETE, RunResults
from mlparse.run_dir import RunDir
from mlparse.tasks.dependency import DependencyTask
from mlparse.trees.dependency import read_conllu
from mlparse.train.runner import RunOptions, run_recipe
from helpers.dep_fixtures import write_dep_recipe

OWN_TAGS = ["data.tags=none", "biaffine.predict_tags=true"]


def test_data_tags_none_reads_no_tags_and_is_the_run_of_use_tags_false() -> None:
    config = load_recipe("ud/english-ewt", ["data.tags=none"])
    assert not config.model.use_tags and config.data.tags == "none"
    assert config.hash() == load_recipe("ud/english-ewt", ["data.tags=gold", "model.use_tags=false"]).hash()
    assert load_recipe("ud/english-ewt-joint-tags").biaffine.predict_tags
    span = load_recipe("demo", ["model.use_tags=true", "data.tags=none", "span.predict_tags=true"])
    assert not span.model.use_tags and span.span.predict_tags  # the span parser's own tagging head, no tag input
    with pytest.raises(ConfigError, match="would copy it"):  # a head over an encoder that reads the gold tags
        load_recipe("demo-dep", ["biaffine.predict_tags=true"])
    with pytest.raises(ConfigError, match="the model takes no POS tags as input"):
        load_recipe("demo-dep", ["data.tags=none", "data.eval_tags=predicted", "data.dev_tags=x", "data.test_tags=y"])
    # the new keys at their defaults leave every biaffine run id as it was (test_config_catalog_defaults pins them)
    assert load_recipe("demo-dep", ["biaffine.tag_loss_scale=1.0"]).hash() == load_recipe("demo-dep").hash()
    assert load_recipe("demo-dep", OWN_TAGS).hash() != load_recipe("demo-dep", ["data.tags=none"]).hash()


def test_a_biaffine_parser_predicts_its_tags_reads_none_and_reports_their_accuracy(tmp_path: Path) -> None:
    config = load_recipe(write_dep_recipe(tmp_path, train={"max_epochs": 30}), OWN_TAGS)
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    assert results.status == COMPLETE and results.input_tags == {"source": "none"}
    assert results.system.endswith("; predicts UPOS)") and "UPOS" not in results.system.split("(")[1].split(";")[0]
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    gold = read_conllu(Path(config.data.dev)).sentences
    predicted = read_conllu(run_dir.pred("dev", ".conllu")).sentences
    words = sum(len(s.words) for s in gold)
    correct = sum(g == p for gs, ps in zip(gold, predicted) for g, p in zip(gs.upos, ps.upos))
    assert results.dev.tagging_accuracy == pytest.approx(100.0 * correct / words, abs=1e-3)  # the file's own tags
    assert results.dev.tagging_accuracy > 50.0  # learnt on these few sentences
    assert input_tags_text(type("Run", (), {"results": results})()) == "no tag input"
    # it reads no tags: other tags in the input change nothing it predicts
    from mlparse.train import checkpoint

    saved = checkpoint.load(run_dir.best)
    parser = BiaffineParser.from_spec(saved["spec"])
    parser.load_state_dict(saved["model"])
    parser.eval()
    assert parser.input.tag_embedding is None and parser.predicts_tags
    scrambled = [dataclasses.replace(s, upos=tuple("X" for _ in s.words)) for s in gold]
    with torch.no_grad():
        assert parser.predict(gold) == parser.predict(scrambled)


def test_the_tag_loss_is_the_cross_entropy_of_the_gold_tags(tmp_path: Path) -> None:
    config = load_recipe(write_dep_recipe(tmp_path), OWN_TAGS + ["biaffine.tag_loss_scale=2.5"])
    task = DependencyTask()
    sentences = task.read_split(Path(config.data.train)).examples
    torch.manual_seed(0)
    parser = BiaffineParser.build(config, sentences).eval()
    batch = parser.make_batch(sentences)
    with torch.no_grad():
        with_head = parser(batch, [parser.gold(s) for s in sentences])
        logits = parser.tag_head(parser.input(batch)).float()
        expected = sum(F.cross_entropy(logits[b, 1:len(s.words) + 1], torch.tensor(parser.vocab.tag_ids(s.upos)[1:-1]),
                                       reduction="sum") for b, s in enumerate(sentences))
    assert float(with_head.parts["tag"]) == pytest.approx(float(expected), rel=1e-5)
    total = with_head.parts["arc"] + with_head.parts["relation"] + 2.5 * with_head.parts["tag"]
    assert float(with_head.loss) == pytest.approx(float(total), rel=1e-5)
    targets = parser.make_targets([parser.gold(s) for s in sentences], batch)
    assert targets.tags is not None and int((targets.tags != IGNORED).sum()) == sum(len(s.words) for s in sentences)


def test_a_checkpoint_saved_before_the_tagging_head_loads_and_resumes(tmp_path: Path) -> None:
    config = load_recipe(write_dep_recipe(tmp_path))
    sentences = DependencyTask().read_split(Path(config.data.train)).examples
    parser = BiaffineParser.build(config, sentences)
    old = parser.spec()
    for key in ("predict_tags", "d_tag_hidden", "tag_loss_scale"):  # what an older mlparse saved
        del old["biaffine_config"][key]
    assert parser.resume_mismatch(old) is None
    again = BiaffineParser.from_spec(old)
    again.load_state_dict(parser.state_dict())
    assert again.tag_head is None and not again.predicts_tags
    assert BiaffineParser.tags_source(old, False) == "input"
    head = BiaffineParser.build(load_recipe(write_dep_recipe(tmp_path), OWN_TAGS), sentences)
    assert BiaffineParser.tags_source(head.spec(), False) == "tagging head"
    assert head.resume_mismatch(old) is not None  # another model: not resumed from that checkpoint


def test_the_report_and_results_read_the_new_records() -> None:
    assert RunResults.from_json_dict({"budget": "x", "input_tags": {"source": "none"}}).budget is None
    assert input_tags_text(type("Run", (), {"results": RunResults(input_tags={"source": "none"})})()) == "no tag input"
