"""A demanding user's mistakes and edge cases, command by command: each gives a clear error naming
the file (and line), a non-zero exit status and no traceback, or works, never dropping a tree."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml
from rich.console import Console
from typer.testing import CliRunner

from mlparse.cli import app
from mlparse.config import ConfigError, load_recipe
from mlparse.report.model import build_report
from mlparse.report.render_text import runs_tables
from mlparse.run_dir import RunDir
from mlparse.train.runner import RunError, RunOptions, ensure_prepared, run_recipe
from mlparse.trees.reader import parse_bracketed
from helpers.run_fixtures import REPO, TINY_TREES, Record, write_tiny_recipe

runner = CliRunner()
PTB_FIXTURE = Path(__file__).parent / "fixtures" / "ptb_ldc" / "treebank_3" / "parsed" / "mrg" / "wsj"


def invoke(*args: str, input: str | bytes | None = None):  # type: ignore[no-untyped-def]
    result = runner.invoke(app, list(args), input=input)
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def set_recipe(recipe: Path, section: str, **values: object) -> None:
    data = yaml.safe_load(recipe.read_text())
    data.setdefault(section, {}).update(values)
    recipe.write_text(yaml.safe_dump(data))


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run directory of the tiny recipe (max_len 12: at most 10 words)."""
    tmp = tmp_path_factory.mktemp("qa")
    recipe = write_tiny_recipe(tmp, model={"max_len": 12}, train={"max_epochs": 3, "batch_size": 8})
    config = load_recipe(recipe)
    run_recipe(config, RunOptions(runs_dir=tmp / "runs"))
    return RunDir.for_recipe(tmp / "runs", config).path


# -- recipes -----------------------------------------------------------------------------------

def test_recipe_that_is_not_utf8_names_file_and_line(tmp_path: Path) -> None:
    recipe = tmp_path / "latin1.yaml"
    recipe.write_bytes(b"description: ok\ntrain:\n  lr: 0.001 # caf\xe9\n")
    result = invoke("run", str(recipe))
    assert result.exit_code == 2
    assert f"{recipe}, line 3: not UTF-8" in result.output


def test_unknown_key_and_bad_value_in_a_recipe_file_name_their_line(tmp_path: Path) -> None:
    recipe = tmp_path / "r.yaml"
    recipe.write_text("train:\n  lr: 0.001\n  warmup: 10\n")
    with pytest.raises(ConfigError, match=r"r\.yaml, line 3 \(section 'train'\): unknown key 'warmup'\. "
                                          r"Did you mean 'warmup_steps'\?"):
        load_recipe(recipe)
    recipe.write_text("model:\n  num_layers: 2\n\n  d_model: big\n")
    with pytest.raises(ConfigError, match=r"r\.yaml, line 4: model\.d_model: expected an integer, got 'big'"):
        load_recipe(recipe)
    recipe.write_text("train: 3\n")
    with pytest.raises(ConfigError, match=r"line 1: section 'train' must be a mapping"):
        load_recipe(recipe)


def test_override_errors_name_the_override(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path)
    result = invoke("run", str(recipe), "--set", "train.lr=abc")
    assert result.exit_code == 2 and "--set train.lr=abc: expected a number, got 'abc'" in result.output
    result = invoke("run", str(recipe), "--set", "model.char_encoder=cnn")
    assert result.exit_code == 2 and "must be one of lstm, concat, none" in result.output
    result = invoke("run", str(recipe), "--set", "train.lr")
    assert result.exit_code == 2 and "must look like section.key=value" in result.output


@pytest.mark.parametrize("override, message", [
    ("name=a/b", "cannot be a run folder name"),
    ("eval.subbatch_tokens=0", "eval.subbatch_tokens must be positive"),
    ("model.residual_dropout=1.5", "dropout probability"),
    ("train.lr_decay_factor=0", "train.lr_decay_factor must be in (0, 1]"),
    ("data.max_train_sentences=0", "data.max_train_sentences must be positive"),
])
def test_values_that_would_fail_late_are_refused_when_the_recipe_loads(tmp_path: Path, override: str, message: str) -> None:
    recipe = write_tiny_recipe(tmp_path)
    with pytest.raises(ConfigError) as caught:
        load_recipe(recipe, [override])
    assert message in str(caught.value)


