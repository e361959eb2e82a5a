"""evalb.lines.split_lines (the fgets-style split every reader uses) and the row <-> result round trip."""

from __future__ import annotations

from evalb.lines import split_lines
from evalb.results import SentenceResult


def test_final_newline_ends_the_last_line() -> None:
    assert split_lines(b"a\nb\n") == ([b"a", b"b"], True)
    assert split_lines(b"a\nb") == ([b"a", b"b"], False)


def test_blank_lines_and_carriage_returns_are_kept() -> None:
    assert split_lines(b"a\r\n\n\nb\r\n") == ([b"a\r", b"", b"", b"b\r"], True)


def test_empty_input_has_no_lines() -> None:
    assert split_lines(b"") == ([], True)
    assert split_lines(b"\n") == ([b""], True)


def test_sentence_result_row_round_trip() -> None:
    row = (3, 12, 0, 7, 9, 8, 1, 11, 10)
    result = SentenceResult.from_row(row)
    assert (result.line, result.matched, result.correct_tags) == (3, 7, 10)
    assert result.to_row() == row
