"""Using a trained span parser: load it from a run directory, read input sentences, parse them.

Input (``mlparse parse``): either bracketed trees (any root convention, one or
several lines each; their words and POS tags are used) or tokenized text, one
sentence per line, words separated by spaces.  For tokenized text the POS tags
come from the model's tagging head when it was trained with one; otherwise the
leaves get the placeholder tag ``UNK`` (a model that takes tags as input
refuses tokenized text).  An empty input line gives an empty output line, so
output line k always answers input line k.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Union

import torch

from mlparse.data.batching import map_in_batches
from mlparse.data.vocab import UNKNOWN_TAG
from mlparse.models.memory import subbatch_cost
from mlparse.models.base import Parser
from mlparse.models.registry import UnknownParserKind, parser_from_spec
from mlparse.models.span_parser import CheckpointFormatError, Sentence, SpanParser
from mlparse.trees.tree import Tree


class ParseInputError(ValueError):
    """A problem with the input or the model file, with a message meant for the user."""


@dataclass
class InputSentence:
    line: int  # 1-based input line where it starts
    sentence: Optional[Sentence]  # None for an empty line


def best_checkpoint(model: Union[str, Path]) -> Path:
    """``RUN_DIR/checkpoints/best.pt`` for a run directory, the weights of a model package (``mlparse export``),
    or the file itself."""
    from mlparse import package
    from mlparse.run_dir import ENSEMBLE_FILE, RunDir

    path = Path(model)
    if path.is_dir() and (path / ENSEMBLE_FILE).is_file():
        raise ParseInputError(f"{path} is an ensemble: mlparse parse takes a single model (a run directory or a "
                              "package); parse with one of its members, or load the ensemble from Python "
                              "(mlparse.load)")
    if package.is_package(path):
        try:
            package.read_info(path)  # refuses a package of a newer format, naming both versions
        except package.PackageError as error:
            raise ParseInputError(str(error)) from None
        return path / package.WEIGHTS_FILE
    if path.is_dir():
        candidate = RunDir(path).best
        if not candidate.is_file():
            raise ParseInputError(f"{path} has no checkpoints/best.pt (is it a finished run directory?)")
        return candidate
    if not path.is_file():
        raise ParseInputError(f"model not found: {path}")
    return path


def load_parser(model: Union[str, Path], device: Optional[torch.device] = None, trust: bool = False,
                warn: Optional[Callable[[str], None]] = None) -> Parser:
    """The parser (any kind) saved in a run directory's best checkpoint (or a checkpoint file), in eval mode.

    The file is read as plain data (:func:`mlparse.train.checkpoint.load`): one that would need code to
    run is refused unless ``trust`` (``--trust-checkpoint``), after ``warn`` says why that is dangerous.
    """
    from mlparse.run_dir import BEST_CHECKPOINT, LAST_CHECKPOINT
    from mlparse.train import checkpoint

    path = best_checkpoint(model)
    device = device or torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        saved = checkpoint.load(path, map_location=device, trust=trust, warn=warn)
    except checkpoint.CheckpointError as error:
        last = path.parent / LAST_CHECKPOINT
        hint = (f" ({last} may still be good: --model {last})" if isinstance(error, checkpoint.CorruptCheckpoint)
                and path.name == BEST_CHECKPOINT and last.is_file() else "")
        raise ParseInputError(f"{error}{hint}") from None
    from mlparse.modules.pretrained_loading import PretrainedError, with_local_copy
    from mlparse.package import PRETRAINED_DIR

    spec = saved["spec"]
    if spec.get("pretrained") and (path.parent / PRETRAINED_DIR).is_dir():  # a package's copy of its encoder
        spec = with_local_copy(spec, path.parent / PRETRAINED_DIR)
    try:
        parser = parser_from_spec(spec)
        parser.load_state_dict(saved["model"])
    except (CheckpointFormatError, UnknownParserKind, PretrainedError) as error:
        raise ParseInputError(f"{path}: {error}") from None
    except Exception as error:  # a spec or weights that do not fit together: not a usable model
        detail = str(error).strip().splitlines()[0][:200] if str(error).strip() else ""
        raise ParseInputError(f"{path}: not a parser checkpoint ({type(error).__name__}"
                              f"{': ' + detail if detail else ''})") from None
    return parser.to(device).eval()


#: Input formats of ``mlparse parse``.
INPUT_FORMATS = ("auto", "text", "trees")

#: Bracket characters cannot appear in a bracketed tree's words; treebanks write them as these tokens.
_BRACKET_WORDS = {"(": "-LRB-", ")": "-RRB-"}

#: A first line that starts a tree: "( (", "(LABEL (", a one-word tree "(TAG word)", or only "(" / "(LABEL".
_TREE_START = re.compile(r"^\s*\((\s*|[^\s()]+\s+)\(|^\s*\([^\s()]+\s+[^\s()]+\s*\)|^\s*\(\s*[^\s()]*\s*$")


def escape_word(word: str) -> str:
    """``(`` and ``)`` inside a word become ``-LRB-`` and ``-RRB-``, as in the Penn Treebank."""
    if "(" not in word and ")" not in word:
        return word
    return "".join(_BRACKET_WORDS.get(char, char) for char in word)


def looks_like_trees(text: str) -> bool:
    """Is ``text`` bracketed trees rather than tokenized sentences?  Decided on its first non-blank line:
    ``( (S``, ``(S (NP``, ``(NN word)``, or a line that only opens a bracket (``(`` or ``(S``)."""
    for line in text.splitlines():
        if line.strip():
            return _TREE_START.match(line) is not None
    return False


def read_input(text: str, parser: SpanParser, source: str = "<stdin>", input_format: str = "auto") -> List[InputSentence]:
    """Sentences from bracketed trees or tokenized lines (see the module doc).

    ``input_format``: ``trees``, ``text``, or ``auto`` (trees when the first non-blank line starts a
    tree, ``(S (`` or ``(NN word)``; a tokenized sentence such as ``( see below ) ...`` stays text).
    Words holding ``(`` or ``)`` are written ``-LRB-`` / ``-RRB-``, so that every output tree can be read back.
    """
    if input_format not in INPUT_FORMATS:
        raise ParseInputError(f"unknown input format {input_format!r}; use one of {', '.join(INPUT_FORMATS)}")
    if input_format == "trees" or (input_format == "auto" and looks_like_trees(text)):
        from mlparse.trees.reader import parse_bracketed

        try:
            result = parse_bracketed(text, source=source)
        except ValueError as error:
            hint = "" if input_format == "trees" else "\n(the input was read as trees; --format text reads it as tokenized text)"
            raise ParseInputError(f"{error}{hint}") from None
        lines = list(getattr(result, "lines", []) or range(1, len(result.trees) + 1))
        return [InputSentence(line, [(leaf.tag, leaf.word) for leaf in tree.leaves()])
                for line, tree in zip(lines, result.trees)]
    if parser.config.use_tags:
        raise ParseInputError(f"{source}: this model takes POS tags as input: give bracketed trees, e.g. "
                              "(S (DT the) (NN dog)), instead of tokenized text")
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split()
        out.append(InputSentence(number, [(UNKNOWN_TAG, escape_word(word)) for word in words] if words else None))
    return out


def parse_input(parser: SpanParser, sentences: Sequence[InputSentence], budget: int = 5000,
                decoder: Optional[str] = None, source: str = "<stdin>",
                progress: Optional[Callable[[int], None]] = None) -> List[Optional[Tree]]:
    """Trees for the sentences (None for empty lines); too-long sentences are a clear error naming the line.

    ``progress`` is called with the number of sentences of each finished sub-batch.
    """
    if budget <= 0:
        raise ParseInputError(f"the token budget of a forward pass must be positive, got {budget}")
    decoder = decoder or ("torch" if parser.device().type == "cuda" else "cython")
    for item in sentences:
        if item.sentence is not None and len(item.sentence) > parser.max_words:
            raise ParseInputError(
                f"{source}:{item.line}: sentence of {len(item.sentence)} words is longer than this model's maximum of "
                f"{parser.max_words} (the size of its position table, model.max_len={parser.config.max_len})")
    present = [(k, item.sentence) for k, item in enumerate(sentences) if item.sentence is not None]

    def parse_group(group: List[Sentence]) -> List[Tree]:
        trees = parser.parse(group, decoder=decoder)
        if progress is not None:
            progress(len(group))
        return trees

    cost = subbatch_cost(parser.config, len(parser.labels), training=False, decoder=decoder)
    trees = map_in_batches([s for _, s in present], [len(s) for _, s in present], budget, parse_group, cost)
    out: List[Optional[Tree]] = [None] * len(sentences)
    for (k, _), tree in zip(present, trees):
        out[k] = tree
    return out


