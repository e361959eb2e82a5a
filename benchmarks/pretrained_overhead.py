"""What a pretrained encoder costs per sentence: the demo span parser (CharLSTM + words, recipes/demo.yaml)
against the same parser with a randomly initialised BERT-like encoder beside its word embeddings
(``pretrained.combine: concat``), on the same ptb-sample dev sentences at the same batch, side by side
in one run.

Encoders (random weights: speed does not depend on them; a WordPiece vocabulary is built from the
ptb-sample training words, so the subwords per word are those of a real tokenization):

* ``tiny``: 4 layers of 32 features (the test suite's model);
* ``small``: 4 layers of 256 (BERT-mini's shape);
* ``base``: 12 layers of 768 (BERT-base's shape), parse only by default (``--base-training`` adds training).

Each encoder is timed frozen and fine-tuned: parsing (forward and CKY, no gradient) and training
updates (forward, loss-augmented decoding, backward, Adam), in seconds per sentence, and the ratio to the
CharLSTM model measured in the same run.  The updates run at learning rate 0, so that every round times
the same weights (training the models as they are timed made their later rounds up to 20x faster, which
compared models at different points of training).

    python3 benchmarks/pretrained_overhead.py [--sentences N] [--batch B] [--rounds R] [--threads T]
        [--shapes tiny,small,base] [--base-training]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.parse_speed import prepared_split  # noqa: E402
from mlparse.config import load_recipe  # noqa: E402
from mlparse.models.span_parser import SpanParser  # noqa: E402
from mlparse.tasks.treebank import golds_of, read_split, sentence_of  # noqa: E402
from mlparse.train.trainer import make_adam  # noqa: E402

SHAPES = {"tiny": (4, 32, 2, 64), "small": (4, 256, 4, 1024), "base": (12, 768, 12, 3072)}  # layers, hidden, heads, ff


def wordpiece_vocab(trees: Sequence[Any], min_count: int = 2) -> List[str]:
    """Specials, the lower-cased training words seen ``min_count`` times, and every character alone and as
    a ``##`` continuation (so that every word has a tokenization)."""
    words = Counter(leaf.word.lower() for tree in trees for leaf in tree.leaves())
    chars = sorted({c for word in words for c in word})
    kept = sorted(w for w, n in words.items() if n >= min_count)
    return ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *dict.fromkeys(kept + chars + [f"##{c}" for c in chars])]


def save_encoder(folder: Path, vocab: List[str], shape: str) -> None:
    import transformers

    layers, hidden, heads, ff = SHAPES[shape]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tokenizer = transformers.BertTokenizer(vocab=str(folder / "vocab.txt"))
    config = transformers.BertConfig(vocab_size=len(vocab), hidden_size=hidden, num_hidden_layers=layers,
                                     num_attention_heads=heads, intermediate_size=ff, max_position_embeddings=512)
    torch.manual_seed(0)
    transformers.BertModel(config).save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))


def build(train: Sequence[Any], model_dir: Optional[Path], fine_tune: bool) -> tuple:
    sets = [f"pretrained.model={model_dir}", f"pretrained.fine_tune={str(fine_tune).lower()}",
            "pretrained.combine=concat"] if model_dir else []
    config = load_recipe(REPO / "recipes" / "demo.yaml", sets)
    torch.manual_seed(0)
    return SpanParser.build(config, train), config


def time_parse(parser: SpanParser, sentences: Sequence, batch: int) -> float:
    parser.eval()
    start = time.perf_counter()
    for k in range(0, len(sentences), batch):
        parser.parse(sentences[k:k + batch])
    return (time.perf_counter() - start) / len(sentences)


