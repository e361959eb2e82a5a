"""`mlparse prepare ud`: trees pass through byte for byte, the other sentences are excluded with file, line, reason."""

import codecs

import pytest

from mlparse.data.prepare import prepare_family

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


def sentence(rows, deprel="dep"):
    return "".join(f"{i}\tw{i}\tw\tX\tX\t_\t{head}\t{'root' if head == 0 else deprel}\t_\t_\n" for i, head in rows)


def prepare(tmp_path, monkeypatch, files):
    folder = tmp_path / "UD_Test-X"
    folder.mkdir(parents=True)
    for name, data in files.items():
        (folder / name).write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
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
    (result,) = prepare_family("ud", source=tmp_path, out=tmp_path / "out").results
    return result


BAD = [
    (sentence([(1, 0), (2, 0)]), "not a usable dependency tree: 2 words have HEAD 0 (words 1, 2): a tree has exactly one root"),
    (sentence([(1, 0), (2, 3), (3, 2)]), "not a usable dependency tree: the heads form a cycle: 2 -> 3 -> 2"),
    (sentence([(1, 0), (2, 5)]), "not a usable dependency tree: word 2 has HEAD 5, outside 0..2"),
    (sentence([(1, 0), (2, 1)], deprel="_"), "not a usable dependency tree: word 2 has no DEPREL (_)"),
    ("# sent_id = empty\n1-2\tdu\t_\t_\t_\t_\t_\t_\t_\t_\n", "not a usable dependency tree: no syntactic words (an empty sentence)"),
]


def test_prepare_ud_copies_trees_and_excludes_the_rest_with_file_line_and_reason(tmp_path, monkeypatch):
    train = [GOOD]
    for text, _ in BAD:
        train += [text, GOOD]
    malformed = "# sent_id = m\n" + sentence([(1, 0)]) + "2\tw2\tw\tX\tX\t_\t1\tdep\t_\n"
    result = prepare(tmp_path, monkeypatch, {
        "xx_x-ud-train.conllu": "\n".join(train) + "\n" + malformed + "\n",
        "xx_x-ud-dev.conllu": GOOD + "\n",
    })
    written = (result.out_dir / "train.conllu").read_text(encoding="utf-8")
    assert written == (GOOD + "\n") * (len(BAD) + 1)  # copied unchanged, ranges and empty nodes kept
    assert (result.out_dir / "dev.conllu").read_text(encoding="utf-8") == GOOD + "\n"
    manifest = result.manifest
    assert manifest.missing_splits == ["test"]
    starts, line = [], 1
    for text in train:
        starts.append(line)
        line += text.count("\n") + 1
    expected = [("xx_x-ud-train.conllu", starts[2 * k + 1], reason) for k, (_, reason) in enumerate(BAD)]
    expected.append(("xx_x-ud-train.conllu", line + 2,
                     "a word line has 9 tab-separated columns, "
                     "CoNLL-U has 10 (ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC)"))
    assert [(e.file, e.line, e.reason) for e in manifest.exclusions] == expected
    stats = manifest.splits["train"]
    assert (stats.sentences, stats.tokens, stats.max_length) == (len(BAD) + 1, 5 * (len(BAD) + 1), 5)
    assert stats.labels["root"] == len(BAD) + 1 and stats.pos["AUX"] == len(BAD) + 1


def test_a_byte_order_mark_and_crlf_line_endings_are_read_as_such(tmp_path, monkeypatch):
    crlf = (GOOD + "\n" + GOOD).replace("\n", "\r\n")
    result = prepare(tmp_path, monkeypatch, {"xx_x-ud-train.conllu": codecs.BOM_UTF8 + crlf.encode("utf-8"),
                                             "xx_x-ud-dev.conllu": GOOD})  # a dev split: train is not carved
    assert result.manifest.exclusions == []
    assert (result.out_dir / "train.conllu").read_bytes() == ((GOOD + "\n") * 2).encode("utf-8")
    bare = sentence([(1, 0), (2, 1)])
    result = prepare(tmp_path / "again", monkeypatch, {"xx_x-ud-train.conllu": codecs.BOM_UTF8 + bare.encode("utf-8")})
    assert (result.out_dir / "train.conllu").read_text(encoding="utf-8") == bare + "\n"  # no BOM before word 1
    assert result.manifest.splits["train"].tokens == 2


def test_a_file_that_is_not_utf8_stops_prepare_with_its_position(tmp_path, monkeypatch):
    from mlparse.data.issues import PrepareError

    data = GOOD.encode("utf-8") + b"\n" + sentence([(1, 0)]).replace("w1", "\xe9").encode("latin-1")
    with pytest.raises(PrepareError, match=r"xx_x-ud-train\.conllu:11:3: byte 0xe9 is not valid utf-8"):
        prepare(tmp_path, monkeypatch, {"xx_x-ud-train.conllu": data})


TOKENS = """# sent_id = t
# text = I don't go home.
1	I	I	PRON	PRP	_	3	nsubj	_	_
2-3	don't	_	_	_	_	_	_	_	_
2	do	do	AUX	VBP	_	4	aux	_	_
3	n't	not	PART	RB	_	4	advmod	_	_
4	go	go	VERB	VB	_	0	root	_	_
5	home	home	ADV	RB	_	4	advmod	_	SpaceAfter=No
6	.	.	PUNCT	.	_	4	punct	_	_
"""