def test_error_text_is_printed_verbatim_not_as_markup(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path)
    result = invoke("run", str(recipe), "--runs-dir", str(tmp_path / "runs"), "--set", "data.dev=[/red]x[bold]")
    assert result.exit_code == 1 and "[/red]x[bold]" in result.output


# -- run: data problems found before training ----------------------------------------------------

def test_tree_not_rooted_in_top_names_file_and_line(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path)
    train = tmp_path / "data" / "train.trees"
    train.write_text("\n".join(TINY_TREES[:2]) + "\n(S (NP (DT a) (NN cat)) (VP (VBZ barks)))\n")
    result = invoke("run", str(recipe), "--runs-dir", str(tmp_path / "runs"))
    assert result.exit_code == 1
    assert f"{train}:3: the tree's root is 'S'" in result.output


def test_malformed_training_tree_names_file_and_line(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path)
    train = tmp_path / "data" / "train.trees"
    train.write_text(TINY_TREES[0] + "\n(TOP (S (NP (DT a) (NN)) (VP (VBZ barks))))\n")
    result = invoke("run", str(recipe), "--runs-dir", str(tmp_path / "runs"))
    assert result.exit_code == 1 and f"{train}:2:" in result.output and "childless node" in result.output


def test_label_holding_the_unary_joiner_names_its_tree(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path)
    train = tmp_path / "data" / "train.trees"
    train.write_text(TINY_TREES[0] + "\n(TOP (S::VP (VB go)))\n")
    result = invoke("run", str(recipe), "--runs-dir", str(tmp_path / "runs"))
    assert result.exit_code == 1 and f"{train}:2: label 'S::VP'" in result.output


def test_training_trees_without_any_constituent_are_a_clear_error(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path)
    (tmp_path / "data" / "train.trees").write_text("(TOP (NN yes))\n(TOP (UH no))\n")
    result = invoke("run", str(recipe), "--runs-dir", str(tmp_path / "runs"))
    assert result.exit_code == 1 and "hold no constituent" in result.output


def test_dev_sentence_beyond_max_len_is_refused_before_training(tmp_path: Path) -> None:
    long_tree = "(TOP (S " + " ".join(f"(NN w{i})" for i in range(45)) + "))"
    recipe = write_tiny_recipe(tmp_path, dev_trees=[TINY_TREES[0], long_tree])
    result = invoke("run", str(recipe), "--runs-dir", str(tmp_path / "runs"))
    assert result.exit_code == 1
    assert f"{tmp_path / 'data' / 'dev.trees'}:2: sentence of 45 words" in result.output
    assert "raise model.max_len" in result.output
    config = load_recipe(recipe)
    assert not RunDir.for_recipe(tmp_path / "runs", config).last.exists()  # no training time was spent
    assert json.loads(RunDir.for_recipe(tmp_path / "runs", config).results.read_text())["status"] == "failed"


def test_empty_dev_file_is_a_clear_error(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path, dev_trees=[])
    (tmp_path / "data" / "dev.trees").write_text("\n\n")
    result = invoke("run", str(recipe), "--runs-dir", str(tmp_path / "runs"))
    assert result.exit_code == 1 and "dev.trees: no trees" in result.output


def test_unseen_labels_and_one_and_two_word_sentences_are_parsed_and_scored(tmp_path: Path) -> None:
    dev = ["(TOP (FRAG (INTJ (UH wow))))", "(TOP (X (UH oh)))", "(TOP (UCP (NN a) (NN b)))", "(TOP (NN yes))",
           "(TOP (S (NP (DT the) (NN dog)) (VP (VBZ barks)) (. .)))"]
    recipe = write_tiny_recipe(tmp_path, train={"max_epochs": 1}, dev_trees=dev)
    results = run_recipe(load_recipe(recipe), RunOptions(runs_dir=tmp_path / "runs"))
    assert results.status == "complete"
    assert results.dev.sentences == len(dev) and results.dev.error_sentences == 0 and results.dev.skip_sentences == 0
    predicted = (RunDir.for_recipe(tmp_path / "runs", load_recipe(recipe)).pred("dev")).read_text().splitlines()
    assert [[leaf.word for leaf in parse_bracketed(line).trees[0].leaves()] for line in predicted] == \
        [[leaf.word for leaf in parse_bracketed(line).trees[0].leaves()] for line in dev]


