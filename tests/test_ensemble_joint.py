"""Ensembles of the joint span + dependency parser: identical members = one model with both decoders, two
members decode the mean chart and the mean arc and relation probabilities, relation lists refused or unioned,
and `mlparse ensemble` of two tiny joint runs end to end with its rows in both leaderboards."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from helpers.joint_fixtures import TINY_HEADS, conllu_of, write_joint_data, write_joint_recipe
from mlparse.cli import app
from mlparse.config import load_recipe
from mlparse.models.dep_parser import decode_heads
from mlparse.models.ensemble import EnsembleError, EnsembleParser
from mlparse.models.joint_parser import JointParser
from mlparse.report.model import build_report
from mlparse.results import COMPLETE
from mlparse.structs import cky
from mlparse.structs.joint import decode_joint
from mlparse.tasks import task_for
from mlparse.train.runner import RunOptions, run_recipe
from mlparse.run_dir import RunDir
from helpers.run_fixtures import TINY_TREES

runner = CliRunner()


def _joint_parser(tmp_path: Path, seed: int, conllu: str = "") -> tuple:
    """An untrained tiny joint parser whose arc and relation scores differ from seed to seed: (parser, sentences)."""
    folder = tmp_path / f"seed{seed}"
    config = load_recipe(write_joint_recipe(folder))
    if conllu:
        write_joint_data(folder / "data", conllu)
    split = task_for("joint").read_split(Path(config.data.dev))
    torch.manual_seed(seed)
    parser = JointParser.build(config, split.examples)
    with torch.no_grad():  # the biaffine weights start at zero (every arc equally likely): make the scores differ
        for weight in (parser.dependency_scorer.arc.weight, parser.dependency_scorer.relation.weight):
            weight.normal_()
    return parser.eval(), split.input_sentences


def _as_tuples(predictions) -> list:
    return [(str(p.tree), p.dependencies.heads, p.dependencies.deprels) for p in predictions]


@pytest.mark.parametrize("decoder", ["separate", "exact"])
def test_an_ensemble_of_identical_joint_models_is_the_single_model(tmp_path: Path, decoder: str) -> None:
    parser, sentences = _joint_parser(tmp_path, 1)
    twin, _ = _joint_parser(tmp_path, 2)
    twin.load_state_dict(parser.state_dict())
    parser.joint_config.decoder = twin.joint_config.decoder = decoder
    ensemble = EnsembleParser([parser, twin, parser], ["a", "b", "a"]).eval()
    single = parser.predict(sentences)
    assert _as_tuples(ensemble.predict(sentences)) == _as_tuples(single)
    with torch.no_grad():
        one, three = parser.scores(parser.make_batch(sentences)), ensemble.scores(ensemble.make_batch(sentences))
    assert torch.allclose(three.chart, one.chart, atol=1e-5)
    assert torch.allclose(three.arc, one.arc, atol=1e-5)
    heads = torch.tensor([[0] + p.dependencies.heads + [0] * (one.arc.shape[1] - len(p.dependencies.heads) - 1)
                          for p in single])
    assert torch.allclose(three.relations_at(heads), one.relations_at(heads), atol=1e-5)


@pytest.mark.parametrize("decoder", ["separate", "exact"])
def test_two_joint_members_decode_the_mean_chart_and_the_mean_arc_and_relation_probabilities(
        tmp_path: Path, decoder: str) -> None:
    first, sentences = _joint_parser(tmp_path, 1)
    second, _ = _joint_parser(tmp_path, 2)
    first.joint_config.decoder = second.joint_config.decoder = decoder
    ensemble = EnsembleParser([first, second]).eval()
    with torch.no_grad():
        a, b = first.scores(first.make_batch(sentences)), second.scores(second.make_batch(sentences))
        predicted = ensemble.predict(sentences)
    chart = (a.chart + b.chart) / 2  # the same label lists: no reordering
    arc = ((a.arc.exp() + b.arc.exp()) / 2).log()
    lengths = [len(s) for s in sentences]
    if decoder == "exact":
        by_head = arc.transpose(1, 2).double().numpy()
        results = [decode_joint(np.ascontiguousarray(chart[k, :n + 1, :n + 1].numpy()),
                                np.ascontiguousarray(by_head[k, :n + 1, :n + 1])) for k, n in enumerate(lengths)]
        heads = [list(r.heads[1:n + 1]) for r, n in zip(results, lengths)]
        spans = [list(r.spans) for r in results]
    else:
        decoded = decode_heads(arc, lengths, first.joint_config.arc_decoder)
        heads = [decoded[k, 1:n + 1].tolist() for k, n in enumerate(lengths)]
        spans = [cky.decode(chart[k].numpy(), length=n) for k, n in enumerate(lengths)]
    assert [p.dependencies.heads for p in predicted] == heads
    from mlparse.structs.chart import tree_from_chart
    from mlparse.trees.tree import Leaf

    trees = [str(tree_from_chart(s, first.labels, [Leaf(t, w) for t, w in sentence]))
             for s, sentence in zip(spans, sentences)]
    assert [str(p.tree) for p in predicted] == trees
    # each word's relation: the best of the members' mean relation probabilities for its decoded head
    padded = torch.tensor([[0] + h + [0] * (arc.shape[1] - len(h) - 1) for h in heads])
    with torch.no_grad():
        relation = (a.relations_at(padded).exp() + b.relations_at(padded).exp()) / 2
    relation[..., : first.relations.num_specials] = -1.0
    expected = [[first.relations.token(int(r)) for r in relation[k, 1:n + 1].argmax(-1)] for k, n in enumerate(lengths)]
    assert [p.dependencies.deprels for p in predicted] == expected
    # the members disagree, so the ensemble is not simply one of them
    assert _as_tuples(predicted) not in (_as_tuples(first.predict(sentences)), _as_tuples(second.predict(sentences)))


def _renamed(relation: str, new: str) -> str:
    lines = conllu_of().splitlines()
    return "\n".join(line.replace(f"\t{relation}\t", f"\t{new}\t") for line in lines) + "\n"


def test_joint_members_with_different_relations_are_refused_or_unioned_for_folds(tmp_path: Path) -> None:
    first, sentences = _joint_parser(tmp_path, 1)
    second, _ = _joint_parser(tmp_path, 2, conllu=_renamed("acomp", "xcomp"))
    assert "xcomp" in second.relations.to_list() and "xcomp" not in first.relations.to_list()
    with pytest.raises(EnsembleError, match=r"cannot ensemble a and b: their relations differ \(only a has 'acomp'; "
                                            r"only b has 'xcomp'\)"):
        EnsembleParser([first, second], ["a", "b"])
    union = EnsembleParser([first, second], ["a", "b"], union=True).eval()
    assert union.inventories["relations"] == first.relations.to_list() + ["xcomp"]
    with torch.no_grad():
        scores = union.scores(union.make_batch(sentences))
        a = first.scores(first.make_batch(sentences))
        heads = torch.zeros(scores.arc.shape[:2], dtype=torch.long)
        b = second.scores(second.make_batch(sentences))
        combined = scores.relations_at(heads).exp()
    xcomp, acomp = union.inventories["relations"].index("xcomp"), first.relations.index("acomp")
    # a relation one member lacks has probability 0 there: half of the other member's
    assert torch.allclose(combined[..., xcomp], b.relations_at(heads).exp()[..., second.relations.index("xcomp")] / 2,
                          atol=1e-6)
    assert torch.allclose(combined[..., acomp], a.relations_at(heads).exp()[..., acomp] / 2, atol=1e-6)
    assert torch.allclose(combined.sum(-1), torch.ones(combined.shape[:2]), atol=1e-5)
    assert len(union.predict(sentences)) == len(sentences)


def test_mlparse_ensemble_of_two_joint_runs_scores_both_structures_and_the_report_shows_it(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    paths = []
    for seed in (1, 2):
        config = load_recipe(write_joint_recipe(tmp_path, train={"max_epochs": 2, "seed": seed}))  # the same files
        assert run_recipe(config, RunOptions(runs_dir=runs)).status == COMPLETE
        paths.append(str(RunDir.for_recipe(runs, config).path))
    assert paths[0] != paths[1]
    result = runner.invoke(app, ["ensemble", *paths, "--runs-dir", str(runs), "--name", "joint-pair"])
    assert result.exit_code == 0, result.output
    (folder,) = (runs / "joint-pair").iterdir()
    saved = json.loads((folder / "results.json").read_text())
    assert saved["status"] == COMPLETE and saved["task"] == "joint" and len(saved["members"]) == 2
    for split in ("dev", "test"):
        assert all(saved[split][metric] is not None for metric in ("f1", "uas", "las"))
    assert len((folder / "dev.pred.trees").read_text().splitlines()) == len(TINY_TREES)
    assert (folder / "dev.pred.conllu").read_text().count("# sent_id") == len(TINY_HEADS)
    system = "mlparse joint LAL (CharLSTM + words), ensemble of 2"
    assert saved["system"] == system
    printed = " ".join(result.output.split())  # both structures' scores, for each split
    assert f"ensemble dev: F1 {saved['dev']['f1']:.2f} LAS {saved['dev']['las']:.2f} UAS {saved['dev']['uas']:.2f}" in printed
    report = build_report(runs, published_mode="none")
    boards = {board.task: [row.system for row in board.measured_rows()] for board in report.leaderboards}
    assert system in boards["constituency"] and system in boards["dependency"]
