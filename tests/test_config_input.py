"""Recipe input that used to be misread: float spellings YAML keeps as text, the time budget's range, --set blamed
for its own range errors, duplicated keys, empty files and a missing base."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlparse.config import ConfigError, load_recipe

REPO = Path(__file__).resolve().parents[1]
BASE = REPO / "recipes" / "base.yaml"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# -- float spellings ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("spelling", ["1e-3", "1E-3", "+1e-3", "0.1e-1", "1_0e-4", "1.e-3"])
def test_a_float_key_takes_every_spelling_python_reads(spelling: str) -> None:
    """YAML 1.1 reads ``1e-3`` (no dot, or no sign in the exponent) as text; Python's float() reads it."""
    assert load_recipe("demo", [f"train.lr={spelling}"]).train.lr == float(spelling)


def test_a_float_key_in_a_recipe_file_takes_an_exponent_without_a_dot(tmp_path: Path) -> None:
    recipe = write(tmp_path / "r.yaml", f"base: {BASE}\ntrain:\n  lr: 2e-3\n  adam_betas: [9e-1, 98e-2]\n")
    config = load_recipe(recipe)
    assert config.train.lr == 2e-3 and config.train.adam_betas == [0.9, 0.98]


def test_int_keys_stay_strict_and_nan_is_no_number() -> None:
    with pytest.raises(ConfigError, match=r"--set train.seed=1e3: expected an integer, got '1e3'"):
        load_recipe("demo", ["train.seed=1e3"])
    with pytest.raises(ConfigError, match=r"--set train.clip_grad_norm=nan: expected a number, got 'nan'"):
        load_recipe("demo", ["train.clip_grad_norm=nan"])
    with pytest.raises(ConfigError, match=r"--set train.lr=fast: expected a number"):
        load_recipe("demo", ["train.lr=fast"])


def test_the_same_recipe_with_either_spelling_has_the_same_run_id() -> None:
    assert load_recipe("demo", ["train.lr=1e-3"]).hash() == load_recipe("demo", ["train.lr=0.001"]).hash()


# -- train.max_minutes ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, message", [
    ("-1", "train.max_minutes is a time budget"), ("-0.5", "train.max_minutes is a time budget"),
    (".inf", "train.max_minutes is a time budget"), ("inf", "train.max_minutes is a time budget"),
    (".nan", "expected a number, got nan"), ("nan", "expected a number, got 'nan'"),
])
def test_train_max_minutes_must_be_a_finite_number_of_at_least_zero(value: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_recipe("demo", [f"train.max_minutes={value}"])
    assert str(info.value).startswith(f"--set train.max_minutes={value}: {message}")


def test_train_max_minutes_in_a_recipe_file_is_checked_too(tmp_path: Path) -> None:
    recipe = write(tmp_path / "r.yaml", f"base: {BASE}\ntrain:\n  max_minutes: -1\n")
    with pytest.raises(ConfigError, match=r"r.yaml, line 3: train.max_minutes .*got -1"):
        load_recipe(recipe)
    assert load_recipe("demo", ["train.max_minutes=0"]).train.max_minutes == 0.0  # 0: one update, as documented


def test_tagger_max_minutes_refuses_nan_and_infinity() -> None:
    for value in (".nan", ".inf"):
        with pytest.raises(ConfigError, match=r"tagger.max_minutes"):
            load_recipe("demo-dep", [f"tagger.max_minutes={value}"])


# -- --set is named for the range errors it causes ------------------------------------------------------------

@pytest.mark.parametrize("override, message", [
    ("train.ema_decay=1.5", "train.ema_decay is a decay in [0, 1)"),
    ("tagger.folds=0", "tagger.folds must be at least 2"),
    ("train.batch_size=0", "train.batch_size must be positive"),
    ("model.d_model=0", "model.d_model must be positive"),  # once blamed on the data file
])
def test_a_range_error_of_an_override_names_the_override(override: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_recipe("demo-dep", ["train.seed=2", override, "train.lr=0.001"])
    assert str(info.value).startswith(f"--set {override}: {message}")
    assert "demo-dep.yaml" not in str(info.value)


@pytest.mark.parametrize("value", ["inf", "1e309"])
def test_an_infinite_learning_rate_is_refused_naming_the_key(value: str) -> None:
    """Once accepted, then failing at the first update as "arc score ... is nan" without a word of the key."""
    with pytest.raises(ConfigError) as info:
        load_recipe("demo-dep", [f"train.lr={value}"])
    assert str(info.value).startswith(f"--set train.lr={value}: train.lr must be positive (and finite)")


def test_a_range_error_of_the_file_still_names_the_file(tmp_path: Path) -> None:
    recipe = write(tmp_path / "r.yaml", f"base: {BASE}\ntrain:\n  ema_decay: 1.5\n")
    with pytest.raises(ConfigError) as info:
        load_recipe(recipe, ["train.seed=2"])
    assert str(info.value).startswith(f"{recipe}: train.ema_decay")


def test_an_override_that_repairs_the_file_is_not_blamed_for_a_later_one(tmp_path: Path) -> None:
    recipe = write(tmp_path / "r.yaml", f"base: {BASE}\ntrain:\n  ema_decay: 1.5\n")
    with pytest.raises(ConfigError) as info:
        load_recipe(recipe, ["train.ema_decay=0.5", "train.batch_size=0"])
    assert str(info.value).startswith("--set train.batch_size=0: train.batch_size must be positive")


# -- duplicated keys, empty files, a missing base -------------------------------------------------------------

def test_a_key_given_twice_in_a_section_is_refused_with_both_lines(tmp_path: Path) -> None:
    recipe = write(tmp_path / "r.yaml", f"base: {BASE}\ntrain:\n  lr: 0.002\n  seed: 3\n  lr: 5\n")
    with pytest.raises(ConfigError) as info:
        load_recipe(recipe)
    message = str(info.value)
    assert message.startswith(f"{recipe}, lines 3 and 5: ") and "train.lr" in message


def test_a_section_given_twice_is_refused_with_both_lines(tmp_path: Path) -> None:
    recipe = write(tmp_path / "r.yaml", f"base: {BASE}\ntrain: {{lr: 0.002}}\nmodel: {{d_model: 64}}\ntrain: {{seed: 2}}\n")
    with pytest.raises(ConfigError, match=r"r.yaml, lines 2 and 4: .*'train'"):
        load_recipe(recipe)


def test_a_duplicate_in_a_base_recipe_names_that_file(tmp_path: Path) -> None:
    write(tmp_path / "parent.yaml", f"base: {BASE}\nmodel:\n  d_model: 64\n  d_model: 128\n")
    child = write(tmp_path / "child.yaml", "base: parent\n")
    with pytest.raises(ConfigError, match=r"parent.yaml, lines 3 and 4: .*model.d_model"):
        load_recipe(child)


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "---\n", "{}\n"])
def test_an_empty_recipe_file_is_refused(tmp_path: Path, text: str) -> None:
    recipe = write(tmp_path / "empty.yaml", text)
    with pytest.raises(ConfigError, match=rf"^{recipe}: the recipe is empty"):
        load_recipe(recipe)


def test_a_missing_base_names_the_recipe_file_and_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "nob.yaml", "name: x\nbase: nonexistent\n")
    with pytest.raises(ConfigError) as info:
        load_recipe("nob.yaml")
    assert str(info.value).startswith("nob.yaml, line 2: base recipe 'nonexistent' not found")
