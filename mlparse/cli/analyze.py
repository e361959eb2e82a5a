"""``mlparse analyze --model RUN_DIR``: test-time attention analysis (Kitaev & Klein 2018, Tables 1 and 2) and
label attention heads; ``mlparse analyze errors RUN [RUN2]``, a command of its own with its own ``--help``:
breakdowns of a run's predictions against gold (issue 24 §3).

``analyze`` is a command group whose callback runs the attention probes when no command follows.  The
options of ``errors`` were also accepted before the word ``errors`` when it was an optional first argument
(``mlparse analyze --split dev errors RUN``); the group still takes them there, hidden, and hands them on.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from typer.core import TyperGroup
from rich.table import Table

from mlparse.cli.app import app
from mlparse.cli.consoles import CliConsole
from mlparse.cli.errors import fail, os_error_message, print_warning

console = CliConsole(stderr=True)
out = CliConsole()


def parse_windows(text: str) -> List[int]:
    """``"5,10,20"`` -> [5, 10, 20]; ``""`` or ``none`` -> no window probes."""
    if text.strip().lower() in ("", "none"):
        return []
    values = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit() or int(part) < 1:
            raise ValueError(f"--windows takes distances of at least 1 separated by commas (5,10,20), got {part!r}")
        values.append(int(part))
    return sorted(set(values))


def _print_tables(analysis) -> None:  # type: ignore[no-untyped-def]
    from mlparse.analysis.render import ablation_rows, window_rows

    rows = ablation_rows(analysis)
    if len(rows) > 1:
        table = Table(title="Content and position attention disabled at test time (Table 1)")
        for column in ("content attention", "position attention", "F1", "Δ F1"):
            table.add_column(column, justify="right" if column in ("F1", "Δ F1") else "left")
        for row in rows:
            table.add_row(*row)
        out.print(table)
    table = Table(title="Attention windows at test time (Table 2)")
    for column in ("distance", "F1 strict (Δ)", "F1 relaxed (Δ)"):
        table.add_column(column, justify="right")
    for row in window_rows(analysis):
        table.add_row(*row)
    out.print(table)


class _AnalyzeGroup(TyperGroup):
    """Names the one command and the probes' option when the word after ``analyze`` is neither."""

    def resolve_command(self, ctx, args):  # type: ignore[no-untyped-def]
        try:
            return super().resolve_command(ctx, args)
        except Exception as error:  # click's UsageError (typer may carry its own click): add to its message
            message = getattr(error, "message", None)
            if isinstance(message, str) and message.startswith("No such command"):
                error.message = (f"{message.rstrip('.')}: mlparse analyze takes the command errors (mlparse analyze "
                                 "errors RUN [RUN2]) or --model RUN (the attention probes)")
            raise


analyze_app = typer.Typer(cls=_AnalyzeGroup, add_completion=False, pretty_exceptions_enable=False,
                          subcommand_metavar="[errors RUN [RUN2]]")
app.add_typer(analyze_app, name="analyze")

#: The options ``errors`` took before its name when it was an argument, and the group still hands on.
_FORWARDED = ("split", "gold", "output_format", "output_dir", "rescore")


