"""Dependency (and joint) parsing speed on a CPU beside SuPar's biaffine-dep prediction, on the UD English-EWT
test file (2,077 sentences), in one run.

Every model is untrained (only the speed is measured; the biaffine weights, which start at zero, are drawn
from a normal distribution so that scores differ, as a trained model's do) and parses in a worker process of
its own, with the same threads (``--threads``, also ``OMP_NUM_THREADS``) and ``OMP_WAIT_POLICY``, the whole
file once per round, in turns (benchmarks/instrumentation/side_by_side.py):

* SuPar 1.1.4's ``biaffine-dep`` (Dozat & Manning: 3 BiLSTM layers of 400, the UPOS column as its tag
  feature; SuPar's PTB configuration, as benchmarks/dep_vs_supar.py trains it), from SuPar's virtual
  environment (``--supar-python``; benchmarks/supar_worker.py): ``predict`` reads the file, parses in
  5,000-token batches and writes the CoNLL-U, with ``--tree`` (its MST on the sentences whose greedy heads
  are not a tree: with untrained weights nearly all) and without (greedy heads only);
* mlparse, the way ``mlparse parse`` parses CoNLL-U (read, ``parse_document`` under the 5,000 token-equivalent
  budget, MST in Cython, the CoNLL-U written): ``ud/english-ewt-bilstm`` (the same BiLSTM architecture) and
  ``ud/base`` (Li et al.'s self-attentive parser, 8 layers), both with the gold UPOS as input; and the joint
  span + dependency parser ``lal/ptb-sample`` (Label Attention Layer, CharLSTM; built on the ptb-sample
  training trees), parsing the file's words with their XPOS tags and writing trees, as ``mlparse parse`` does
  for a joint model.  ``--quantize`` adds each with its linear layers in int8.

Printed: sentences/s of each (medians over ``--rounds``), and per round SuPar's (``--tree``) time over each
system's, wall and CPU.

    python3 benchmarks/dep_parse_vs_supar.py --supar-python /path/to/supar-venv/bin/python [--threads 2]
        [--rounds 3] [--quantize] [--limit N] [--systems bilstm,ud-base,joint] [--wait-policy PASSIVE]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.dep_vs_supar import SUPAR_CONFIG  # noqa: E402  (SuPar's PTB configuration, as that benchmark trains it)
from benchmarks.instrumentation.side_by_side import (System, print_table, python_usable, serve, start,  # noqa: E402
                                                      timed, timed_rounds, worker_environment)

TREEBANK = "UD_English-EWT"
SUPAR = "SuPar biaffine-dep --tree"
#: mlparse's systems: the recipe each is built from.
RECIPES = {"bilstm": "ud/english-ewt-bilstm", "ud-base": "ud/base", "joint": "lal/ptb-sample"}


def prepared(family: str, language: str, split: str, suffix: str) -> Path:
    path = REPO / "data" / family / language / f"{split}{suffix}"
    if not path.is_file():
        from mlparse.data.prepare import prepare_family

        prepare_family(family, languages=[language], out=REPO / "data")
    return path


def first_sentences(path: Path, limit: Optional[int], out: Path) -> Path:
    """``path`` itself, or its first ``limit`` CoNLL-U sentences written to ``out``."""
    if not limit:
        return path
    blocks = path.read_text(encoding="utf-8").split("\n\n")[:limit]
    out.write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")
    return out


# -- the mlparse worker ----------------------------------------------------------------------------

def build(name: str):  # type: ignore[no-untyped-def]
    """An untrained parser of recipe ``RECIPES[name]``, built from its training file, its biaffine weights drawn."""
    import torch

    from mlparse.config import load_recipe
    from mlparse.models.registry import parser_class
    from mlparse.tasks import task_for

    if name == "joint":
        config = load_recipe(RECIPES[name], [f"data.root={REPO / 'data'}"])
        train = prepared("ptb-sample", "english", "train", ".trees")  # with train.conllu beside it
    else:
        config = load_recipe(RECIPES[name], ["data.tags=gold", f"data.root={REPO / 'data'}"])
        train = prepared("ud", TREEBANK, "train", ".conllu")
    torch.manual_seed(0)
    parser = parser_class(config.model.kind).build(config, task_for(config.task).read_split(train).examples).eval()
    with torch.no_grad():
        for module in parser.modules():
            if type(module).__name__ == "Biaffine":
                module.weight.normal_()
    return parser


class DependencyWorker:
    """Parses the test file as ``mlparse parse`` does, with each model asked for (float and int8)."""

    def __init__(self, names: List[str], quantize: bool, data: Path, budget: int) -> None:
        self.text = data.read_text(encoding="utf-8")
        self.budget = budget
        self.out = Path(tempfile.mkdtemp()) / "pred"
        self.parsers: Dict[str, object] = {}
        for name in names:
            self.parsers[name] = build(name)
            if quantize:
                from mlparse.modules.quantize import quantize_linear_layers

                self.parsers[f"{name}-int8"] = quantize_linear_layers(build(name))
        from mlparse.trees.dependency import parse_conllu

        self.document = parse_conllu(self.text, str(data))
        for name in self.parsers:  # warm-up
            self.parse(name, limit=16)

    def parse(self, name: str, limit: Optional[int] = None) -> None:
        parser = self.parsers[name]
        if parser.task == "joint":  # type: ignore[attr-defined]
            self._parse_joint(parser, limit)
            return
        from mlparse.models.dep_inference import parse_document, read_dependency_input

        text = self.text if limit is None else "\n\n".join(self.text.split("\n\n")[:limit]) + "\n\n"
        document = read_dependency_input(text, parser, input_format="conllu")  # type: ignore[arg-type]
        self.out.write_text(parse_document(parser, document, budget=self.budget), encoding="utf-8")  # type: ignore[arg-type]

    def _parse_joint(self, parser, limit: Optional[int]) -> None:  # type: ignore[no-untyped-def]
        from mlparse.models.inference import InputSentence, parse_input

        sentences = self.document.sentences[:limit]
        inputs = [InputSentence(s.line, list(zip(s.xpos, s.words))) for s in sentences]
        trees = parse_input(parser, inputs, budget=self.budget)
        self.out.write_text("".join(tree.to_bracketed() + "\n" for tree in trees), encoding="utf-8")


def serve_worker(worker: DependencyWorker) -> None:
    import torch

    serve({"torch": torch.__version__, "threads": torch.get_num_threads(),
           "sentences": len(worker.document.sentences),
           "parameters": {name: sum(p.numel() for p in parser.parameters()) for name, parser in worker.parsers.items()
                          if not name.endswith("-int8")}},  # type: ignore[attr-defined]
          {"parse": lambda words: timed(lambda: worker.parse(words[0]))})


# -- the parent ------------------------------------------------------------------------------------

def main(argv: Optional[List[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--supar-python", help="the Python of a virtual environment with SuPar 1.1.4 installed")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--limit", type=int, default=None, help="parse only the first N test sentences")
    ap.add_argument("--budget", type=int, default=5000, help="mlparse's token-equivalents and SuPar's tokens per batch")
    ap.add_argument("--systems", default="bilstm,ud-base,joint", help="mlparse's models, of " + ", ".join(RECIPES))
    ap.add_argument("--quantize", action="store_true", help="also each mlparse model with int8 linear layers")
    ap.add_argument("--wait-policy", default="PASSIVE", choices=["PASSIVE", "ACTIVE", "unset"])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    names = [name for name in args.systems.split(",") if name]
    unknown = set(names) - set(RECIPES)
    if unknown:
        raise SystemExit(f"unknown systems {', '.join(sorted(unknown))}; choose from {', '.join(RECIPES)}")
    if args.worker:
        serve_worker(DependencyWorker(names, args.quantize, Path(args.data), args.budget))
        return
    os.environ.pop("OMP_WAIT_POLICY", None)
    env = worker_environment(args.threads, args.wait_policy)
    test, train = prepared("ud", TREEBANK, "test", ".conllu"), prepared("ud", TREEBANK, "train", ".conllu")
    prepared("ptb-sample", "english", "train", ".trees")
    with tempfile.TemporaryDirectory() as tmp:
        data = first_sentences(test, args.limit, Path(tmp) / "test.conllu")
        workers = {}
        systems: List[System] = []
        try:
            workers["mlparse"] = start("mlparse", [
                sys.executable, str(Path(__file__).resolve()), "--worker", "--data", str(data), "--budget",
                str(args.budget), "--systems", ",".join(names)] + (["--quantize"] if args.quantize else []), env, REPO)
            for name in names:
                systems.append(System(f"mlparse {RECIPES[name]}", workers["mlparse"], f"parse {name}"))
                if args.quantize:
                    systems.append(System(f"mlparse {RECIPES[name]} int8", workers["mlparse"], f"parse {name}-int8"))
            why_not = python_usable(args.supar_python, "supar") if args.supar_python else "no --supar-python given"
            if why_not is None:
                conf = Path(tmp) / "biaffine-dep.ini"
                conf.write_text(SUPAR_CONFIG, encoding="utf-8")
                supar_env = dict(env)
                supar_env.pop("PYTHONPATH", None)
                workers["supar"] = start("supar", [
                    args.supar_python, str(REPO / "benchmarks" / "supar_worker.py"), "--train", str(train),
                    "--data", str(data), "--conf", str(conf), "--out", str(Path(tmp) / "supar.pred.conllu"),
                    "--threads", str(args.threads), "--batch-size", str(args.budget)], supar_env, Path(tmp))
                systems[:0] = [System(SUPAR, workers["supar"], "parse tree"),
                               System("SuPar biaffine-dep (greedy)", workers["supar"], "parse greedy")]
            hello = workers["mlparse"].hello
            print(f"{TREEBANK} test: {hello['sentences']} sentences; untrained models; {args.threads} threads each, "
                  f"OMP_WAIT_POLICY={env.get('OMP_WAIT_POLICY', 'unset')}; torch {hello['torch']}")
            for name, count in hello["parameters"].items():
                print(f"mlparse {RECIPES[name]}: {count:,} parameters")
            if "supar" in workers:
                s = workers["supar"].hello
                print(f"SuPar {s['version']} biaffine-dep: {s['parameters']:,} parameters; torch {s['torch']} ({args.supar_python})")
            else:
                print(f"SuPar: not run ({why_not})")
            timings = timed_rounds(systems, args.rounds)
        finally:
            for worker in workers.values():
                worker.close()
    print()
    print_table(hello["sentences"], timings, SUPAR if "supar" in workers else None)


if __name__ == "__main__":
    main()
