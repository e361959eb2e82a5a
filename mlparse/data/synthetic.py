"""A small English-like PCFG that generates a synthetic treebank, so that the demo runs anywhere.

Trees come out normalized like prepared data: ``(TOP (S ...) (. .))``.  Generation is
deterministic for a seed (its own :class:`random.Random`); recursion is bounded by
switching to each symbol's first (non-recursive) expansion beyond ``max_depth``.
"""

from __future__ import annotations

import random
from datetime import datetime, timezone
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import mlparse.version
from mlparse.data.manifest import Manifest, TreeStatsAccumulator, sha256_bytes
from mlparse.data.output import write_prepared
from mlparse.trees.tree import Leaf, Node, Tree

#: symbol -> [(probability, right-hand side)]; the first expansion of each symbol is non-recursive.
GRAMMAR: Dict[str, List[Tuple[float, Tuple[str, ...]]]] = {
    "S": [(0.80, ("NP", "VP")), (0.12, ("PP", ",", "NP", "VP")), (0.08, ("S", "CC", "S"))],
    "NP": [
        (0.30, ("DT", "NN")),
        (0.15, ("DT", "JJ", "NN")),
        (0.15, ("NNP",)),
        (0.10, ("PRP",)),
        (0.10, ("DT", "NNS")),
        (0.12, ("NP", "PP")),
        (0.08, ("NP", "CC", "NP")),
    ],
    "VP": [
        (0.30, ("VBD", "NP")),
        (0.10, ("VBD",)),
        (0.20, ("VBD", "NP", "PP")),
        (0.10, ("VBZ", "ADJP")),
        (0.12, ("MD", "VB", "NP")),
        (0.18, ("VBD", "SBAR")),
    ],
    "SBAR": [(1.0, ("IN_THAT", "S"))],
    "PP": [(1.0, ("IN", "NP"))],
    "ADJP": [(0.6, ("JJ",)), (0.4, ("RB", "JJ"))],
}

LEXICON: Dict[str, Sequence[str]] = {
    "DT": ("the", "a", "every", "this", "some"),
    "NN": ("company", "market", "analyst", "report", "price", "bank", "deal", "year", "plan", "board"),
    "NNS": ("shares", "investors", "profits", "rates", "bonds", "managers"),
    "NNP": ("Smith", "Acme", "Tokyo", "Congress", "Mary", "Boston"),
    "PRP": ("it", "they", "she", "he", "we"),
    "JJ": ("new", "large", "quarterly", "strong", "weak", "foreign", "early"),
    "RB": ("very", "quite", "rather"),
    "VBD": ("said", "reported", "bought", "sold", "expected", "raised", "cut"),
    "VBZ": ("is", "seems", "remains"),
    "VB": ("buy", "sell", "raise", "approve"),
    "MD": ("will", "could", "may"),
    "IN": ("in", "of", "for", "with", "after"),
    "IN_THAT": ("that",),
    "CC": ("and", "but"),
    ",": (",",),
}

#: POS tags written for lexical symbols whose name is not the tag.
TAG_OF = {"IN_THAT": "IN"}


def generate_tree(rng: random.Random, max_depth: int = 7) -> Tree:
    """One tree ``(TOP (S ...) (. .))``."""
    return Tree("TOP", [_expand("S", rng, 0, max_depth), Leaf(".", ".")])


def _expand(symbol: str, rng: random.Random, depth: int, max_depth: int) -> Node:
    if symbol in LEXICON:
        return Leaf(TAG_OF.get(symbol, symbol), rng.choice(LEXICON[symbol]))
    options = GRAMMAR[symbol]
    if depth >= max_depth:
        rhs = options[0][1]
    else:
        weights = [probability for probability, _ in options]
        rhs = rng.choices([expansion for _, expansion in options], weights=weights)[0]
    return Tree(symbol, [_expand(child, rng, depth + 1, max_depth) for child in rhs])


def generate_treebank(n: int, seed: int = 0, max_depth: int = 7) -> List[Tree]:
    rng = random.Random(seed)
    return [generate_tree(rng, max_depth) for _ in range(n)]


def write_synthetic_treebank(
    out_dir: Path, sizes: Tuple[int, int, int] = (1000, 100, 100), seed: int = 1234
) -> Manifest:
    """Write ``{train,dev,test}.trees`` and ``manifest.json`` into ``out_dir`` (one seed per split)."""
    splits = {}
    lines = {}
    for offset, (split, size) in enumerate(zip(("train", "dev", "test"), sizes)):
        trees = generate_treebank(size, seed=seed + offset)
        accumulator = TreeStatsAccumulator(f"{split}.trees")
        for tree in trees:
            accumulator.add(tree)
        lines[split] = [tree.to_bracketed() for tree in trees]
        stats = accumulator.finish()
        stats.sha256 = sha256_bytes("".join(line + "\n" for line in lines[split]).encode("utf-8"))
        splits[split] = stats
    manifest = Manifest(
        family="synthetic",
        language="english",
        mlparse_version=mlparse.version.__version__,
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        source_root="mlparse.data.synthetic",
        format="pcfg",
        reader_options={},
        output_format="trees",
        evalb_param="COLLINS.prm",
        split_definition={"scheme": "generated", "sizes": dict(zip(("train", "dev", "test"), sizes)), "seed": seed,
                          "rule": "split i uses random.Random(seed + i)"},
        missing_splits=[],
        transforms=[],
        splits=splits,
        notes="Synthetic English-like PCFG treebank (no real treebank was found).",
    )
    write_prepared(out_dir, {f"{split}.trees": lines[split] for split in lines}, manifest.to_json())
    return manifest
