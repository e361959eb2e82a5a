"""Recipes: base inheritance, --set overrides, validation and unknown-key messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlparse.config import ConfigError, RecipeConfig, load_recipe, recipe_from_yaml_text

REPO = Path(__file__).resolve().parents[1]
RECIPES = REPO / "recipes"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_base_inheritance_deep_merges(tmp_path: Path) -> None:
    write(tmp_path / "parent.yaml", "model: {num_layers: 4, d_model: 256}\ntrain: {lr: 0.5, seed: 3}\n")
    write(tmp_path / "child.yaml", "base: parent\nmodel: {num_layers: 2}\n")
    config = load_recipe(tmp_path / "child.yaml")
    assert config.name == "child"
    assert config.model.num_layers == 2  # child wins
    assert config.model.d_model == 256  # inherited from the parent
    assert config.train.lr == 0.5 and config.train.seed == 3
    assert config.model.num_heads == 8  # dataclass default where nobody says anything


def test_three_level_chain_and_relative_base(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    write(tmp_path / "a.yaml", "train: {lr: 1.0, batch_size: 10}\n")
    write(tmp_path / "sub" / "b.yaml", "base: ../a.yaml\ntrain: {lr: 2.0}\n")
    write(tmp_path / "c.yaml", "base: sub/b\ntrain: {seed: 9}\n")
    config = load_recipe(tmp_path / "c.yaml")
    assert (config.train.lr, config.train.batch_size, config.train.seed) == (2.0, 10, 9)


def test_circular_base_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "x.yaml", "base: y\n")
    write(tmp_path / "y.yaml", "base: x\n")
    with pytest.raises(ConfigError, match="circular"):
        load_recipe(tmp_path / "x.yaml")


def test_overrides_parse_yaml_values() -> None:
    config = load_recipe(RECIPES / "english.yaml", ["train.lr=0.001", "model.use_words=true", "train.adam_betas=[0.8, 0.9]",
                                                     "train.clip_grad_norm=null", "model.char_encoder=concat",
                                                     "model.d_char_emb=32"])
    assert config.train.lr == 0.001
    assert config.model.use_words is True
    assert config.train.adam_betas == [0.8, 0.9]
    assert config.train.clip_grad_norm is None
    assert config.model.char_encoder == "concat"


#: Values quoted the YAML way with a space inside: ``--set`` reads each as the YAML recipe's value of the same key.
QUOTED_WITH_SPACES = ["'/data/my treebanks'", '"/data/my treebanks"', "'/data/it''s mine/x y'",
                      '"/data/a \\"quoted\\" name"', "'/data/my treebanks'  # a comment"]


@pytest.mark.parametrize("value", QUOTED_WITH_SPACES)
def test_a_quoted_override_with_spaces_reads_as_the_recipe_value(tmp_path: Path, value: str) -> None:
    child = write(tmp_path / "child.yaml", f"base: {RECIPES / 'english.yaml'}\ndata:\n  root: {value}\n")
    from_file = load_recipe(child).data.root
    assert " " in from_file and not from_file.startswith(("'", '"'))  # the quotes removed, the spaces kept
    assert load_recipe(RECIPES / "english.yaml", [f"data.root={value}"]).data.root == from_file


def test_a_quoted_external_override_reads_as_the_recipe_value(tmp_path: Path) -> None:
    from helpers.external_fixtures import write_external_recipe

    recipe = write_external_recipe(tmp_path)

    def from_file(key: str, value: str) -> RecipeConfig:
        return load_recipe(write(tmp_path / "child.yaml", f"base: {recipe}\nexternal:\n  {key}: {value}\n"))

    settings = "'left chains, one word per line'"
    assert load_recipe(str(recipe), [f"external.settings={settings}"]).external.settings == \
        from_file("settings", settings).external.settings == "left chains, one word per line"
    # external.model is a template of shell words naming one file: YAML's quotes are YAML's, so a file name with a
    # space needs a shell's quotes inside the value, in a recipe and in --set alike
    for value in ("'{workdir}/mo del.json'", '"{workdir}/mo del.json"'):
        with pytest.raises(ConfigError, match="external.model names one file, got 2 words"):
            from_file("model", value)
        with pytest.raises(ConfigError, match="external.model names one file, got 2 words"):
            load_recipe(str(recipe), [f"external.model={value}"])
    for value in ('"\'{workdir}/mo del.json\'"', "'\"{workdir}/mo del.json\"'"):
        expected = from_file("model", value).external.model
        assert load_recipe(str(recipe), [f"external.model={value}"]).external.model == expected
        assert expected in ("'{workdir}/mo del.json'", '"{workdir}/mo del.json"')


def test_unknown_override_key_names_closest_match_and_valid_keys() -> None:
    with pytest.raises(ConfigError) as info:
        load_recipe(RECIPES / "english.yaml", ["train.learning_rat=0.1"])
    message = str(info.value)
    assert "learning_rat" in message
    assert "Valid keys:" in message and "warmup_steps" in message
    with pytest.raises(ConfigError, match="Did you mean 'num_layers'"):
        load_recipe(RECIPES / "english.yaml", ["model.num_layer=3"])
    with pytest.raises(ConfigError, match="Did you mean 'train'"):
        load_recipe(RECIPES / "english.yaml", ["trian.lr=3"])


def test_unknown_key_in_file_is_an_error(tmp_path: Path) -> None:
    write(tmp_path / "bad.yaml", f"base: {RECIPES / 'base.yaml'}\nmodel: {{d_modle: 64}}\n")
    with pytest.raises(ConfigError) as info:
        load_recipe(tmp_path / "bad.yaml")
    assert "Did you mean 'd_model'" in str(info.value)
    assert str(tmp_path / "bad.yaml") in str(info.value)
    write(tmp_path / "bad2.yaml", "modle: {}\n")
    with pytest.raises(ConfigError, match="Did you mean 'model'"):
        load_recipe(tmp_path / "bad2.yaml")


@pytest.mark.parametrize("override, pattern", [
    ("train.lr=fast", "expected a number"),
    ("model.num_layers=2.5", "expected an integer"),
    ("model.use_words=maybe", "expected true or false"),
    ("model.char_encoder=gru", "must be one of"),
    ("model.d_model=33", "must be even"),
    ("train.batch_size=0", "must be positive"),
    ("train.lr", "section.key=value"),
])
def test_invalid_values_are_clear_errors(override: str, pattern: str) -> None:
    with pytest.raises(ConfigError, match=pattern):
        load_recipe(RECIPES / "english.yaml", [override])


def test_every_shipped_recipe_loads_and_paper_settings() -> None:
    paths = sorted(RECIPES.glob("*.yaml")) + sorted((RECIPES / "free").glob("*.yaml"))
    configs = {path.stem if path.parent == RECIPES else f"free-{path.stem}": load_recipe(path) for path in paths}
    assert {"base", "english", "demo"} <= set(configs)
    for config in configs.values():
        assert isinstance(config, RecipeConfig)
    base = configs["base"]
    assert (base.model.num_layers, base.model.d_model, base.model.num_heads, base.model.d_kv, base.model.d_ff) == (8, 1024, 8, 64, 2048)
    assert (base.model.attention_dropout, base.model.relu_dropout, base.model.residual_dropout) == (0.2, 0.1, 0.2)
    assert (base.model.word_emb_dropout, base.model.tag_emb_dropout, base.model.morpho_emb_dropout) == (0.4, 0.2, 0.2)
    assert (base.train.batch_size, base.train.warmup_steps, base.train.evals_per_epoch) == (250, 160, 4)
    # Table 9 learning rates
    expected = {"english": 8e-4, "hebrew": 2e-3, "polish": 1.5e-3, "swedish": 2e-3, "arabic": 8e-4, "basque": 8e-4,
                "french": 8e-4, "german": 8e-4, "hungarian": 8e-4, "korean": 8e-4}
    for name, lr in expected.items():
        assert configs[name].train.lr == pytest.approx(lr), name
        assert configs[name].model.char_encoder == "lstm"
    for language in ("english", "indonesian", "spanish", "portuguese", "chinese", "icelandic", "faroese", "japanese"):
        config = configs[f"free-{language}"]
        assert (config.data.family, config.data.language, config.name) == ("free", language, f"free-{language}")


def test_resolved_recipe_round_trips_and_hash_is_stable() -> None:
    config = load_recipe(RECIPES / "demo.yaml")
    again = recipe_from_yaml_text(config.to_yaml())
    assert again == config
    assert again.hash() == config.hash()
    changed = load_recipe(RECIPES / "demo.yaml", ["train.seed=2"])
    assert changed.hash() != config.hash()
    timed = load_recipe(RECIPES / "demo.yaml", ["train.max_minutes=1"])
    assert timed.hash() == config.hash()  # a time bound does not make a new experiment


def test_a_recipe_anywhere_inherits_a_bundled_recipe_by_name(tmp_path: Path) -> None:
    write(tmp_path / "mine.yaml", "base: hebrew\ntrain: {seed: 4}\n")
    config = load_recipe(tmp_path / "mine.yaml")
    hebrew = load_recipe("hebrew")
    assert config.train.seed == 4 and config.train.lr == hebrew.train.lr == 0.002
    assert config.model.num_layers == hebrew.model.num_layers
    write(tmp_path / "local.yaml", "base: base\nmodel: {num_layers: 3}\n")
    write(tmp_path / "base.yaml", "model: {d_model: 64}\n")  # beside the recipe: wins over the bundled base
    assert load_recipe(tmp_path / "local.yaml").model.d_model == 64
    write(tmp_path / "nowhere.yaml", "base: no-such-recipe\n")
    with pytest.raises(ConfigError, match="base recipe 'no-such-recipe' not found"):
        load_recipe(tmp_path / "nowhere.yaml")


def test_parser_kind_and_its_own_section() -> None:
    demo = load_recipe("demo")
    assert demo.model.kind == "span" and demo.task == "constituency"
    assert demo.split_path("dev").name == "dev.trees"
    # The biaffine section counts in the hash only for a biaffine parser: span run ids stay as they were.
    assert load_recipe("demo", ["biaffine.d_arc=7"]).hash() == demo.hash()
    dep = load_recipe("demo", ["model.kind=biaffine", "model.positions=sinusoidal"])
    assert dep.task == "dependency" and dep.split_path("dev").name == "dev.conllu"
    assert load_recipe("demo", ["model.kind=biaffine", "model.positions=sinusoidal", "biaffine.d_arc=7"]).hash() != dep.hash()
    with pytest.raises(ConfigError, match="model.encoder: bilstm is for the dependency parser"):
        load_recipe("demo", ["model.encoder=bilstm"])
    with pytest.raises(ConfigError, match="model.kind must be one of span, biaffine"):
        load_recipe("demo", ["model.kind=tree"])
    with pytest.raises(ConfigError, match="biaffine.mlp_dropout is a dropout probability"):
        load_recipe("demo", ["model.kind=biaffine", "biaffine.mlp_dropout=1.5"])