@analyze_app.callback(invoke_without_command=True)
def analyze_command(
    ctx: typer.Context,
    model: Optional[Path] = typer.Option(None, "--model", help="A run directory (its checkpoints/best.pt and recipe.yaml are used)."),
    split: Optional[str] = typer.Option(None, "--split", help="Which split to score: dev or test (default: dev)."),
    data: Optional[Path] = typer.Option(None, "--data", help="Gold trees to score instead (one TOP-rooted tree per line)."),
    gold: Optional[Path] = typer.Option(None, "--gold", hidden=True, help="Taken by errors (given before its name)."),
    output_format: Optional[str] = typer.Option(None, "--format", hidden=True,
                                                help="Taken by errors (given before its name)."),
    rescore: bool = typer.Option(False, "--rescore", hidden=True, help="Taken by errors (given before its name)."),
    windows: str = typer.Option("5,10,15,20,30,40", "--windows",
                                help="Window distances for Table 2, comma-separated; 'none' skips windows."),
    ablations: bool = typer.Option(True, "--ablations/--no-ablations", help="Run the content/position probes (Table 1)."),
    max_sentences: Optional[int] = typer.Option(None, "--max-sentences", min=1, help="Score only the first N sentences."),
    subbatch_tokens: int = typer.Option(5000, "--batch-tokens", min=1, help="Budget of one forward pass, in token-equivalents (docs/commands/run.md)."),
    output_dir: Optional[Path] = typer.Option(None, "--output-dir",
                                              help="Where <split>.json and <split>.md go; default RUN_DIR/analysis."),
    trust_checkpoint: bool = typer.Option(
        False, "--trust-checkpoint", help="Read a checkpoint that is not plain data (mlparse's old format) by "
        "unpickling it in full, which runs any code it carries: only for files you trust. `mlparse upgrade` "
        "converts old checkpoints instead."),
    heads: bool = typer.Option(False, "--heads", help="Label attention heads instead (a joint model without the "
                               "position-wise feed-forward layer): each head's contribution to the predicted spans, "
                               "the top heads per label, bar charts (Mrini et al. 2020, Figures 6 and 8)."),
    sentence: Optional[int] = typer.Option(None, "--sentence", min=1, help="With --heads and --span: the sentence "
                                           "(1-based) whose span's head-to-word attention is shown."),
    span: Optional[str] = typer.Option(None, "--span", help="With --heads and --sentence: the span START,END "
                                       "(fenceposts: words START+1..END)."),
) -> None:
    """Perturb a trained span parser's attention at test time and re-score a split with the evalb port, or
    (--heads) read a joint model's label attention heads.  `mlparse analyze errors RUN [RUN2]` is another
    command: breakdowns of a run's predictions against gold (`mlparse analyze errors --help`).

    Table 1: content or position attention dropped in all, the first or the last layers.
    Table 2: attention limited to a distance in every layer, strict or relaxed (start, first word,
    last word and stop see everything).  Results go to RUN_DIR/analysis/<split>.json and .md,
    written atomically, and are printed as tables.
    """
    from mlparse.analysis.attention_probes import analyze, planned_probes
    from mlparse.analysis.render import to_markdown
    from mlparse.config import ConfigError, recipe_from_yaml_text
    from mlparse.io_utils import atomic_write_json, atomic_write_text
    from mlparse.package import PackageError
    from mlparse.run_dir import RunDir
    from mlparse.tasks.treebank import DataError, check_lengths, read_split
    from mlparse.tasks.evalb_scoring import EvaluationError, check_params

    if ctx.invoked_subcommand is not None:  # errors: hand on what was given before its name
        if model is not None or data is not None or heads:
            fail("--model, --data and --heads belong to the attention probes (mlparse analyze --model RUN); "
                 "mlparse analyze errors takes run directories: mlparse analyze errors RUN [RUN2]", 2)
        ctx.obj = {"split": split, "gold": gold, "output_format": output_format, "output_dir": output_dir,
                   "rescore": rescore or None}
        return
    if gold is not None or output_format is not None or rescore:
        fail("--gold, --format and --rescore belong to mlparse analyze errors RUN [RUN2]; the attention probes take "
             "--model RUN (and --data for other gold trees)", 2)
    if model is None:
        fail("mlparse analyze needs --model RUN (attention probes; see mlparse analyze --help), or the command "
             "errors: mlparse analyze errors RUN [RUN2] (see mlparse analyze errors --help)", 2)
    split = split or "dev"
    if split not in ("dev", "test"):
        fail(f"--split must be dev or test, got {split!r}", 2)
    try:
        distances = parse_windows(windows)
    except ValueError as error:
        fail(error, 2)
    if not model.is_dir():
        fail(f"--model {model}: not a run directory (mlparse analyze needs the run's recipe.yaml and checkpoints/)", 2)
    recipe_file = RunDir(model).recipe
    try:
        config = recipe_from_yaml_text(recipe_file.read_text(encoding="utf-8"), source=str(recipe_file))
    except FileNotFoundError:
        fail(f"{model} has no recipe.yaml (is it a run directory written by mlparse run?)", 1)
    except (ConfigError, OSError, UnicodeDecodeError) as error:
        fail(f"{recipe_file}: {error}", 1)
    if heads or sentence is not None or span is not None:
        _analyze_heads(model, config, split, data, max_sentences, subbatch_tokens, output_dir, trust_checkpoint,
                       heads, sentence, span)
        return
    from mlparse.config.kinds import declaration

    if not declaration(config.model.kind).attention_probes:
        fail(f"{model} holds a {config.model.kind} parser ({config.task}); mlparse analyze probes the attention of "
             "span parsers (Kitaev & Klein 2018, Section 4); --heads reads the heads of a joint model", 1)
    gold_path = data if data is not None else config.data.split_path(split)
    params = config.data.evalb_params
    try:
        check_params(params)
        parser = _load_single(model, trust_checkpoint)
        gold_split = read_split(gold_path)
        gold = gold_split.trees[:max_sentences] if max_sentences else gold_split.trees
        gold_split.examples = gold
        check_lengths(gold_split, parser.max_words, f"the model allows {parser.max_words} words")
        if parser.config.use_tags:
            console.print(f"note: the model takes POS tags as input; the probes give it the tags of the trees in "
                          f"{gold_path} (the run's data.eval_tags: {config.data.eval_tags})", highlight=False,
                          soft_wrap=True)
        if ablations and not parser.config.factored:
            console.print("note: the model is unfactored; content/position ablation needs a factored model, "
                          "so only the window probes run", highlight=False, soft_wrap=True)
        probes = planned_probes(parser, distances, ablations)
        if not probes:
            fail("nothing to analyze: no window distances and no ablations (--windows none --no-ablations)", 2)
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=console, transient=True, disable=not console.is_terminal) as bar:
            task = bar.add_task(f"probing {len(gold)} {split} sentences", total=len(probes) + 1)
            analysis = analyze(parser, gold, params, run_dir=str(model), split=split, data=str(gold_path),
                               windows=distances, ablations=ablations, budget=subbatch_tokens,
                               progress=lambda probe: bar.advance(task))
    except (PackageError, DataError, EvaluationError) as error:
        fail(error, 1)
    target = output_dir if output_dir is not None else RunDir(model).analysis
    json_path, markdown_path = target / f"{split}.json", target / f"{split}.md"
    try:
        atomic_write_json(json_path, analysis.to_json_dict())
        atomic_write_text(markdown_path, to_markdown(analysis))
    except OSError as error:
        fail(os_error_message(error, "cannot write", json_path), 1)
    _print_tables(analysis)
    console.print(f"{len(analysis.probes)} probes on {analysis.sentences} sentences in {analysis.seconds:.1f} s; "
                  f"written to {json_path} and {markdown_path}", highlight=False, soft_wrap=True)


