"""The dependency parser end to end: the generic trainer, depeval scores, resume, mlparse parse, the registry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List

import numpy as np
import pytest
import torch
from torch import nn

from mlparse.config import load_recipe
from mlparse.models import registry
from mlparse.models.base import LossOutput, Parser
from mlparse.models.dep_parser import BiaffineParser
from mlparse.results import COMPLETE, FAILED
from mlparse.structs import decode_mst
from mlparse.tasks.dependency import DependencyTask
from mlparse.train import checkpoint
from mlparse.run_dir import RunDir
from mlparse.train.runner import RunOptions, run_recipe
from mlparse.train.trainer import Trainer
from mlparse.trees.dependency import DependencyPrediction, read_conllu
from helpers.dep_fixtures import SENTENCES, conllu_text, write_dep_recipe
from helpers.run_fixtures import Record
from helpers.train_fixtures import Interrupt, StopAfter, log_without_times, same_weights, weights

REPO = Path(__file__).resolve().parents[1]

@pytest.mark.parametrize("decoder", ["mst", "eisner"])
def test_a_tiny_dependency_run_learns_its_training_trees_and_writes_every_file(tmp_path: Path, decoder: str) -> None:
    config = load_recipe(write_dep_recipe(tmp_path), [f"biaffine.decoder={decoder}"])
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    assert results.status == COMPLETE and results.task == "dependency" and results.model == "biaffine"
    # dev = train here: MST finds every tree; Eisner's projective trees miss one arc of the non-projective one
    words = sum(len(words.split()) for words, *_ in SENTENCES)
    expected = 100.0 if decoder == "mst" else round(100.0 * (words - 1) / words, 4)
    assert results.dev.las == results.dev.uas == results.test.las == expected
    assert results.dev.scorer.startswith("depeval conll18-v1.2") and results.dev.scorer.endswith("(conll18)")
    assert results.system == "mlparse biaffine (self-attentive, words + gold UPOS)"
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    predicted = run_dir.pred("dev", ".conllu").read_text(encoding="utf-8")
    if decoder == "mst":
        assert predicted == conllu_text(with_mwt=True)  # every byte as read, heads and relations all right
        assert "LAS        |    100.00" in run_dir.report("dev", ".depeval").read_text()
    else:
        assert predicted.split("# sent_id = s8")[0] == conllu_text(with_mwt=True).split("# sent_id = s8")[0]
    entries = [json.loads(line) for line in run_dir.log.read_text().splitlines()]
    assert {e["metric"] for e in entries} == {"las"} and max(e["dev_score"] for e in entries) == expected


def test_the_ptb_convention_leaves_punctuation_out(tmp_path: Path) -> None:
    text = conllu_text().replace("\tPUNCT\t_\t", "\tPUNCT\t.\t")  # gold XPOS "." on the punctuation
    config = load_recipe(write_dep_recipe(tmp_path, train={"max_epochs": 1}, dev_text=text),
                         ["eval.dependency_scoring=ptb"])
    task = DependencyTask()
    split = task.read_split(Path(config.data.dev))
    wrong_punct = [DependencyPrediction([h if w != "." else (1 if h != 1 else 2) for w, h in zip(s.words, s.heads)],
                                        list(s.deprels)) for s in split.examples]
    ptb = task.score(split, wrong_punct, config).scores
    official = task.score(split, wrong_punct, load_recipe(write_dep_recipe(tmp_path, dev_text=text))).scores
    assert ptb.las == 100.0 and official.las < 100.0  # only punctuation heads are wrong
    assert ptb.scorer.endswith("(ptb)") and official.scorer.endswith("(conll18)")


def test_a_killed_dependency_run_resumes_to_the_same_result(tmp_path: Path) -> None:
    config = load_recipe(write_dep_recipe(tmp_path, train={"max_epochs": 3}))
    reference = run_recipe(config, RunOptions(runs_dir=tmp_path / "ref"))
    with pytest.raises(Interrupt):  # 8 sentences / 3 → 3 updates an epoch, checks after updates 1 and 3 of each
        run_recipe(config, RunOptions(runs_dir=tmp_path / "run"), StopAfter(5))
    run_dir = RunDir.for_recipe(tmp_path / "run", config)
    assert json.loads(run_dir.results.read_text())["status"] == FAILED
    saved_step = checkpoint.load(run_dir.last)["state"]["step"]
    assert saved_step < 5  # update 5 and those since the last check are lost, and trained again
    again = Record()
    resumed = run_recipe(config, RunOptions(runs_dir=tmp_path / "run"), again)
    assert again.steps[0] == saved_step + 1 and resumed.status == COMPLETE
    ref_dir = RunDir.for_recipe(tmp_path / "ref", config)
    assert same_weights(weights(ref_dir.last), weights(run_dir.last))
    assert log_without_times(ref_dir) == log_without_times(run_dir)
    assert (resumed.dev.las, resumed.test.las) == (reference.dev.las, reference.test.las)


def test_mlparse_parse_writes_conllu_for_conllu_and_text_input(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mlparse.cli import app

    config = load_recipe(write_dep_recipe(tmp_path, model={"use_tags": False}, train={"max_epochs": 30}))
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    runner = CliRunner()
    source = tmp_path / "in.conllu"
    source.write_text(conllu_text(with_mwt=True), encoding="utf-8")
    out = tmp_path / "out.conllu"
    result = runner.invoke(app, ["parse", "--model", str(run_dir.path), "--input", str(source), "--output", str(out)])
    assert result.exit_code == 0, result.output
    written = read_conllu(out)
    assert [list(s.heads) for s in written.sentences] == [heads for _, _, heads, _ in SENTENCES]
    text = tmp_path / "in.txt"
    text.write_text("the dog barks .\n\nhe runs fast\n", encoding="utf-8")
    result = runner.invoke(app, ["parse", "--model", str(run_dir.path), "--input", str(text)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "# sent_id = 1" and "# sent_id = 3" in lines
    parsed = [line.split("\t") for line in lines if line and not line.startswith("#")]
    assert [(row[1], row[6]) for row in parsed[:4]] == [("the", "2"), ("dog", "3"), ("barks", "0"), (".", "3")]
    long = tmp_path / "long.txt"
    long.write_text(" ".join(["w"] * 50) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["parse", "--model", str(run_dir.path), "--input", str(long)])
    assert result.exit_code == 1 and f"{long}:1: sentence of 50 words is longer" in result.output
    assert "Traceback" not in result.output


class ToyParser(Parser):
    """A parser written outside mlparse: every word's head scored by one bilinear form of word vectors."""

    kind = "toy"
    task = "dependency"

    def __init__(self, words: List[str]) -> None:
        super().__init__()
        self.words = words
        self.index = {w: k + 1 for k, w in enumerate(words)}
        self.embedding = nn.Embedding(len(words) + 1, 8)
        self.bilinear = nn.Parameter(torch.zeros(8, 8))

    @classmethod
    def build(cls, config, train):  # type: ignore[no-untyped-def]
        return cls(sorted({w for s in train for w in s.words}))

    @classmethod
    def from_spec(cls, spec):  # type: ignore[no-untyped-def]
        return cls(spec["words"])

    def spec(self):  # type: ignore[no-untyped-def]
        return {"kind": self.kind, "words": self.words}

    @property
    def max_words(self) -> int:
        return 100

    def gold(self, example):  # type: ignore[no-untyped-def]
        return torch.tensor([int(h) for h in example.heads])

    def make_batch(self, examples):  # type: ignore[no-untyped-def]
        return [torch.tensor([0] + [self.index.get(w, 0) for w in s.words]) for s in examples]

    def _arc(self, ids):  # type: ignore[no-untyped-def]
        vectors = self.embedding(ids)
        return vectors[1:] @ self.bilinear @ vectors.T  # [n, n+1]: dependents x heads

    def forward(self, batch, golds=None):  # type: ignore[no-untyped-def]
        loss = sum(nn.functional.cross_entropy(self._arc(ids), gold, reduction="sum") for ids, gold in zip(batch, golds))
        return LossOutput(loss=loss, sentences=len(batch))

    def scores(self, batch):  # type: ignore[no-untyped-def]
        return [self._arc(ids) for ids in batch]

    def decode(self, batch, scores, examples, decoder="auto"):  # type: ignore[no-untyped-def]
        out = []
        for arc, sentence in zip(scores, examples):  # a well-formed tree from mlparse's MST over [heads, dependents]
            by_head = np.zeros((arc.shape[1], arc.shape[1]))
            by_head[:, 1:] = arc.detach().T.numpy()
            out.append(DependencyPrediction([int(h) for h in decode_mst(by_head)[1:]], list(sentence.deprels)))
        return out


