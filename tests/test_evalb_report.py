"""The exact report text of a small hand-made file pair (evalb, COLLINS.prm).

tests/evalb_fixtures/small.{gld,tst} hold six sentences written for this test.
Expected rows, derived by hand (punctuation is deleted with its word before
spans are numbered, Len. counts gold words with punctuation):

1. identical: S[0,3] NP[0,2] VP[2,3] -> 3/3 matched, 3 words, Len 4.
2. the test drops NP over "dogs": gold 4 brackets, test 3, all 3 match -> R 75, P 100.
3. the final "." is tagged NN in the test, so it is not deleted: 2 vs 3 words ->
   "Length unmatch (2|3)", status 1, zeros.
4. empty test line -> status 2 (skip), zeros; Len 3.
5. test NP[1,4] crosses gold NP[0,3]; only S matches: R 1/3, P 1/2, 1 crossing.
6. NP-SBJ is cut to NP, ADVP = PRT by EQ_LABEL: 4/4; RB vs RP: 2 of 3 tags.

Totals over sentences 1, 2, 5, 6: matched 11, gold 14, test 12 -> R 78.57,
P 91.67, F = 2*11/26 = 84.62; words 13, correct tags 12 -> 92.31; complete
match 2 of 4; crossing 1 -> average 0.25, no crossing 75%.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evalb.cli import main

FIXTURES = Path(__file__).parent / "evalb_fixtures"
COLLINS = str(Path(__file__).resolve().parents[1] / "evalb" / "params" / "COLLINS.prm")

HEADER = (
    "  Sent.                        Matched  Bracket   Cross        Correct Tag\n"
    " ID  Len.  Stat. Recal  Prec.  Bracket gold test Bracket Words  Tags Accracy\n"
    "============================================================================\n"
)
ROWS = (
    "   1    4    0  100.00 100.00     3      3    3      0      3     3   100.00\n"
    "   2    4    0   75.00 100.00     3      4    3      0      3     3   100.00\n"
    "   3    3    1    0.00   0.00     0      0    0      0      0     0     0.00\n"
    "   4    3    2    0.00   0.00     0      0    0      0      0     0     0.00\n"
    "   5    4    0   33.33  50.00     1      3    2      1      4     4   100.00\n"
    "   6    3    0  100.00 100.00     4      4    4      0      3     2    66.67\n"
)
TOTALS = (
    "============================================================================\n"
    "                 78.57  91.67     11    14    12      1     13    12    92.31\n"
    "=== Summary ===\n"
)
ALL_BLOCK = (
    "Number of sentence        =      6\n"
    "Number of Error sentence  =      1\n"
    "Number of Skip  sentence  =      1\n"
    "Number of Valid sentence  =      4\n"
    "Bracketing Recall         =  78.57\n"
    "Bracketing Precision      =  91.67\n"
    "Bracketing FMeasure       =  84.62\n"
    "Complete match            =  50.00\n"
    "Average crossing          =   0.25\n"
    "No crossing               =  75.00\n"
    "2 or less crossing        = 100.00\n"
    "Tagging accuracy          =  92.31\n"
)
# With a cut-off of 3, sentences 3, 4 and 6 (gold Len 3) enter the second block:
# one error, one skip, and sentence 6 alone for the scores.
LEN3_BLOCK = (
    "Number of sentence        =      3\n"
    "Number of Error sentence  =      1\n"
    "Number of Skip  sentence  =      1\n"
    "Number of Valid sentence  =      1\n"
    "Bracketing Recall         = 100.00\n"
    "Bracketing Precision      = 100.00\n"
    "Bracketing FMeasure       = 100.00\n"
    "Complete match            = 100.00\n"
    "Average crossing          =   0.00\n"
    "No crossing               = 100.00\n"
    "2 or less crossing        = 100.00\n"
    "Tagging accuracy          =  66.67\n"
)


def run_cli(capsysbinary, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsysbinary.readouterr()
    return code, captured.out.decode(), captured.err.decode()


@pytest.fixture(params=["fast", "pure"])
def engine_mode(request, monkeypatch):
    """Run every report test with the compiled fast path and with the pure-Python fallback."""
    if request.param == "pure":
        monkeypatch.setenv("EVALB_PURE_PYTHON", "1")
    return request.param


def test_full_report_is_exact(capsysbinary, engine_mode):
    code, out, err = run_cli(capsysbinary, "-p", COLLINS, str(FIXTURES / "small.gld"), str(FIXTURES / "small.tst"))
    assert code == 0
    assert out == HEADER + ROWS + TOTALS + "\n-- All --\n" + ALL_BLOCK + "\n-- len<=40 --\n" + ALL_BLOCK
    assert err == "3 : Length unmatch (2|3)\n"


def test_options_apply_in_order(capsysbinary, engine_mode):
    gold, test = str(FIXTURES / "small.gld"), str(FIXTURES / "small.tst")
    # -c after -p wins ...
    _, out, _ = run_cli(capsysbinary, "-p", COLLINS, "-c", "3", gold, test)
    assert out.endswith("\n-- len<=3 --\n" + LEN3_BLOCK)
    # ... and -p after -c resets CUTOFF_LEN to the file's 40.
    _, out, _ = run_cli(capsysbinary, "-c", "3", "-p", COLLINS, gold, test)
    assert out.endswith("\n-- len<=40 --\n" + ALL_BLOCK)
    # the value may also be glued to the option letter
    _, out, _ = run_cli(capsysbinary, "-p", COLLINS, "-c3", gold, test)
    assert out.endswith("\n-- len<=3 --\n" + LEN3_BLOCK)


def test_no_bracket_totals_and_nan_fmeasure(tmp_path, capsysbinary, engine_mode):
    """Every test line empty: the totals line has no bracket part and F is 0/0, printed -nan."""
    gold, test = tmp_path / "g", tmp_path / "t"
    gold.write_text("(S (NN a))\n(S (NN b))\n")
    test.write_text("\n()\n")
    code, out, err = run_cli(capsysbinary, str(gold), str(test))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[3] == "   1    1    2    0.00   0.00     0      0    0      0      0     0     0.00"
    assert lines[6] == "      0     0     0.00"
    assert "Bracketing FMeasure       =   -nan" in lines
    assert "Number of Skip  sentence  =      2" in lines


def test_format_report_from_the_api_equals_the_command(engine_mode):
    from evalb import format_report, score_files

    result = score_files(FIXTURES / "small.gld", FIXTURES / "small.tst", "COLLINS")
    expected = HEADER + ROWS + TOTALS + "\n-- All --\n" + ALL_BLOCK + "\n-- len<=40 --\n" + ALL_BLOCK
    assert format_report(result).decode() == expected