def _parse_span(sentence: Optional[int], span: Optional[str]):  # type: ignore[no-untyped-def]
    if sentence is None and span is None:
        return None
    if sentence is None or span is None:
        raise ValueError("--sentence and --span go together (--sentence 3 --span 0,4)")
    parts = span.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"--span takes START,END (fenceposts, e.g. 0,4), got {span!r}")
    return sentence, int(parts[0]), int(parts[1])


def _analyze_heads(model: Path, config, split: str, data: Optional[Path], max_sentences: Optional[int],  # type: ignore[no-untyped-def]
                   budget: int, output_dir: Optional[Path], trust_checkpoint: bool, heads: bool,
                   sentence: Optional[int], span: Optional[str]) -> None:
    """``--heads``: head contributions of a label attention model, written as JSON, Markdown and PNG charts."""
    from mlparse.analysis.head_contributions import HeadAnalysisError, analyze_heads, bar_charts, to_markdown
    from mlparse.io_utils import atomic_write_bytes, atomic_write_json, atomic_write_text
    from mlparse.package import PackageError
    from mlparse.run_dir import RunDir
    from mlparse.tasks.treebank import DataError, check_lengths, read_split

    if not heads:
        fail("--sentence and --span show a span's head-to-word attention: add --heads", 2)
    try:
        chosen = _parse_span(sentence, span)
    except ValueError as error:
        fail(error, 2)
    from mlparse.config.kinds import declaration

    if not declaration(config.model.kind).label_attention:
        fail(f"{model} holds a {config.model.kind} parser; --heads reads the heads of a Label Attention Layer "
             "(model.kind: joint)", 1)
    gold_path = data if data is not None else config.split_path(split)
    try:
        parser = _load_single(model, trust_checkpoint)
        gold_split = read_split(gold_path)
        if max_sentences:
            gold_split.examples = gold_split.examples[:max_sentences]
        check_lengths(gold_split, parser.max_words, f"the model allows {parser.max_words} words")
        analysis = analyze_heads(parser, gold_split.sentences, run_dir=str(model), split=split, budget=budget,
                                 span=chosen)
    except (PackageError, DataError, HeadAnalysisError) as error:
        fail(error, 1)
    target = output_dir if output_dir is not None else RunDir(model).analysis
    try:
        charts = bar_charts(analysis)
    except ImportError:
        charts = {}
        analysis.notes.append("matplotlib is not installed: no bar charts (pip install matplotlib)")
    json_path, markdown_path = target / f"heads-{split}.json", target / f"heads-{split}.md"
    try:
        for name, png in charts.items():
            atomic_write_bytes(target / name, png)
        analysis.charts = sorted(charts)
        atomic_write_json(json_path, analysis.to_json_dict())
        atomic_write_text(markdown_path, to_markdown(analysis))
    except OSError as error:
        fail(os_error_message(error, "cannot write", json_path), 1)
    out.print(to_markdown(analysis), highlight=False, soft_wrap=True)
    for note in analysis.notes:
        print_warning(note)
    console.print(f"head contributions over {analysis.sentences} {split} sentences written to {json_path}, "
                  f"{markdown_path}" + (f" and {len(charts)} chart(s)" if charts else ""), highlight=False,
                  soft_wrap=True)


