"""Reader and transform throughput on IcePaHC (73k trees, 1M tokens), measured side by side.

Prints trees/second (CPU time of this process, one core) for the compiled and
the pure-Python reader, and for the data pipeline's usual chain of transforms,
with ratios against the same run's numbers.  Usage::

    python3 benchmarks/trees_speed.py [--files N] [path/to/psd/folder]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path
from typing import Callable, List, Optional

from mlparse.trees import (
    Leaf,
    Tree,
    binarize,
    collapse_unary,
    ensure_top,
    expand_unary,
    is_psd_empty,
    map_leaves,
    parse_bracketed,
    remove_leaves,
    split_lemma,
    strip_functional_tags,
    unbinarize,
)
from mlparse.trees import reader

DEFAULT = Path(__file__).resolve().parents[1].parent / "shared" / "treebanks" / "is-icepahc" / "psd"


def cpu(fn: Callable[[], object]) -> tuple:
    gc.collect()
    start = time.process_time()
    result = fn()
    return time.process_time() - start, result


def read_all(texts: List[str], compiled: bool) -> List[Tree]:
    reader.USE_COMPILED = compiled
    try:
        return [tree for text in texts for tree in parse_bracketed(text).trees]
    finally:
        reader.USE_COMPILED = True


def drop(leaf: Leaf) -> bool:
    return leaf.tag in ("ID", "CODE") or is_psd_empty(leaf)


def prepare(tree: Tree) -> Optional[Tree]:
    """The IcePaHC preparation chain: drop ID/CODE and empties, split lemmas, strip function tags, add TOP."""
    kept = remove_leaves(tree, drop)
    if kept is None:
        return None
    return ensure_top(strip_functional_tags(map_leaves(kept, split_lemma)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--files", type=int, default=0, help="only the first N files (0: all)")
    args = parser.parse_args()
    files = sorted(args.folder.glob("*.psd"))
    if args.files:
        files = files[: args.files]
    if not files:
        print(f"no .psd files in {args.folder}; skipping")
        return 0
    texts = [path.read_text(encoding="utf-8") for path in files]

    with reader.paused_gc():
        pure_s, trees = cpu(lambda: read_all(texts, compiled=False))
    n = len(trees)
    print(f"IcePaHC: {len(files)} files, {n} trees (CPU time, one core)")
    print(f"  read, pure Python          {n / pure_s:9.0f} trees/s")
    read_s = pure_s
    if reader.compiled_scanner_available():
        with reader.paused_gc():
            compiled_s, compiled_trees = cpu(lambda: read_all(texts, compiled=True))
        assert compiled_trees == trees, "compiled and pure-Python readers disagree"
        print(f"  read, compiled             {n / compiled_s:9.0f} trees/s   ({pure_s / compiled_s:.1f}x pure Python)")
        read_s = compiled_s
        del compiled_trees
    else:
        print("  read, compiled             not built (python3 setup.py build_ext --inplace)")
    del trees
    gc.collect()

    def pipeline() -> List[Tree]:
        return [p for text in texts for t in parse_bracketed(text).trees if (p := prepare(t)) is not None]

    def settled(fn: Callable[[], List[Tree]]) -> List[Tree]:
        out = fn()
        gc.collect(1)  # the young collection a bulk allocation owes, so both variants pay what they cause
        return out

    plain_s, prepared = cpu(lambda: settled(pipeline))
    del prepared
    gc.collect()

    def paused() -> List[Tree]:
        with reader.paused_gc(freeze=True):
            return pipeline()

    paused_s, prepared = cpu(lambda: settled(paused))
    print(f"  read + prepare, gc as is   {n / plain_s:9.0f} trees/s")
    print(
        f"  read + prepare, paused_gc  {n / paused_s:9.0f} trees/s   ({plain_s / paused_s:.1f}x gc as is; "
        f"reading is {read_s / paused_s:.0%}; target 10000)"
    )
    with reader.paused_gc():
        copy_s, _ = cpu(lambda: [t.copy() for t in prepared])
        print(f"  tree.copy()                {n / copy_s:9.0f} trees/s")
        for name, fn in [("collapse_unary", collapse_unary), ("binarize", binarize)]:
            seconds, _ = cpu(lambda: [fn(t) for t in prepared])
            print(f"  {name:26s} {n / seconds:9.0f} trees/s   ({seconds / copy_s:.1f}x tree.copy())")
        seconds, _ = cpu(lambda: [unbinarize(binarize(expand_unary(collapse_unary(t)))) for t in prepared])
        print(f"  all four inverses          {n / seconds:9.0f} trees/s   ({seconds / copy_s:.1f}x tree.copy())")
    gc.unfreeze()
    return 0


if __name__ == "__main__":
    sys.exit(main())
