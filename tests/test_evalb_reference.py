"""Extra differential checks against the original C programs, when they are installed.

``evalb_reference`` / ``evalb_spmrl_reference`` are compiled copies of the
original programs that a developer may put on PATH; they are not part of this
repository.  Without them these checks are skipped: the other evalb tests stand
alone with expected values derived by hand.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PARAMS = Path(__file__).resolve().parents[1] / "evalb" / "params"
LABELS = ["S", "NP", "VP", "PP", "ADVP", "PRT", "NP-SBJ-1", "NP=2", "-NONE-", "TOP", "", "X#a", "ROOT"]
TAGS = ["NN", "DT", "VB", ",", ".", ":", "``", "''", "POS", "-NONE-", "CD", "NN-X", "NN##c=n##"]
WORDS = ["a", "b", "dog", "'", '"', "/", "*T*-1", "This", "this", ","]


def _tree(rng: random.Random, depth: int = 0) -> str:
    if depth > 3 or rng.random() < 0.35:
        return f"({rng.choice(TAGS)} {rng.choice(WORDS)})"
    kids = " ".join(_tree(rng, depth + 1) for _ in range(rng.randint(1, 3)))
    return f"({rng.choice(LABELS)} {kids})"


def _variant(rng: random.Random, tree: str) -> str:
    r = rng.random()
    if r < 0.3:
        return tree
    if r < 0.4:
        return rng.choice(["", "()", "(X a b)", "(S (NN a)"])
    if r < 0.7:
        return tree.replace("(NP", "(VP", 1).replace("(. ", "(NN ", 1)
    return f"(S {tree})"


def _script(name: str) -> list[str]:
    script = Path(sys.executable).parent / name
    return [str(script)] if script.is_file() else [sys.executable, "-c", f"import sys; from evalb.cli import {'main_spmrl' if 'spmrl' in name else 'main'} as m; sys.exit(m())"]


@pytest.mark.parametrize("program", ["evalb", "evalb_spmrl"])
def test_random_files_match_the_original(tmp_path, program):
    reference = shutil.which(program + "_reference")
    if reference is None:
        pytest.skip(f"{program}_reference is not on PATH")
    rng = random.Random(2024)
    for case in range(25):
        gold = [_tree(rng) for _ in range(rng.randint(1, 6))]
        test = [_variant(rng, g) for g in gold]
        (tmp_path / "g").write_text("\n".join(gold) + "\n")
        (tmp_path / "t").write_text("\n".join(test) + "\n")
        prm = rng.choice(["COLLINS", "nk", "spmrl"])
        opts = ["-p", str(PARAMS / f"{prm}.prm"), "-e", str(rng.choice([1, 5, 100]))]
        if program == "evalb_spmrl" and rng.random() < 0.5:
            opts.append(rng.choice(["-X", "-L", "-V"]))
        opts += ["g", "t"]
        ref = subprocess.run([reference] + opts, cwd=tmp_path, capture_output=True)
        ref_status = (tmp_path / "status").read_bytes() if (tmp_path / "status").exists() else None
        (tmp_path / "status").unlink(missing_ok=True)
        port = subprocess.run(_script(program) + opts, cwd=tmp_path, capture_output=True)
        port_status = (tmp_path / "status").read_bytes() if (tmp_path / "status").exists() else None
        (tmp_path / "status").unlink(missing_ok=True)
        assert (port.returncode, port.stdout, port.stderr, port_status) == (ref.returncode, ref.stdout, ref.stderr, ref_status), (
            case,
            gold,
            test,
            opts,
        )