@analyze_app.command("errors", short_help="Breakdowns of a run's predictions against gold (brackets by label and "
                     "length, error classes; dependency arcs), or two runs' side by side.")
def errors_command(
    ctx: typer.Context,
    runs: List[Path] = typer.Argument(..., metavar="RUN [RUN2]", help="One run directory (trained, ensemble or "
                                      "external), or two side by side."),
    split: Optional[str] = typer.Option(None, "--split", help="The split whose predictions are broken down: dev or "
                                        "test (default: test)."),
    gold: Optional[Path] = typer.Option(None, "--gold", help="The gold file (default: the one results.json records, "
                                        "else the recipe's split)."),
    output_format: Optional[str] = typer.Option(None, "--format", help="table (terminal), markdown or json "
                                                "(default: table)."),
    output_dir: Optional[Path] = typer.Option(None, "--output-dir", help="Where errors-<split>.json and .md go "
                                              "(default: RUN/analysis; with two runs, nowhere unless given)."),
    rescore: bool = typer.Option(False, "--rescore", help="Score a run whose gold file has changed since it was "
                                 "scored against the file as it is now, instead of refusing it."),
) -> None:
    """Break a run's predictions down against gold, or two runs' side by side (B minus A): constituency
    brackets by label and sentence length and Kummerfeld et al. (2012)'s error classes; dependency arcs by
    relation, length and distance to the root (docs/breakdowns.md).  Reads prediction files and gold only,
    so external runs (mlparse score) work too.
    """
    given = {"split": split, "gold": gold, "output_format": output_format, "output_dir": output_dir,
             "rescore": rescore or None}
    before = ctx.obj if isinstance(ctx.obj, dict) else {}  # given before the word errors (the old form)
    chosen = {key: given[key] if given[key] is not None else before.get(key) for key in _FORWARDED}
    _analyze_errors(list(runs), chosen["split"] or "test", chosen["gold"], chosen["output_format"] or "table",
                    chosen["output_dir"], bool(chosen["rescore"]))


