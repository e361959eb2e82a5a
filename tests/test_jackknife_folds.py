"""Folds that do not leak documents (issue 31 §2): jack-knifing holds out contiguous blocks of the training file
(``data.fold_assignment: auto`` is ``blocks`` for the taggers of ``data.tags: jackknife``), no fold tagger saw a
sentence of its held-out block, the manifest records the words unknown to each tagger, and on UD English-EWT the
held-out words are as new to their fold taggers as dev's are to the tagger of dev and test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlparse.config import load_recipe
from mlparse.results import COMPLETE
from mlparse.run_dir import RunDir
from mlparse.train import checkpoint
from mlparse.tasks.tagging import tagged_sentences
from mlparse.train.folds import fold_of, training_indices
from mlparse.train.jackknife import load_tags, tagger_configs, unknown_rate, unknown_words
from mlparse.train.runner import RunOptions, run_recipe
from helpers.tagger_fixtures import UNIQUE_SENTENCES, jackknife_recipe


def test_blocks_cut_the_file_into_contiguous_folds_of_equal_size() -> None:
    for n in range(2, 40):
        for folds in range(2, n + 1):
            fold = [int(f) for f in fold_of(n, folds, "blocks")]
            # brute force: the fold of sentence i is the block of [k n / N, (k+1) n / N) that holds it
            assert fold == [next(k for k in range(folds) if k * n <= i * folds < (k + 1) * n) for i in range(n)]
            assert fold == sorted(fold) and set(fold) == set(range(folds))  # contiguous, in order, none empty
            sizes = [fold.count(k) for k in range(folds)]
            assert max(sizes) - min(sizes) <= 1


def test_auto_means_blocks_for_jackknifed_tags_and_modulo_for_a_runs_own_fold() -> None:
    jackknifed = load_recipe("demo-dep", ["data.tags=jackknife"])
    assert jackknifed.data.fold_assignment == "auto" and jackknifed.data.folds_by() == "blocks"
    folds = [t.data.fold_assignment for t in tagger_configs(jackknifed)]
    assert folds == ["blocks"] * 10 + ["auto"]  # the tagger of dev and test has no fold
    member = load_recipe("demo-dep", ["data.folds=3", "data.fold=1"])  # mlparse ensemble --folds 3, member 1
    assert member.data.folds_by() == "modulo"
    # auto hashes as what it means: a fold member and every recipe without folds keep their run ids ...
    assert member.hash() == load_recipe("demo-dep", ["data.folds=3", "data.fold=1",
                                                     "data.fold_assignment=modulo"]).hash()
    assert load_recipe("demo-dep").hash() == load_recipe("demo-dep", ["data.fold_assignment=modulo"]).hash()
    assert member.hash() != load_recipe("demo-dep", ["data.folds=3", "data.fold=1",
                                                     "data.fold_assignment=blocks"]).hash()
    # ... a jack-knifing parser, whose tags change, gets a new one (modulo: the old one, with the old taggers)
    interleaved = load_recipe("demo-dep", ["data.tags=jackknife", "data.fold_assignment=modulo"])
    assert jackknifed.hash() != interleaved.hash()
    old, new = tagger_configs(interleaved), tagger_configs(jackknifed)
    assert all(a.hash() != b.hash() for a, b in zip(old[:-1], new[:-1]))  # other folds: other fold taggers
    assert old[-1].hash() == new[-1].hash()  # the tagger of dev and test trains on all of train either way


def test_no_fold_tagger_saw_a_sentence_of_its_held_out_block(tmp_path: Path) -> None:
    config = jackknife_recipe(tmp_path, folds=3)
    assert run_recipe(config, RunOptions(runs_dir=tmp_path / "runs")).status == COMPLETE
    tagged = load_tags(config)
    assert tagged is not None
    manifest = tagged.manifest
    assert manifest["fold_assignment"] == "blocks"
    n = len(UNIQUE_SENTENCES)
    words = [text.split() for text, *_ in UNIQUE_SENTENCES]
    for record in manifest["taggers"][:-1]:
        run_dir = RunDir(Path(record["run_dir"]))
        held_out = json.loads(run_dir.fold.read_text())["held_out"]
        assert held_out == list(range(held_out[0], held_out[-1] + 1))  # one contiguous block of the file
        assert [k for k in range(n) if manifest["train_fold"][k] == record["fold"]] == held_out
        vocabulary = checkpoint.load(run_dir.best)["spec"]["vocab"]
        seen = set(vocabulary["word_counts"])
        for k in held_out:  # the sentence's own word (uniqK) and tag (TAGK): never in its tagger's training data
            assert f"uniq{k}" not in seen and f"TAG{k}" not in vocabulary["tags"]
        # the manifest's unknown-word rate of the block, against what the other blocks hold
        trained_on = {word for k in range(n) if k not in held_out for word in words[k]}
        unknown = sum(1 for k in held_out for word in words[k] if word not in trained_on)
        total = sum(len(words[k]) for k in held_out)
        assert record["unknown_words"] == pytest.approx(100.0 * unknown / total, abs=0.005)
        assert record["unknown_words"] >= 100.0 * len(held_out) / total  # at least each sentence's uniqK
    assert manifest["unknown_words"]["dev"] == manifest["unknown_words"]["test"] == 0.0  # dev, test = train here
    assert manifest["taggers"][-1]["unknown_words"] == {"dev": 0.0, "test": 0.0}
    assert manifest["unknown_words"]["train"] > 0.0


def test_held_out_words_on_ewt_are_as_unknown_as_dev_words(treebanks: Path) -> None:
    """On EWT, interleaved folds let a fold tagger learn the vocabulary of the documents it tags (5.2% of the
    held-out words unknown against 8.3% of dev's); blocks hold out whole documents, as dev does."""
    folder = treebanks / "ud" / "UD_English-EWT"
    paths = {split: next(folder.glob(f"*-ud-{split}.conllu")) for split in ("train", "dev", "test")}
    files = [f"data.{split}={path}" for split, path in paths.items()]
    config = load_recipe("ud/english-ewt", files)
    train = tagged_sentences(paths["train"]).examples
    n = len(train)

    def held_out_rate(parser_config) -> float:  # type: ignore[no-untyped-def]
        unknown = words = 0
        for tagger in tagger_configs(parser_config)[:-1]:  # what each fold tagger trains on, and tags
            kept = set(training_indices(tagger.data, n))
            known = {word for i in kept for word in train[i].words}
            counts = unknown_words(known, [train[i] for i in range(n) if i not in kept])
            unknown, words = unknown + counts[0], words + counts[1]
        return unknown_rate(unknown, words) or 0.0

    everything = {word for sentence in train for word in sentence.words}  # the tagger of dev and test
    dev = unknown_rate(*unknown_words(everything, tagged_sentences(paths["dev"]).examples)) or 0.0
    blocks = held_out_rate(config)
    assert abs(blocks - dev) <= 1.5, (blocks, dev)
    interleaved = held_out_rate(load_recipe("ud/english-ewt", files + ["data.fold_assignment=modulo"]))
    assert dev - interleaved > 1.5, (interleaved, dev)  # the leak blocks remove
