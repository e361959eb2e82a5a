"""A parser kind from outside mlparse (tests/helpers/toy_parser.py) is one module and one registration: with no
edit in mlparse it validates, trains (mlparse run), parses (mlparse parse and the Python API), exports, loads and
shows in mlparse report; installed packages declare kinds through the ``mlparse.parsers`` entry points."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Dict, Iterator, List

import pytest
import yaml
from typer.testing import CliRunner

import mlparse
from mlparse.cli.app import app
from mlparse.config import ConfigError, load_recipe
from mlparse.config import kinds
from mlparse.models import registry
from mlparse.results import COMPLETE
from mlparse.run_dir import RunDir
from mlparse.trees.dependency import read_conllu
from helpers.dep_fixtures import SENTENCES, conllu_text
from helpers.toy_parser import KIND, ToyParser

runner = CliRunner()


@pytest.fixture
def toy_kind() -> Iterator[None]:
    registry.register(ToyParser)  # the one registration
    try:
        yield
    finally:
        registry.unregister(KIND)


def toy_recipe(tmp_path: Path, **model: object) -> Path:
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    for split in ("train", "dev", "test"):
        (data / f"{split}.conllu").write_text(conllu_text(), encoding="utf-8")
    recipe = {"name": "toy", "data": {"family": "tiny", "language": "english",
                                      **{s: str(data / f"{s}.conllu") for s in ("train", "dev", "test")}},
              "model": {"kind": KIND, "d_kv": 16, "use_tags": False, **model},
              "train": {"lr": 0.05, "batch_size": 4, "warmup_steps": 0, "max_epochs": 30, "patience_epochs": 100,
                        "evals_per_epoch": 1, "num_threads": 1, "device": "cpu"}}
    path = tmp_path / "toy.yaml"
    path.write_text(yaml.safe_dump(recipe, sort_keys=False), encoding="utf-8")
    return path


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return result.stdout


def test_an_unregistered_kind_is_refused_naming_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="model.kind must be one of span, biaffine, joint, tagger, external"):
        load_recipe(toy_recipe(tmp_path))


def test_the_kind_owns_its_task_sections_and_checks(tmp_path: Path, toy_kind: None) -> None:
    config = load_recipe(toy_recipe(tmp_path))
    assert KIND in kinds.kinds() and config.task == "dependency" and config.split_path("dev").suffix == ".conllu"
    assert kinds.sections_of(KIND) == () and "biaffine" not in json.dumps(config.to_dict()["model"])
    with pytest.raises(ConfigError, match="the toy parser reads words only"):  # ToyParser.check
        load_recipe(toy_recipe(tmp_path, use_tags=True))
    # the span parser's own rule (model.encoder) is the span parser's, not every kind's
    assert load_recipe(toy_recipe(tmp_path, encoder="bilstm")).model.encoder == "bilstm"
    # a kind's id does not depend on other kinds' sections
    other = load_recipe(toy_recipe(tmp_path), ["biaffine.d_arc=7", "joint.d_arc=7"])
    assert other.hash() == config.hash()


def test_a_toy_kind_trains_parses_exports_loads_and_reports(tmp_path: Path, toy_kind: None) -> None:
    recipe = toy_recipe(tmp_path)
    runs = tmp_path / "runs"
    invoke("run", str(recipe), "--runs-dir", str(runs))
    config = load_recipe(recipe)
    run = RunDir.for_recipe(runs, config)
    results = json.loads(run.results.read_text(encoding="utf-8"))
    assert results["status"] == COMPLETE and results["task"] == "dependency" and results["model"] == KIND
    assert results["system"] == "toy bilinear arcs (words)"
    assert results["dev"]["las"] > 80.0 and results["dev"]["scorer"].endswith("(conll18)")  # learned its training trees
    assert run.pred("dev", ".conllu").is_file() and run.report("dev", ".depeval").is_file()

    # mlparse parse, on CoNLL-U: the heads and relations it learned, every other column as read
    gold = tmp_path / "gold.conllu"
    gold.write_text(conllu_text(SENTENCES[:3]), encoding="utf-8")
    out = tmp_path / "parsed.conllu"
    invoke("parse", "--model", str(run.path), "--input", str(gold), "--output", str(out))
    parsed = read_conllu(out).sentences
    assert len(parsed) == 3 and [list(s.words) for s in parsed] == [words.split() for words, *_ in SENTENCES[:3]]
    predicted_at_dev = read_conllu(run.pred("dev", ".conllu")).sentences[:3]  # the run's own dev predictions
    assert [(s.heads, s.deprels) for s in parsed] == [(s.heads, s.deprels) for s in predicted_at_dev]
    # ... and on tokenized text (a model that reads no tags)
    words = tmp_path / "words.txt"
    words.write_text("the dog barks .\n", encoding="utf-8")
    invoke("parse", "--model", str(run.path), "--input", str(words), "--output", str(out))
    assert [list(s.words) for s in read_conllu(out).sentences] == [["the", "dog", "barks", "."]]

    # the Python API: the same parser object, from the run and from its package
    loaded = mlparse.load(run.path, device="cpu")
    assert (loaded.kind, loaded.task) == (KIND, "dependency") and isinstance(loaded.parser, ToyParser)
    sentence = loaded.parse(["the", "dog", "barks", "."])
    assert [token["form"] for token in sentence] == ["the", "dog", "barks", "."]
    assert sum(token["head"] == 0 for token in sentence) >= 1

    package = tmp_path / "package"
    invoke("export", str(run.path), str(package))
    info = json.loads((package / "package.json").read_text(encoding="utf-8"))
    from_package = mlparse.load(package, device="cpu")
    assert from_package.kind == KIND and from_package.info.task == "dependency"
    assert (info["kind"], info["task"], info["metric"]) == (KIND, "dependency", "las")
    again = from_package.parse(["the", "dog", "barks", "."])
    assert [token["head"] for token in again] == [token["head"] for token in sentence]
    assert "toy dependency parser" in (package / "README.md").read_text(encoding="utf-8")

    # mlparse report: the run on the dependency leaderboard, under its system name
    report = invoke("report", str(runs), "--format", "json")
    assert "toy bilinear arcs (words)" in report


def test_an_installed_package_declares_a_kind_by_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dist = tmp_path / "mlparse_toy_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: mlparse-toy-plugin\nVersion: 0.1\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text(f"[{kinds.ENTRY_POINT_GROUP}]\n{KIND} = helpers.toy_parser:ToyParser\n",
                                           encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(kinds, "_entry_points", None)  # read the installed packages again
    monkeypatch.setattr(kinds, "_classes", {})
    try:
        assert KIND in kinds.kinds() and registry.parser_class(KIND) is ToyParser
        assert load_recipe(toy_recipe(tmp_path)).task == "dependency"
    finally:
        kinds._entry_points = None
        kinds._classes.pop(KIND, None)


def test_a_class_registered_under_another_kind_is_refused(toy_kind: None) -> None:
    registry.register("other", "helpers.toy_parser:ToyParser")
    try:
        with pytest.raises(registry.UnknownParserKind, match="registered as kind 'other' but declares kind 'toy'"):
            registry.parser_class("other")
    finally:
        registry.unregister("other")


def test_every_builtin_kind_declares_its_task_and_sections() -> None:
    expected = {"span": ("constituency", ("span",)), "biaffine": ("dependency", ("biaffine",)),
                "joint": ("joint", ("span", "joint")),
                "tagger": ("tagging", ("tagger",)), "external": ("dependency", ("external",))}
    assert kinds.builtin_kinds() == list(expected)
    assert {kind: (kinds.task_of(kind), kinds.sections_of(kind)) for kind in expected} == expected
    assert sys.modules.get("helpers.toy_parser") is not None  # imported by this module, not by mlparse


def test_no_module_outside_the_parsers_branches_on_a_builtin_kind() -> None:
    """Outside the parser classes and the registry, no comparison names a built-in kind (``kind == "tagger"``,
    ``kind in ("span", "joint")``, ``spec.get("kind", "span")``): such code asks the class instead."""
    import ast

    package = Path(mlparse.__file__).parent
    owners = {"config/kinds.py", "models/span_parser.py", "models/dep_parser.py", "models/joint_parser.py",
              "models/tagger.py"}
    names = set(kinds.builtin_kinds())

    def kind_expression(node: ast.AST) -> bool:
        return "kind" in ast.unparse(node)

    def named(node: ast.AST) -> bool:
        values = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
        return any(isinstance(v, ast.Constant) and v.value in names for v in values)

    found = []
    for path in sorted(package.rglob("*.py")):
        if str(path.relative_to(package)) in owners:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                if any(named(side) for side in sides) and any(kind_expression(s) for s in sides if not named(s)):
                    found.append(f"{path.relative_to(package)}:{node.lineno}")
            elif isinstance(node, ast.Call) and ast.unparse(node.func).endswith(".get") and len(node.args) == 2 \
                    and kind_expression(node.args[0]) and named(node.args[1]):
                found.append(f"{path.relative_to(package)}:{node.lineno}")
    assert found == []


#: Comparisons with a built-in task name that legitimately stay outside mlparse/tasks/ and mlparse/models/
#: ("path: the comparison" -> the reason).  Keep it short: today it is empty.
TASK_NAME_ALLOWED: Dict[str, str] = {}


def task_name_branches(source: str) -> List[str]:
    """The comparisons in ``source`` of an expression naming a task with a built-in task name (``task ==
    "dependency"``, ``results.task in ("dependency", "joint")``, ``data.get("task", "constituency")``)."""
    import ast

    from mlparse.tasks import task_names

    names = set(task_names())

    def task_expression(node: ast.AST) -> bool:
        return "task" in ast.unparse(node)

    def named(node: ast.AST) -> bool:
        values = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
        return any(isinstance(v, ast.Constant) and v.value in names for v in values)

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(named(side) for side in sides) and any(task_expression(s) for s in sides if not named(s)):
                found.append(ast.unparse(node))
        elif isinstance(node, ast.Call) and ast.unparse(node.func).endswith(".get") and len(node.args) == 2 \
                and task_expression(node.args[0]) and named(node.args[1]):
            found.append(ast.unparse(node))
    return found


def test_the_task_name_scan_flags_branches_on_a_task_name() -> None:
    source = ('if results.task == "dependency": pass\nok = task in ("constituency", "joint")\n'
              'x = data.get("task", "tagging")\nfine = task_class(task).scorer == "evalb"\n'
              'also = kind == "dependency"\n')
    assert task_name_branches(source) == ["results.task == 'dependency'", "task in ('constituency', 'joint')",
                                          "data.get('task', 'tagging')"]


def test_no_module_outside_the_tasks_branches_on_a_builtin_task() -> None:
    """Outside the tasks and the parsers, no code branches on a built-in task's name: it asks the task's class
    (:func:`mlparse.tasks.task_class` or :func:`mlparse.tasks.find_task`: ``suffix``, ``metric``, ``scorer``,
    ``views()``, ``has_dependency_convention``, ``compared``, ``parse_output``, ``scorer_line``)."""
    package = Path(mlparse.__file__).parent
    found = []
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(package)
        if where.parts[0] in ("tasks", "models"):
            continue
        found += [f"{where}: {branch}" for branch in task_name_branches(path.read_text(encoding="utf-8"))]
    assert [branch for branch in found if branch not in TASK_NAME_ALLOWED] == []


def test_checking_a_recipe_of_a_builtin_kind_imports_no_torch() -> None:
    """The recipe layer asks a built-in kind's light declaration (mlparse.models.declarations), not its class."""
    import subprocess

    code = ("import sys\nfrom mlparse.config import load_recipe\n"
            "for name in ('demo', 'demo-dep', 'demo-lal', 'tagger'):\n"
            "    config = load_recipe(name)\n    config.hash(), config.task, config.split_path('dev')\n"
            "assert 'torch' not in sys.modules, 'torch imported'\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_each_task_writes_its_summary_line() -> None:
    """``mlparse run`` prints the task's summary of dev and test, whatever the kind."""
    from mlparse.results import SplitScores
    from mlparse.tasks import task_class

    scores = SplitScores(f1=91.5, precision=91.0, recall=92.0, complete_match=40.0, las=88.25, uas=90.0, clas=85.0,
                         tagging_accuracy=97.125, sentences=7, scorer="s")
    assert task_class("constituency").summary(scores).startswith("F1 91.50  LP 91.00  LR 92.00  complete match 40.00")
    assert task_class("dependency").summary(scores) == "LAS 88.25  UAS 90.00  CLAS 85.00  tags 97.12  (7 sentences; s)"
    untagged = SplitScores(las=88.25, uas=90.0, clas=85.0, sentences=7, scorer="s")  # no tagging head: no tags
    assert task_class("dependency").summary(untagged) == "LAS 88.25  UAS 90.00  CLAS 85.00  (7 sentences; s)"
    assert "F1 91.50" in task_class("joint").summary(scores) and "LAS 88.25" in task_class("joint").summary(scores)
    assert task_class("tagging").summary(scores) == "tag accuracy 97.12  (7 sentences; s)"


def test_each_task_answers_what_the_report_compare_and_parse_ask() -> None:
    """What code outside the tasks asks instead of a task's name: the scorer, the leaderboards (views), the
    dependency convention, whether compare takes its runs, what mlparse parse writes, mlparse score's line."""
    from mlparse.results import SplitScores
    from mlparse.tasks import find_task, task_class

    asked = {name: (task_class(name).scorer, task_class(name).views(), task_class(name).has_dependency_convention,
                    task_class(name).compared, task_class(name).parse_output)
             for name in ("constituency", "dependency", "joint", "tagging")}
    assert asked == {"constituency": ("evalb", ("constituency",), False, True, "trees"),
                     "dependency": ("depeval", ("dependency",), True, True, "conllu"),
                     "joint": ("evalb", ("constituency", "dependency"), True, False, "trees"),
                     "tagging": ("tagacc", ("tagging",), False, False, "tags")}
    assert [task_class(name).board_metrics() for name in ("constituency", "dependency", "tagging")] == [
        ("f1",), ("uas", "las"), ("tagging_accuracy",)]
    assert find_task("external") is None and find_task(None) is None and find_task("joint") is task_class("joint")
    scores = SplitScores(f1=91.5, precision=91.0, recall=92.0, las=88.25, uas=90.0, clas=85.0,
                         tagging_accuracy=97.125, sentences=7, scorer="s")
    assert task_class("constituency").scorer_line(scores) == "LR 92.00  LP 91.00  F1 91.50"
    assert task_class("dependency").scorer_line(scores) == "UAS 90.00  LAS 88.25  CLAS 85.00"
    assert task_class("tagging").scorer_line(scores) == "tag accuracy 97.12"