def _analyze_errors(runs: List[Path], split: str, gold: Optional[Path], output_format: str,
                    output_dir: Optional[Path], rescore: bool = False) -> None:
    """``errors RUN [RUN2]``: breakdowns from the prediction files and gold (works on external runs too)."""
    from mlparse.compare.breakdowns.compute import breakdown_of, side_by_side
    from mlparse.compare.breakdowns.inputs import InputError, run_inputs
    from mlparse.compare.breakdowns.render import rich_tables, to_json, to_markdown
    from mlparse.io_utils import atomic_write_json, atomic_write_text
    from mlparse.run_dir import RunDir

    if not 1 <= len(runs) <= 2:
        fail(f"mlparse analyze errors takes one or two run directories, got {len(runs)}", 2)
    if output_format not in ("table", "markdown", "json"):
        fail(f"--format must be table, markdown or json, got {output_format!r}", 2)
    if split not in ("dev", "test"):
        fail(f"--split must be dev or test, got {split!r}", 2)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    try:
        sides = [run_inputs(run, split, gold=gold, rescore=rescore) for run in runs]
        for note in (note for side in sides for note in side.notes):
            console.print(f"note: {note}", highlight=False, soft_wrap=True, markup=False)
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=console, transient=True, disable=not console.is_terminal) as bar:
            task = bar.add_task(f"repairing {split} trees", total=None)
            progress = lambda done, total: bar.update(task, completed=done, total=total)  # noqa: E731
            result = side_by_side(sides[0], sides[1], split, progress) if len(sides) == 2 else \
                breakdown_of(sides[0], split, progress)
    except InputError as error:
        fail(error, 1)
    markdown = to_markdown(result)
    written = []
    target = output_dir if output_dir is not None else (RunDir(runs[0]).analysis if len(runs) == 1 else None)
    if target is not None:
        stem = RunDir(runs[0]).errors(split).stem if len(runs) == 1 else \
            f"errors-{split}-{runs[0].name}-vs-{runs[1].name}"
        json_path, markdown_path = target / f"{stem}.json", target / f"{stem}.md"
        try:
            atomic_write_json(json_path, to_json(result))
            atomic_write_text(markdown_path, markdown + "\n")
        except OSError as error:
            fail(os_error_message(error, "cannot write", json_path), 1)
        written = [json_path, markdown_path]
    if output_format == "json":
        import json

        typer.echo(json.dumps(to_json(result), indent=2, ensure_ascii=False))
    elif output_format == "markdown":
        out.print(markdown, highlight=False, soft_wrap=True, markup=False)
    else:
        _print_breakdown_tables(rich_tables(result), markdown)
    if written:
        console.print(f"written to {written[0]} and {written[1]}", highlight=False, soft_wrap=True)


def _print_breakdown_tables(tables: list, markdown: str) -> None:
    """The tables on a terminal wide enough for each of them (cells wrap at spaces, never cut); else, on a pipe,
    a file or a narrow terminal, the same tables as Markdown, where rich would shorten cells to '…'."""
    wide = out.options.update(max_width=1_000_000)  # a table's own minimum width, not the console's
    if out.is_terminal and all(out.measure(table, options=wide).minimum <= out.width for table in tables):
        for table in tables:
            out.print(table)
        return
    out.print(markdown, highlight=False, soft_wrap=True, markup=False)


def _load_single(model: Path, trust: bool):  # type: ignore[no-untyped-def]
    """The parser of the run directory ``model``, loaded as ``mlparse.load`` loads it; an ensemble is refused
    (its members are run directories of their own)."""
    from mlparse.package import PackageError, load_package

    parser, _ = load_package(model, trust=trust, warn=print_warning)
    if parser.kind == "ensemble":
        raise PackageError(f"{model} is an ensemble: mlparse analyze reads one model; give one of its members' run "
                           "directories")
    return parser
