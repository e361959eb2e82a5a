"""data.evalb_params defaults to the treebank catalog's file; the bundled recipes keep their run ids."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from mlparse.config import ConfigError, load_recipe, recipe_from_yaml_text, recipes_dir
from mlparse.data.catalog import evalb_params_for

#: Every bundled recipe's run id, computed by the code before data.evalb_params defaulted to the catalog
#: (when every recipe stated its file), with the file it was scored with. The ud/ recipes got new ids with
#: data.tags: jackknife (issue 23 §5: their parsers read jack-knifed UPOS), and again when their taggers' folds
#: became contiguous blocks (data.fold_assignment: auto; issue 31 §2): :data:`BEFORE_BLOCKS`.
BUNDLED_RUN_IDS = {
    "arabic": ("9cd8cbd96890", "spmrl.prm"),
    "base": ("7bd233e30c64", "COLLINS.prm"),
    "basque": ("384c246fb3f8", "spmrl.prm"),
    "demo-dep": ("092724019b36", "COLLINS.prm"),
    "external/benepar-span": ("57024a58696b", "COLLINS.prm"),  # its commands name {repo}, benepar's checkout
    "external/stanza-parser": ("4238ac8979f0", "COLLINS.prm"),  # its commands name {lang} and {treebank} (issue 47)
    # SuPar's per-epoch test pass reads {probe}, one training sentence, not dev again (issue 47, one clock)
    "external/supar-biaffine-dep": ("2363bf35ae93", "COLLINS.prm"),
    "external/supar-crf-con": ("799a49db167b", "COLLINS.prm"),
    "demo-lal": ("9d45b8d5630a", "COLLINS.prm"),  # keeps sub-batches of 400 (not demo's auto: slower for it)
    "demo-synthetic": ("3933c70a72b6", "COLLINS.prm"),  # inherits demo's sub-batches (DEMO_SUBBATCH_400)
    "chinese-bert": ("0c5296acb106", "COLLINS.prm"),
    "demo": ("f4472fb96d5e", "COLLINS.prm"),  # train.subbatch_tokens 400 -> auto (issue 46): DEMO_SUBBATCH_400
    "english": ("0ad4aa4fd93e", "COLLINS.prm"),
    "english-bert": ("92960d03ee7f", "COLLINS.prm"),
    "english-xlnet": ("bbffa1849940", "COLLINS.prm"),
    "free/chinese": ("b4a2e5f70e69", "COLLINS.prm"),
    "free/english": ("c77d46dd7e8a", "COLLINS.prm"),
    "free/faroese": ("119fab8a4437", "COLLINS.prm"),
    "free/icelandic": ("0eb6ab14046c", "COLLINS.prm"),
    "free/indonesian": ("8809258a9ca8", "COLLINS.prm"),
    "free/japanese": ("4d5875c1b2c6", "COLLINS.prm"),
    "free/portuguese": ("7fa4f126c785", "COLLINS.prm"),
    "free/spanish": ("9e6f33f3f083", "COLLINS.prm"),
    "french": ("e98d7c1e30e9", "spmrl.prm"),
    "german": ("3c4e67fd1289", "spmrl.prm"),
    "hebrew": ("d16b2c81bea7", "spmrl.prm"),
    "hungarian": ("c3462ea6c6fd", "spmrl.prm"),
    "korean": ("d5323c801cb2", "spmrl.prm"),
    "lal/chinese": ("a2ed3155e218", "COLLINS.prm"),
    "lal/chinese-bert": ("e4ac9ceb9a85", "COLLINS.prm"),
    "lal/english": ("daf2d6c83c71", "COLLINS.prm"),
    "lal/english-xlnet": ("5378059a9896", "COLLINS.prm"),
    "lal/ptb-sample": ("e29025207980", "COLLINS.prm"),
    "polish": ("d73e07946b13", "spmrl.prm"),
    "swedish": ("ff4715d9f32b", "spmrl.prm"),
    "ud": ("48a0b69d8d31", "COLLINS.prm"),  # the generic UD recipe (data.language of ud/base: UD_English-EWT)
    "ud/base": ("db93a3ed91b8", "COLLINS.prm"),
    "ud/basque-v2": ("aebebeafa0e8", "COLLINS.prm"),
    "ud/basque": ("48c551fdbff8", "COLLINS.prm"),
    "ud/chinese-v2": ("566b9989ff6a", "COLLINS.prm"),
    "ud/chinese": ("a66477332ccd", "COLLINS.prm"),
    "ud/english-ewt-bilstm": ("bbee71af32bd", "COLLINS.prm"),  # train.cpu_bf16: true (issue 46): CPU_BF16_OFF
    "ud/english-ewt": ("f658c209f8f4", "COLLINS.prm"),
    "ud/english-ewt-joint-tags": ("007602e82c2f", "COLLINS.prm"),  # reads no tags, predicts UPOS (issue 31 §4)
    "ud/english-ewt-bert": ("38bba741664f", "COLLINS.prm"),
    "ud/french": ("50c1b964d100", "COLLINS.prm"),
    "ud/german": ("2179cb0d0926", "COLLINS.prm"),
    "ud/hebrew": ("e36b6db07b8d", "COLLINS.prm"),
    "ud/hungarian-szeged": ("c4ab8b42da35", "COLLINS.prm"),
    "ud/korean": ("49123d41ef23", "COLLINS.prm"),
    "ud/polish": ("74ba2fcccff1", "COLLINS.prm"),
    "ud/swedish": ("0552eb47697f", "COLLINS.prm"),
    "tagger": ("8d0d9c0e0060", "COLLINS.prm"),  # + train.ema_decay 0.998 since 2026-11-27 (before: c52e0d64e92c; c3662644ed97; 52bcc17e84b4 the transformer)
    "tagger-transformer": ("9e760fe17b0e", "COLLINS.prm"),  # the former bundled tagger, under its own name
}


#: The ud/ recipes' ids while their taggers' folds interleaved sentences: `--set data.fold_assignment=modulo` gives
#: them back (the same parser on the same tags, so its runs and taggers are found again).
BEFORE_BLOCKS = {
    "ud": "b8e59496b6b7",
    "ud/base": "bed700a6b1d8",
    "ud/basque-v2": "4391cabad9aa",
    "ud/basque": "6c9f3d6d0314",
    "ud/chinese-v2": "839b5eaf5c26",
    "ud/chinese": "fcee9de2616a",
    "ud/english-ewt-bilstm": "3be2305a8516",
    "ud/english-ewt": "b307ad89f561",
    "ud/english-ewt-bert": "910b1404107e",
    "ud/french": "60c6ac828695",
    "ud/german": "40f7216e0bea",
    "ud/hebrew": "27c769539c26",
    "ud/hungarian-szeged": "fc10f5c9bc9e",
    "ud/korean": "30010ceae53b",
    "ud/polish": "ef17caa42e2b",
    "ud/swedish": "7491d4fab451",
}


#: Recipes that turned train.cpu_bf16 on (bfloat16 products on a CPU with AMX: another arithmetic, so a new id),
#: with the id `--set train.cpu_bf16=false` gives back: the float32 runs made before are found again.
CPU_BF16_OFF = {"ud/english-ewt-bilstm": "e0c5b3c48752"}

#: The demo recipes' ids while demo.yaml cut sub-batches at 400 token-equivalents (before `auto` and
#: `subbatch_overhead: 1000`, issue 46): `--set train.subbatch_tokens=400` gives them back.
DEMO_SUBBATCH_400 = {"demo": "110be667da3c", "demo-synthetic": "297c80c07375"}


def bundled_names() -> list:
    paths = (path.relative_to(recipes_dir()) for path in recipes_dir().rglob("*.yaml"))
    return sorted(str(path)[: -len(".yaml")] for path in paths if path.parts[0] != "suites")  # suites: mlparse sweep


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_every_bundled_recipe_keeps_its_run_id_and_does_not_repeat_the_catalogs_file() -> None:
    assert bundled_names() == sorted(BUNDLED_RUN_IDS)  # a new recipe gets its pin here
    for name, (run_id, params) in BUNDLED_RUN_IDS.items():
        config = load_recipe(name)
        assert (config.hash()[:12], config.data.evalb_params) == (run_id, params), name
        stated = yaml.safe_load((recipes_dir() / f"{name}.yaml").read_text(encoding="utf-8")).get("data") or {}
        catalog = evalb_params_for(config.data.family, config.data.language)
        assert catalog is None or stated.get("evalb_params") != catalog, name


def test_an_spmrl_recipe_without_evalb_params_gets_the_catalogs_file(tmp_path: Path) -> None:
    recipe = write(tmp_path / "mine.yaml", "data: {family: spmrl, language: hebrew}\n")
    config = load_recipe(recipe)
    assert config.data.evalb_params == "spmrl.prm"
    assert "evalb_params: spmrl.prm" in config.to_yaml()  # the run's recipe.yaml states it
    # the run id is the one of the recipe that states the file
    stated = load_recipe(write(tmp_path / "stated.yaml", "name: mine\ndata: {family: spmrl, language: hebrew, "
                                                          "evalb_params: spmrl.prm}\n"))
    assert stated.hash() == config.hash()
    # a recipe.yaml without the key (written by hand) resolves the same way
    assert recipe_from_yaml_text("data: {family: spmrl, language: german}\n").data.evalb_params == "spmrl.prm"


def test_the_family_is_resolved_after_base_and_overrides(tmp_path: Path) -> None:
    # demo.yaml (ptb-sample) inherits base.yaml (ptb): neither states a file any more
    assert load_recipe("demo", ["data.family=spmrl", "data.language=german"]).data.evalb_params == "spmrl.prm"
    write(tmp_path / "child.yaml", "base: hebrew\ndata: {family: ptb, language: english}\n")
    assert load_recipe(tmp_path / "child.yaml").data.evalb_params == "COLLINS.prm"


def test_a_stated_file_wins(tmp_path: Path) -> None:
    assert load_recipe("hebrew", ["data.evalb_params=spmrl_hebrew.prm"]).data.evalb_params == "spmrl_hebrew.prm"
    recipe = write(tmp_path / "mine.yaml", "data: {family: spmrl, language: hebrew, evalb_params: COLLINS.prm}\n")
    assert load_recipe(recipe).data.evalb_params == "COLLINS.prm"
    write(tmp_path / "child.yaml", "base: mine\ndata: {language: german}\n")  # stated by the base
    assert load_recipe(tmp_path / "child.yaml").data.evalb_params == "COLLINS.prm"


def test_data_outside_the_catalog_keeps_collins(tmp_path: Path) -> None:
    cases = {
        "family": "data: {family: tiny, language: english}\n",
        "language": "data: {family: spmrl, language: latin}\n",
        "explicit paths": "data: {family: spmrl, language: hebrew, train: a.trees, dev: b.trees, test: c.trees}\n",
        "no file in the catalog": "data: {family: ud, language: UD_English-EWT}\n",
    }
    for case, text in cases.items():
        assert load_recipe(write(tmp_path / "r.yaml", text)).data.evalb_params == "COLLINS.prm", case


FAMILY = """\
family: mine
defaults:
  reader: {format: bracketed}
  split: {scheme: files, train: train.mrg, dev: dev.mrg, test: test.mrg}
  evalb: spmrl.prm