def test_training_sentences_left_out_on_purpose_are_reported(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path, train={"max_epochs": 1})
    config = load_recipe(recipe, ["data.max_train_length=4", "data.max_train_sentences=2"])
    notes = Record()
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"), notes)
    longer = sum(1 for text in TINY_TREES if len(parse_bracketed(text).trees[0].leaves()) > 4)
    assert notes.notes == [f"training on 2 of the {len(TINY_TREES)} sentences of {tmp_path / 'data' / 'train.trees'} "
                           f"({longer} longer than data.max_train_length=4; the rest beyond "
                           "data.max_train_sentences=2)"]


def test_resuming_on_changed_data_says_to_start_fresh(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path, train={"max_epochs": 1})
    config = load_recipe(recipe)
    run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    run_dir = RunDir.for_recipe(tmp_path / "runs", config)
    results = json.loads(run_dir.results.read_text())
    results["status"] = "running"  # as if the run had been killed
    run_dir.results.write_text(json.dumps(results))
    train = tmp_path / "data" / "train.trees"
    train.write_text(train.read_text() + "(TOP (S (NP (NNP Zork)) (VP (VBZ flies))))\n")
    result = invoke("run", str(recipe), "--runs-dir", str(tmp_path / "runs"))
    assert result.exit_code == 1
    assert "cannot resume" in result.output and "vocabulary" in result.output and "--fresh" in result.output
    result = invoke("run", str(recipe), "--runs-dir", str(tmp_path / "runs"), "--fresh")
    assert result.exit_code == 0, result.output


def test_impossible_process_setups_are_refused_before_starting(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path)
    result = invoke("run", str(recipe), "--gpus", "0")
    assert result.exit_code == 2 and "--gpus must be at least 1" in result.output
    if not torch.cuda.is_available():
        result = invoke("run", str(recipe), "--gpus", "2", "--set", "train.device=cuda")
        assert result.exit_code == 2 and "no CUDA device" in result.output
    assert not (tmp_path / "runs").exists()


def test_runs_dir_that_is_a_file_is_a_clear_error(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path)
    result = invoke("run", str(recipe), "--runs-dir", str(recipe))
    assert result.exit_code == 1 and "cannot read or write" in result.output and "Not a directory" in result.output


def test_split_files_without_manifest_are_not_trusted(tmp_path: Path) -> None:
    """`mlparse prepare` removes manifest.json before renaming new split files in: without it they may mix."""
    recipe = write_tiny_recipe(tmp_path)
    set_recipe(recipe, "data", family="ptb", language="english", root=str(tmp_path / "prepared"),
               train=None, dev=None, test=None)
    folder = tmp_path / "prepared" / "ptb" / "english"
    folder.mkdir(parents=True)
    for split in ("train", "dev", "test"):
        (folder / f"{split}.trees").write_text(TINY_TREES[0] + "\n")
    config = load_recipe(recipe)
    with pytest.raises(RunError, match="has split files but no manifest.json"):
        ensure_prepared(config)
    (folder / "manifest.json").write_text("{}")
    ensure_prepared(config)  # complete: taken as it is


def test_ddp_failure_reports_once_without_launcher_traceback(tmp_path: Path) -> None:
    long_tree = "(TOP (S " + " ".join(f"(NN w{i})" for i in range(45)) + "))"
    # train.device=cpu: two gloo processes on the CPU even where CUDA is present
    recipe = write_tiny_recipe(tmp_path, train={"device": "cpu"}, dev_trees=[long_tree])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
               OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-m", "mlparse", "run", str(recipe), "--runs-dir", str(tmp_path / "runs"),
                           "--gpus", "2"], env=env, capture_output=True, text=True, timeout=120)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert output.count("sentence of 45 words") == 1, output
    assert "Traceback" not in output and "ChildFailedError" not in output, output


