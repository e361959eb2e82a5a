"""The dependency parser end to end: the generic trainer, depeval scores, resume, mlparse parse, the registry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy as np
import pytest
import torch
import yaml
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
from test_run_fixtures import Record
from test_train_loop import Interrupt, StopAfter, log_without_times, same_weights, weights

REPO = Path(__file__).resolve().parents[1]

#: (words, UPOS, heads, relations): small hand-made trees, one non-projective.
SENTENCES = [
    ("the dog barks .", "DET NOUN VERB PUNCT", [2, 3, 0, 3], "det nsubj root punct"),
    ("John saw a cat .", "PROPN VERB DET NOUN PUNCT", [2, 0, 4, 2, 2], "nsubj root det obj punct"),
    ("hello", "INTJ", [0], "root"),
    ("it is red", "PRON AUX ADJ", [3, 3, 0], "nsubj cop root"),
    ("a cat saw John .", "DET NOUN VERB PROPN PUNCT", [2, 3, 0, 3, 3], "det nsubj root obj punct"),
    ("he runs fast", "PRON VERB ADV", [2, 0, 2], "nsubj root advmod"),
    ("the big dog slept on the mat .", "DET ADJ NOUN VERB ADP DET NOUN PUNCT", [3, 3, 4, 0, 7, 7, 4, 4],
     "det amod nsubj root case det obl punct"),
    ("a hearing is scheduled today on it", "DET NOUN AUX VERB NOUN ADP PRON", [2, 4, 4, 0, 4, 7, 2],
     "det nsubj:pass aux:pass root obl:tmod case nmod"),  # non-projective: 2 <- 7 crosses 4 -> 5
]

TINY_DEP_MODEL: Dict[str, Any] = {
    "kind": "biaffine", "encoder": "transformer", "positions": "sinusoidal", "factored": False, "use_words": True,
    "use_tags": True, "char_encoder": "none", "num_layers": 1, "d_model": 32, "num_heads": 2, "d_kv": 8, "d_ff": 32,
    "max_len": 40, "attention_dropout": 0.0, "relu_dropout": 0.0, "residual_dropout": 0.0, "word_min_count": 1,
}
TINY_BIAFFINE: Dict[str, Any] = {"d_word_emb": 16, "d_tag_emb": 16, "d_arc": 24, "d_relation": 12,
                                 "mlp_dropout": 0.0, "embedding_dropout": 0.0}
TINY_DEP_TRAIN: Dict[str, Any] = {"lr": 0.01, "batch_size": 3, "warmup_steps": 2, "max_epochs": 40, "patience_epochs": 100,
                                  "num_threads": 1, "evals_per_epoch": 2, "subbatch_tokens": 30, "device": "cpu"}


def conllu_text(sentences=SENTENCES, with_mwt: bool = False) -> str:
    blocks = []
    for k, (words, tags, heads, rels) in enumerate(sentences, start=1):
        lines = [f"# sent_id = s{k}", f"# text = {words}"]
        if with_mwt and k == 1:
            lines.append("1-2\tthedog\t_\t_\t_\t_\t_\t_\t_\t_")
        for i, (word, tag, head, rel) in enumerate(zip(words.split(), tags.split(), heads, rels.split()), start=1):
            lines.append(f"{i}\t{word}\t{word.lower()}\t{tag}\t_\t_\t{head}\t{rel}\t_\t_")
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks) + "\n"


def write_dep_recipe(tmp_path: Path, model: Optional[dict] = None, train: Optional[dict] = None,
                     dev_text: Optional[str] = None) -> Path:
    data = tmp_path / "data"
    data.mkdir(parents=True, exist_ok=True)
    for split in ("train", "dev", "test"):
        text = conllu_text(with_mwt=split != "train") if dev_text is None or split == "train" else dev_text
        (data / f"{split}.conllu").write_text(text, encoding="utf-8")
    recipe = {"base": "ud/base", "name": "tiny-dep",
              "data": {"family": "tiny", "language": "english", "tags": "gold",  # ud/base jack-knifes its tags
                       **{s: str(data / f"{s}.conllu") for s in ("train", "dev", "test")}},
              "model": {**TINY_DEP_MODEL, **(model or {})}, "biaffine": dict(TINY_BIAFFINE),
              "train": {**TINY_DEP_TRAIN, **(train or {})}}
    path = tmp_path / "tiny-dep.yaml"
    path.write_text(yaml.safe_dump(recipe, sort_keys=False), encoding="utf-8")
    return path


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
        registry._KINDS.pop("toy", None)
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
