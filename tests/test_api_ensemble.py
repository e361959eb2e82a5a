"""mlparse.load of an ensemble's run directory or package (mlparse export): its members loaded, their scores averaged,
the same parses as the ensemble's own predictions; a moved runs folder still loads; a missing member is one clear
error; mlparse parse parses with the parser object mlparse.load gives, an ensemble's too."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mlparse
from mlparse.cli import app
from mlparse.package import PackageError
from mlparse.trees.dependency import parse_conllu
from mlparse.trees.reader import parse_bracketed
from mlparse.trees.writer import format_tree
from helpers.dep_fixtures import write_dep_recipe
from helpers.run_fixtures import write_tiny_recipe

runner = CliRunner()


def make_ensemble(runs: Path, recipe: Path, *extra: str) -> Path:
    result = runner.invoke(app, ["ensemble", str(recipe), *extra, "--runs-dir", str(runs), "--name", "pair"])
    assert result.exit_code == 0, result.output
    (folder,) = (runs / "pair").iterdir()
    return folder


def test_a_loaded_dependency_ensemble_parses_as_the_ensemble_did(tmp_path: Path) -> None:
    folder = make_ensemble(tmp_path / "runs", write_dep_recipe(tmp_path, train={"max_epochs": 3}), "--folds", "2")
    parser = mlparse.load(folder, device="cpu")
    assert parser.kind == "ensemble" and parser.task == "dependency" and len(parser.parser.members) == 2
    expected = parse_conllu((folder / "dev.pred.conllu").read_text(encoding="utf-8"), "dev.pred.conllu").sentences
    got = list(parser.parse_sents([list(zip(s.words, s.upos)) for s in expected], output="prediction"))
    assert [p.heads for p in got] == [[int(h) for h in s.heads] for s in expected]
    assert [p.deprels for p in got] == [list(s.deprels) for s in expected]


def test_a_loaded_span_ensemble_parses_as_the_ensemble_did_and_survives_a_moved_runs_folder(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path, train={"max_epochs": 2})
    (tmp_path / "pair.yaml").write_text(f"name: pair\nensemble:\n  members: [{recipe.name}, {recipe.name}]\n", encoding="utf-8")
    runs = tmp_path / "runs"
    result = runner.invoke(app, ["ensemble", str(tmp_path / "pair.yaml"), "--runs-dir", str(runs)])
    assert result.exit_code == 0, result.output
    (folder,) = (runs / "pair").iterdir()
    predicted = [parse_bracketed(line).trees[0] for line in (folder / "dev.pred.trees").read_text().splitlines() if line]
    sentences = [[(leaf.word, leaf.tag) for leaf in tree.leaves()] for tree in predicted]

    def parses(path: Path) -> list:
        return [format_tree(tree) for tree in mlparse.load(path, device="cpu").parse_sents(sentences, output="tree")]

    assert parses(folder) == [format_tree(tree) for tree in predicted]
    moved = tmp_path / "elsewhere" / "runs"
    shutil.copytree(runs, moved)
    shutil.rmtree(runs)  # the recorded paths are gone: the members are found beside the ensemble
    assert parses(moved / "pair" / folder.name) == [format_tree(tree) for tree in predicted]
    package = tmp_path / "package"
    result = runner.invoke(app, ["export", str(moved / "pair" / folder.name), str(package)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (package / "members").iterdir()) == ["0", "1"]
    info = json.loads((package / "package.json").read_text())
    assert info["kind"] == "ensemble" and info["task"] == "constituency" and info["dev"]["f1"] is not None
    assert "2 members" in (package / "README.md").read_text()
    member = next(p for p in (moved / "tiny").iterdir())
    shutil.rmtree(member)
    with pytest.raises(PackageError, match=f"member .*{member.name} not found"):
        mlparse.load(moved / "pair" / folder.name, device="cpu")
    assert parses(package) == [format_tree(tree) for tree in predicted]  # the package needs no run directory
    text = (moved / "pair" / folder.name / "dev.pred.trees").read_text()
    result = runner.invoke(app, ["parse", "--model", str(package)], input=text)  # re-parse the trees' words and tags
    assert result.exit_code == 0, result.output
    expected = [tree.to_bracketed() for tree in mlparse.load(package, device="cpu").parse_sents(sentences, output="tree")]
    assert result.stdout.splitlines() == expected
