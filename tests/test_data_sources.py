"""Finding files and folders, and split schemes."""

from pathlib import Path

import pytest

from mlparse.data.sources import candidate_bases, find_files, find_language_root, matches
from mlparse.data.splits import SplitError, plan_splits

FIXTURES = Path(__file__).parent / "fixtures"


def touch(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("(S (X y))\n")


def test_glob_matching_is_case_insensitive_and_double_star_spans_folders():
    assert matches("gold/ptb/train5k/train5k.Swedish.gold.ptb", "gold/ptb/train5k/train5k.swedish.gold.ptb")
    assert matches("**/wsj_*.mrg", "wsj_0001.mrg")
    assert matches("**/wsj_*.mrg", "parsed/mrg/wsj/00/wsj_0001.mrg")
    assert not matches("*.mrg", "00/wsj_0001.mrg")
    assert matches("wsj_[0-9][0-9].mrg", "WSJ_01.MRG")


def test_find_files_sorted_by_relative_path(tmp_path):
    touch(tmp_path, "b/wsj_0101.mrg", "a/wsj_0002.mrg", "a/readme.txt", "wsj_0003.mrg")
    found = [p.relative_to(tmp_path).as_posix() for p in find_files(tmp_path, "**/wsj_*.mrg")]
    assert found == ["a/wsj_0002.mrg", "b/wsj_0101.mrg", "wsj_0003.mrg"]


def test_language_root_is_child_grandchild_or_the_base_itself(tmp_path):
    touch(tmp_path, "ud/UD_English-EWT/en-ud-dev.conllu", "ud-legacy/UD_English-EWT-r1.4/x.conllu")
    assert find_language_root(tmp_path, "UD_English-EWT") == tmp_path / "ud" / "UD_English-EWT"
    assert find_language_root(tmp_path / "ud" / "UD_English-EWT", "UD_English-EWT") == tmp_path / "ud" / "UD_English-EWT"
    assert find_language_root(tmp_path, "ud_english-ewt-R1.4") == tmp_path / "ud-legacy" / "UD_English-EWT-r1.4"
    assert find_language_root(tmp_path, "UD_French-GSD") is None


def test_candidates_prefer_source_then_env(monkeypatch, tmp_path):
    monkeypatch.setenv("MLPARSE_DATA", str(tmp_path / "env"))
    assert [c.origin for c in candidate_bases(tmp_path, True)] == ["--source"]
    origins = [c.origin for c in candidate_bases(None, True)]
    assert origins[0] == "$MLPARSE_DATA" and len(origins) >= 2
    assert [c.origin for c in candidate_bases(None, False)] == ["$MLPARSE_DATA"]


def test_ranges_scheme_by_ptb_section_from_any_root():
    wsj = FIXTURES / "ptb_ldc" / "treebank_3" / "parsed" / "mrg" / "wsj"
    options = {"key": r"wsj_(\d\d)\d\d\.mrg$", "train": ["2-21"], "dev": ["22"], "test": ["23"]}
    for root in (FIXTURES / "ptb_ldc" / "treebank_3", wsj.parent.parent, wsj):
        plan = plan_splits(root, "**/wsj_[0-9][0-9][0-9][0-9].mrg", "ranges", options)
        assert {s: [p.name for p in files] for s, files in plan.files.items()} == {
            "train": ["wsj_0201.mrg", "wsj_2101.mrg"], "dev": ["wsj_2201.mrg"], "test": ["wsj_2301.mrg"],
        }
        assert [p.name for p in plan.unused] == ["wsj_0001.mrg"]
        assert plan.definition["unused_files"] == 1


def test_files_scheme_takes_first_matching_alternative(tmp_path):
    touch(tmp_path, "gold/train5k/train5k.X.ptb", "gold/dev/dev.X.ptb")
    options = {"train": ["gold/train/train.x.ptb", "gold/train5k/train5k.x.ptb"], "dev": "gold/dev/dev.x.ptb",
               "test": "gold/test/test.x.ptb"}
    plan = plan_splits(tmp_path, None, "files", options)
    assert plan.definition["train"]["pattern"] == "gold/train5k/train5k.x.ptb"
    assert plan.missing == ["test"]
    touch(tmp_path, "gold/train/train.X.ptb")
    assert plan_splits(tmp_path, None, "files", options).definition["train"]["pattern"] == "gold/train/train.x.ptb"


def test_modulo_scheme_by_file_and_by_tree(tmp_path):
    touch(tmp_path, *[f"d{i:02d}.psd" for i in range(20)])
    plan = plan_splits(tmp_path, "*.psd", "modulo", {"unit": "file", "modulus": 10, "dev": [8], "test": [9]})
    assert [p.name for p in plan.files["dev"]] == ["d08.psd", "d18.psd"]
    assert [p.name for p in plan.files["test"]] == ["d09.psd", "d19.psd"]
    assert len(plan.files["train"]) == 16
    plan = plan_splits(tmp_path, "*.psd", "modulo", {"unit": "tree", "modulus": 10, "dev": [8], "test": [9]})
    assert [plan.tree_split(i) for i in (0, 7, 8, 9, 18, 19, 20)] == ["train", "train", "dev", "test", "dev", "test", "train"]
    with pytest.raises(SplitError, match="disjoint"):
        plan_splits(tmp_path, "*.psd", "modulo", {"dev": [8], "test": [8]})
