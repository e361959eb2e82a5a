"""`mlparse prepare` end to end on the PTB-layout fixture and on the shared WSJ sample."""

import codecs
import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mlparse.cli import app
from mlparse.data import output
from mlparse.data.prepare import prepare_family
from mlparse.trees.reader import read_bracketed_file

FIXTURE = Path(__file__).parent / "fixtures" / "ptb_ldc" / "treebank_3"
WSJ = FIXTURE / "parsed" / "mrg" / "wsj"
runner = CliRunner()
LEAF = re.compile(r"\(([^\s()]+) ([^\s()]+)\)")


def invoke(*args):
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    return result


@pytest.mark.parametrize("source", [FIXTURE, WSJ.parent.parent, WSJ])
def test_ptb_fixture_from_any_of_the_three_roots(tmp_path, source):
    result = invoke("prepare", "ptb", "--source", str(source), "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    folder = tmp_path / "ptb" / "english"
    lines = {s: (folder / f"{s}.trees").read_text().splitlines() for s in ("train", "dev", "test")}
    assert [len(lines[s]) for s in ("train", "dev", "test")] == [3, 1, 2]  # 02+21 / 22 / 23; 00 unused
    assert lines["train"][1] == "(TOP (S (NP (NNP Kim)) (VP (VBD wanted) (S (VP (TO to) (VP (VB leave))))) (. .)))"
    assert lines["dev"][0] == "(TOP (S (NP (NNS Prices)) (VP (VBD rose) (NP (CD 5) (NN %))) (. .)))"
    assert "(-LRB- -LRB-)" in lines["test"][0]
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["evalb_param"] == "COLLINS.prm"
    assert manifest["split_definition"]["unused_files"] == 1
    assert manifest["splits"]["train"]["labels"]["NP"] == 4
    assert manifest["splits"]["train"]["collapsed_labels"]["S::VP"] == 1
    assert {f["path"].rsplit("/", 1)[-1] for f in manifest["source_files"]} == {
        "wsj_0201.mrg", "wsj_2101.mrg", "wsj_2201.mrg", "wsj_2301.mrg"}
    assert all(len(f["sha256"]) == 64 for f in manifest["source_files"])


def test_missing_and_wrong_source_give_one_clear_message(tmp_path):
    result = invoke("prepare", "ptb", "--source", str(tmp_path / "nope"))
    assert result.exit_code == 2 and "is not a folder" in result.output
    result = invoke("prepare", "ptb", "--source", str(tmp_path))
    assert result.exit_code == 2
    assert "treebank not found" in result.output and "wsj_" in result.output and str(tmp_path) in result.output
    result = invoke("prepare", "ptb", "--language", "klingon", "--source", str(FIXTURE))
    assert result.exit_code == 2 and "unknown language(s) for ptb: klingon" in result.output
    result = invoke("prepare", "nope")
    assert result.exit_code == 2 and "unknown treebank family 'nope'" in result.output


def test_malformed_file_stops_with_file_and_line(tmp_path):
    copy = tmp_path / "wsj"
    shutil.copytree(WSJ, copy)
    broken = copy / "22" / "wsj_2201.mrg"
    broken.write_text(broken.read_text().replace("(NNS Prices)", "(NNS Prices"))
    result = invoke("prepare", "ptb", "--source", str(copy), "--out", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert re.search(r"22/wsj_2201\.mrg:\d+:\d+: ", result.output), result.output
    assert not (tmp_path / "out" / "ptb" / "english" / "manifest.json").exists()


def test_an_interrupted_write_leaves_the_previous_preparation(tmp_path, monkeypatch):
    prepare_family("ptb", source=FIXTURE, out=tmp_path)
    folder = tmp_path / "ptb" / "english"
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    calls = {"n": 0}
    real_fsync = output.os.fsync

    def failing_fsync(fd):
        calls["n"] += 1
        if calls["n"] == 2:  # the second split file
            raise KeyboardInterrupt
        real_fsync(fd)

    monkeypatch.setattr(output.os, "fsync", failing_fsync)
    with pytest.raises(KeyboardInterrupt):
        prepare_family("ptb", source=FIXTURE, out=tmp_path)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # no temp file left either


def test_files_starting_with_a_utf8_byte_order_mark_prepare_as_without(tmp_path):
    marked = tmp_path / "marked"
    shutil.copytree(WSJ, marked)
    for name in ("02/wsj_0201.mrg", "22/wsj_2201.mrg", "23/wsj_2301.mrg"):
        (marked / name).write_bytes(codecs.BOM_UTF8 + (marked / name).read_bytes())
    result = invoke("prepare", "ptb", "--source", str(marked), "--out", str(tmp_path / "marked-out"))
    assert result.exit_code == 0, result.output
    prepare_family("ptb", source=WSJ, out=tmp_path / "plain-out")
    for split in ("train", "dev", "test"):
        written = (tmp_path / "marked-out" / "ptb" / "english" / f"{split}.trees").read_bytes()
        assert written == (tmp_path / "plain-out" / "ptb" / "english" / f"{split}.trees").read_bytes()
        assert "\ufeff" not in written.decode("utf-8")


def test_ptb_sample_through_the_cli_counts_agree_with_the_files(tmp_path, treebanks):
    result = invoke("prepare", "ptb-sample", "--source", str(treebanks), "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    folder = tmp_path / "ptb-sample" / "english"
    manifest = json.loads((folder / "manifest.json").read_text())
    ranges = {"train": range(1, 160), "dev": range(160, 180), "test": range(180, 200)}
    for split, numbers in ranges.items():
        # independent count in the source: each tree opens with "( (" at the start of a line,
        # each word is a (tag word) pair whose tag is not -NONE-
        raw_trees = raw_words = 0
        for number in numbers:
            path = treebanks / "ptb-sample" / "wsj" / f"{number // 100:02d}" / f"wsj_{number:04d}.mrg"
            text = path.read_text()
            raw_trees += len(re.findall(r"^\( ?\(", text, re.M))
            raw_words += sum(1 for tag, _ in LEAF.findall(text) if tag != "-NONE-")
        lines = (folder / f"{split}.trees").read_text().splitlines()
        stats = manifest["splits"][split]
        assert stats["sentences"] == len(lines) == raw_trees
        assert stats["tokens"] == sum(len(LEAF.findall(line)) for line in lines) == raw_words
        assert stats["max_length"] == max(len(LEAF.findall(line)) for line in lines)
        assert all(line.startswith("(TOP ") and "-NONE-" not in line for line in lines)
        assert len(read_bracketed_file(folder / f"{split}.trees").trees) == len(lines)
    assert manifest["exclusions"] == [] and manifest["repairs"] == []
    assert len(manifest["source_files"]) == 199


def test_ptb_sample_reads_the_flat_nltk_layout(tmp_path, treebanks):
    flat = tmp_path / "treebank" / "combined"
    flat.mkdir(parents=True)
    for number in (1, 2, 160, 181):
        shutil.copy(treebanks / "ptb-sample" / "wsj" / f"{number // 100:02d}" / f"wsj_{number:04d}.mrg", flat)
    report = prepare_family("ptb-sample", source=flat, out=tmp_path / "out")
    splits = report.results[0].manifest.splits
    assert set(splits) == {"train", "dev", "test"}
    assert splits["dev"].source_files == ["wsj_0160.mrg"] and splits["test"].source_files == ["wsj_0181.mrg"]


def test_mlparse_data_may_name_the_treebank_folder_itself(tmp_path, treebanks, monkeypatch):
    flat = tmp_path / "my-wsj"
    flat.mkdir()
    shutil.copy(treebanks / "ptb-sample" / "wsj" / "00" / "wsj_0003.mrg", flat)
    monkeypatch.setenv("MLPARSE_DATA", str(flat))
    report = prepare_family("ptb-sample", out=tmp_path / "out")
    assert report.results[0].manifest.source_root == str(flat.resolve())
    assert list(report.results[0].manifest.splits) == ["train"]
    assert report.results[0].manifest.missing_splits == ["dev", "test"]
