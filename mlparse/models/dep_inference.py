"""Using a trained dependency parser: read CoNLL-U or tokenized text, parse it, write CoNLL-U.

CoNLL-U input keeps everything it has: the output is the input with HEAD and DEPREL written in
(comments, multiword tokens, empty nodes and the other columns as read).  Tokenized text (one
sentence per line, words separated by spaces) becomes one CoNLL-U sentence per non-empty line,
with ``# sent_id = <line>`` naming the input line it answers; a model that takes POS tags as
input refuses it (give CoNLL-U with tags instead).
"""

from __future__ import annotations

from typing import Callable, List, Optional

from mlparse.data.batching import map_in_batches
from mlparse.models.base import Parser
from mlparse.models.inference import takes_tags
from mlparse.trees.dependency import (ConlluDocument, ConlluError, DependencyPrediction, DependencySentence,
                                      looks_like_conllu, parse_conllu, render_conllu, sentence_from_words)



class DependencyInputError(ValueError):
    """A problem with the input, with a message meant for the user (file and line)."""


def read_dependency_input(text: str, parser: Parser, source: str = "<stdin>", input_format: str = "auto",
                          tagger: Optional[Parser] = None) -> ConlluDocument:
    """The sentences to parse, as a CoNLL-U document (``input_format``: auto, conllu or text).  Tokenized text
    for a model that takes tags is tagged by ``tagger`` (the model's bundled tagger), its tags written in
    the column the model reads."""
    if input_format not in ("auto", "conllu", "text"):
        raise DependencyInputError(f"unknown input format {input_format!r} for a dependency model; use auto, conllu or text")
    if input_format == "conllu" or (input_format == "auto" and (source.endswith(".conllu") or looks_like_conllu(text))):
        try:
            return parse_conllu(text.lstrip("\ufeff"), source, bom=text.startswith("\ufeff"))
        except ConlluError as error:
            raise DependencyInputError(str(error)) from None
    first = (getattr(parser, "members", None) or [parser])[0]  # an ensemble's members share their inputs
    column = getattr(getattr(first, "dep_config", None), "tag_column", "upos")  # a model that reads no tags: unused
    if takes_tags(parser) and tagger is None:
        raise DependencyInputError(f"{source}: this model takes POS tags as input and carries no tagger: give "
                                   f"CoNLL-U with a {column.upper()} column instead of tokenized text")
    numbered = [(number, line.split()) for number, line in enumerate(text.splitlines(), start=1) if line.split()]
    tags = None
    if takes_tags(parser) and tagger is not None:
        from mlparse.models.inference import tag_words

        tags = tag_words(tagger, [words for _, words in numbered])
    sentences: List[DependencySentence] = []
    for k, (number, words) in enumerate(numbered):
        try:
            sentence = sentence_from_words(words, source, number)
        except ValueError as error:
            raise DependencyInputError(str(error)) from None
        if tags is not None:
            sentence = _with_tags(sentence, column, tags[k])
        sentences.append(_with_comment(sentence, f"# sent_id = {number}\n"))
    return ConlluDocument(source, tuple(sentences), ("",) + ("\n",) * len(sentences))


def _with_tags(sentence: DependencySentence, column: str, tags: List[str]) -> DependencySentence:
    """``sentence`` (of tokenized text) with ``tags`` in its ``column`` (upos or xpos), in its lines too, so that the
    output CoNLL-U shows the tags the parser read."""
    from dataclasses import replace

    index = 3 if column == "upos" else 4
    lines = list(sentence.lines)
    for position, tag in zip(sentence.word_lines, tags):
        fields = lines[position].rstrip("\n").split("\t")
        fields[index] = tag
        lines[position] = "\t".join(fields) + "\n"
    return replace(sentence, lines=tuple(lines), **{column: tuple(tags)})


def _with_comment(sentence: DependencySentence, comment: str) -> DependencySentence:
    from dataclasses import replace

    return replace(sentence, lines=(comment,) + tuple(sentence.lines),
                   word_lines=tuple(index + 1 for index in sentence.word_lines))


def parse_document(parser: Parser, document: ConlluDocument, budget: int = 5000, decoder: Optional[str] = None,
                   progress: Optional[Callable[[int], None]] = None) -> str:
    """The document with the parser's heads and relations written in, as CoNLL-U text."""
    decoder = decoder or ("torch" if parser.device().type == "cuda" else "cython")
    if budget <= 0:
        raise DependencyInputError(f"the token budget of a forward pass must be positive, got {budget}")
    for sentence in document.sentences:
        if not sentence.words:
            raise DependencyInputError(f"{sentence.source}:{sentence.line}: a sentence without a word line "
                                       "(only comments, multiword tokens or empty nodes)")
        if len(sentence.words) > parser.max_words:
            raise DependencyInputError(
                f"{sentence.source}:{sentence.line}: sentence of {len(sentence.words)} words is longer than this "
                f"model's maximum of {parser.max_words}{_max_len(parser)}")
    sentences = list(document.sentences)
    parser.eval()

    def predict(group: List[DependencySentence]) -> List[DependencyPrediction]:
        out = parser.predict(group, decoder=decoder)
        if progress is not None:
            progress(len(group))
        return out

    predictions = map_in_batches(sentences, [len(s.words) for s in sentences], budget, predict,
                                 cost=parser.memory_cost(training=False, decoder=decoder))
    return render_conllu(document, predictions)


def _max_len(parser: Parser) -> str:
    """`` (model.max_len=N)`` for a single model; an ensemble's members may differ (its maximum is their least)."""
    config = getattr(parser, "config", None)
    return f" (model.max_len={config.max_len})" if config is not None else ""
