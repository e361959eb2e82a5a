"""Parameter files: keywords, skipped lines, warnings, the shipped .prm files."""

from __future__ import annotations

import pytest

from evalb import EvalbParams, builtin_param_path, load_params, read_param_file
from evalb.params import ParamFileError, c_atoi


def write(tmp_path, text: str):
    path = tmp_path / "p.prm"
    path.write_bytes(text.encode())
    return path


def test_every_keyword(tmp_path):
    params, warnings = read_param_file(
        write(
            tmp_path,
            "DEBUG 2\nMAX_ERROR 7\nCUTOFF_LEN 12\nLABELED 0\nDELETE_LABEL TOP\nDELETE_LABEL_FOR_LENGTH -NONE-\n"
            "QUOTE_LABEL POS\nEQ_LABEL ADVP PRT\nEQ_WORD This this\n",
        )
    )
    assert warnings == []
    assert (params.debug, params.max_error, params.cutoff_len, params.labeled) == (2, 7, 12, 0)
    assert params.delete_labels == [b"TOP"]
    assert params.delete_labels_for_length == [b"-NONE-"]
    assert params.quote_labels == [b"POS"]
    assert params.eq_labels == [(b"ADVP", b"PRT")]
    assert params.eq_words == [(b"This", b"this")]


def test_comments_short_lines_and_trailing_space(tmp_path):
    params, warnings = read_param_file(write(tmp_path, "# DELETE_LABEL X\nab\n\nDELETE_LABEL S1  \t\nDELETE_LABEL A B\n"))
    assert warnings == []
    # trailing whitespace is trimmed; the rest of the line (spaces included) is the value
    assert params.delete_labels == [b"S1", b"A B"]


def test_warnings(tmp_path):
    _, warnings = read_param_file(write(tmp_path, "FOO 1\nEQ_LABEL A\nEQ_WORD a b c\nDEBUG\n"))
    assert warnings == [
        "Unknown keyword (FOO 1) in parameter file\n",
        "EQ_LABEL requires two values\n",
        "EQ_WORD requires two values\n",
        "Empty value in parameter file (4)\n",
    ]


def test_keyword_needs_a_boundary(tmp_path):
    params, warnings = read_param_file(write(tmp_path, "DEBUGX 1\nDELETE_LABEL_FOR_LENGTH Z\n"))
    assert params.debug == 0 and params.delete_labels == [] and params.delete_labels_for_length == [b"Z"]
    assert warnings == ["Unknown keyword (DEBUGX 1) in parameter file\n"]


def test_file_applies_on_top_of_given_params(tmp_path):
    base = EvalbParams(cutoff_len=3, delete_labels=[b"X"])
    params, _ = read_param_file(write(tmp_path, "DELETE_LABEL Y\n"), base)
    assert params.cutoff_len == 3 and params.delete_labels == [b"X", b"Y"]


def test_missing_file(tmp_path):
    with pytest.raises(ParamFileError, match="Can't open parameter file"):
        read_param_file(tmp_path / "nope.prm")


@pytest.mark.parametrize("text,value", [(b"40", 40), (b"  -3x", -3), (b"abc", 0), (b"", 0), (b"+7", 7)])
def test_c_atoi(text, value):
    assert c_atoi(text) == value


def test_shipped_parameter_files():
    collins = load_params("COLLINS")
    assert (collins.max_error, collins.cutoff_len, collins.labeled) == (10, 40, 1)
    assert collins.delete_labels == [b"TOP", b"-NONE-", b",", b":", b"``", b"''", b"."]
    assert collins.delete_labels_for_length == [b"-NONE-"]
    assert collins.eq_labels == [(b"ADVP", b"PRT")] and collins.quote_labels == []

    nk = load_params("nk")
    assert nk.max_error == 10000 and nk.cutoff_len == 40
    assert set(nk.delete_labels) == set(collins.delete_labels) | {b"S1", b"?", b"!"}
    assert nk.quote_labels == [b"``", b"''", b"POS", b"NN", b"CD", b"VBZ", b":"]
    assert nk.eq_labels == collins.eq_labels

    spmrl = load_params("spmrl")
    assert (spmrl.max_error, spmrl.cutoff_len) == (10000, 70)
    assert spmrl.delete_labels == [b"TOP", b"ROOT", b"S1", b"-NONE-", b"VROOT"]
    assert spmrl.quote_labels == [] and spmrl.eq_labels == []

    hebrew = load_params("spmrl_hebrew")
    assert hebrew.cutoff_len == 40
    syn = [d for d in hebrew.delete_labels if d.startswith(b"SYN_")]
    assert len(syn) == 26 and hebrew.delete_labels[:5] == spmrl.delete_labels


def test_builtin_names():
    assert builtin_param_path("nk.prm").name == "nk.prm"
    with pytest.raises(ValueError, match="shipped"):
        builtin_param_path("new")
