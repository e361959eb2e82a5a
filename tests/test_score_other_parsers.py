"""``mlparse score`` of real parsers' output: their root wrappers, gold files that are not prepared splits, display
names, a system with no matched bracket, and MLAS/BLEX in ``mlparse compare``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import List, Tuple

import pytest
from typer.testing import CliRunner

from mlparse.cli import app

runner = CliRunner()

GOLD = [
    "(TOP (S (NP (PRP I)) (VP (VBD saw) (NP (DT the) (NN man)) (PP (IN with) (NP (DT a) (NN telescope)))) (. .)))",
    "(TOP (S (NP (PRP he)) (VP (VBD left) (ADVP (RB very) (RB early))) (. .)))",
    "(TOP (S (NP (NP (NNS cats)) (CC and) (NP (NNS dogs))) (VP (VBP run))))",
    "(TOP (FRAG (NP (NN yes)) (. !)))",
]
#: As mlparse writes predictions (TOP roots), with errors: a PP attached low, a wrong label, a missing NP.
PRED = [
    "(TOP (S (NP (PRP I)) (VP (VBD saw) (NP (DT the) (NN man) (PP (IN with) (NP (DT a) (NN telescope))))) (. .)))",
    "(TOP (S (NP (PRP he)) (VP (VBD left) (NP (RB very) (RB early))) (. .)))",
    "(TOP (S (NP (NNS cats) (CC and) (NP (NNS dogs))) (VP (VBP run))))",
    "(TOP (FRAG (NP (NN yes)) (. !)))",
]


def _write(path: Path, lines: List[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _score(pred: Path, gold: Path, name: str, runs: Path, *extra: str) -> Tuple[str, Path, dict]:
    result = runner.invoke(app, ["score", str(pred), "--gold", str(gold), "--name", name, "--runs-dir", str(runs),
                                 *extra])
    assert result.exit_code == 0, result.output
    written = Path(result.output.strip().splitlines()[-1].removeprefix("written: "))
    return result.output, written, json.loads((written / "results.json").read_text(encoding="utf-8"))


def _rewrap(tree: str, wrapper: str) -> str:
    """The tree under another parser's root; ``"-"``: no root at all (the bare constituent)."""
    inner = tree[len("(TOP "):-1]
    return inner if wrapper == "-" else f"({wrapper} {inner})"


@pytest.mark.parametrize("wrapper", ["S1", "ROOT", "TOP", "", "VROOT", "-"])
def test_a_parsers_root_wrapper_scores_as_mlparses_own_root(tmp_path: Path, wrapper: str) -> None:
    gold = _write(tmp_path / "gold.trees", GOLD)
    _, _, reference = _score(_write(tmp_path / "mlparse.trees", PRED), gold, "as-mlparse", tmp_path / "runs")
    assert 0 < reference["test"]["f1"] < 100
    wrapped = [_rewrap(tree, wrapper) for tree in PRED]
    if wrapper == "":  # the PTB's own layout: one tree over several lines, ( (S ...) )
        wrapped = [tree.replace(" (VP", "\n    (VP") for tree in wrapped]
    output, run, results = _score(_write(tmp_path / "other.trees", wrapped), gold, "other", tmp_path / "runs")
    assert results["test"] == reference["test"]  # every key: LR, LP, F1, complete match, sentences, scorer
    assert (run / "test.pred.trees").read_text(encoding="utf-8") == "".join(t + "\n" for t in PRED)
    said = f"removed the root wrapper {'(' + wrapper + ' …)' if wrapper else '( …)'} of 4 of 4 trees"
    if wrapper in ("TOP", "-"):  # mlparse's own root, or none: nothing removed
        assert "removed the root wrapper" not in output and len(results["notes"]) == 1
    else:
        assert said in output and any(said in note for note in results["notes"])