# -- parse -------------------------------------------------------------------------------------------

def test_a_file_that_is_not_a_checkpoint_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "best.pt").write_text("not a checkpoint")
    result = invoke("parse", "--model", str(tmp_path), input="a b\n")
    assert result.exit_code == 1 and "not an mlparse checkpoint" in result.output


def test_words_with_brackets_come_out_as_lrb_rrb_and_read_back(trained: Path) -> None:
    result = invoke("parse", "--model", str(trained), input="( see below ) ok\nf(x) is red\n")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    words = [[leaf.word for leaf in parse_bracketed(line).trees[0].leaves()] for line in lines]
    assert words == [["-LRB-", "see", "below", "-RRB-", "ok"], ["f-LRB-x-RRB-", "is", "red"]]


def test_forced_tree_format_on_text_and_malformed_trees_name_the_input(trained: Path, tmp_path: Path) -> None:
    text = tmp_path / "in.txt"
    text.write_text("( see below ) ok\n")
    result = invoke("parse", "--model", str(trained), "--input", str(text), "--format", "trees")
    assert result.exit_code == 1 and f"{text}:1:" in result.output
    text.write_text("(S (NP (DT the) (NN dog))\n")
    result = invoke("parse", "--model", str(trained), "--input", str(text))
    assert result.exit_code == 1 and f"{text}:1:1: unbalanced brackets" in result.output
    assert "--format text" in result.output


def test_crlf_input_parses_like_lf(trained: Path) -> None:
    lf = invoke("parse", "--model", str(trained), input="the dog barks .\n\nhello\n")
    crlf = invoke("parse", "--model", str(trained), input="the dog barks .\r\n\r\nhello\r\n")
    assert lf.exit_code == crlf.exit_code == 0 and lf.stdout == crlf.stdout
    trees = invoke("parse", "--model", str(trained), input=TINY_TREES[0] + "\r\n" + TINY_TREES[2] + "\r\n")
    assert trees.exit_code == 0 and len(trees.stdout.splitlines()) == 2


def test_input_that_is_not_utf8_names_its_line(trained: Path, tmp_path: Path) -> None:
    source = tmp_path / "latin1.txt"
    source.write_bytes(b"the dog\ncaf\xe9 ok\n")
    result = invoke("parse", "--model", str(trained), "--input", str(source))
    assert result.exit_code == 2 and f"{source}:2: not UTF-8" in result.output
    result = invoke("parse", "--model", str(trained), "--input", str(tmp_path))
    assert result.exit_code == 2 and "is a folder" in result.output


def test_unwritable_output_is_a_clear_error(trained: Path, tmp_path: Path) -> None:
    result = invoke("parse", "--model", str(trained), "--output", str(tmp_path), input="hello\n")
    assert result.exit_code == 2 and "is a folder" in result.output
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = invoke("parse", "--model", str(trained), "--output", str(blocker / "out.trees"), input="hello\n")
    assert result.exit_code == 1 and f"cannot write {blocker / 'out.trees'}" in result.output
    result = invoke("parse", "--model", str(trained), input="")
    assert result.exit_code == 0 and result.stdout == "" and "no sentence" in result.output


