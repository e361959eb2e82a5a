"""A stand-in for another toolkit's parser, for the tests of ``model.kind: external`` (mlparse/external/).

It learns nothing: ``train`` writes a "model" (the number of training sentences, its arguments) and can
sleep, hang, ignore SIGINT or crash; ``predict`` writes a left-chain parse of its input (the first word the
root, every other word headed by the word before it, relation ``dep``) for CoNLL-U, or flat trees for
bracketed input, and can write too few sentences, nothing, a broken tree, or hang.  Standard library only:
it runs in any Python, as a real peer runs in its own.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path


def on_sigint(mode: str, model: Path, record: dict) -> None:
    """What the fake peer does when it is stopped: ``cut`` starts writing its model and dies of the signal halfway
    (a save cut by the stop), ``save`` writes its model whole and exits normally (a peer that saves on SIGINT)."""

    def handler(signum: int, frame: object) -> None:
        time.sleep(0.05)  # the save starts after the signal: its last write comes after it
        text = json.dumps(dict(record, saved_on="SIGINT"))
        if mode == "cut":
            model.write_text(text[: len(text) // 2], encoding="utf-8")
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
        model.write_text(text, encoding="utf-8")
        sys.exit(0)

    signal.signal(signal.SIGINT, handler)


def train(args: argparse.Namespace) -> int:
    if args.ignore_sigint:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    sentences = Path(args.train).read_text(encoding="utf-8").strip().count("\n\n") + 1
    model = Path(args.model)
    model.parent.mkdir(parents=True, exist_ok=True)
    if args.resume and not Path(args.checkpoint or "").is_file():
        print(f"no checkpoint {args.checkpoint} to resume from", flush=True)
        return 4
    if args.checkpoint:
        Path(args.checkpoint).write_text("checkpoint", encoding="utf-8")
    print(f"fake peer: training on {sentences} sentences (seed {args.seed})", flush=True)
    if args.crash:
        print("RuntimeError: the fake peer ran out of memory", flush=True)
        return 3
    if args.sleep_before_model:
        time.sleep(args.sleep_before_model)
    record = {"sentences": sentences, "seed": args.seed, "argv": sys.argv[1:], "resumed": bool(args.resume),
              "minutes": args.minutes}
    model.write_text(json.dumps(record)[: 10 if args.broken_model else None], encoding="utf-8")
    if args.on_sigint:
        on_sigint(args.on_sigint, model, record)
    if args.hang:
        while True:
            time.sleep(0.5)
    end = time.monotonic() + args.sleep
    while time.monotonic() < end:  # a progress line now and then, as a real peer's
        print("fake peer: still training", flush=True)
        time.sleep(min(0.5, max(0.0, end - time.monotonic())))
    return 0


def chain_conllu(text: str, mode: str) -> str:
    blocks = [block for block in text.strip("\n").split("\n\n") if block.strip()]
    if mode == "short":
        blocks = blocks[:-1]
    out = []
    for block in blocks:
        lines = []
        for line in block.split("\n"):
            cells = line.split("\t")
            if line.startswith("#") or not cells[0].isdigit():
                lines.append(line)
                continue
            index = int(cells[0])
            head = 0 if index == 1 else index - 1
            if mode == "badhead" and index == 1:
                head = 99
            cells[6], cells[7], cells[8] = str(head), "root" if head == 0 else "dep", "_"
            lines.append("\t".join(cells))
        out.append("\n".join(lines))
    return "\n\n".join(out) + "\n\n"


def flat_trees(text: str) -> str:
    import re

    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        leaves = re.findall(r"\(([^()\s]+) ([^()\s]+)\)", line)
        out.append("(TOP (S " + " ".join(f"({tag} {word})" for tag, word in leaves) + "))")
    return "\n".join(out) + "\n"


def predict(args: argparse.Namespace) -> int:
    if not Path(args.model).is_file():
        print(f"FileNotFoundError: no model at {args.model}", flush=True)
        return 2
    if args.mode == "crash" or (args.mode == "crash-on-test" and "test" in Path(args.input).name):
        print("ValueError: the fake peer cannot read its input", flush=True)
        return 1
    if args.mode == "hang":
        print("fake peer: predicting", flush=True)
        while True:
            time.sleep(0.5)
    text = Path(args.input).read_text(encoding="utf-8")
    output = Path(args.output)
    if args.mode == "empty":
        output.write_text("", encoding="utf-8")
        return 0
    output.write_text(chain_conllu(text, args.mode) if args.input.endswith(".conllu") else flat_trees(text),
                      encoding="utf-8")
    return 0


def check(args: argparse.Namespace) -> int:
    """The fake peer's own load check: its model must be whole JSON."""
    try:
        json.loads(Path(args.model).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        print(f"cannot load {args.model}: {error}", flush=True)
        return 1
    print("model loads", flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    t = commands.add_parser("train")
    t.add_argument("--train", required=True)
    t.add_argument("--dev", required=True)
    t.add_argument("--model", required=True)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--minutes", default=None)
    t.add_argument("--sleep", type=float, default=0.0)
    t.add_argument("--sleep-before-model", type=float, default=0.0)
    t.add_argument("--hang", action="store_true")
    t.add_argument("--ignore-sigint", action="store_true")
    t.add_argument("--crash", action="store_true")
    t.add_argument("--checkpoint", default=None)
    t.add_argument("--resume", action="store_true")
    t.add_argument("--on-sigint", choices=["cut", "save"], default=None)
    t.add_argument("--broken-model", action="store_true")
    c = commands.add_parser("check")
    c.add_argument("--model", required=True)
    p = commands.add_parser("predict")
    p.add_argument("--model", required=True)
    p.add_argument("--input", required=True)
    p.add_argument("--output", required=True)
    p.add_argument("--mode", default="chain", choices=["chain", "short", "empty", "crash", "crash-on-test", "hang",
                                                          "badhead"])
    commands.add_parser("version")
    args = parser.parse_args()
    if args.command == "version":
        print("fake-peer 0.3.1")
        return 0
    if args.command == "check":
        return check(args)
    return train(args) if args.command == "train" else predict(args)


if __name__ == "__main__":
    sys.exit(main())
