"""Recipe layout 2: the span head's keys in their own ``span:`` section, each kind's sections declared once, and
recipes, ``--set`` overrides, run directories and checkpoints of layout 1 (those keys in ``model:``) still read,
with the same run ids."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from helpers.dep_fixtures import write_dep_recipe
from helpers.joint_fixtures import write_joint_recipe
from helpers.span_fixtures import make_model
from mlparse.cli import app
from mlparse.config import (SECTIONS, ConfigError, SpanConfig, load_recipe, recipe_from_yaml_text, recipes_dir,
                            sections_of_kind)
from mlparse.config.kinds import builtin_kinds
from mlparse.config.layout import MOVED_KEYS
from mlparse.config.schema import ModelConfig
from mlparse.config.upgrade import upgrade_recipe_text
from mlparse.models.registry import parser_class
from mlparse.models.span_parser import SpanParser
from mlparse.tasks import task_for

runner = CliRunner()

#: Run ids that the code before layout 2 gave recipes/demo.yaml with these overrides (then all under model:); the
#: recipe then cut its sub-batches at 400 token-equivalents (:data:`DEMO_AS_IT_WAS`, before issue 46's `auto`).
DEMO_AS_IT_WAS = ("train.subbatch_tokens=400",)
LAYOUT_1_IDS = {
    (): "110be667da3c",
    ("model.kind=biaffine", "model.positions=sinusoidal"): "ba55735a3836",
    ("model.kind=biaffine", "model.positions=sinusoidal", "model.predict_tags=true"): "830c084b552e",
    ("model.kind=joint", "model.d_label_hidden=32", "model.predict_tags=true", "model.tag_loss_scale=2.5"): "ecd74d0d164a",
    ("model.kind=tagger", "model.positions=sinusoidal"): "bd1ba4386af8",
}

LAYOUT_1_RECIPE = """\
# a recipe written before layout 2
base: base
model:
  kind: joint
  d_model: 64
  d_label_hidden: 32        # the span MLP
  num_heads: 2
  predict_tags: true
train:
  lr: 0.001
"""

LAYOUT_2_RECIPE = """\
# a recipe written before layout 2
base: base
model:
  kind: joint
  d_model: 64
  num_heads: 2
span:
  d_label_hidden: 32        # the span MLP
  predict_tags: true
train:
  lr: 0.001