def test_a_parser_registered_from_outside_trains_with_the_generic_trainer(tmp_path: Path) -> None:
    registry.register("toy", f"{__name__}:ToyParser")
    try:
        config = load_recipe(write_dep_recipe(tmp_path), ["train.warmup_steps=0", "train.lr=0.05", "train.max_epochs=15"])
        task = DependencyTask()
        train = task.read_split(Path(config.data.train))
        cls = registry.parser_class("toy")
        torch.manual_seed(0)
        model = cls.build(config, train.examples)
        trainer = Trainer(config, model, task, train, [model.gold(e) for e in train.examples], train,
                          checkpoint.CheckpointFiles(tmp_path / "checkpoints"), torch.device("cpu"))
        state = trainer.fit()
        assert state.best_score > 80.0 and state.log[0]["metric"] == "las"
        saved = checkpoint.load(tmp_path / "checkpoints" / "best.pt")
        again = registry.parser_from_spec(saved["spec"])
        again.load_state_dict(saved["model"])
        assert isinstance(again, ToyParser) and again.predict(train.examples[:2])[0].heads == \
            model.predict(train.examples[:2])[0].heads
    finally:
        registry.unregister("toy")
    with pytest.raises(registry.UnknownParserKind, match="unknown parser kind 'toy'"):
        registry.parser_class("toy")


def test_biaffine_spec_round_trip_and_registry_kind() -> None:
    document = read_conllu_text(conllu_text())
    config = load_recipe(str(REPO / "recipes" / "demo-dep.yaml"))
    parser = BiaffineParser.build(config, document.sentences)
    again = registry.parser_from_spec(json.loads(json.dumps(parser.spec())))  # plain JSON data
    assert isinstance(again, BiaffineParser) and again.spec() == parser.spec()
    assert registry.parser_class("span").kind == "span" and registry.kind_of_spec({"model_config": {}}) == "span"


def read_conllu_text(text: str):  # type: ignore[no-untyped-def]
    from mlparse.trees.dependency import parse_conllu

    return parse_conllu(text, "<test>")
