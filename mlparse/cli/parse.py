"""``mlparse parse --model MODEL``: parse sentences with a trained parser (loaded by ``mlparse.load``), one tree
(or CoNLL-U sentence) per input sentence out."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Callable, Iterator, Optional

import typer

from mlparse.cli.app import app
from mlparse.cli.consoles import CliConsole
from mlparse.cli.errors import fail, os_error_message, print_warning

console = CliConsole(stderr=True)

#: Inputs with at least this many sentences get a progress bar (when stderr is a terminal).
PROGRESS_MIN_SENTENCES = 200


class InputFormat(str, Enum):
    auto = "auto"
    text = "text"
    trees = "trees"
    conllu = "conllu"


def _read_input(input_file: Optional[Path]) -> tuple:
    """(text, name for messages) of the input file or stdin; unreadable input is a clear error."""
    if input_file is None or str(input_file) == "-":
        data = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        if input_file.is_dir():
            fail(f"--input {input_file} is a folder, not a file", 2)
        if not input_file.is_file():
            fail(f"input file not found: {input_file}", 2)
        try:
            data = input_file.read_bytes()
        except OSError as error:
            fail(os_error_message(error, "cannot read"), 2)
        name = str(input_file)
    try:
        return data.decode("utf-8").removeprefix("\ufeff"), name  # a byte-order mark is not text
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        fail(f"{name}:{line}: not UTF-8 text (byte 0x{data[error.start]:02x}); mlparse parse reads UTF-8", 2)


class _Progress:
    """A transient progress bar on stderr, only for long inputs on a terminal."""

    def __init__(self, total: int) -> None:
        self.bar = None
        if total >= PROGRESS_MIN_SENTENCES and console.is_terminal:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(TextColumn("parsing"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                                console=console, transient=True)
            self.task = self.bar.add_task("parse", total=total)

    def __enter__(self) -> Optional[Callable[[int], None]]:
        if self.bar is None:
            return None
        self.bar.start()
        return lambda done: self.bar.advance(self.task, done)  # type: ignore[union-attr]

    def __exit__(self, *args: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def _lines(trees) -> Iterator[str]:  # type: ignore[no-untyped-def]
    for tree in trees:
        yield (tree.to_bracketed() if tree is not None else "") + "\n"


@app.command("parse")
def parse_command(
    model: Path = typer.Option(..., "--model", help="A run directory (its checkpoints/best.pt is used), a model package (mlparse export), an ensemble (its run directory or package) or a .pt file."),
    input_file: Optional[Path] = typer.Option(
        None, "--input", help="UTF-8 input: tokenized sentences (one per line, words separated by spaces), "
        "bracketed trees (one or several lines each) or CoNLL-U; default (or -): stdin."),
    output_file: Optional[Path] = typer.Option(
        None, "--output", help="Where the trees go (one per line, written all at once); default stdout."),
    input_format: InputFormat = typer.Option(
        InputFormat.auto, "--format", help="auto: CoNLL-U when the file ends in .conllu or its first non-blank line is "
        "a comment or a word line (a constituency model reads its FORM column, and XPOS where a sentence has it); "
        "else for a constituency model trees when the first non-blank line starts a tree, '(S (' or '(NN word)'; "
        "else tokenized text."),
    subbatch_tokens: int = typer.Option(5000, "--batch-tokens", min=1, help="Budget of one forward pass, in token-equivalents (docs/commands/run.md)."),
    trust_checkpoint: bool = typer.Option(
        False, "--trust-checkpoint", help="Read a checkpoint that is not plain data (mlparse's old format) by "
        "unpickling it in full, which runs any code it carries: only for files you trust. `mlparse upgrade` "
        "converts old checkpoints instead."),
    quantize: Optional[bool] = typer.Option(
        None, "--quantize/--no-quantize", help="Parse on the CPU with the linear layers quantized to int8 (dynamic "
        "quantization): faster, and the scores change by the rounding, so some trees can differ (docs/benchmarks.md "
        "gives the measured F1 difference). Default: as the package says (mlparse export --quantize)."),
) -> None:
    """Parse tokenized text or re-parse bracketed trees (their words and POS tags are used).

    Output line k answers input sentence k; an empty input line gives an empty output line.
    Tokenized input gets POS tags from the model's tagging head when it has one, else from the
    tagger the model carries (a package of a parser trained on predicted tags), else the
    placeholder tag UNK.  Words holding ( or ) are written -LRB- / -RRB-, as in the Penn
    Treebank, so that every output tree reads back.  A sentence longer than the model's
    position table (model.max_len - 2 words) is an error naming its line.  CoNLL-U input gives a
    constituency model one tree per sentence (its words, and its XPOS tags where every word has
    one).  A dependency model reads CoNLL-U or tokenized text and writes CoNLL-U (the input's
    other columns as read).
    """
    from mlparse.api import load
    from mlparse.models.inference import ParseInputError, parse_input, read_input
    from mlparse.package import PackageError

    text, name = _read_input(input_file)
    try:
        loaded = load(model, trust=trust_checkpoint, warn=print_warning, quantize=quantize)  # the parser object mlparse.load gives
    except PackageError as error:
        fail(error, 1)
    parser, tagger = loaded.parser, loaded.tagger
    from mlparse.tasks import task_class

    if task_class(parser.task).parse_output == "conllu":
        return _parse_dependency(parser, text, name, input_format.value, subbatch_tokens, output_file, tagger)
    if task_class(parser.task).parse_output == "tags":
        return _tag(loaded, text, name, input_format.value, output_file)
    try:
        sentences = read_input(text, parser, source=name, input_format=input_format.value, tagger=tagger)
        count = sum(item.sentence is not None for item in sentences)
        with _Progress(count) as progress:
            trees = parse_input(parser, sentences, budget=subbatch_tokens, source=name, progress=progress)
    except ParseInputError as error:
        fail(error, 1)
    _emit("".join(_lines(trees)), output_file, name, count, "trees")


def _tag(loaded, text: str, name: str, input_format: str, output_file: Optional[Path]) -> None:  # type: ignore[no-untyped-def]
    """A tagger: CoNLL-U or tokenized text in, CoNLL-U out (the words and their tags; no heads)."""
    from mlparse.models.dep_inference import DependencyInputError, read_dependency_input

    if input_format == "trees":
        fail("--format trees is for constituency models; a tagger reads conllu or text", 2)
    try:
        document = read_dependency_input(text, loaded.parser, source=name, input_format=input_format)
        words = [list(sentence.words) for sentence in document.sentences]
        tagged = loaded.parse_sents(words, output="conllu")
    except (DependencyInputError, ValueError) as error:
        fail(error, 1)
    _emit("".join(sentence.serialize() for sentence in tagged), output_file, name, len(words), "sentences")


def _emit(output: str, output_file: Optional[Path], name: str, count: int, what: str) -> None:
    """Write the parses to stdout, or atomically to ``output_file``; ``count`` of ``what`` (trees, sentences)."""
    from mlparse.io_utils import atomic_write_text

    if output_file is None:
        sys.stdout.write(output)
        sys.stdout.flush()
        if count == 0:
            console.print(f"no sentence in {name}", highlight=False)
        return
    if output_file.is_dir():
        fail(f"--output {output_file} is a folder; give a file name", 2)
    try:
        atomic_write_text(output_file, output)
    except OSError as error:
        fail(os_error_message(error, "cannot write", output_file), 1)
    console.print(f"{count} {what} written to {output_file}", highlight=False, soft_wrap=True)


def _parse_dependency(parser, text: str, name: str, input_format: str, budget: int,  # type: ignore[no-untyped-def]
                      output_file: Optional[Path], tagger=None) -> None:  # type: ignore[no-untyped-def]
    """A dependency model: CoNLL-U or tokenized text in, CoNLL-U out (the input's layout kept)."""
    from mlparse.models.dep_inference import DependencyInputError, parse_document, read_dependency_input

    if input_format == "trees":
        fail("--format trees is for constituency models; a dependency model reads conllu or text", 2)
    try:
        document = read_dependency_input(text, parser, source=name, input_format=input_format, tagger=tagger)
        with _Progress(len(document.sentences)) as progress:
            output = parse_document(parser, document, budget=budget, progress=progress)
    except DependencyInputError as error:
        fail(error, 1)
    _emit(output, output_file, name, len(document.sentences), "sentences")