def test_long_input_on_a_terminal_shows_a_progress_bar_on_stderr(trained: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    import mlparse.cli.parse as parse_cli

    screen = io.StringIO()
    monkeypatch.setattr(parse_cli, "console", Console(file=screen, force_terminal=True, width=80))
    lines = ["the dog barks ."] * parse_cli.PROGRESS_MIN_SENTENCES
    result = invoke("parse", "--model", str(trained), "--batch-tokens", "60", input="\n".join(lines) + "\n")
    assert result.exit_code == 0 and len(result.stdout.splitlines()) == len(lines)
    assert f"{len(lines)}/{len(lines)}" in screen.getvalue() and "parsing" in screen.getvalue()
    assert "parsing" not in result.stdout  # the trees stay clean


# -- report ------------------------------------------------------------------------------------------

def test_report_out_into_a_folder_or_under_a_file(trained: Path, tmp_path: Path) -> None:
    runs = trained.parent.parent
    result = invoke("report", str(runs), "--format", "csv", "--out", str(tmp_path))
    assert result.exit_code == 2 and "is a folder" in result.output
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = invoke("report", str(runs), "--format", "csv", "--out", str(blocker / "r.csv"))
    assert result.exit_code == 1 and "cannot write" in result.output
    result = invoke("report", str(runs), "--format", "csv", "--out", str(tmp_path / "new" / "r.csv"))
    assert result.exit_code == 0 and (tmp_path / "new" / "r.csv").is_file()


def test_narrow_terminal_keeps_run_names_and_whole_numbers(trained: Path) -> None:
    report = build_report(trained.parent.parent, split="test", select="latest", published_mode="none")
    console = Console(width=80, record=True, file=open(os.devnull, "w"))
    for table in runs_tables(report, console.width):
        console.print(table)
    text = console.export_text()
    assert all(len(line) <= 80 for line in text.splitlines())
    run_label = report.records[0].label
    assert text.count(run_label) >= 3  # every part of the split table names the run
    assert "…" not in text  # nothing cut
    for header in ("Dev F1", "Test F1", "Test CM"):
        assert header in text


# -- prepare -------------------------------------------------------------------------------------------

def test_prepare_out_that_is_a_file(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = invoke("prepare", "ptb", "--source", str(PTB_FIXTURE), "--out", str(blocker))
    assert result.exit_code == 2 and "is a file" in result.output
    result = invoke("prepare", "ptb", "--source", str(PTB_FIXTURE), "--out", str(blocker / "sub"))
    assert result.exit_code == 1 and "Not a directory" in result.output


def test_prepare_undecodable_file_points_at_the_catalog_encoding(tmp_path: Path) -> None:
    copy = tmp_path / "wsj"
    shutil.copytree(PTB_FIXTURE, copy)
    bad = copy / "22" / "wsj_2201.mrg"
    bad.write_bytes(bad.read_bytes().replace(b"Prices", b"Pri\xe7es"))
    result = invoke("prepare", "ptb", "--source", str(copy), "--out", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert "22/wsj_2201.mrg:3:" in result.output and "reader encoding" in result.output


def test_prepare_with_no_file_in_any_split_says_why(tmp_path: Path) -> None:
    folder = tmp_path / "wsj" / "00"
    folder.mkdir(parents=True)
    shutil.copy(PTB_FIXTURE / "00" / "wsj_0001.mrg", folder / "wsj_0001.mrg")
    result = invoke("prepare", "ptb", "--source", str(tmp_path / "wsj"), "--out", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert "belongs to a split" in result.output and "train 2-21" in result.output and "wsj_0001.mrg" in result.output


def test_prepare_lists_the_trees_it_leaves_out(tmp_path: Path) -> None:
    copy = tmp_path / "wsj"
    shutil.copytree(PTB_FIXTURE, copy)
    target = copy / "22" / "wsj_2201.mrg"
    target.write_text(target.read_text() + "( (-NONE- *U*) )\n")  # nothing left once empty elements go
    result = invoke("prepare", "ptb", "--source", str(copy), "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    assert "1 tree(s) left out" in result.output and "22/wsj_2201.mrg:" in result.output


def test_missing_evalb_parameter_file_is_refused_before_training(tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path)
    result = invoke("run", str(recipe), "--runs-dir", str(tmp_path / "runs"), "--set", "data.evalb_params=NOPE.prm")
    assert result.exit_code == 1 and "cannot read the evalb parameter file 'NOPE.prm'" in result.output
    assert not RunDir.for_recipe(tmp_path / "runs", load_recipe(recipe, ["data.evalb_params=NOPE.prm"])).last.exists()


def _conllu(*sentences: list) -> str:
    blocks = []
    for n, words in enumerate(sentences, start=1):
        lines = [f"# sent_id = s{n}"]
        for k, word in enumerate(words, start=1):
            lines.append("\t".join([str(k), word, word, "X", "_", "_", "0" if k == 1 else "1",
                                    "root" if k == 1 else "dep", "_", "_"]))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n\n"


def test_prepare_ud_short_word_lines_are_left_out_with_their_line(tmp_path: Path) -> None:
    folder = tmp_path / "UD_English-EWT"
    folder.mkdir()
    for split in ("train", "dev", "test"):
        (folder / f"en_ewt-ud-{split}.conllu").write_text(_conllu(["a", "b"], ["c"]))
    dev = folder / "en_ewt-ud-dev.conllu"
    dev.write_text(dev.read_text() + "# sent_id = broken\n1\tx\tx\tX\n\n")
    result = invoke("prepare", "ud", "--source", str(tmp_path), "--language", "UD_English-EWT",
                    "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    assert "en_ewt-ud-dev.conllu:9: a word line has 4 tab-separated columns" in result.output
    written = (tmp_path / "out" / "ud" / "UD_English-EWT" / "dev.conllu").read_text()
    assert "broken" not in written and written.count("# sent_id") == 2
    dev.write_bytes(dev.read_bytes().replace(b"\tc\tc\t", b"\tc\xe9\tc\t"))
    result = invoke("prepare", "ud", "--source", str(tmp_path), "--language", "UD_English-EWT",
                    "--out", str(tmp_path / "out"))
    assert result.exit_code == 2 and "en_ewt-ud-dev.conllu:6:4: byte 0xe9 is not valid utf-8" in result.output


# -- CUDA code paths, checked without a GPU ---------------------------------------------------------------

def test_bf16_autocast_falls_back_to_fp32_on_gpus_without_bf16(monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture) -> None:
    from mlparse.train.trainer import bf16_autocast

    assert not bf16_autocast(torch.device("cpu"), True)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *args, **kwargs: False)
    assert not bf16_autocast(torch.device("cuda", 0), True)  # torch.autocast would raise at the first step
    assert "does not support bf16" in capsys.readouterr().err
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *args, **kwargs: True)
    assert bf16_autocast(torch.device("cuda", 0), True) and not bf16_autocast(torch.device("cuda", 0), False)


def test_rng_states_loaded_onto_a_device_are_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    """A checkpoint loaded with map_location="cuda" holds generator states on the GPU; torch wants them on the CPU."""
    from mlparse.train import checkpoint

    class OnDevice:  # stands for a CUDA tensor: usable by torch only after .cpu()
        def __init__(self, tensor: torch.Tensor) -> None:
            self.tensor = tensor

        def cpu(self) -> torch.Tensor:
            return self.tensor

    state = checkpoint.rng_state()
    expected = torch.rand(4)
    state["torch"] = OnDevice(state["torch"])
    checkpoint.set_rng_state(state)
    assert torch.equal(torch.rand(4), expected)


def test_span_scores_under_bf16_autocast_decode_in_float(tmp_path: Path) -> None:
    """The CUDA training step runs under bf16 autocast; the same on the CPU: loss in fp32, both decoders agree."""
    from mlparse.config import ModelConfig, SpanConfig
    from mlparse.models.span_parser import build_parser
    from mlparse.tasks.treebank import golds_of, sentence_of
    from helpers.run_fixtures import TINY_MODEL, TINY_SPAN, tiny_trees

    trees = tiny_trees()
    torch.manual_seed(0)
    model = build_parser(ModelConfig(**TINY_MODEL), trees,
                         span=SpanConfig(**{**TINY_SPAN, "predict_tags": True, "d_tag_hidden": 8}))
    golds = golds_of(trees, model.labels)
    sentences = [sentence_of(tree) for tree in trees]
    losses = []
    for decoder in ("cython", "torch"):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = model.loss(sentences, golds, decoder)
        assert out.loss.dtype == torch.float32 and torch.isfinite(out.loss)
        out.loss.backward()
        losses.append(float(out.loss.detach()))
        with torch.autocast("cpu", dtype=torch.bfloat16):
            parsed = model.parse(sentences, decoder=decoder)
        assert [len(t.leaves()) for t in parsed] == [len(s) for s in sentences]
    assert losses[0] == pytest.approx(losses[1], rel=1e-5)
