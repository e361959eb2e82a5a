"""SuPar 1.1.4's biaffine-dep prediction as a parsing worker for ``benchmarks/dep_parse_vs_supar.py``; runs in
SuPar's own virtual environment and imports nothing from mlparse.

It builds an untrained ``BiaffineDependencyParser`` the way ``biaffine-dep train --build`` does (its fields and
vocabularies from the training file; Dozat & Manning's sizes from the ``--conf`` file, the gold tag column as
its ``tag`` feature, no pretrained embeddings), nothing downloaded, and predicts once to warm up.  Then it
answers the parent on stdin/stdout, one JSON line per command (benchmarks/instrumentation/side_by_side.py):

    parse tree     ``predict(FILE, pred=OUT, batch_size, tree=True)``: read the file, parse, write the CoNLL-U
                   (``biaffine-dep --tree predict``) -> {"seconds", "cpu", "sentences"}
    parse greedy   the same with ``tree=False``: each word's best head, no tree enforced
    quit

With ``tree=True`` SuPar decodes each sentence's greedy heads and runs its MST only on the sentences whose
greedy heads are not a tree: with untrained weights that is nearly all of them, with a trained model few,
so ``parse greedy`` is the other end of SuPar's range.

    /path/to/supar-venv/bin/python benchmarks/supar_worker.py --train TRAIN --data TEST --conf INI --out PRED
        [--threads T] [--batch-size TOKENS] [--seed S]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import warnings

import torch
from supar import BiaffineDependencyParser
from supar.utils import Config


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", required=True)
    ap.add_argument("--data", required=True, help="the CoNLL-U file to parse")
    ap.add_argument("--conf", required=True, help="SuPar's INI configuration (sizes)")
    ap.add_argument("--out", required=True, help="where predictions are written")
    ap.add_argument("--threads", type=int, default=torch.get_num_threads())
    ap.add_argument("--batch-size", type=int, default=5000, help="tokens per batch, SuPar's default")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        config = Config.load(conf=args.conf, path=os.path.join(tmp, "model"), build=True, train=args.train,
                             feat=["tag"], encoder="lstm", embed="", unk="unk", n_embed=100, bert="bert-base-cased",
                             tree=True, proj=False, partial=False, punct=True, max_len=None, buckets=32, mode="train",
                             device="cpu", seed=args.seed, threads=args.threads, local_rank=-1, checkpoint=False)
        parser = BiaffineDependencyParser.build(**config)

    def predict(tree: bool, data: str = args.data) -> int:
        return len(parser.predict(data, pred=args.out, batch_size=args.batch_size, buckets=8, tree=tree,
                                  proj=False, prob=False, verbose=False))

    with open(args.data, encoding="utf-8") as handle:
        first = handle.read().split("\n\n")[:32]
    with tempfile.TemporaryDirectory() as tmp:  # warm-up on the first 32 sentences
        sample = os.path.join(tmp, "sample.conllu")
        with open(sample, "w", encoding="utf-8") as handle:
            handle.write("\n\n".join(first) + "\n\n")
        predict(True, sample)
    import supar

    print(json.dumps({"ready": True, "version": getattr(supar, "__version__", "?"), "torch": torch.__version__,
                      "threads": torch.get_num_threads(),
                      "parameters": sum(p.numel() for p in parser.model.parameters())}), flush=True)
    for line in sys.stdin:
        command = line.split()
        if not command or command[0] == "quit":
            break
        if command[0] == "parse" and command[1:] in (["tree"], ["greedy"]):
            start, cpu = time.perf_counter(), time.process_time()
            count = predict(command[1] == "tree")
            print(json.dumps({"seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu,
                              "sentences": count}), flush=True)
        else:
            print(json.dumps({"error": f"unknown command {command[0]!r}"}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