def test_an_s1_wrapper_no_longer_counts_as_a_constituent(tmp_path: Path) -> None:
    """The case of the issue: gold trees re-rooted as S1 scored LP 94.93 / F1 97.40 instead of 100."""
    gold = _write(tmp_path / "gold.trees", GOLD)
    _, _, results = _score(_write(tmp_path / "s1.trees", [_rewrap(t, "S1") for t in GOLD]), gold, "bllip",
                           tmp_path / "runs")
    assert (results["test"]["recall"], results["test"]["precision"], results["test"]["f1"]) == (100.0, 100.0, 100.0)


RAW_PTB = """( (S
    (NP-SBJ-1 (PRP He) )
    (VP (VBD wanted)
      (S
        (NP-SBJ (-NONE- *-1) )
        (VP (TO to)
          (VP (VB leave) ))))
    (. .) ))
( (SBARQ (WHNP-2 (WP What) )
    (SQ (VBD did)
      (NP-SBJ (PRP she) )
      (VP (VB see)
        (NP (-NONE- *T*-2) )))
    (. ?) ))
"""
RAW_PTB_PREPARED = [
    "(TOP (S (NP (PRP He)) (VP (VBD wanted) (S (VP (TO to) (VP (VB leave))))) (. .)))",
    "(TOP (SBARQ (WHNP (WP What)) (SQ (VBD did) (NP (PRP she)) (VP (VB see))) (. ?)))",
]


def test_a_raw_ptb_gold_file_is_normalized_as_prepare_would(tmp_path: Path) -> None:
    gold = tmp_path / "wsj_0001.mrg"
    gold.write_text(RAW_PTB, encoding="utf-8")
    pred = _write(tmp_path / "pred.trees", [_rewrap(t, "ROOT") for t in RAW_PTB_PREPARED])
    output, run, results = _score(pred, gold, "parser", tmp_path / "runs")
    assert results["test"]["f1"] == 100.0 and results["test"]["sentences"] == 2
    note = next(line for line in output.splitlines() if "is not a prepared split" in line)
    assert "empty elements removed in 2" in note and "function tags stripped in 2" in note and "of 2 trees" in note
    copy = run / "test.gold.trees"
    assert copy.read_text(encoding="utf-8") == "".join(t + "\n" for t in RAW_PTB_PREPARED)
    record = results["gold"]["test"]
    assert Path(record["path"]) == copy.resolve() and record["normalized_from"]["path"] == str(gold.resolve())
    # compare and analyze errors read the run's gold, the normalized copy
    twin = _score(_write(tmp_path / "twin.trees", RAW_PTB_PREPARED), _write(tmp_path / "prepared.trees",
                                                                            RAW_PTB_PREPARED), "twin", tmp_path / "runs")
    compared = runner.invoke(app, ["compare", str(run), str(twin[1]), "--format", "json", "--samples", "50"])
    assert compared.exit_code == 0, compared.output  # the same gold: the copy equals the prepared file
    assert json.loads(compared.output)["comparisons"][0]["p_value"] == 1.0
    analysed = runner.invoke(app, ["analyze", "errors", str(run), "--format", "json"])
    assert analysed.exit_code == 0, analysed.output


def test_a_root_labelled_gold_file_is_read_like_a_prepared_split(tmp_path: Path) -> None:
    prepared = _write(tmp_path / "gold.trees", GOLD)
    rooted = _write(tmp_path / "corenlp-gold.trees", [_rewrap(t, "ROOT") for t in GOLD])
    pred = _write(tmp_path / "pred.trees", PRED)
    _, _, reference = _score(pred, prepared, "a", tmp_path / "runs")
    output, run, results = _score(pred, rooted, "b", tmp_path / "runs")
    assert results["test"] == reference["test"]
    assert "roots such as (ROOT …)" in output and "root wrapper (ROOT …) replaced by TOP in 4 of 4 trees" in output
    assert (run / "test.gold.trees").read_bytes() == prepared.read_bytes()


