"""Hand-made dependency data (CoNLL-U) and a tiny biaffine recipe, shared by the dependency parser's tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Optional

import yaml

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
