"""The tagger kind (``model.kind: tagger``): trained, checkpointed, resumed and scored (tag accuracy) by the one
trainer, on CoNLL-U (UPOS or XPOS) and on trees (their preterminals)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from mlparse.config import ConfigError, load_recipe
from mlparse.models.registry import parser_class, parser_from_spec
from mlparse.models.tagger import TaggerParser
from mlparse.results import COMPLETE
from mlparse.run_dir import RunDir
from mlparse.tasks.base import DataError
from mlparse.tasks.tagging import TaggedSentence, TaggingTask, tag_accuracy, tagged_sentences
from mlparse.train import checkpoint
from mlparse.train.runner import RunOptions, run_recipe
from helpers.dep_fixtures import conllu_text
from helpers.tagger_fixtures import tagger_recipe


@pytest.mark.parametrize("column", ["upos", "xpos", "pos"])
def test_a_tagger_learns_its_training_tags_and_writes_them(tmp_path: Path, column: str) -> None:
    config = load_recipe(tagger_recipe(tmp_path, column))
    assert config.task == "tagging" and parser_class("tagger") is TaggerParser
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    assert results.status == COMPLETE and results.model == "tagger"
    assert results.dev.tagging_accuracy == 100.0  # dev = train: a tagger fits a handful of sentences
    assert results.dev.scorer == f"tag accuracy ({column})"
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    written = run_dir.pred("dev", ".tags").read_text(encoding="utf-8").splitlines()
    gold = tagged_sentences(config.split_path("dev"))
    assert [line.split() for line in written] == [list(s.tags(column)) for s in gold.examples]
    assert "accuracy: 100.00" in run_dir.report("dev", ".tagacc").read_text()
    # the checkpoint rebuilds the same tagger through the registry
    saved = checkpoint.load(run_dir.best)
    again = parser_from_spec(saved["spec"])
    again.load_state_dict(saved["model"])
    assert again.predict([s.words for s in gold.examples[:2]]) == [list(s.tags(column)) for s in gold.examples[:2]]


def test_the_same_tagger_recipe_finds_its_finished_run(tmp_path: Path) -> None:
    config = load_recipe(tagger_recipe(tmp_path, max_epochs=4))
    first = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    log = RunDir.for_recipe(tmp_path / "runs", config).log.read_text()
    longer = load_recipe(tagger_recipe(tmp_path, max_epochs=4), ["train.max_epochs=4"])
    assert longer.hash() == config.hash()
    again = run_recipe(longer, RunOptions(runs_dir=tmp_path / "runs"))
    assert again.status == COMPLETE and again.run_id == first.run_id
    assert RunDir.for_recipe(tmp_path / "runs", config).log.read_text() == log  # finished: nothing trained again


def test_tag_probabilities_never_name_a_special_entry() -> None:
    sentences = [TaggedSentence(("a", "b"), {"upos": ("X", "Y")})]
    config = load_recipe("tagger", ["model.char_encoder=none", "tagger.lstm_hidden=8", "tagger.lstm_layers=1",
                                    "tagger.d_word_emb=8"])
    tagger = TaggerParser.build(config, sentences)
    batch = tagger.make_batch([["a", "b", "zzz"]])
    scores = tagger.scores(batch)
    assert scores.shape == (1, 4, len(tagger.tag_list))
    specials = tagger.vocab.tags.num_specials
    assert torch.isinf(scores[..., :specials]).all()
    assert torch.allclose(scores[..., specials:].exp().sum(-1), torch.ones(1, 4))
    assert all(tag in ("X", "Y") for tag in tagger.decode(batch, scores, [["a", "b", "zzz"]])[0])


def test_accuracy_and_column_errors(tmp_path: Path) -> None:
    assert tag_accuracy([["A", "B"], ["C"]], [["A", "X"], ["C"]]) == (2, 3)
    with pytest.raises(ValueError, match="sentence 1: 1 predicted tags for 2 words"):
        tag_accuracy([["A", "B"]], [["A"]])
    path = tmp_path / "x.conllu"
    path.write_text(conllu_text(), encoding="utf-8")
    with pytest.raises(DataError, match=rf"{path}:\d+: tagger.column pos is not in this data"):
        TaggingTask("pos").read_split(path)
    with pytest.raises(ConfigError, match="cannot take POS tags as input"):
        load_recipe("tagger", ["model.use_tags=true"])
    with pytest.raises(ConfigError, match="tagger.column must be one of pos, upos, xpos"):
        load_recipe("tagger", ["tagger.column=feats"])
    # a tagger recipe on trees reads .trees, on CoNLL-U .conllu
    assert load_recipe("tagger", ["tagger.column=pos"]).split_path("dev").suffix == ".trees"
    assert load_recipe("tagger").split_path("dev").suffix == ".conllu"


def test_the_report_shows_a_tagger_run(tmp_path: Path) -> None:
    from mlparse.report.model import build_report
    from mlparse.report.render_markdown import render_markdown

    config = load_recipe(tagger_recipe(tmp_path, max_epochs=3))
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    text = render_markdown(build_report(tmp_path / "runs", published_mode="none"))
    assert "### tagging · tiny · test · tag accuracy" in text  # a leaderboard of its own, named by its metric
    row = next(line for line in text.splitlines() if line.startswith("| **mlparse tagger (BiLSTM, words, UPOS)**"))
    assert f"**{results.test.tagging_accuracy:.2f}**" in row


def test_a_tagger_resumes_only_with_its_own_settings_and_pretrained_encoder() -> None:
    """The jack-knifing keys may change between runs; the tag column or the pretrained encoder may not."""
    from types import SimpleNamespace

    mine = {"kind": "tagger", "model_config": {"d_model": 8}, "tagger_config": {"column": "upos", "folds": 10},
            "pretrained": {"config": {"model": "m"}, "fingerprint": {"weights": "a"}}}
    parser = SimpleNamespace(spec=lambda: mine)
    assert TaggerParser.resume_mismatch(parser, dict(mine, tagger_config={"column": "upos", "folds": 2})) is None
    assert TaggerParser.resume_mismatch(parser, dict(mine, tagger_config={"column": "xpos", "folds": 10})) == \
        "tagger config"
    assert TaggerParser.resume_mismatch(parser, dict(mine, pretrained=None)) == \
        "pretrained encoder (one of them has none)"
