"""CoNLL-U validation: trees pass through byte for byte, broken sentences are reported by line."""

import conllu
import pytest

from mlparse.data.prepare import prepare_family
from mlparse.data.ud import check_sentence, iter_blocks

GOOD = """# sent_id = 1
# text = I can't go.
1	I	I	PRON	PRP	_	4	nsubj	_	_
2-3	can't	_	_	_	_	_	_	_	_
2	ca	can	AUX	MD	_	4	aux	_	_
3	n't	not	PART	RB	_	4	advmod	_	_
4	go	go	VERB	VB	_	0	root	_	SpaceAfter=No
4.1	went	go	VERB	VBD	_	_	_	4:conj	_
5	.	.	PUNCT	.	_	4	punct	_	_
"""


def sentence(rows):
    lines = [f"{i}\tw{i}\tw\tX\tX\t_\t{head}\tdep\t_\t_" for i, head in rows]
    return "\n".join(lines) + "\n"


def parsed(text):
    return conllu.parse(text + "\n")[0]


def test_a_good_sentence_with_ranges_and_empty_nodes_is_a_tree():
    assert check_sentence(parsed(GOOD)) is None


@pytest.mark.parametrize(
    "rows, message",
    [
        ([(1, 0), (2, 0)], "2 words have HEAD 0"),
        ([(1, 2), (2, 1)], "0 words have HEAD 0"),
        ([(1, 0), (2, 3), (3, 2)], "cycle"),
        ([(1, 0), (2, 7)], "outside 0..2"),
        ([(1, 0), (3, 1)], "not 1..2"),
    ],
)
def test_broken_sentences_are_refused_with_a_reason(rows, message):
    assert message in check_sentence(parsed(sentence(rows)))


def test_blocks_carry_their_first_line():
    assert [line for line, _ in iter_blocks("\n# a\n1\tx\n\n\n# b\n1\ty\n")] == [2, 6]


def test_prepare_ud_copies_valid_sentences_and_reports_bad_ones(tmp_path, monkeypatch):
    folder = tmp_path / "UD_Test-X"
    folder.mkdir()
    bad = sentence([(1, 0), (2, 0)])
    (folder / "xx_x-ud-train.conllu").write_text(GOOD + "\n" + bad + "\n" + GOOD + "\n", encoding="utf-8")
    (folder / "xx_x-ud-dev.conllu").write_text(GOOD + "\n", encoding="utf-8")
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    (catalog / "ud.yaml").write_text(
        "family: ud\nsource: {search_shared: true}\n"
        "defaults:\n  reader: {format: conllu}\n  output: conllu\n"
        "  split: {scheme: files, train: '*-ud-train.conllu', dev: '*-ud-dev.conllu', test: '*-ud-test.conllu'}\n"
        "languages:\n  UD_Test-X: {folder: UD_Test-X}\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("MLPARSE_CATALOG", str(catalog))
    report = prepare_family("ud", source=tmp_path, out=tmp_path / "out")
    (result,) = report.results
    train = (result.out_dir / "train.conllu").read_text(encoding="utf-8")
    assert train == GOOD + "\n" + GOOD + "\n"  # copied unchanged, ranges and empty nodes kept
    assert (result.out_dir / "dev.conllu").read_text(encoding="utf-8") == GOOD + "\n"
    manifest = result.manifest
    assert manifest.missing_splits == ["test"]
    bad_line = GOOD.count("\n") + 2  # after GOOD's lines and the blank line
    assert [(e.file, e.line) for e in manifest.exclusions] == [("xx_x-ud-train.conllu", bad_line)]
    assert "2 words have HEAD 0" in manifest.exclusions[0].reason
    assert manifest.splits["train"].sentences == 2 and manifest.splits["train"].tokens == 10
    assert manifest.splits["train"].labels["root"] == 2
