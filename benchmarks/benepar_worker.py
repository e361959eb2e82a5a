"""benepar 0.2.0's ChartParser as a parsing worker for ``benchmarks/parse_speed.py``; runs in benepar's own
virtual environment and imports nothing from mlparse.

It builds an untrained ChartParser of the sizes given (``--sizes``, JSON: d_model, num_layers, num_heads, d_kv,
d_ff, d_char_emb, d_label_hidden, max_len; CharLSTM input, as benepar's ``--use-chars-lstm --use-encoder``
training would), its label and character vocabularies from the training trees, as benepar's ``main.py``
builds them, and no model is downloaded.  It reads the sentences to parse (words and gold tags) from a
one-tree-per-line file and parses them once to warm up.  Then it answers the parent on stdin/stdout, one JSON
line per command:

    parse         parse every sentence (``ChartParser.parse`` with ``subbatch_max_tokens``) -> {"seconds", "cpu"}
    write PATH    the trees of the last parse, one per line
    quit

    /path/to/benepar-venv/bin/python benchmarks/benepar_worker.py --train TRAIN --sentences DEV --sizes JSON
        [--threads T] [--budget TOKENS] [--seed S]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import List, Tuple

import nltk
import torch
from benepar import char_lstm, decode_chart, nkutil, parse_base, parse_chart


class Sentence(parse_base.BaseInputExample):
    """A sentence given with its words and tags (benepar's input example without a gold tree)."""

    def __init__(self, pos: List[Tuple[str, str]]) -> None:
        self._pos = pos
        self.words = [word for word, _ in pos]
        self.space_after = [True] * len(pos)
        self.tree = None

    def leaves(self) -> List[str]:
        return self.words

    def pos(self) -> List[Tuple[str, str]]:
        return self._pos


def read_trees(path: str) -> List[nltk.Tree]:
    with open(path, encoding="utf-8") as handle:
        return [nltk.Tree.fromstring(line) for line in handle if line.strip()]


def build_parser(train: List[nltk.Tree], sizes: dict, seed: int) -> parse_chart.ChartParser:
    """An untrained ChartParser with CharLSTM input and the partitioned encoder, benepar's own hyperparameter
    names filled from ``sizes`` (the others at benepar's defaults)."""
    label_vocab = decode_chart.ChartDecoder.build_vocab(train)
    char_vocab = char_lstm.RetokenizerForCharLSTM.build_vocab([tree.leaves() for tree in train])
    tags = sorted({tag for tree in train for _, tag in tree.pos()})
    tag_vocab = {label: i for i, label in enumerate(["UNK"] + tags)}
    hparams = nkutil.HParams(
        use_chars_lstm=True, d_char_emb=sizes["d_char_emb"], char_lstm_input_dropout=0.2,
        use_pretrained=False, pretrained_model="bert-base-uncased",
        use_encoder=True, d_model=sizes["d_model"], num_layers=sizes["num_layers"], num_heads=sizes["num_heads"],
        d_kv=sizes["d_kv"], d_ff=sizes["d_ff"], encoder_max_len=sizes["max_len"],
        morpho_emb_dropout=0.2, attention_dropout=0.2, relu_dropout=0.1, residual_dropout=0.2,
        force_root_constituent=decode_chart.ChartDecoder.infer_force_root_constituent(train),
        predict_tags=False, d_label_hidden=sizes["d_label_hidden"], d_tag_hidden=256, tag_loss_scale=5.0,
    )
    torch.manual_seed(seed)
    parser = parse_chart.ChartParser(tag_vocab=tag_vocab, label_vocab=label_vocab, char_vocab=char_vocab, hparams=hparams)
    return parser.eval()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", required=True)
    ap.add_argument("--sentences", required=True)
    ap.add_argument("--sizes", required=True, help="JSON object of model sizes")
    ap.add_argument("--threads", type=int, default=torch.get_num_threads())
    ap.add_argument("--budget", type=int, default=5000, help="subbatch_max_tokens of ChartParser.parse")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    import benepar

    parser = build_parser(read_trees(args.train), json.loads(args.sizes), args.seed)
    sentences = [Sentence(tree.pos()) for tree in read_trees(args.sentences)]
    parser.parse(sentences[:8], subbatch_max_tokens=args.budget)  # warm-up
    print(json.dumps({"ready": True, "version": getattr(benepar, "__version__", "0.2.0"), "torch": torch.__version__,
                      "parameters": sum(p.numel() for p in parser.parameters()), "threads": torch.get_num_threads()}),
          flush=True)
    trees: list = []
    for line in sys.stdin:
        command = line.split(maxsplit=1)
        if not command or command[0] == "quit":
            break
        if command[0] == "parse":
            start, cpu = time.perf_counter(), time.process_time()
            with torch.no_grad():
                trees = parser.parse(sentences, subbatch_max_tokens=args.budget)
            print(json.dumps({"seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu}), flush=True)
        elif command[0] == "write":
            with open(command[1].strip(), "w", encoding="utf-8") as handle:
                handle.writelines(tree.pformat(margin=10**9) + "\n" for tree in trees)
            print(json.dumps({"written": len(trees)}), flush=True)
        else:
            print(json.dumps({"error": f"unknown command {command[0]!r}"}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
