"""The ``evalb`` command: argv handling, exit statuses, stderr, --strict, the abort."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from evalb.cli import main, main_spmrl

COLLINS = str(Path(__file__).resolve().parents[1] / "evalb" / "params" / "COLLINS.prm")


def run(capsysbinary, *args, spmrl=False):
    code = (main_spmrl if spmrl else main)(list(args))
    cap = capsysbinary.readouterr()
    return code, cap.out.decode(), cap.err.decode()


@pytest.fixture
def pair(tmp_path):
    """Line 2 has a punctuation tag error, line 3 an empty test tree."""
    g, t = tmp_path / "gold.txt", tmp_path / "test.txt"
    g.write_text("(S (NP (NN a)) (VP (VB b)) (. .))\n(S (NP (NN c)) (VP (VB d)) (. .))\n(S (NP (NN e)) (VP (VB f)))\n")
    t.write_text("(S (NP (NN a)) (VP (VB b)) (. .))\n(S (NP (NN c)) (VP (VB d)) (NN .))\n\n")
    return str(g), str(t)


def test_default_run_matches_the_original_silence(capsysbinary, pair):
    code, out, err = run(capsysbinary, "-p", COLLINS, *pair)
    assert code == 0
    assert err == "2 : Length unmatch (2|3)\n"
    assert "Bracketing FMeasure       = 100.00" in out
    assert "Number of Error sentence  =      1" in out and "Number of Skip  sentence  =      1" in out


def test_strict_fails_after_printing_the_report(capsysbinary, pair):
    code, out, err = run(capsysbinary, "--strict", "-p", COLLINS, *pair)
    assert code == 2
    assert out.rstrip().endswith("Tagging accuracy          = 100.00")  # the full report came first
    assert err.startswith("2 : Length unmatch (2|3)\nevalb --strict: 2 problem(s): 1 error sentence(s), 1 skipped sentence(s)")
    assert "line 2: Length unmatch (2|3)\n    gold (2 words): c d\n    test (3 words): c d .\n" in err
    assert "line 3: empty test tree" in err and "gold (2 words): e f" in err


def test_strict_passes_on_clean_input(capsysbinary, tmp_path):
    g = tmp_path / "g"
    g.write_text("(S (NN a))\n")
    code, _, err = run(capsysbinary, "--strict", str(g), str(g))
    assert code == 0 and err == ""


def test_strict_accepts_a_punctuation_only_sentence_against_itself(capsysbinary, tmp_path):
    """Issue 14: ``evalb --strict dev.trees dev.trees`` on IcePaHC failed on ``(TOP (. .))``."""
    g = tmp_path / "gold.trees"
    g.write_text("(TOP (S (NP (NN a)) (VP (VB b)) (. .)))\n(TOP (. .))\n(TOP (S (NN c) (VP (VB d))))\n")
    code, plain, plain_err = run(capsysbinary, "-p", COLLINS, str(g), str(g))
    assert (code, plain_err) == (0, "")
    assert "   2    1    2    0.00   0.00     0      0    0      0      0     0     0.00\n" in plain
    assert "Number of Skip  sentence  =      1" in plain and "Bracketing FMeasure       = 100.00" in plain
    code, out, err = run(capsysbinary, "--strict", "-p", COLLINS, str(g), str(g))
    assert code == 0 and out == plain  # the same report, the sentence counted as the original counts it
    assert err == ("evalb --strict: 1 sentence(s) with no word left after DELETE_LABEL in either tree (line 2): "
                   "skipped, as the original program does; not an error\n")
    t = tmp_path / "test.trees"
    t.write_text("(TOP (S (NP (NN a)) (VP (VB b)) (. .)))\n(TOP (. .))\n(TOP (S (NN c) (VP (VB e))))\n")
    code, out, err = run(capsysbinary, "--strict", "-p", COLLINS, str(g), str(t))
    assert code == 2
    assert "1 problem(s): 1 error sentence(s), 0 skipped sentence(s)" in err and "line 3: Words unmatch (d|e)" in err


def test_strict_on_the_spmrl_command(capsysbinary, pair, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsysbinary, "--strict", *pair, spmrl=True)
    assert code == 2 and "evalb_spmrl --strict" in err and "line 3: empty test tree" in err


def test_max_error_abort_prints_no_summary(capsysbinary, tmp_path):
    g, t = tmp_path / "g", tmp_path / "t"
    g.write_text("(S (NN a) (. .))\n" * 4)
    t.write_text("(S (NN a) (NN .))\n" * 4)
    code, out, err = run(capsysbinary, "-e", "1", str(g), str(t))
    assert code == 0  # no deletions without a parameter file: no error at all
    code, out, err = run(capsysbinary, "-p", COLLINS, "-e", "1", str(g), str(t))
    assert code == 1
    assert err == "".join(f"{i} : Length unmatch (1|2)\n" for i in (1, 2, 3))
    assert "Summary" not in out and out.count("\n") == 3 + 2  # header + the two rows before the abort
    code, out, err = run(capsysbinary, "--strict", "-p", COLLINS, "-e", "1", str(g), str(t))
    assert code == 1 and "the run stopped early" in err


def test_missing_files_and_help(capsysbinary, tmp_path):
    code, out, err = run(capsysbinary, str(tmp_path / "nope"), str(tmp_path / "nope2"))
    assert (code, out) == (1, "") and err == f"Can't open gold file ({tmp_path / 'nope'})\n"
    code, out, err = run(capsysbinary)
    assert code == 1 and err == "Can't open gold file ((null))\n"
    code, out, err = run(capsysbinary, "-p", str(tmp_path / "x.prm"), "a", "b")
    assert code == 1 and err == f"Can't open parameter file ({tmp_path / 'x.prm'})\n"
    code, out, err = run(capsysbinary, "-h")
    assert code == 1 and "usage: evalb" in err and out == ""
    code, out, err = run(capsysbinary, "-z")  # unknown option: usage, status 0
    assert code == 0 and "usage: evalb" in err
    code, out, err = run(capsysbinary, "-K", "3", spmrl=False)
    assert code == 0 and "usage: evalb" in err  # -K only exists in evalb_spmrl


def test_param_warnings_on_stderr(capsysbinary, tmp_path):
    prm, g = tmp_path / "p.prm", tmp_path / "g"
    prm.write_text("FOO 1\nEQ_LABEL A\n")
    g.write_text("(S (NN a))\n")
    code, _, err = run(capsysbinary, "-p", str(prm), str(g), str(g))
    assert code == 0 and err == "Unknown keyword (FOO 1) in parameter file\nEQ_LABEL requires two values\n"


def test_debug_output(capsysbinary, tmp_path):
    g, t = tmp_path / "g", tmp_path / "t"
    g.write_text("(S (NP (DT a) (NN b)) (VP (VB c)))\n")
    t.write_text("(S (NP (DT a) (NN b)) (VP (VBZ c)))\n")
    code, out, _ = run(capsysbinary, "-d", str(g), str(t))
    lines = out.splitlines()
    assert lines[4] == "-<1>---(wn1=  3, bn1=  3)-           -<2>---(wn2=  3, bn2=  3)-"
    assert lines[5] == "  0 : 1 : DT      a                       0 : 1 : DT      a               "
    assert lines[7] == "  2 : 0 : VB      c                       2 : 0 : VBZ     c               "
    # "%3d : %d : %3d  %3d  %-6s" then 6 spaces, for gold then test
    assert lines[9] == "  0 : 1 :   0    3  S     " + " " * 6 + "  0 : 1 :   0    3  S     "
    code, out, _ = run(capsysbinary, "-D", str(g), str(t))
    assert "label=DT, word=a, wid=0" in out and "1.res=0, 2.res=0, 1.start=0, 2.start=0, 1.end=3, 2.end=3" in out


def test_console_script_subprocess(pair):
    script = Path(sys.executable).parent / "evalb"
    cmd = [str(script)] if script.is_file() else [sys.executable, "-m", "evalb.cli"]
    proc = subprocess.run(cmd + ["--strict", "-p", COLLINS, *pair], capture_output=True)
    assert proc.returncode == 2
    assert b"Bracketing FMeasure       = 100.00" in proc.stdout
    assert b"Traceback" not in proc.stderr


def test_import_is_light():
    """evalb imports nothing from mlparse and nothing heavy."""
    code = "import sys, evalb, evalb.cli; print(sorted({m.split('.')[0] for m in sys.modules} & {'mlparse', 'numpy', 'torch'}))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]"
