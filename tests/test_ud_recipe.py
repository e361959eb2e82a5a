"""The generic UD recipe (`mlparse run ud --set data.language=X`, `mlparse run ud/X`), the carved dev split in
results.json, and the `ud-all` suite whose members are found in the prepared data."""

from pathlib import Path

import pytest

from mlparse.config import ConfigError, load_recipe
from mlparse.data.prepare import prepare_family
from mlparse.results import COMPLETE
from mlparse.sweep.suite import SuiteError, load_suite
from mlparse.train.runner import RunOptions, run_recipe
from helpers.dep_fixtures import TINY_BIAFFINE, TINY_DEP_MODEL, TINY_DEP_TRAIN, conllu_text
from helpers.tagger_fixtures import ONE_AT_A_TIME

TINY = ([f"model.{k}={v}" for k, v in TINY_DEP_MODEL.items()] + [f"biaffine.{k}={v}" for k, v in TINY_BIAFFINE.items()]
        + [f"train.{k}={v}" for k, v in {**TINY_DEP_TRAIN, "max_epochs": 2}.items()] + [ONE_AT_A_TIME])


def ud_folder(parent: Path, name: str, prefix: str, splits=("train", "test"), copies: int = 3) -> Path:
    folder = parent / name
    folder.mkdir(parents=True)
    for split in splits:
        (folder / f"{prefix}-ud-{split}.conllu").write_text(conllu_text() * (copies if split == "train" else 1),
                                                             encoding="utf-8")
    return folder


def test_ud_with_a_language_and_ud_slash_treebank_are_the_same_run() -> None:
    by_set = load_recipe("ud", ["data.language=UD_Finnish-TDT"])
    by_name = load_recipe("ud/UD_Finnish-TDT")
    assert (by_set.name, by_set.data.family, by_set.data.language) == ("ud-UD_Finnish-TDT", "ud", "UD_Finnish-TDT")
    assert by_set.hash() == by_name.hash() and by_set.model.kind == "biaffine"
    assert load_recipe("ud/UD_Finnish-TDT", ["data.root=elsewhere"]).data.root == "elsewhere"
    assert load_recipe("ud/english-ewt").name == "ud-english-ewt"  # a treebank-specific recipe stays itself
    with pytest.raises(ConfigError, match="recipe 'ud/finnish' not found"):
        load_recipe("ud/finnish")  # not a treebank name (UD_...) and no such recipe


def test_a_run_on_a_carved_dev_split_records_the_rule_in_results_json(tmp_path: Path) -> None:
    source = ud_folder(tmp_path / "src", "UD_Tiny-Test", "xx_test")
    (prepared,) = prepare_family("ud", source=source, out=tmp_path / "data").results
    carved = prepared.manifest.ud.dev_carved
    assert carved["dev_sentences"] == 3  # 24 training sentences: the last 3 are dev
    config = load_recipe("ud/UD_Tiny-Test", [f"data.root={tmp_path / 'data'}", *TINY])
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    assert results.status == COMPLETE and results.language == "UD_Tiny-Test" and results.recipe == "ud-UD_Tiny-Test"
    assert results.dev_carved == carved
    assert any(note.startswith("no official dev split: dev was carved from train") for note in results.notes)
    assert results.dev.sentences == 3


def prepare_release(tmp_path: Path) -> Path:
    source = tmp_path / "release"
    ud_folder(source, "UD_Tiny-A", "aa_a", ("train", "dev", "test"))
    ud_folder(source, "UD_Tiny-B", "bb_b", ("train", "test"))
    ud_folder(source, "UD_Tiny-C", "cc_c", ("dev", "test"))  # test-only: not a member
    prepare_family("ud", source=source, out=tmp_path / "data")
    return tmp_path / "data"


def test_ud_all_members_are_the_prepared_treebanks_with_train(tmp_path: Path) -> None:
    root = prepare_release(tmp_path)
    members = load_suite("ud-all").members([1, 2], [f"data.root={root}"])
    assert [m.label for m in members] == ["ud-UD_Tiny-A seed 1", "ud-UD_Tiny-A seed 2",
                                          "ud-UD_Tiny-B seed 1", "ud-UD_Tiny-B seed 2"]
    assert {m.treebank for m in members} == {(str(root), "ud", "UD_Tiny-A"), (str(root), "ud", "UD_Tiny-B")}
    (root / "ud" / "UD_Tiny-B" / "manifest.json").unlink()  # an interrupted preparation is not a member
    assert [m.config.data.language for m in load_suite("ud-all").members(overrides=[f"data.root={root}"])] == ["UD_Tiny-A"]


def test_ud_all_without_prepared_data_says_where_it_looked(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match=r"ud-all.yaml, line \d+: no prepared ud treebank with a train split in "
                                         r".*empty/ud \(run `mlparse prepare ud"):
        load_suite("ud-all").members(overrides=[f"data.root={tmp_path / 'empty'}"])


def test_a_discover_section_is_checked_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("description: x\ndiscover:\n  family: ud\n  requires: train\n", encoding="utf-8")
    with pytest.raises(SuiteError, match=r"s.yaml, line 4: discover: unknown key 'requires'"):
        load_suite(str(path))
