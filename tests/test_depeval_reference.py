"""Differential test of depeval against the original CoNLL 2018 evaluation script, when it is available.

``DEPEVAL_REFERENCE`` is the path of the original ``conll18_ud_eval.py`` (v1.2),
which is not part of this repository; without it these checks are skipped (the
other depeval tests stand alone, with expected values worked out by hand).
The original runs in-process (its ``main`` with ``sys.argv`` set, its printed
output captured); a few cases also run both as programs, to compare the whole
process: exit status, output bytes and the error message.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.depeval_cases import break_text, perturb, random_sentence, read_sentences, write_file

from depeval.cli import main as depeval_main

REFERENCE = os.environ.get("DEPEVAL_REFERENCE")
MODES = ([], ["-v"], ["-c"])

pytestmark = pytest.mark.skipif(not REFERENCE, reason="DEPEVAL_REFERENCE (path to conll18_ud_eval.py) is not set")


@pytest.fixture(scope="module")
def original():
    spec = importlib.util.spec_from_file_location("conll18_ud_eval_reference", REFERENCE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_original(module, args: list[str]) -> tuple[str, BaseException | None]:
    out = io.StringIO()
    saved = sys.argv
    sys.argv = ["conll18_ud_eval.py"] + args
    try:
        with contextlib.redirect_stdout(out):
            module.main()
    except Exception as error:  # noqa: BLE001 - the original's errors are what is compared
        return out.getvalue(), error
    finally:
        sys.argv = saved
    return out.getvalue(), None


def run_port(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = depeval_main(args)
    return status, out.getvalue(), err.getvalue()


def compare(module, gold: Path, system: Path, tally: dict) -> None:
    """Both programs on one pair in every output mode: same output, or the same error message."""
    for mode in MODES:
        args = mode + [str(gold), str(system)]
        expected, error = run_original(module, args)
        status, out, err = run_port(args)
        context = (args, gold.read_bytes()[:600], system.read_bytes()[:600])
        if error is None:
            assert (status, out) == (0, expected), context
            tally["scored"] += 1
        elif isinstance(error, module.UDError):
            assert (status, out) == (1, "") and err.startswith(str(error) + "\n"), (err, str(error), context)
            tally["same error"] += 1
        else:
            # Where the original crashes (a non-numeric HEAD in a multiword token's word, which it
            # reads with int() only when the sentence ends), depeval refuses the input with a message.
            assert isinstance(error, ValueError) and status == 1 and err.startswith("Cannot parse HEAD"), (error, err, context)
            tally["original crashed"] += 1


def test_random_cases_match_the_original(tmp_path, original):
    rng = random.Random(2018)
    tally = {"scored": 0, "same error": 0, "original crashed": 0}
    gold_path, system_path = tmp_path / "gold.conllu", tmp_path / "system.conllu"
    cases = 1500
    for case in range(cases):
        sentences = [random_sentence(rng) for _ in range(rng.randint(1, 5))]
        gold = write_file(rng, sentences)
        system = write_file(rng, perturb(rng, sentences, rate=rng.choice([0.0, 0.1, 0.3, 0.6])))
        if case % 10 == 0:
            gold = break_text(rng, gold)
        elif case % 10 == 5:
            system = break_text(rng, system)
        gold_path.write_text(gold, encoding="utf-8", newline="")
        system_path.write_text(system, encoding="utf-8", newline="")
        compare(original, gold_path, system_path, tally)
    print(f"\ndepeval vs original: {cases} random cases x {len(MODES)} modes: {tally}")
    assert tally["scored"] > cases and tally["same error"] > cases // 10


def test_whole_programs_match(tmp_path):
    """Exit status, stdout bytes and the message, running both as programs."""
    rng = random.Random(7)
    port = [sys.executable, "-c", "import sys; from depeval.cli import main; sys.exit(main())"]
    compared = 0
    for case in range(12):
        sentences = [random_sentence(rng) for _ in range(3)]
        gold = write_file(rng, sentences)
        system = write_file(rng, perturb(rng, sentences, rate=0.3))
        if case % 3 == 2:
            system = break_text(rng, system)
        (tmp_path / "g").write_text(gold, encoding="utf-8", newline="")
        (tmp_path / "s").write_text(system, encoding="utf-8", newline="")
        for mode in MODES:
            args = mode + ["g", "s"]
            ref = subprocess.run([sys.executable, REFERENCE] + args, cwd=tmp_path, capture_output=True)
            ours = subprocess.run(port + args, cwd=tmp_path, capture_output=True)
            assert (ours.returncode, ours.stdout) == (ref.returncode, ref.stdout), (args, gold, system)
            if ref.returncode:
                marker = b"UDError: "
                assert marker in ref.stderr and b"Traceback" not in ours.stderr
                message = ref.stderr[ref.stderr.rindex(marker) + len(marker):]
                assert ours.stderr.startswith(message), (ours.stderr, message)
            compared += 1
    print(f"\nwhole programs compared on {compared} runs")


def _real_files(treebanks: Path) -> list[Path]:
    """The dev files of ud/ and ud-legacy/; every CoNLL-U file there with DEPEVAL_REFERENCE_FILES=all."""
    pattern = "*/*.conllu" if os.environ.get("DEPEVAL_REFERENCE_FILES") == "all" else "*/*-dev.conllu"
    return sorted(p for folder in ("ud", "ud-legacy") for p in (treebanks / folder).glob(pattern))


@pytest.mark.treebanks
@pytest.mark.slow
def test_real_treebanks_match_the_original(tmp_path, original, treebanks):
    files = _real_files(treebanks)
    if not files:
        pytest.skip("no CoNLL-U dev files under ud/ and ud-legacy/")
    rng = random.Random(12)
    tally = {"scored": 0, "same error": 0, "original crashed": 0}
    for path in files:
        perturbed = tmp_path / f"{path.stem}.system.conllu"
        sentences = read_sentences(path.read_text(encoding="utf-8"))
        perturbed.write_text(write_file(rng, perturb(rng, sentences, rate=0.05)), encoding="utf-8")
        for system in (path, perturbed):
            expected, error = run_original(original, ["-v", str(path), str(system)])
            status, out, err = run_port(["-v", str(path), str(system)])
            assert error is None and status == 0, (path, system, error, err)
            assert out == expected, (path, system)
            tally["scored"] += 1
    print(f"\nreal treebanks: {len(files)} files, {tally['scored']} pairs scored identically")