def time_training(parser: SpanParser, config: Any, sentences: Sequence, golds: Sequence, batch: int) -> float:
    parser.train()
    parser.training_setup(config, "cython")
    optimizer = make_adam(parser.optimizer_groups(config), config.train.adam_betas, config.train.adam_eps, torch.device("cpu"))
    for group in optimizer.param_groups:  # rate 0: Adam does all its work, but every round times the same model
        group["lr"] = 0.0
    start = time.perf_counter()
    for k in range(0, len(sentences), batch):
        optimizer.zero_grad(set_to_none=True)
        out = parser.loss(sentences[k:k + batch], golds[k:k + batch], "cython")
        (out.loss / batch).backward()
        optimizer.step()
    return (time.perf_counter() - start) / len(sentences)


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sentences", type=int, default=64, help="ptb-sample dev sentences timed")
    parser.add_argument("--batch", type=int, default=32, help="sentences per forward pass (the demo recipe's batch)")
    parser.add_argument("--rounds", type=int, default=3, help="timing rounds over every model in turn; the fastest counts")
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--base-training", action="store_true", help="also time training with the BERT-base-sized encoder")
    parser.add_argument("--shapes", default=",".join(SHAPES), help=f"encoders to time, of {', '.join(SHAPES)}")
    args = parser.parse_args(argv)
    shapes = [name for name in args.shapes.split(",") if name]
    unknown = [name for name in shapes if name not in SHAPES]
    if unknown:
        parser.error(f"unknown encoder shape(s) {', '.join(unknown)}; choose from {', '.join(SHAPES)}")
    torch.set_num_threads(args.threads)
    train_trees = read_split(prepared_split("train")).trees
    dev_trees = read_split(prepared_split("dev")).trees[: args.sentences]
    sentences = [sentence_of(t) for t in dev_trees]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, torch threads {args.threads}, "
          f"load average {load:.1f} at start (other jobs share the cores); torch {torch.__version__}")
    print(f"{len(sentences)} ptb-sample dev sentences ({sum(map(len, sentences))} words), batches of {args.batch}, "
          f"fastest of {args.rounds} rounds; seconds per sentence, ratio to the CharLSTM demo model of the same run\n")
    vocab = wordpiece_vocab(train_trees)
    with tempfile.TemporaryDirectory() as folder:
        variants: List[Dict[str, Any]] = []
        model, config = build(train_trees, None, False)
        variants.append({"name": "CharLSTM + words (demo)", "model": model, "config": config, "parse": True, "train": True})
        for shape in shapes:
            model_dir = Path(folder) / shape
            model_dir.mkdir()
            save_encoder(model_dir, vocab, shape)
            for fine_tune in (False, True):
                model, config = build(train_trees, model_dir, fine_tune)
                if shape == shapes[0] and not fine_tune:
                    pieces = [len(p) for s in sentences for p in model.pretrained.pieces([w for _, w in s])]
                    print(f"subwords per word with the WordPiece vocabulary of the training words: "
                          f"{sum(pieces) / len(pieces):.2f}\n")
                layers, hidden = SHAPES[shape][:2]
                variants.append({"name": f"+ {shape} encoder {layers}x{hidden}, {'fine-tuned' if fine_tune else 'frozen'}",
                                 "model": model, "config": config, "parse": not fine_tune,  # the same forward either way
                                 "train": shape != "base" or args.base_training})
        for v in variants:  # warm-up (allocation, kernel choice), untimed
            v["golds"] = golds_of(dev_trees, v["model"].labels)
            time_parse(v["model"], sentences[: args.batch], args.batch)
            if v["train"]:
                time_training(v["model"], v["config"], sentences[: args.batch], v["golds"], args.batch)
        best: Dict[str, Dict[str, float]] = {v["name"]: {} for v in variants}
        for _ in range(args.rounds):
            for v in variants:
                times = best[v["name"]]
                if v["parse"]:
                    times["parse"] = min(times.get("parse", float("inf")), time_parse(v["model"], sentences, args.batch))
                if v["train"]:
                    times["train"] = min(times.get("train", float("inf")),
                                         time_training(v["model"], v["config"], sentences, v["golds"], args.batch))
    reference = best[variants[0]["name"]]
    print(f"{'model':44s} {'parse s/sent':>13s} {'x CharLSTM':>10s} {'train s/sent':>13s} {'x CharLSTM':>10s}")
    for v in variants:
        cells = []
        for key in ("parse", "train"):
            value = best[v["name"]].get(key)
            cells += ([f"{value:13.4f}", f"{value / reference[key]:10.2f}"] if value is not None else [f"{'-':>13s}", f"{'':>10s}"])
        print(f"{v['name']:44s} {' '.join(cells)}")
    print("\nparse: a frozen and a fine-tuned encoder run the same forward (the frozen one is timed)")


if __name__ == "__main__":
    main()
