"""``data.tags: files`` for dependency and joint parsers: dev/test tag files for CoNLL-U data (the jack-knifing's
tag lines, or a predicted CoNLL-U file's ``biaffine.tag_column``), every mismatch an error naming file and line,
and the parser reads the file's tags while depeval and evalb score against the data's own."""

from __future__ import annotations

from pathlib import Path
from typing import List

import pytest

from mlparse.config import load_recipe
from mlparse.results import COMPLETE
from mlparse.run_dir import RunDir
from mlparse.tasks.base import DataError
from mlparse.tasks.dependency import DependencyTask
from mlparse.tasks.joint import JointTask
from mlparse.train.runner import RunError, RunOptions, run_recipe
from mlparse.train.tag_files import read_tags
from helpers.dep_fixtures import SENTENCES, conllu_text, write_dep_recipe
from helpers.joint_fixtures import conllu_of, write_joint_recipe

#: Predicted tags for SENTENCES: every word's UPOS made NOUN, its XPOS the word's length (a tagger's output).
PREDICTED = [("NOUN " * len(words.split())).strip() for words, _, _, _ in SENTENCES]


def predicted_conllu(xpos_of=lambda word: f"L{len(word)}", sentences=SENTENCES) -> str:
    """A CoNLL-U file of SENTENCES as a tagger would write it: UPOS all NOUN, XPOS from ``xpos_of``."""
    lines = conllu_text(sentences).splitlines()
    out = []
    for line in lines:
        columns = line.split("\t")
        if len(columns) == 10 and columns[0].isdigit():
            columns[3], columns[4] = "NOUN", xpos_of(columns[1])
        out.append("\t".join(columns))
    return "\n".join(out) + "\n"


def dep_split(tmp_path: Path):  # type: ignore[no-untyped-def]
    path = tmp_path / "dev.conllu"
    path.write_text(conllu_text(with_mwt=True), encoding="utf-8")  # a multiword token: syntactic words count
    return DependencyTask().read_split(path)


def test_tag_lines_and_predicted_conllu_for_a_dependency_split(tmp_path: Path) -> None:
    split = dep_split(tmp_path)
    lines = tmp_path / "dev.tags"
    lines.write_text("\n".join(PREDICTED) + "\n\n", encoding="utf-8")
    assert read_tags(lines, split, "upos") == [row.split() for row in PREDICTED]
    conllu = tmp_path / "dev.pred.conllu"
    conllu.write_text(predicted_conllu(), encoding="utf-8")
    assert read_tags(conllu, split, "upos") == [row.split() for row in PREDICTED]
    assert read_tags(conllu, split, "xpos") == [[f"L{len(w)}" for w in words.split()] for words, _, _, _ in SENTENCES]
    unsuffixed = tmp_path / "dev.predicted"  # told apart by its content too
    unsuffixed.write_text(predicted_conllu(), encoding="utf-8")
    assert read_tags(unsuffixed, split, "xpos") == read_tags(conllu, split, "xpos")


