"""`mlparse prepare ud` on any UD folder or release: discovery, --language, README metadata, no text, missing splits."""

import json

import pytest
from typer.testing import CliRunner

from mlparse.data.issues import PrepareError
from mlparse.data.prepare import prepare_family
from mlparse.data.ud_dev import RULE, dev_size
from mlparse.data.ud_metadata import parse_metadata

README = """# Summary

A made-up treebank.

# Metadata

=== Machine-readable metadata (DO NOT REMOVE!) ================================
Data available since: UD v2.9
License: CC BY-SA 4.0
Includes text: {text}
Genre: fiction
Lemmas: manual native
UPOS: converted with corrections
XPOS: not available
Features: automatic
Relations: manual native
Contributors: Doe, Jane; Roe, Richard
Contact: jane@example.org
===============================================================================
Not: metadata
"""


def sentence(n, form="w"):
    """A chain of ``n`` words, word 1 the root."""
    rows = [f"{i}\t{form if form == '_' else form + str(i)}\t_\tX\t_\t_\t{i - 1}\t{'root' if i == 1 else 'dep'}\t_\t_\n"
            for i in range(1, n + 1)]
    return "# sent_id = s\n" + "".join(rows) + "\n"


def treebank(parent, name, prefix, counts, readme="yes", form="w"):
    """A UD folder ``parent/name`` with ``counts[split]`` sentences of 3 words per split (splits left out: absent)."""
    folder = parent / name
    folder.mkdir(parents=True)
    for split, count in counts.items():
        (folder / f"{prefix}-ud-{split}.conllu").write_text(sentence(3, form) * count, encoding="utf-8")
    if readme is not None:
        (folder / "README.md").write_text(README.format(text=readme), encoding="utf-8")
    return folder


def release(tmp_path):
    root = tmp_path / "ud-treebanks-v2.99"
    treebank(root, "UD_English-Test", "en_test", {"train": 20, "dev": 4, "test": 5})
    treebank(root, "UD_English-Other", "en_other", {"train": 7, "test": 3})  # no dev: carved
    treebank(root, "UD_Finnish-TDT", "fi_tdt", {"train": 10, "dev": 2, "test": 2})
    treebank(root, "UD_Faroese-Test", "fo_test", {"test": 6})  # test-only
    treebank(root, "UD_Arabic-NYUAD", "ar_nyuad", {"train": 5, "dev": 2, "test": 2}, readme="no", form="_")
    return root


def test_a_release_root_prepares_every_treebank_catalog_entry_or_not(tmp_path):
    report = prepare_family("ud", source=release(tmp_path), out=tmp_path / "out")
    names = [result.language for result in report.results]
    assert names == ["UD_English-Other", "UD_English-Test", "UD_Faroese-Test", "UD_Finnish-TDT"]
    assert report.test_only == ["UD_Faroese-Test"]
    assert list(report.skipped) == ["UD_Arabic-NYUAD"]
    assert "Includes text: no" in report.skipped["UD_Arabic-NYUAD"]
    assert not (tmp_path / "out" / "ud" / "UD_Arabic-NYUAD").exists()
    written = json.loads((tmp_path / "out" / "ud" / "UD_English-Test" / "manifest.json").read_text())
    ud = written["ud"]
    assert (ud["language_code"], ud["file_prefix"], ud["license"], ud["includes_text"]) == ("en", "en_test", "CC BY-SA 4.0", True)
    assert ud["contributors"] == ["Doe, Jane", "Roe, Richard"]
    assert ud["annotation_sources"] == {"Lemmas": "manual native", "UPOS": "converted with corrections",
                                        "XPOS": "not available", "Features": "automatic", "Relations": "manual native"}
    assert "Not" not in ud["metadata"] and ud["metadata"]["Genre"] == "fiction"
    assert (ud["test_only"], ud["dev_carved"]) == (False, None)
    faroese = json.loads((tmp_path / "out" / "ud" / "UD_Faroese-Test" / "manifest.json").read_text())
    assert faroese["ud"]["test_only"] and faroese["missing_splits"] == ["train", "dev"]