languages:
  plain: {}
  special: {evalb: spmrl_hebrew.prm}
"""


def test_a_languages_own_file_overrides_the_familys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    write(catalog / "mine.yaml", FAMILY)
    monkeypatch.setenv("MLPARSE_CATALOG", str(catalog))
    plain = load_recipe(write(tmp_path / "plain.yaml", "data: {family: mine, language: plain}\n"))
    special = load_recipe(write(tmp_path / "special.yaml", "data: {family: mine, language: special}\n"))
    assert (plain.data.evalb_params, special.data.evalb_params) == ("spmrl.prm", "spmrl_hebrew.prm")


def test_a_broken_catalog_file_is_one_clear_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    write(catalog / "mine.yaml", FAMILY.replace("languages:", "colour: red\nlanguages:"))
    monkeypatch.setenv("MLPARSE_CATALOG", str(catalog))
    recipe = write(tmp_path / "r.yaml", "data: {family: mine, language: plain}\n")
    with pytest.raises(ConfigError) as error:
        load_recipe(recipe)
    message = str(error.value)
    assert str(recipe) in message and "mine.yaml" in message and "colour" in message
    assert "set data.evalb_params" in message and "\n" not in message
    # a recipe that states its file does not need the catalog
    write(recipe, "data: {family: mine, language: plain, evalb_params: COLLINS.prm}\n")
    assert load_recipe(recipe).data.evalb_params == "COLLINS.prm"


def test_cpu_bf16_off_gives_the_float32_ids_back() -> None:
    for name, before in CPU_BF16_OFF.items():
        assert load_recipe(name).train.cpu_bf16, name
        assert load_recipe(name, ["train.cpu_bf16=false"]).hash()[:12] == before, name


def test_demo_sub_batches_of_400_give_the_old_ids_back() -> None:
    for name, before in DEMO_SUBBATCH_400.items():
        config = load_recipe(name)
        assert config.train.subbatch_tokens == "auto" and config.train.subbatch_overhead == 1000, name
        assert load_recipe(name, ["train.subbatch_tokens=400"]).hash()[:12] == before, name
        assert load_recipe(name, ["train.subbatch_overhead=160"]).hash() == config.hash(), name  # not in the id


def test_evalb_params_for_reads_the_catalog() -> None:
    assert evalb_params_for("spmrl", "hebrew") == "spmrl.prm"
    assert evalb_params_for("ptb", "english") == "COLLINS.prm"
    assert evalb_params_for("ud", "UD_English-EWT") is None
    assert evalb_params_for("spmrl", "latin") is None
    assert evalb_params_for("tiny", "english") is None


def test_the_ud_recipes_blocks_folds_are_new_ids_and_modulo_gives_the_old_ones() -> None:
    for name, before in BEFORE_BLOCKS.items():
        config = load_recipe(name)
        float32 = ["train.cpu_bf16=false"] if name in CPU_BF16_OFF else []
        assert config.data.tags == "jackknife" and config.data.folds_by() == "blocks", name
        assert load_recipe(name, ["data.fold_assignment=modulo", *float32]).hash()[:12] == before, name
        assert load_recipe(name, ["data.fold_assignment=blocks"]).hash() == config.hash(), name  # auto means blocks