def test_dependency_tag_file_mismatches_name_the_file_and_line(tmp_path: Path) -> None:
    split = dep_split(tmp_path)
    data = split.path
    rows = list(PREDICTED)
    rows[2] = rows[2] + " NOUN"
    lines = tmp_path / "dev.tags"
    lines.write_text("\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=rf"{lines}:3: 2 tags for the 1 word of sentence 3 \({data}:"):
        read_tags(lines, split, "upos")
    lines.write_text("\n".join(PREDICTED[:5]) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=rf"{lines}: 5 lines of tags for the 8 sentences of {data}"):
        read_tags(lines, split, "upos")
    conllu = tmp_path / "dev.pred.conllu"
    other = [(w.replace("cat", "dog"), t, h, r) for w, t, h, r in SENTENCES]
    conllu.write_text(predicted_conllu(sentences=other), encoding="utf-8")
    second = conllu.read_text(encoding="utf-8").splitlines().index("# sent_id = s2") + 1  # 1-based line of the comment
    with pytest.raises(DataError, match=rf"{conllu}:{second}: sentence 2 does not have the words of sentence 2 of "
                                        rf"the data \({data}:\d+\): word 4 is 'dog', expected 'cat'"):
        read_tags(conllu, split, "upos")
    shorter = [(w, t, h, r) for w, t, h, r in SENTENCES]
    shorter[3] = ("it is", "PRON AUX", [0, 1], "root cop")
    conllu.write_text(predicted_conllu(sentences=shorter), encoding="utf-8")
    with pytest.raises(DataError, match=rf"{conllu}:\d+: sentence 4 does not have the words .*: 2 words, expected 3"):
        read_tags(conllu, split, "upos")
    conllu.write_text(predicted_conllu(sentences=SENTENCES[:6]), encoding="utf-8")
    with pytest.raises(DataError, match=rf"{conllu}: 6 sentences for the 8 sentences of {data}"):
        read_tags(conllu, split, "upos")
    conllu.write_text(predicted_conllu(xpos_of=lambda word: "_"), encoding="utf-8")
    with pytest.raises(DataError, match=rf"{conllu}:\d+: sentence 1 has no XPOS tag for word 1"):
        read_tags(conllu, split, "xpos")
    conllu.write_text("1\tthe\n", encoding="utf-8")
    with pytest.raises(DataError, match=rf"{conllu}:1"):
        read_tags(conllu, split, "upos")


def test_a_dependency_run_reads_the_tag_files_and_depeval_scores_the_file(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_dep_recipe(tmp_path, train={"max_epochs": 1})
    (tmp_path / "data" / "dev.conllu").write_text(conllu_text(), encoding="utf-8")
    dev_tags, test_tags = tmp_path / "dev.tags", tmp_path / "test.pred.conllu"
    dev_tags.write_text("\n".join(PREDICTED) + "\n", encoding="utf-8")
    test_tags.write_text(predicted_conllu(), encoding="utf-8")
    seen: List[List[tuple]] = []
    original = DependencyTask.inputs

    def spy(self, split):  # type: ignore[no-untyped-def]
        inputs = original(self, split)
        seen.append([s.upos for s in inputs])
        return inputs

    monkeypatch.setattr(DependencyTask, "inputs", spy)
    config = load_recipe(path, ["data.tags=files", f"data.dev_tags={dev_tags}", f"data.test_tags={test_tags}"])
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    assert results.status == COMPLETE
    predicted = [tuple(row.split()) for row in PREDICTED]
    assert seen.count(predicted) >= 2  # dev and test parsed with the files' tags (UPOS: biaffine.tag_column)
    gold = [tuple(tags.split()) for _, tags, _, _ in SENTENCES]
    right = sum(g == "NOUN" for row in gold for g in row)
    total = sum(len(row) for row in gold)
    share = round(100 * right / total, 2)
    assert results.input_tags == {"source": "files", "accuracy": {"dev": share, "test": share}}
    assert "predicted UPOS" in results.system
    written = RunDir.for_recipe(tmp_path / "runs", config).pred("dev", ".conllu").read_text(encoding="utf-8")
    assert "\tDET\t" in written  # the prediction keeps the file's gold UPOS column: depeval compares gold to gold tags


def test_a_dependency_run_with_a_tag_file_that_does_not_fit_stops_before_training(tmp_path: Path) -> None:
    path = write_dep_recipe(tmp_path, train={"max_epochs": 1})
    (tmp_path / "data" / "dev.conllu").write_text(conllu_text(), encoding="utf-8")
    bad = tmp_path / "dev.tags"
    bad.write_text("\n".join(PREDICTED[:-1]) + "\n", encoding="utf-8")
    config = load_recipe(path, ["data.tags=files", f"data.dev_tags={bad}", f"data.test_tags={bad}"])
    with pytest.raises(RunError, match=rf"{bad}: 7 lines of tags for the 8 sentences"):
        run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    assert not list((tmp_path / "runs").glob("*/*/checkpoints/*.pt"))


def test_a_joint_run_reads_tag_lines_or_a_predicted_conllu(tmp_path: Path) -> None:
    path = write_joint_recipe(tmp_path, model={"use_tags": True}, train={"max_epochs": 1})
    config = load_recipe(path)
    split = JointTask().read_split(Path(config.data.dev))
    gold = [tree.tags() for tree in split.trees]
    predicted = [["NN"] * len(row) for row in gold]
    lines = tmp_path / "dev.tags"
    lines.write_text("".join(" ".join(row) + "\n" for row in predicted), encoding="utf-8")
    conllu = tmp_path / "test.pred.conllu"
    text = conllu_of().replace("\t_\t", "\t-\t", 1)  # any lemma; XPOS (the trees' tags) read
    rows = [line.split("\t") for line in text.splitlines()]
    conllu.write_text("\n".join("\t".join(r[:4] + ["NN"] + r[5:]) if len(r) == 10 else "\t".join(r) for r in rows)
                      + "\n", encoding="utf-8")
    assert read_tags(conllu, split) == predicted
    config = load_recipe(path, ["data.tags=files", f"data.dev_tags={lines}", f"data.test_tags={conllu}"])
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    assert results.status == COMPLETE and results.input_tags["source"] == "files"
    right = sum(t == "NN" for row in gold for t in row) / sum(len(row) for row in gold)
    assert results.input_tags["accuracy"]["dev"] == pytest.approx(100 * right, abs=0.01)
    assert results.dev.tagging_accuracy == pytest.approx(100 * right, abs=0.01)  # the trees carry the read tags