def test_a_missing_dev_is_carved_from_the_end_of_train_and_recorded(tmp_path):
    root = tmp_path / "src"
    folder = treebank(root, "UD_English-Other", "en_other", {"test": 3})
    blocks = [sentence(k % 4 + 1).replace("sent_id = s", f"sent_id = t{k}") for k in range(23)]
    (folder / "en_other-ud-train.conllu").write_text("".join(blocks), encoding="utf-8")
    (result,) = prepare_family("ud", source=folder, out=tmp_path / "out").results
    carved = result.manifest.ud.dev_carved
    assert carved == {"rule": RULE, "from": "train", "train_sentences_before": 23, "dev_sentences": 3,
                      "train_sentences": 20, "dev_first_sentence": 21}
    assert (result.out_dir / "train.conllu").read_text() == "".join(blocks[:20])
    assert (result.out_dir / "dev.conllu").read_text() == "".join(blocks[20:])
    assert result.manifest.missing_splits == []
    assert result.manifest.split_definition["dev"]["carved_from"] == "train"
    assert result.manifest.splits["dev"].source_files == ["en_other-ud-train.conllu"]


@pytest.mark.parametrize("train, dev", [(0, 0), (1, 0), (2, 1), (10, 1), (11, 2), (20, 2), (21, 3), (1000, 100)])
def test_the_carved_dev_size_is_a_tenth_rounded_up_leaving_train_something(train, dev):
    assert dev_size(train) == dev


def test_language_takes_names_globs_and_codes_and_names_what_exists_when_nothing_matches(tmp_path):
    source = release(tmp_path)

    def chosen(*values):
        return prepare_family("ud", source=source, languages=list(values), out=tmp_path / "out").found

    assert chosen("ud_finnish-tdt") == ["UD_Finnish-TDT"]
    assert chosen("UD_English-*") == ["UD_English-Other", "UD_English-Test"]
    assert chosen("fi,en") == ["UD_Finnish-TDT", "UD_English-Other", "UD_English-Test"]
    assert chosen("faroese") == ["UD_Faroese-Test"]  # a language name
    with pytest.raises(PrepareError, match=r"no UD treebank matches UD_Klingon-X, xx .*found 5 treebank\(s\): "
                                           r"UD_Arabic-NYUAD, .*codes: ar, en, fi, fo"):
        chosen("UD_Klingon-X", "xx")


def test_one_folder_not_in_the_catalog_is_prepared_as_a_new_user_would_try(tmp_path):
    folder = treebank(tmp_path, "UD_English-Test", "en_test", {"train": 12, "dev": 2, "test": 2}, readme=None)
    (result,) = prepare_family("ud", source=folder, out=tmp_path / "out").results
    assert result.language == "UD_English-Test"
    assert (result.out_dir / "train.conllu").read_text() == sentence(3) * 12
    assert result.manifest.ud.readme is None and result.manifest.ud.license is None
    assert result.manifest.ud.language_code == "en"


def test_underscored_forms_are_skipped_even_when_the_readme_does_not_say(tmp_path):
    folder = treebank(tmp_path, "UD_Japanese-BCCWJ", "ja_bccwj", {"train": 3, "test": 2}, readme=None, form="_")
    report = prepare_family("ud", source=folder, out=tmp_path / "out")
    assert report.results == []
    assert "every word form of its first sentences is '_'" in report.skipped["UD_Japanese-BCCWJ"]


def test_metadata_of_a_v1_readme_without_the_block_takes_the_known_keys_only():
    text = "Intro\n\nNote: not metadata\nLicense: CC BY-NC-SA 3.0\nContributors: A, B; C, D\nLicense: other\n"
    assert parse_metadata(text) == {"License": "CC BY-NC-SA 3.0", "Contributors": "A, B; C, D"}


def test_a_broken_treebank_among_several_is_listed_and_the_others_are_prepared(tmp_path):
    source = release(tmp_path)
    (source / "UD_Finnish-TDT" / "fi_tdt-ud-dev.conllu").write_bytes(b"1\t\xe9\t_\tX\t_\t_\t0\troot\t_\t_\n")
    report = prepare_family("ud", source=source, out=tmp_path / "out", jobs=2)
    assert list(report.failed) == ["UD_Finnish-TDT"]
    assert "fi_tdt-ud-dev.conllu:1:3: byte 0xe9 is not valid utf-8" in report.failed["UD_Finnish-TDT"]
    assert [r.language for r in report.results] == ["UD_English-Other", "UD_English-Test", "UD_Faroese-Test"]


def test_parallel_preparation_writes_the_same_files(tmp_path):
    source = release(tmp_path)
    one = prepare_family("ud", source=source, out=tmp_path / "one", jobs=1)
    two = prepare_family("ud", source=source, out=tmp_path / "two", jobs=3)
    assert [r.language for r in one.results] == [r.language for r in two.results]
    for result in one.results:
        for path in sorted(result.out_dir.iterdir()):
            other = tmp_path / "two" / "ud" / result.language / path.name
            if path.name == "manifest.json":
                a, b = (json.loads(p.read_text()) for p in (path, other))
                a.pop("created"), b.pop("created")
                assert a == b
            else:
                assert path.read_bytes() == other.read_bytes()