"""


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_each_kind_declares_its_own_sections_once() -> None:
    assert sections_of_kind("span") == ("span",) and sections_of_kind("joint") == ("span", "joint")
    assert sections_of_kind("biaffine") == ("biaffine",) and sections_of_kind("tagger") == ("tagger",)
    for kind in builtin_kinds():
        assert set(sections_of_kind(kind)) <= set(SECTIONS), kind
    # model: holds no head's key any more; span: holds exactly the keys that moved
    assert not {key for _, key in MOVED_KEYS} & set(ModelConfig().__dict__)
    assert {key for _, key in MOVED_KEYS} == set(SpanConfig().__dict__)


@pytest.mark.parametrize("overrides, run_id", list(LAYOUT_1_IDS.items()))
def test_old_overrides_give_the_run_ids_of_layout_1_and_new_ones_too(overrides: tuple, run_id: str) -> None:
    old = load_recipe("demo", [*DEMO_AS_IT_WAS, *overrides])
    new = load_recipe("demo", [*DEMO_AS_IT_WAS] + [
        o.replace("model.d_label", "span.d_label").replace("model.predict", "span.predict")
        .replace("model.tag_loss", "span.tag_loss") for o in overrides])
    assert old.hash()[:12] == new.hash()[:12] == run_id
    assert old == new


def test_a_span_setting_changes_the_run_id_of_the_kinds_that_read_it_and_the_others_as_before() -> None:
    assert load_recipe("demo", ["span.d_label_hidden=65"]).hash() != load_recipe("demo").hash()
    joint = ["model.kind=joint"]
    assert load_recipe("demo", [*joint, "span.tag_loss_scale=1"]).hash() != load_recipe("demo", joint).hash()
    # a joint: setting does not count for a span parser (its own sections only)
    assert load_recipe("demo", ["joint.d_arc=7"]).hash() == load_recipe("demo").hash()


def test_a_layout_1_file_loads_with_a_note_naming_its_line_and_the_same_recipe(tmp_path: Path,
                                                                              capsys: pytest.CaptureFixture) -> None:
    old = write(tmp_path / "old.yaml", LAYOUT_1_RECIPE)
    new = write(tmp_path / "new.yaml", LAYOUT_2_RECIPE)
    capsys.readouterr()
    old_config = load_recipe(old)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{old}, line 6: model.d_label_hidden, model.predict_tags are now " \
        "span.d_label_hidden, span.predict_tags" in err and f"mlparse upgrade {old}" in err
    new_config = load_recipe(new)
    assert capsys.readouterr().err == ""  # a layout-2 file says nothing
    assert new_config.span == SpanConfig(d_label_hidden=32, predict_tags=True)
    old_config.name = new_config.name
    assert old_config == new_config and old_config.hash() == new_config.hash()


def test_set_of_a_moved_key_sets_its_new_place_with_a_note(capsys: pytest.CaptureFixture) -> None:
    config = load_recipe("demo", ["model.d_tag_hidden=17"])
    assert config.span.d_tag_hidden == 17 and "model.d_tag_hidden is now span.d_tag_hidden" in capsys.readouterr().err
    # the override wins over the recipe's span: value, as any override does
    assert load_recipe("demo", ["model.d_label_hidden=31"]).span.d_label_hidden == 31
    with pytest.raises(ConfigError, match=r"unknown key 'd_label_hiden'.*Did you mean 'd_label_hidden'"):
        load_recipe("demo", ["span.d_label_hiden=3"])


def test_a_key_in_both_its_old_and_new_place_is_an_error(tmp_path: Path) -> None:
    both = write(tmp_path / "both.yaml", "base: base\nmodel: {d_label_hidden: 8}\nspan: {d_label_hidden: 9}\n")
    with pytest.raises(ConfigError, match=r"both.yaml: model.d_label_hidden and span.d_label_hidden are both given"):
        load_recipe(both)
    with pytest.raises(ConfigError, match="are both given"):
        recipe_from_yaml_text("model: {predict_tags: true}\nspan: {predict_tags: false}\n")


def test_a_bad_value_of_a_moved_key_names_its_line(tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.yaml", "base: base\nmodel:\n  d_model: 64\n  d_label_hidden: many\n")
    with pytest.raises(ConfigError, match=r"bad.yaml, line 4: span.d_label_hidden: expected an integer"):
        load_recipe(bad)


def test_a_span_key_in_a_biaffine_recipe_moves_and_is_unread_as_before(tmp_path: Path) -> None:
    """The biaffine parser has no span head: a layout-1 ``model.predict_tags`` there moves to ``span:``, which it
    does not read (a biaffine recipe built on a span recipe inherits its span: section); the run id is as before
    (LAYOUT_1_IDS)."""
    path = write_dep_recipe(tmp_path)
    plain = load_recipe(path)
    moved = load_recipe(path, ["model.predict_tags=true", "model.d_label_hidden=3"])
    assert moved.span == SpanConfig(d_label_hidden=3, predict_tags=True) and "span" not in sections_of_kind("biaffine")
    examples = task_for(plain.task).read_split(Path(plain.data.train)).examples
    specs = [parser_class("biaffine").build(config, examples).spec() for config in (plain, moved)]
    assert specs[0] == specs[1]  # the same parser


def test_a_saved_layout_1_recipe_yaml_reads_silently_with_its_run_id(capsys: pytest.CaptureFixture) -> None:
    for overrides in (["model.kind=joint", "span.predict_tags=true"], ["model.kind=biaffine", "model.positions=sinusoidal"]):
        config = load_recipe("demo", overrides)
        data = config.to_dict()
        assert "d_label_hidden" not in data["model"] and data["span"]["d_label_hidden"] == 64  # written in layout 2
        data["model"].update(data.pop("span"))  # what the code before layout 2 wrote into runs/.../recipe.yaml
        capsys.readouterr()
        saved = recipe_from_yaml_text(yaml.safe_dump(data, sort_keys=False), "runs/demo/x/recipe.yaml")
        assert capsys.readouterr().err == ""
        assert saved == config and saved.hash() == config.hash()


def test_upgrade_rewrites_only_the_moved_lines_and_keeps_comments() -> None:
    assert upgrade_recipe_text(LAYOUT_1_RECIPE) == LAYOUT_2_RECIPE
    assert upgrade_recipe_text(LAYOUT_2_RECIPE) is None
    # into an existing span: section, at its indentation
    text = "model:\n    d_label_hidden: 8\n    d_model: 64\nspan:\n  d_tag_hidden: 4\ntrain: {lr: 0.1}\n"
    assert upgrade_recipe_text(text) == "model:\n    d_model: 64\nspan:\n  d_tag_hidden: 4\n  d_label_hidden: 8\ntrain: {lr: 0.1}\n"
    with pytest.raises(ConfigError, match="flow style"):
        upgrade_recipe_text("model: {d_label_hidden: 8}\n", "x.yaml")
    with pytest.raises(ConfigError, match="are both given"):
        upgrade_recipe_text("model:\n  d_label_hidden: 8\nspan:\n  d_label_hidden: 9\n", "x.yaml")


def test_every_bundled_recipe_is_in_layout_2() -> None:
    for path in sorted(recipes_dir().rglob("*.yaml")):
        if path.parts[-2] != "suites":
            assert upgrade_recipe_text(path.read_text(encoding="utf-8"), str(path)) is None, path
        else:
            for override in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("set") or []:
                assert tuple(override.split("=")[0].split(".")) not in MOVED_KEYS, (path, override)


def test_mlparse_upgrade_rewrites_a_recipe_and_a_run_directorys_recipe_yaml(tmp_path: Path) -> None:
    recipe = write(tmp_path / "old.yaml", LAYOUT_1_RECIPE)
    before = load_recipe(recipe).hash()
    result = runner.invoke(app, ["upgrade", str(recipe)])
    assert result.exit_code == 0, result.output
    assert "model.d_label_hidden -> span.d_label_hidden" in result.output
    assert recipe.read_text(encoding="utf-8") == LAYOUT_2_RECIPE and load_recipe(recipe).hash() == before
    assert "already in the current layout" in runner.invoke(app, ["upgrade", str(recipe)]).output
    run_dir = tmp_path / "runs" / "demo" / "abc"
    run_dir.mkdir(parents=True)
    config = load_recipe("demo", ["span.predict_tags=true"])
    data = config.to_dict()
    data["model"].update(data.pop("span"))
    write(run_dir / "recipe.yaml", yaml.safe_dump(data, sort_keys=False))
    result = runner.invoke(app, ["upgrade", str(run_dir)])
    assert result.exit_code == 0, result.output
    saved = (run_dir / "recipe.yaml").read_text(encoding="utf-8")
    assert "span:\n  d_label_hidden: 64\n  predict_tags: true" in saved
    assert recipe_from_yaml_text(saved).hash() == config.hash()
    flow = write(tmp_path / "flow.yaml", "base: base\nmodel: {d_label_hidden: 8}\n")
    result = runner.invoke(app, ["upgrade", str(flow)])
    assert result.exit_code == 1 and "flow style" in result.output and "Traceback" not in result.output


def layout_1_spec(spec: dict) -> dict:
    """A checkpoint spec as the code before layout 2 saved it: the span head's keys inside ``model_config``."""
    old = {key: value for key, value in spec.items() if key != "span_config"}
    old["model_config"] = {**spec["model_config"], **spec.get("span_config", SpanConfig().__dict__)}
    return old


