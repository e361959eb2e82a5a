"""Property tests: identical files score 100, order invariance, API = CLI, fast = pure Python."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalb import EvalbParams, load_params, score_trees
from evalb.cli import main, main_spmrl

TAGS = ["NN", "DT", "VB", "JJ", ",", ".", "``", "''", "POS", "-NONE-", "NN-X", "NN##g=m##"]
LABELS = ["S", "NP", "VP", "PP", "NP-SBJ", "ADVP", "PRT", "SBAR", "X", "TOP", "NP=2"]
WORDS = ["a", "b", "c", "dog", "'", ".", ",", "*T*-1"]

leaf = st.builds(lambda t, w: f"({t} {w})", st.sampled_from(TAGS), st.sampled_from(WORDS))
subtree = st.recursive(
    leaf,
    lambda kids: st.builds(lambda label, ks: f"({label} {' '.join(ks)})", st.sampled_from(LABELS), st.lists(kids, min_size=1, max_size=3)),
    max_leaves=10,
)
#: A sentence always has a root S over at least one word that no parameter file deletes.
sentence = st.builds(lambda t: f"(S {t} (NN w))", subtree)


def mutate(draw, gold: str) -> str:
    kind = draw(st.sampled_from(["same", "relabel", "other", "empty", "retag", "flatten"]))
    if kind == "same":
        return gold
    if kind == "relabel":
        labels = [m.start() for m in re.finditer(r"\((?:NP|VP|PP|X)\b", gold)]
        if not labels:
            return gold
        i = draw(st.sampled_from(labels))
        return gold[: i + 1] + "ADJP" + gold[i + 3 :].lstrip("PX")
    if kind == "other":
        return draw(sentence)
    if kind == "empty":
        return ""
    if kind == "retag":
        return gold.replace("(NN ", "(JJ ", 1).replace("(. ", "(NN ", 1)
    return "(S " + " ".join(re.findall(r"\([^()\s]+ [^()\s]+\)", gold)) + ")"


@st.composite
def pairs(draw, max_size=8):
    gold = draw(st.lists(sentence, min_size=1, max_size=max_size))
    return gold, [mutate(draw, g) for g in gold]


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.lists(sentence, min_size=1, max_size=8), st.sampled_from(["COLLINS", "nk", "spmrl"]))
def test_identical_files_score_100_everywhere(trees, prm):
    spmrl = prm == "spmrl"
    result = score_trees(trees, trees, prm, spmrl=spmrl, strict=True)
    for block in (result.all,):
        assert block.error_sentences == block.skip_sentences == 0
        assert block.recall == block.precision == block.fmeasure == 100.0
        assert block.complete_match == block.no_crossing == block.two_or_less_crossing == 100.0
        assert block.average_crossing == 0.0 and block.tagging_accuracy == 100.0
    assert all(r.matched == r.gold_brackets == r.test_brackets for r in result.sentences)


def _high_error_limit(name: str) -> EvalbParams:
    params = load_params(name)
    params.max_error = 1_000_000
    return params


@SETTINGS
@given(pairs(), st.randoms(use_true_random=False), st.sampled_from([("COLLINS", False), ("nk", False), ("spmrl", True)]))
def test_scores_do_not_depend_on_sentence_order(data, rng, setting):
    gold, test = data
    name, spmrl = setting
    order = list(range(len(gold)))
    rng.shuffle(order)
    params = _high_error_limit(name)
    a = score_trees(gold, test, params, spmrl=spmrl)
    b = score_trees([gold[i] for i in order], [test[i] for i in order], params, spmrl=spmrl)
    assert a.all == b.all and a.cutoff == b.cutoff

    def rows(result):
        return sorted((r.length, r.status, r.matched, r.gold_brackets, r.test_brackets, r.crossing, r.words, r.correct_tags) for r in result.sentences)

    assert rows(a) == rows(b)


def _summary_values(text: str, block: str) -> dict[str, str]:
    part = text.split(block + "\n", 1)[1]
    values = {}
    for line in part.splitlines()[:12]:
        name, value = line.split("=")
        values[name.strip()] = value.strip()
    return values


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=pairs(), setting=st.sampled_from([("COLLINS", False), ("spmrl", True)]))
def test_api_and_cli_agree(tmp_path, monkeypatch, capsysbinary, data, setting):
    gold, test = data
    name, spmrl = setting
    monkeypatch.chdir(tmp_path)  # evalb_spmrl writes ./status
    g, t, prm = tmp_path / "g", tmp_path / "t", tmp_path / "p.prm"
    g.write_text("\n".join(gold) + "\n")
    t.write_text("\n".join(test) + "\n")
    prm.write_text(_prm_text(name))
    capsysbinary.readouterr()
    code = (main_spmrl if spmrl else main)(["-p", str(prm), str(g), str(t)])
    text = capsysbinary.readouterr().out.decode()
    result = score_trees(gold, test, _high_error_limit(name), spmrl=spmrl)
    assert code == 0
    body = text.splitlines()[3 : 3 + len(result.sentences)]
    for line, r in zip(body, result.sentences):
        fields = line.split()
        assert [int(fields[0]), int(fields[1]), int(fields[2])] == [r.line, r.length, r.status]
        assert [float(fields[3]), float(fields[4])] == [round(r.recall, 2), round(r.precision, 2)]
        assert [int(x) for x in fields[5:11]] == [r.matched, r.gold_brackets, r.test_brackets, r.crossing, r.words, r.correct_tags]
    values = _summary_values(text, "-- All --")
    assert int(values["Number of sentence"]) == result.all.sentences
    assert int(values["Number of Error sentence"]) == result.all.error_sentences
    assert int(values["Number of Skip  sentence"]) == result.all.skip_sentences
    assert values["Bracketing Recall"] == f"{result.all.recall:.2f}"
    assert values["Bracketing Precision"] == f"{result.all.precision:.2f}"
    f = result.all.fmeasure
    assert values["Bracketing FMeasure"] == ("-nan" if f != f else f"{f:.2f}")
    assert values["Tagging accuracy"] == f"{result.all.tagging_accuracy:.2f}"
    short = _summary_values(text, f"-- len<={result.cutoff_len} --")
    assert int(short["Number of sentence"]) == result.cutoff.sentences
    assert short["Bracketing Recall"] == f"{result.cutoff.recall:.2f}"


def _prm_text(name: str) -> str:
    """The shipped file with a high error limit (so random data never aborts)."""
    from evalb import builtin_param_path

    text = builtin_param_path(name).read_text()
    return re.sub(r"^MAX_ERROR .*$", "MAX_ERROR 1000000", text, flags=re.M)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pairs(), st.sampled_from([("COLLINS", False), ("nk", False), ("spmrl", True), ("nk", True)]), st.booleans())
def test_fast_path_and_pure_python_agree(data, setting, unlabeled):
    gold, test = data
    name, spmrl = setting
    params = _high_error_limit(name)
    if unlabeled:
        params.labeled = 0
        params.eq_words.append((b"a", b"b"))
    fast = score_trees(gold, test, params, spmrl=spmrl, use_fast=True)
    pure = score_trees(gold, test, params, spmrl=spmrl, use_fast=False)
    assert fast.sentences == pure.sentences
    assert fast.errors == pure.errors
    assert fast.problems == pure.problems
    assert fast.all == pure.all and fast.cutoff == pure.cutoff