def test_cli_lists_test_only_carved_skipped_and_failed_treebanks(tmp_path):
    from mlparse.cli import app

    source = release(tmp_path)
    result = CliRunner().invoke(app, ["prepare", "ud", "--source", str(source), "--out", str(tmp_path / "out"),
                                      "--jobs", "2"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "test-only (no train split): UD_Faroese-Test" in result.output
    assert "UD_English-Other: no dev split; dev carved from train" in result.output
    assert "skipped: UD_Arabic-NYUAD" in result.output
    (source / "UD_Finnish-TDT" / "fi_tdt-ud-train.conllu").write_bytes(b"\xff")
    result = CliRunner().invoke(app, ["prepare", "ud", "--source", str(source), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert "failed: UD_Finnish-TDT" in result.output


def test_the_shared_ud_folders_are_all_found_with_their_metadata(treebanks, tmp_path):
    report = prepare_family("ud", source=treebanks, out=tmp_path / "out", languages=["UD_*-r1.4", "hu", "zh"])
    assert report.found == ["UD_Basque-BDT-r1.4", "UD_Chinese-GSD-r1.4", "UD_Hungarian-Szeged", "UD_Chinese-GSD"]
    by_name = {r.language: r.manifest for r in report.results}
    assert by_name["UD_Hungarian-Szeged"].ud.license == "CC BY-NC-SA 3.0"
    assert by_name["UD_Basque-BDT-r1.4"].ud.readme == "README.txt"
    assert by_name["UD_Basque-BDT-r1.4"].ud.license == "CC BY-NC-SA 3.0"
    assert "UD v1.4" in by_name["UD_Basque-BDT-r1.4"].notes  # the catalog's override
    assert report.test_only == ["UD_Chinese-GSD"]
    assert by_name["UD_Chinese-GSD-r1.4"].ud.language_code == "zh"


def test_two_folders_with_one_name_are_refused_naming_both(tmp_path):
    """Issue 34: ``a/UD_Same-Name`` (60 train sentences) and ``b/UD_Same-Name`` (30) under one --source; only a/
    was prepared, b/ never named."""
    source = tmp_path / "src"
    first = treebank(source / "a", "UD_Same-Name", "xx_same", {"train": 60, "dev": 5, "test": 5})
    second = treebank(source / "b", "UD_Same-Name", "xx_same", {"train": 30, "dev": 5, "test": 5})
    treebank(source / "b", "UD_Other-Name", "xx_other", {"train": 10, "dev": 2, "test": 2})
    out = tmp_path / "out"
    with pytest.raises(PrepareError) as error:
        prepare_family("ud", source=source, languages=["UD_Same-Name"], out=out)
    message = str(error.value)
    assert f"{first} and {second}" in message and "2 folders have this name (--source)" in message
    assert "give --source the one you mean" in message
    assert not (out / "ud" / "UD_Same-Name").exists()
    report = prepare_family("ud", source=source, out=out)  # several treebanks: listed as failed, the rest prepared
    assert [result.language for result in report.results] == ["UD_Other-Name"]
    assert list(report.failed) == ["UD_Same-Name"] and f"{first} and {second}" in report.failed["UD_Same-Name"]
    assert not (out / "ud" / "UD_Same-Name").exists()
    report = prepare_family("ud", source=source / "b", out=out)  # one of them as the source: prepared
    assert "UD_Same-Name" in [result.language for result in report.results] and not report.failed
    manifest = json.loads((out / "ud" / "UD_Same-Name" / "manifest.json").read_text())
    assert manifest["splits"]["train"]["sentences"] == 30


def test_the_cli_names_both_folders_and_exits_with_an_error(tmp_path):
    from mlparse.cli import app

    source = tmp_path / "src"
    treebank(source / "a", "UD_Same-Name", "xx_same", {"train": 6, "dev": 2, "test": 2})
    treebank(source / "b", "UD_Same-Name", "xx_same", {"train": 3, "dev": 2, "test": 2})
    result = CliRunner().invoke(app, ["prepare", "ud", "--source", str(source), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2  # the command's error: the one treebank found is refused
    output = " ".join(result.output.split())
    assert f"{source / 'a' / 'UD_Same-Name'} and {source / 'b' / 'UD_Same-Name'}" in output
    assert "Traceback" not in result.output