def test_a_span_checkpoint_of_layout_1_loads_and_resumes() -> None:
    parser, _, _ = make_model(d_label_hidden=12, predict_tags=True, d_tag_hidden=6)
    old = layout_1_spec(parser.spec())
    loaded = SpanParser.from_spec(old)
    assert loaded.span_config == SpanConfig(d_label_hidden=12, predict_tags=True, d_tag_hidden=6)
    assert loaded.config == parser.config and loaded.tagger is not None
    assert parser.resume_mismatch(old) is None
    other, _, _ = make_model(d_label_hidden=13, predict_tags=True, d_tag_hidden=6)
    assert other.resume_mismatch(old) == "span settings"


@pytest.mark.parametrize("kind", ["biaffine", "joint"])
def test_biaffine_and_joint_checkpoints_of_layout_1_load_and_resume(tmp_path: Path, kind: str) -> None:
    path = write_dep_recipe(tmp_path) if kind == "biaffine" else write_joint_recipe(tmp_path, model={"d_label_hidden": 12})
    config = load_recipe(path)
    task = task_for(config.task)
    parser = parser_class(kind).build(config, task.read_split(Path(config.data.train)).examples)
    spec = parser.spec()
    assert ("span_config" in spec) == (kind == "joint") and "d_label_hidden" not in spec["model_config"]
    old = layout_1_spec(spec)
    assert parser.resume_mismatch(old) is None
    loaded = parser_class(kind).from_spec(old)
    assert loaded.spec() == spec