def test_a_gold_tree_that_normalization_empties_is_an_error_naming_its_line(tmp_path: Path) -> None:
    gold = tmp_path / "gold.mrg"
    gold.write_text("( (S (NP (PRP I)) (VP (VBP run))))\n( (-NONE- *U*) )\n", encoding="utf-8")
    pred = _write(tmp_path / "pred.trees", [GOLD[0]])
    result = runner.invoke(app, ["score", str(pred), "--gold", str(gold), "--name", "x", "--runs-dir",
                                 str(tmp_path / "runs")])
    assert result.exit_code == 1 and f"{gold}:2: nothing left" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "runs").exists()


def test_raw_wsj_files_normalize_to_the_prepared_test_split_byte_for_byte(treebanks: Path, tmp_path: Path) -> None:
    prepared = runner.invoke(app, ["prepare", "ptb-sample", "--source", str(treebanks), "--out", str(tmp_path)])
    assert prepared.exit_code == 0, prepared.output
    split = tmp_path / "ptb-sample" / "english" / "test.trees"
    files = sorted(p for p in (treebanks / "ptb-sample").rglob("wsj_0*.mrg")
                   if 180 <= int(re.search(r"wsj_(\d+)", p.name)[1]) <= 199)  # the catalog's test files
    raw = tmp_path / "wsj_test.mrg"
    raw.write_text("".join(p.read_text(encoding="utf-8") for p in files), encoding="utf-8")
    s1 = _write(tmp_path / "bllip.trees", [_rewrap(t, "S1") for t in split.read_text(encoding="utf-8").splitlines()])
    output, run, results = _score(s1, raw, "BLLIP reranker", tmp_path / "runs")
    assert results["test"]["f1"] == 100.0 and results["test"]["sentences"] == len(s1.read_text().splitlines())
    assert (run / "test.gold.trees").read_bytes() == split.read_bytes()
    assert "empty elements removed" in output and "removed the root wrapper (S1 …)" in output


def test_a_display_name_with_spaces_names_the_system_and_a_folder(tmp_path: Path) -> None:
    from mlparse.compare.external import folder_name

    assert folder_name("Stanza 1.5") == "Stanza-1.5" and folder_name(" Berkeley (2006) ") == "Berkeley-2006"
    assert folder_name("解析器 v2") == "解析器-v2"
    gold, pred = _write(tmp_path / "gold.trees", GOLD), _write(tmp_path / "pred.trees", PRED)
    output, run, results = _score(pred, gold, "Stanza 1.5", tmp_path / "runs")
    assert run.parent == tmp_path / "runs" / "Stanza-1.5" and output.startswith("Stanza 1.5: LR")
    assert (results["system"], results["model"], results["recipe"]) == (
        "Stanza 1.5", {"kind": "external", "name": "Stanza 1.5"}, "Stanza-1.5")
    report = runner.invoke(app, ["report", str(tmp_path / "runs"), "--format", "markdown"])
    assert report.exit_code == 0 and "Stanza 1.5" in report.output
    other = _score(_write(tmp_path / "gold-as-pred.trees", GOLD), gold, "Stanza-1.5 oracle", tmp_path / "runs")[1]
    by_name = runner.invoke(app, ["compare", "Stanza-1.5", str(other), "--runs-dir", str(tmp_path / "runs"),
                                  "--format", "json", "--samples", "50"])
    assert by_name.exit_code == 0, by_name.output
    for bad in ("   ", "()"):
        refused = runner.invoke(app, ["score", str(pred), "--gold", str(gold), "--name", bad, "--runs-dir",
                                      str(tmp_path / "runs")])
        assert refused.exit_code == 1 and "at least one letter or digit" in refused.output


def _no_match(tree: str) -> str:
    """One bracket over the sentence with a label no gold bracket has: nothing matches."""
    leaves = re.findall(r"\(([^()\s]+) ([^()\s]+)\)", tree)
    return "(TOP (XX " + " ".join(f"({tag} {word})" for tag, word in leaves) + "))"