def ranged(old, new, text=TOKENS):
    assert old in text
    return text.replace(old, new)


#: Impossible multiword tokens: (block, the line of the block blamed, the reason).
BAD_TOKENS = [
    (ranged("2-3\tdon't", "2-5\tdon't"), 4,
     "impossible token layer: multiword token 2-5 (\"don't\") does not fit the sentence's text: the tokens after it "
     "go on with '.', the text (# text) with 'go home.'"),
    (ranged("2-3\tdon't", "2-99\tdon't"), 4,
     "impossible token layer: multiword token 2-99 (\"don't\") covers words 2 to 99, but the sentence has 6 words"),
    (ranged("2-3\tdon't", "2-2\tdon't"), 4,
     "impossible token layer: multiword token 2-2 (\"don't\") covers one word: a multiword token covers two words "
     "or more"),
    (ranged("2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n2\tdo\tdo\tAUX\tVBP\t_\t4\taux\t_\t_\n",
            "2\tdo\tdo\tAUX\tVBP\t_\t4\taux\t_\t_\n2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n"), 5,
     "impossible token layer: multiword token 2-3 (\"don't\") comes before word 3: a multiword token comes right "
     "before its first word, 2"),
    (ranged("3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t_\t_\n",
            "3-4\tn'tgo\t_\t_\t_\t_\t_\t_\t_\t_\n3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t_\t_\n"), 6,
     "impossible token layer: multiword token 3-4 (\"n'tgo\") overlaps the multiword token before it, which covers "
     "words up to 3"),
    (ranged("6\t.\t.\tPUNCT\t.\t_\t4\tpunct\t_\t_\n",
            "6\t.\t.\tPUNCT\t.\t_\t4\tpunct\t_\t_\n5-6\thome.\t_\t_\t_\t_\t_\t_\t_\t_\n"), 10,
     "impossible token layer: multiword token 5-6 ('home.') comes after the last word: a multiword token comes right "
     "before its first word, 5"),
    (ranged("5\thome", "5\thouse"), 8,
     "impossible token layer: the tokens do not spell the sentence's text: they go on with 'house .', the text "
     "(# text) with 'home.'"),
]


def test_impossible_multiword_tokens_are_left_out_with_file_line_and_reason(tmp_path, monkeypatch):
    """A range must cover existing, consecutive words that follow it, and the tokens must spell the text (issue
    34: ``19-25`` and ``19-99`` over ``19-20 don't`` were written as they were)."""
    train = [TOKENS]
    for text, _, _ in BAD_TOKENS:
        train += [text, TOKENS]
    untexted = "\n".join(line for line in BAD_TOKENS[0][0].splitlines() if not line.startswith("# text")) + "\n"
    train.append(untexted)  # without # text, a range over existing words cannot be told wrong: kept
    result = prepare(tmp_path, monkeypatch, {"xx_x-ud-train.conllu": "\n".join(train) + "\n",
                                             "xx_x-ud-dev.conllu": TOKENS + "\n"})
    written = (result.out_dir / "train.conllu").read_text(encoding="utf-8")
    assert written == (TOKENS + "\n") * (len(BAD_TOKENS) + 1) + untexted + "\n"
    starts, line = [], 1
    for text in train:
        starts.append(line)
        line += text.count("\n") + 1
    expected = [("xx_x-ud-train.conllu", starts[2 * k + 1] + offset - 1, reason)
                for k, (_, offset, reason) in enumerate(BAD_TOKENS)]
    assert [(e.file, e.line, e.reason) for e in result.manifest.exclusions] == expected


def test_the_issue_sentence_of_english_ewt_with_its_range_stretched(treebanks, tmp_path, monkeypatch):
    """The 35-word sentence of English-EWT whose ``19-20 don't`` became ``19-25`` or ``19-99``."""
    source = treebanks / "ud" / "UD_English-EWT" / "en_ewt-ud-train.conllu"
    text = source.read_text(encoding="utf-8")
    start = text.index("# sent_id = weblog-juancole.com_juancole_20051126063000_ENG_20051126_063000-0009\n")
    block = text[start:text.index("\n\n", start) + 1]
    assert "\n19-20\tdon't\t" in block and "\n35\t.\t" in block
    files = {"en_x-ud-dev.conllu": block + "\n",
             "en_x-ud-train.conllu": "\n".join([block, block.replace("\n19-20\t", "\n19-25\t"),
                                               block.replace("\n19-20\t", "\n19-99\t")]) + "\n"}
    result = prepare(tmp_path, monkeypatch, files)
    assert (result.out_dir / "train.conllu").read_text(encoding="utf-8") == block + "\n"
    range_line = block[:block.index("\n19-20\t")].count("\n") + 2
    exclusions = [(e.line, e.reason) for e in result.manifest.exclusions]
    length = block.count("\n") + 1
    assert [line for line, _ in exclusions] == [length + range_line, 2 * length + range_line]
    assert "multiword token 19-25 (\"don't\") does not fit the sentence's text" in exclusions[0][1]
    assert "find the news" in exclusions[0][1]
    assert exclusions[1][1].endswith("multiword token 19-99 (\"don't\") covers words 19 to 99, but the sentence has "
                                     "35 words")
