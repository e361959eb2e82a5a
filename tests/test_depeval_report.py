"""The text depeval prints: the CoNLL 2018 script's three lines, its -v table and its -c counts, to the byte."""

from __future__ import annotations

from depeval import evaluate_text, format_report
from helpers.depeval_fixtures import GOLD, SYSTEM, VERBOSE

# Tokens and Sentences print an empty aligned column padded to 10 spaces; Words its correct count.
COUNTS = """\
Metric     | Correct   |      Gold | Predicted | Aligned
-----------+-----------+-----------+-----------+-----------
Tokens     |         4 |         4 |         4 |{blank}
Sentences  |         1 |         1 |         1 |{blank}
Words      |         4 |         4 |         4 |         4
UPOS       |         4 |         4 |         4 |         4
XPOS       |         3 |         4 |         4 |         4
UFeats     |         3 |         4 |         4 |         4
AllTags    |         3 |         4 |         4 |         4
Lemmas     |         3 |         4 |         4 |         4
UAS        |         3 |         4 |         4 |         4
LAS        |         3 |         4 |         4 |         4
CLAS       |         2 |         2 |         2 |         2
MLAS       |         1 |         2 |         2 |         2
BLEX       |         1 |         2 |         2 |         2
""".format(blank=" " * 10)


def test_plain_output_is_las_mlas_blex():
    scores = evaluate_text(GOLD, SYSTEM)
    assert format_report(scores) == "LAS F1 Score: 75.00\nMLAS Score: 50.00\nBLEX Score: 50.00\n"


def test_verbose_table():
    assert format_report(evaluate_text(GOLD, SYSTEM), verbose=True) == VERBOSE


def test_counts_table_wins_over_verbose():
    scores = evaluate_text(GOLD, SYSTEM)
    assert format_report(scores, counts=True) == format_report(scores, verbose=True, counts=True) == COUNTS


def test_no_words_at_all():
    # Aligned accuracy 0 of 0 aligned words prints 0.00; in counts an aligned count of 0 prints blank.
    scores = evaluate_text("", "")
    table = format_report(scores, verbose=True).splitlines()
    assert table[2] == "Tokens     |      0.00 |      0.00 |      0.00 |"
    assert table[11] == "LAS        |      0.00 |      0.00 |      0.00 |      0.00"
    lines = format_report(scores, counts=True).splitlines()
    assert lines[4] == "Words      |         0 |         0 |         0 |         0"
    assert lines[5] == "UPOS       |         0 |         0 |         0 |" + " " * 10


def test_rounding_is_pythons_format():
    # 2 of 3 words: 66.666... prints 66.67; 1 of 3: 33.33.
    from helpers.depeval_fixtures import row

    gold = row(1, "a", 0, "root") + row(2, "b", 1, "dep") + row(3, "c", 1, "dep") + "\n"
    system = row(1, "a", 0, "root") + row(2, "b", 3, "dep") + row(3, "c", 1, "obj") + "\n"
    assert format_report(evaluate_text(gold, system)).splitlines()[0] == "LAS F1 Score: 33.33"
    assert format_report(evaluate_text(gold, system), verbose=True).splitlines()[10] == (
        "UAS        |     66.67 |     66.67 |     66.67 |     66.67")
