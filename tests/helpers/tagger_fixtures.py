"""A tiny tagger recipe and jack-knifing set-ups shared by the tagger, jack-knife and package tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict

import yaml

from helpers.dep_fixtures import SENTENCES, conllu_text, write_dep_recipe
from helpers.run_fixtures import TINY_TREES
from mlparse.config import load_recipe

#: A tagger small enough for tests: one BiLSTM layer of 16, a few epochs on a handful of sentences.
TINY_TAGGER: Dict[str, Any] = {
    "name": "tiny-tagger",
    "data": {"family": "tiny", "language": "english"},
    "model": {"kind": "tagger", "encoder": "bilstm", "char_encoder": "none", "use_tags": False, "max_len": 60},
    "tagger": {"d_word_emb": 16, "d_hidden": None, "lstm_hidden": 16, "lstm_layers": 1, "embedding_dropout": 0.0,
               "lstm_dropout": 0.0},
    "train": {"lr": 0.02, "batch_size": 4, "warmup_steps": 1, "max_epochs": 6, "patience_epochs": 100,
              "num_threads": 1, "evals_per_epoch": 1, "subbatch_tokens": 200, "device": "cpu"},
}


def write_tagger_recipe(tmp_path: Path, **train: Any) -> Path:
    recipe = json.loads(json.dumps(TINY_TAGGER))
    recipe["train"].update(train)
    path = tmp_path / "tiny-tagger.yaml"
    path.write_text(yaml.safe_dump(recipe, sort_keys=False), encoding="utf-8")
    return path


#: Every training sentence has a word and a UPOS tag of its own (``uniqK`` / ``TAGK``): a tagger knows tag TAGK
#: only if sentence K was among its training sentences, since a tagger's tag set is its training data's.
UNIQUE_SENTENCES = [(f"{words} uniq{k}", f"{tags} TAG{k}", heads + [heads.index(0) + 1], f"{rels} dep")
                    for k, (words, tags, heads, rels) in enumerate(SENTENCES)]


#: Taggers one after the other in the test's process: a process per tiny tagger costs more than it trains
#: (tests/test_jackknife_budget.py trains them side by side).
ONE_AT_A_TIME = "tagger.side_by_side=1"


def jackknife_recipe(tmp_path: Path, folds: int = 2, sentences=UNIQUE_SENTENCES, overrides=(), **tagger_train: Any):
    path = write_dep_recipe(tmp_path, train={"max_epochs": 2})
    for split in ("train", "dev", "test"):
        (tmp_path / "data" / f"{split}.conllu").write_text(conllu_text(sentences), encoding="utf-8")
    tagger = write_tagger_recipe(tmp_path, **tagger_train)
    return load_recipe(path, ["data.tags=jackknife", f"tagger.folds={folds}", f"tagger.recipe={tagger}", ONE_AT_A_TIME,
                              *overrides])


def tagger_recipe(tmp_path: Path, column: str = "upos", **train: Any) -> Path:
    """The tiny tagger on dev = train = test files of ``column``: CoNLL-U (upos, or an xpos column of its own) or trees (pos)."""
    data = tmp_path / "data"
    data.mkdir(parents=True, exist_ok=True)
    suffix = ".trees" if column == "pos" else ".conllu"
    for split in ("train", "dev", "test"):
        text = "\n".join(TINY_TREES) + "\n" if column == "pos" else conllu_text()
        if column == "xpos":  # an XPOS column of its own: the UPOS lower-cased
            text = "\n".join("\t".join(f[:4] + [f[3].lower()] + f[5:]) if len(f := line.split("\t")) == 10 else line
                             for line in text.split("\n"))
        (data / f"{split}{suffix}").write_text(text, encoding="utf-8")
    recipe = yaml.safe_load(yaml.safe_dump(TINY_TAGGER))
    recipe["data"].update({s: str(data / f"{s}{suffix}") for s in ("train", "dev", "test")})
    recipe["tagger"]["column"] = column
    recipe["train"].update({"max_epochs": 30, **train})
    path = tmp_path / "tagger.yaml"
    path.write_text(yaml.safe_dump(recipe), encoding="utf-8")
    return path