def test_systems_with_no_matched_bracket_score_zero_and_do_not_differ(tmp_path: Path) -> None:
    gold = _write(tmp_path / "gold.trees", GOLD)
    empty = _write(tmp_path / "empty.trees", [_no_match(t) for t in GOLD])
    runs = [_score(empty, gold, name, tmp_path / "runs")[1:] for name in ("none A", "none B")]
    assert all(results["test"]["f1"] == 0.0 for _, results in runs)
    oracle = _score(_write(tmp_path / "oracle.trees", GOLD), gold, "oracle", tmp_path / "runs")[1]
    for method in ("randomization", "bootstrap"):
        compared = runner.invoke(app, ["compare", str(runs[0][0]), str(runs[1][0]), str(oracle), "--method", method,
                                       "--format", "json", "--samples", "200"])
        assert compared.exit_code == 0, compared.output
        same, better = json.loads(compared.output)["comparisons"]
        assert (same["score_a"], same["score_b"], same["delta"], same["p_value"]) == (0.0, 0.0, 0.0, 1.0)
        assert (better["score_a"], better["score_b"]) == (0.0, 100.0) and better["p_value"] < 1.0
    table = runner.invoke(app, ["compare", str(runs[0][0]), str(runs[1][0])])
    assert "nan" not in table.output.lower() and "0.00" in table.output


UD_GOLD = """# text = The dog saw a cat .
1\tThe\tthe\tDET\tDT\tDefinite=Def|PronType=Art\t2\tdet\t_\t_
2\tdog\tdog\tNOUN\tNN\tNumber=Sing\t3\tnsubj\t_\t_
3\tsaw\tsee\tVERB\tVBD\tMood=Ind|Tense=Past\t0\troot\t_\t_
4\ta\ta\tDET\tDT\tDefinite=Ind|PronType=Art\t5\tdet\t_\t_
5\tcat\tcat\tNOUN\tNN\tNumber=Sing\t3\tobj\t_\t_
6\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_

# text = Cats sleep .
1\tCats\tcat\tNOUN\tNNS\tNumber=Plur\t2\tnsubj\t_\t_
2\tsleep\tsleep\tVERB\tVBP\tMood=Ind|Tense=Pres\t0\troot\t_\t_
3\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_

# text = Birds sing songs .
1\tBirds\tbird\tNOUN\tNNS\tNumber=Plur\t2\tnsubj\t_\t_
2\tsing\tsing\tVERB\tVBP\tMood=Ind|Tense=Pres\t0\troot\t_\t_
3\tsongs\tsong\tNOUN\tNNS\tNumber=Plur\t2\tobj\t_\t_
4\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_

"""


def test_mlas_and_blex_are_compared_from_per_sentence_counts(tmp_path: Path) -> None:
    gold = tmp_path / "gold.conllu"
    gold.write_text(UD_GOLD, encoding="utf-8")
    # B attaches "a" to "dog": one wrong arc of a function word, so CLAS (content words) is untouched, while MLAS
    # (content words whose functional children are right too: "dog" and "cat" are not) and LAS are lower
    wrong = UD_GOLD.replace("4\ta\ta\tDET\tDT\tDefinite=Ind|PronType=Art\t5", "4\ta\ta\tDET\tDT\tDefinite=Ind|PronType=Art\t2")
    assert wrong != UD_GOLD
    (tmp_path / "b.conllu").write_text(wrong, encoding="utf-8")
    a = _score(gold, gold, "A", tmp_path / "runs")
    b = _score(tmp_path / "b.conllu", gold, "B", tmp_path / "runs")
    scores = b[2]["test"]
    assert scores["clas"] == scores["blex"] == 100.0 and scores["mlas"] < scores["las"] < 100.0
    for metric in ("clas", "mlas", "blex"):
        compared = runner.invoke(app, ["compare", str(a[1]), str(b[1]), "--metric", metric, "--format", "json",
                                       "--samples", "200"])
        assert compared.exit_code == 0, compared.output
        (row,) = json.loads(compared.output)["comparisons"]
        assert (row["metric"], row["score_a"], row["score_b"]) == (metric, a[2]["test"][metric], b[2]["test"][metric])
