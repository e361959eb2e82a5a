"""Jack-knifed tags (``data.tags: jackknife``): fold taggers tag the training sentences they held out, a tagger
on all of train tags dev and test, the files and manifest are reused by hash, a failed tagger stops the parser,
and results.json / the report say which tags the parser read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List

import pytest

from mlparse.config import ConfigError, load_recipe
from mlparse.results import COMPLETE
from mlparse.run_dir import RunDir
from mlparse.train import checkpoint
from mlparse.train.jackknife import load_tags, read_tag_lines, tagger_configs
from mlparse.train.runner import RunError, RunOptions, run_recipe
from mlparse.tasks.base import DataError
from mlparse.tasks.tagging import tagged_sentences
from helpers.dep_fixtures import SENTENCES, conllu_text
from helpers.run_fixtures import Record, write_tiny_recipe
from helpers.tagger_fixtures import ONE_AT_A_TIME, UNIQUE_SENTENCES, jackknife_recipe, write_tagger_recipe

def tag_set(run_dir: RunDir) -> set:
    spec = checkpoint.load(run_dir.best)["spec"]
    return set(spec["vocab"]["tags"])


def test_no_training_sentence_is_tagged_by_a_tagger_that_saw_it(tmp_path: Path) -> None:
    config = jackknife_recipe(tmp_path, folds=3)
    record = Record()
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), record)
    assert results.status == COMPLETE
    tagged = load_tags(config)
    assert tagged is not None
    manifest = tagged.manifest
    assert manifest["folds"] == 3 and len(manifest["taggers"]) == 4
    fold_of = manifest["train_fold"]
    assert sorted(set(fold_of)) == [0, 1, 2] and len(fold_of) == len(UNIQUE_SENTENCES)
    taggers = {t["fold"]: RunDir(Path(t["run_dir"])) for t in manifest["taggers"]}
    for k, fold in enumerate(fold_of):
        own_tag = f"TAG{k}"
        # the tagger that tagged sentence k never trained on it: its tag set lacks the sentence's own tag ...
        assert own_tag not in tag_set(taggers[fold])
        assert own_tag not in tagged.tags["train"][k]
        # ... and its run says so: sentence k is in the fold it held out
        held_out = json.loads(taggers[fold].fold.read_text())["held_out"]
        assert k in held_out
        # every other fold tagger trained on it
        for other in set(fold_of) - {fold}:
            assert own_tag in tag_set(taggers[other])
    # the tagger of dev and test trained on all of train
    assert {f"TAG{k}" for k in range(len(UNIQUE_SENTENCES))} <= tag_set(taggers[None])
    assert not taggers[None].fold.exists()
    # the parser read those tags, and says so
    assert results.input_tags["source"] == "jackknife" and results.input_tags["folds"] == 3
    assert set(results.input_tags["accuracy"]) == {"train", "dev", "test"}
    assert results.system.endswith("jack-knifed UPOS)")
    assert any("jack-knifing: fold tagger 1 of 3" in note for note in record.notes)
    on_disk = json.loads(RunDir.for_recipe(tmp_path / "runs", config).results.read_text())
    assert on_disk["input_tags"]["source"] == "jackknife"


def test_tags_are_reused_by_hash_and_remade_when_the_data_changes(tmp_path: Path) -> None:
    config = jackknife_recipe(tmp_path, folds=2, sentences=SENTENCES)
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    first = load_tags(config)
    assert first is not None
    record = Record()
    again = jackknife_recipe(tmp_path, folds=2, sentences=SENTENCES, overrides=["train.seed=2"])  # another parser
    run_recipe(again, RunOptions(runs_dir=tmp_path / "runs"), record)
    assert any(note.startswith("jack-knifed tags reused from") for note in record.notes)
    assert not any(note.startswith("this run trains") for note in record.notes)  # no tagger trains: not said it would
    train = tmp_path / "data" / "train.conllu"
    train.write_text(train.read_text(encoding="utf-8").replace("barks", "sleeps"), encoding="utf-8")
    assert load_tags(config) is None  # another train file: another key, no files yet
    assert tagger_configs(config)[0].hash() == tagger_configs(again)[0].hash()


def test_the_parser_trains_and_is_scored_on_predicted_tags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mlparse.tasks.dependency import DependencyTask

    config = jackknife_recipe(tmp_path, folds=2, sentences=SENTENCES)
    seen: List[List[tuple]] = []
    original = DependencyTask.inputs

    def spy(self, split):
        inputs = original(self, split)
        seen.append([s.upos for s in inputs])
        return inputs

    monkeypatch.setattr(DependencyTask, "inputs", spy)
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    tagged = load_tags(config)
    expected = {split: [tuple(t) for t in tagged.tags[split]] for split in ("train", "dev", "test")}
    assert expected["train"] in seen and expected["dev"] in seen and expected["test"] in seen
    gold = [tuple(tags.split()) for _, tags, _, _ in SENTENCES]
    assert gold not in seen or gold in expected.values()  # the gold column is never the input unless predicted
    assert results.dev.las is not None  # scored against the file's own heads and tags


def test_a_failed_tagger_stops_the_parser_with_its_error(tmp_path: Path) -> None:
    config = jackknife_recipe(tmp_path, folds=2, sentences=SENTENCES)
    (tmp_path / "tiny-tagger.yaml").write_text(
        (tmp_path / "tiny-tagger.yaml").read_text().replace("max_len: 60", "max_len: 4"), encoding="utf-8")
    config = load_recipe(tmp_path / "tiny-dep.yaml",
                         ["data.tags=jackknife", "tagger.folds=2", f"tagger.recipe={tmp_path / 'tiny-tagger.yaml'}",
                          ONE_AT_A_TIME])
    with pytest.raises(RunError) as error:
        run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    message = str(error.value)
    assert "fold tagger 1 of 2" in message and "longer than the model allows" in message
    assert not list((tmp_path / "runs" / "tiny-dep").glob("*/checkpoints/*.pt"))  # the parser never trained
    assert load_tags(config) is None


def test_a_tag_file_that_does_not_match_the_data_names_file_and_line(tmp_path: Path) -> None:
    data = tmp_path / "dev.conllu"
    data.write_text(conllu_text(), encoding="utf-8")
    split = tagged_sentences(data)
    tags = tmp_path / "dev.tags"
    rows = [" ".join(s.columns["upos"]) for s in split.examples]
    rows[2] = rows[2] + " NOUN"
    tags.write_text("\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=rf"{tags}:3: 2 tags for the 1 words of sentence 3 \({data}:"):
        read_tag_lines(tags, split)
    tags.write_text("\n".join(rows[:2]) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=rf"{tags}: 2 lines of tags for the 8 sentences of {data}"):
        read_tag_lines(tags, split)


def test_jackknife_works_on_a_span_recipe_with_tree_tags(tmp_path: Path) -> None:
    path = write_tiny_recipe(tmp_path, model={"use_tags": True}, train={"max_epochs": 1})
    tagger = write_tagger_recipe(tmp_path)
    config = load_recipe(path, ["data.tags=jackknife", "tagger.folds=2", f"tagger.recipe={tagger}", ONE_AT_A_TIME])
    assert tagger_configs(config)[0].tagger.column == "pos"
    assert tagger_configs(config)[0].split_path("train").suffix == ".trees"
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    assert results.status == COMPLETE and results.input_tags["source"] == "jackknife"
    assert "jack-knifed tags" in results.system


def test_jackknife_needs_a_model_that_reads_tags_and_two_folds() -> None:
    assert load_recipe("demo", ["data.tags=jackknife"]).model.use_tags  # the tag input turned on for the run
    with pytest.raises(ConfigError, match="tagger.folds must be at least 2"):
        load_recipe("demo-dep", ["data.tags=jackknife", "tagger.folds=1"])
    with pytest.raises(ConfigError, match="a tagger"):
        load_recipe("tagger", ["data.tags=jackknife"])
    gold = load_recipe("demo-dep")
    assert gold.data.tags == "gold"
    assert load_recipe("demo-dep", ["data.tags=jackknife"]).hash() != gold.hash()
    # the tagger section counts only where it makes the tags
    assert load_recipe("demo-dep", ["tagger.folds=3"]).hash() == gold.hash()
    assert load_recipe("demo-dep", ["data.tags=jackknife", "tagger.folds=3"]).hash() != \
        load_recipe("demo-dep", ["data.tags=jackknife"]).hash()
    assert load_recipe("demo-dep", ["data.tags=jackknife", "tagger.max_minutes=3"]).hash() == \
        load_recipe("demo-dep", ["data.tags=jackknife"]).hash()


def test_jackknife_works_on_a_joint_recipe(tmp_path: Path) -> None:
    from helpers.joint_fixtures import write_joint_recipe

    path = write_joint_recipe(tmp_path, train={"max_epochs": 1})
    tagger = write_tagger_recipe(tmp_path)
    config = load_recipe(path, ["model.use_tags=true", "data.tags=jackknife", "tagger.folds=2",
                                f"tagger.recipe={tagger}", ONE_AT_A_TIME])
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    assert results.status == COMPLETE and results.input_tags["source"] == "jackknife"
    assert results.dev.tagging_accuracy == pytest.approx(results.input_tags["accuracy"]["dev"], abs=0.005)  # the
    # predicted trees carry the tags the parser read


def test_more_time_for_the_taggers_makes_the_tags_again(tmp_path: Path) -> None:
    from mlparse.train.jackknife import tags_folder

    config = jackknife_recipe(tmp_path, folds=2, sentences=SENTENCES)
    longer = jackknife_recipe(tmp_path, folds=2, sentences=SENTENCES, overrides=["tagger.max_minutes=9"])
    assert longer.hash() == config.hash()  # the same parser run ...
    assert [t.hash() for t in tagger_configs(longer)] == [t.hash() for t in tagger_configs(config)]  # ... and taggers
    assert tags_folder(longer, tagger_configs(longer)) != tags_folder(config, tagger_configs(config))  # new tags


def test_a_tagger_that_another_run_trains_is_waited_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from mlparse import run_lock
    from mlparse.run_lock import RunLock

    monkeypatch.setattr(run_lock, "LOCK_POLL_SECONDS", 0.05)
    config = jackknife_recipe(tmp_path, folds=2, sentences=SENTENCES)
    first = RunDir.for_recipe(tmp_path / "runs", tagger_configs(config)[0]).path
    first.mkdir(parents=True)
    lock = RunLock(first)
    lock.acquire()  # another parser run trains this tagger ...

    class ReleaseWhenWaiting(Record):
        def on_note(self, message: str) -> None:
            super().on_note(message)
            if message.startswith("waiting for"):  # ... and finishes with it a little later
                threading.Timer(0.2, lock.release).start()

    record = ReleaseWhenWaiting()
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), record)
    assert results.status == COMPLETE
    assert any(note.startswith("waiting for the fold tagger 1 of 2") for note in record.notes)


def test_each_tagger_checkpoint_is_read_once_when_the_tags_are_made(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from mlparse.train import jackknife

    config = jackknife_recipe(tmp_path, folds=2, sentences=SENTENCES)
    assert run_recipe(config, RunOptions(runs_dir=tmp_path / "runs")).status == COMPLETE
    first = load_tags(config)
    assert first is not None
    trained = [(RunDir(Path(t["run_dir"])).read_results(), Path(t["run_dir"])) for t in first.manifest["taggers"]]
    (first.folder / jackknife.MANIFEST).unlink()  # incomplete: made again from the trained taggers
    loads: List[Path] = []
    real_load = checkpoint.load

    def counted(path, *args, **kwargs):
        loads.append(Path(path))
        return real_load(path, *args, **kwargs)

    monkeypatch.setattr(checkpoint, "load", counted)
    again = jackknife.make_tags(config, lambda taggers, roles: trained)
    assert again.tags == first.tags and again.manifest["unknown_words"] == first.manifest["unknown_words"]
    assert len(loads) == len(trained) == 3 and len(set(loads)) == 3  # one read per tagger: tags and known words