def test_a_killed_run_left_in_layout_1_resumes_from_a_layout_1_recipe(tmp_path: Path) -> None:
    """A run an older mlparse left behind (checkpoints and recipe.yaml of layout 1), resumed with the recipe
    file as it was then written: the same run directory, from the saved update on, to the result of an
    uninterrupted run; its recipe.yaml is written again in layout 2."""
    from helpers.run_fixtures import Record, write_tiny_recipe
    from helpers.train_fixtures import Interrupt, StopAfter, same_weights, weights
    from mlparse.results import COMPLETE
    from mlparse.run_dir import RunDir
    from mlparse.train import checkpoint
    from mlparse.train.runner import RunOptions, run_recipe

    recipe = write_tiny_recipe(tmp_path, model={"predict_tags": True, "d_tag_hidden": 8}, train={"max_epochs": 2})
    config = load_recipe(recipe)
    reference = run_recipe(config, RunOptions(runs_dir=tmp_path / "ref"))
    with pytest.raises(Interrupt):
        run_recipe(config, RunOptions(runs_dir=tmp_path / "run"), StopAfter(3))
    run_dir = RunDir.for_recipe(tmp_path / "run", config)
    for path in (run_dir.best, run_dir.last):  # as the code before layout 2 saved them
        if path.is_file():
            saved = checkpoint.load(path)
            saved["spec"] = layout_1_spec(saved["spec"])
            checkpoint.save(saved, path)
    data = yaml.safe_load(run_dir.recipe.read_text(encoding="utf-8"))
    data["model"].update(data.pop("span"))
    write(run_dir.recipe, yaml.safe_dump(data, sort_keys=False))
    old_recipe = yaml.safe_load(recipe.read_text(encoding="utf-8"))
    old_recipe["model"].update(old_recipe.pop("span"))
    write(recipe, yaml.safe_dump(old_recipe, sort_keys=False))
    old_config = load_recipe(recipe)
    assert old_config == config and RunDir.for_recipe(tmp_path / "run", old_config).path == run_dir.path
    saved_step = checkpoint.load(run_dir.last)["state"]["step"]
    again = Record()
    resumed = run_recipe(old_config, RunOptions(runs_dir=tmp_path / "run"), again)
    assert again.steps[0] == saved_step + 1 and resumed.status == COMPLETE
    assert same_weights(weights(RunDir.for_recipe(tmp_path / "ref", config).last), weights(run_dir.last))
    assert resumed.dev.f1 == reference.dev.f1
    assert "span" in yaml.safe_load(run_dir.recipe.read_text(encoding="utf-8"))


@pytest.mark.parametrize("overrides", [("model.d_label_hidden=48", "span.d_label_hidden=40"),
                                       ("span.d_label_hidden=40", "model.d_label_hidden=48")])
def test_a_moved_key_set_by_both_its_names_is_an_error(overrides) -> None:
    with pytest.raises(ConfigError, match="model.d_label_hidden and span.d_label_hidden are both given"):
        load_recipe("demo", list(overrides))
    assert load_recipe("demo", ["span.d_label_hidden=40", "span.d_label_hidden=41"]).span.d_label_hidden == 41
