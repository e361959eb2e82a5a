"""``mlparse parse`` of a constituency (or joint) model: read input sentences, parse them.

The model is loaded as ``mlparse.load`` loads it (:func:`mlparse.package.load_package`: a run directory, a
package, an ensemble or a checkpoint file), and the same parser object parses here.

Input (``mlparse parse``): either bracketed trees (any root convention, one or
several lines each; their words and POS tags are used), CoNLL-U (its FORM column,
and its XPOS column where every word of a sentence has one: one tree per sentence)
or tokenized text, one sentence per line, words separated by spaces.  For tokenized
text (and CoNLL-U sentences without XPOS) the POS tags
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
from mlparse.models.base import Parser
from mlparse.models.span_parser import Sentence
from mlparse.trees.dependency import looks_like_conllu
from mlparse.trees.tree import Tree
from mlparse.trees.writer import escape_word


class ParseInputError(ValueError):
    """A problem with the input, with a message meant for the user."""


@dataclass
class InputSentence:
    line: int  # 1-based input line where it starts
    sentence: Optional[Sentence]  # None for an empty line


def takes_tags(parser: Parser) -> bool:
    """Does ``parser`` (or a member of an ensemble) read POS tags as input (``model.use_tags``)?"""
    members = list(getattr(parser, "members", None) or [parser])
    return any(getattr(getattr(member, "config", None), "use_tags", False) for member in members)


def tagger_location(model: Union[str, Path], packaged: Optional[str] = None) -> Optional[Path]:
    """Where the tagger a model carries is: ``packaged`` (its :class:`~mlparse.package.PackageInfo` ``tagger``: a
    package's ``tagger`` folder, relative to it, or for a run directory trained on jack-knifed tags the tagger
    run of its dev and test, absolute); None without one."""
    if not packaged:
        return None
    return Path(packaged) if Path(packaged).is_absolute() else Path(model) / packaged


def tag_words(tagger: Parser, sentences: Sequence[Sequence[str]], budget: int = 5000) -> List[List[str]]:
    """The tags ``tagger`` gives each sentence (a list of words), in order, in sub-batches under ``budget``."""
    present = [list(words) for words in sentences]
    cost = tagger.memory_cost(training=False, decoder="cython")
    with torch.no_grad():
        return map_in_batches(present, [len(w) for w in present], budget, lambda group: tagger.predict(group), cost)


#: Input formats of ``mlparse parse``.
INPUT_FORMATS = ("auto", "text", "trees", "conllu")

#: A first line that starts a tree: "( (", "(LABEL (", a one-word tree "(TAG word)", or only "(" / "(LABEL".
_TREE_START = re.compile(r"^\s*\((\s*|[^\s()]+\s+)\(|^\s*\([^\s()]+\s+[^\s()]+\s*\)|^\s*\(\s*[^\s()]*\s*$")


def looks_like_trees(text: str) -> bool:
    """Is ``text`` bracketed trees rather than tokenized sentences?  Decided on its first non-blank line:
    ``( (S``, ``(S (NP``, ``(NN word)``, or a line that only opens a bracket (``(`` or ``(S``)."""
    for line in text.splitlines():
        if line.strip():
            return _TREE_START.match(line) is not None
    return False


def read_input(text: str, parser: Parser, source: str = "<stdin>", input_format: str = "auto",
               tagger: Optional[Parser] = None) -> List[InputSentence]:
    """Sentences from bracketed trees, CoNLL-U or tokenized lines (see the module doc).

    ``input_format``: ``trees``, ``conllu``, ``text``, or ``auto`` (CoNLL-U when ``source`` ends in
    ``.conllu`` or the first non-blank line is a comment or a word line; trees when it starts a tree,
    ``(S (`` or ``(NN word)``; a tokenized sentence such as ``( see below ) ...`` stays text).
    Words holding ``(`` or ``)`` are written ``-LRB-`` / ``-RRB-``, so that every output tree can be read back.
    """
    if input_format not in INPUT_FORMATS:
        raise ParseInputError(f"unknown input format {input_format!r}; use one of {', '.join(INPUT_FORMATS)}")
    if input_format == "conllu" or (input_format == "auto" and (source.endswith(".conllu") or looks_like_conllu(text))):
        return _conllu_input(text, parser, source, tagger)
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
    if takes_tags(parser) and tagger is None:
        raise ParseInputError(f"{source}: this model takes POS tags as input and carries no tagger: give bracketed "
                              "trees, e.g. (S (DT the) (NN dog)), instead of tokenized text")
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split()
        out.append(InputSentence(number, [(UNKNOWN_TAG, escape_word(word)) for word in words] if words else None))
    return _tagged(out, parser, tagger)


def _tagged(untagged: List[InputSentence], parser: Parser, tagger: Optional[Parser]) -> List[InputSentence]:
    """``untagged`` (placeholder tags) with the tagger's tags, as input and on the leaves, when the model carries
    a tagger and has no tagging head of its own; as they are otherwise."""
    if tagger is not None and not parser.span_config.predict_tags:
        present = [item for item in untagged if item.sentence is not None]
        for item, tags in zip(present, tag_words(tagger, [[w for _, w in item.sentence] for item in present])):
            item.sentence = [(tag, word) for tag, (_, word) in zip(tags, item.sentence)]
    return untagged


def _conllu_input(text: str, parser: Parser, source: str, tagger: Optional[Parser]) -> List[InputSentence]:
    """One sentence per CoNLL-U sentence: its words (FORM of the syntactic words, not of multiword tokens or
    empty nodes) and, where every word has an XPOS, those tags, as a tree's are used; the other sentences are
    tagged as tokenized text is."""
    from mlparse.trees.dependency import ConlluError, parse_conllu

    try:
        document = parse_conllu(text.lstrip("\ufeff"), source)
    except ConlluError as error:
        raise ParseInputError(str(error)) from None
    tagged: List[InputSentence] = []
    untagged: List[InputSentence] = []
    for sentence in document.sentences:
        words = [escape_word(word) for word in sentence.words]
        if words and all(tag != "_" for tag in sentence.xpos):
            tagged.append(InputSentence(sentence.line, list(zip(sentence.xpos, words))))
        else:
            untagged.append(InputSentence(sentence.line, [(UNKNOWN_TAG, word) for word in words] or None))
    if untagged and takes_tags(parser) and tagger is None:
        raise ParseInputError(f"{source}:{untagged[0].line}: this model takes POS tags as input and carries no "
                              "tagger, and this CoNLL-U sentence has no XPOS column: give XPOS tags for every word, "
                              "or bracketed trees")
    _tagged(untagged, parser, tagger)
    return sorted(tagged + untagged, key=lambda item: item.line)


def parse_input(parser: Parser, sentences: Sequence[InputSentence], budget: int = 5000,
                decoder: Optional[str] = None, source: str = "<stdin>",
                progress: Optional[Callable[[int], None]] = None) -> List[Optional[Tree]]:
    """Trees for the sentences (None for empty lines); too-long sentences are a clear error naming the line.

    ``progress`` is called with the number of sentences of each finished sub-batch.
    """
    if budget <= 0:
        raise ParseInputError(f"the token budget of a forward pass must be positive, got {budget}")
    decoder = decoder or ("torch" if parser.device().type == "cuda" else "cython")
    config = getattr(parser, "config", None)  # an ensemble has none (its members do)
    table = f", model.max_len={config.max_len}" if config is not None else ""
    for item in sentences:
        if item.sentence is not None and len(item.sentence) > parser.max_words:
            raise ParseInputError(
                f"{source}:{item.line}: sentence of {len(item.sentence)} words is longer than this model's maximum of "
                f"{parser.max_words} (the size of its position table{table})")
    present = [(k, item.sentence) for k, item in enumerate(sentences) if item.sentence is not None]

    from mlparse.tasks import task_for

    task = task_for(parser.task)
    def parse_group(group: List[Sentence]) -> List[Tree]:
        with torch.no_grad():
            predictions = parser.predict(group, decoder=decoder)
        if progress is not None:
            progress(len(group))
        return [task.render(None, p, "tree") for p in predictions]  # a joint prediction: its tree

    cost = parser.memory_cost(training=False, decoder=decoder)
    trees = map_in_batches([s for _, s in present], [len(s) for _, s in present], budget, parse_group, cost)
    out: List[Optional[Tree]] = [None] * len(sentences)
    for (k, _), tree in zip(present, trees):
        out[k] = tree
    return out


