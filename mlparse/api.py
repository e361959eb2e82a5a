"""Using a trained parser from Python: ``mlparse.load(PATH)`` and :class:`LoadedParser`.

``PATH`` is a model package (``mlparse export``), a finished run directory, or the run directory of an
ensemble (``mlparse ensemble``: its members are loaded from their own run directories and their scores
averaged, as the ensemble was scored).  A sentence is

- a list of words (strings), e.g. ``["The", "dog", "barks", "."]``;
- a list of ``(word, tag)`` pairs, whose tags feed a model that takes POS tags as input (other
  models ignore them);  a model that takes tags and carries its tagger (a package of a parser trained on
  jack-knifed tags, or exported with ``--tagger``) tags words and raw text itself first, as in training;
- raw text (a string), split into words by spaCy's tokenizer for the model's language (needs the
  ``spacy`` extra; no spaCy model is downloaded, only the language's rules are used).

Constituency models give an ``nltk.Tree`` (needs the ``nltk`` extra) rooted in ``TOP``, the tree
``mlparse parse`` writes: a word holding ``(`` or ``)`` is written ``-LRB-`` / ``-RRB-`` in it, as
the Penn Treebank has it, and a word given as ``-LRB-`` stays so.  Dependency models give a
``conllu.TokenList`` (HEAD and DEPREL filled in, tags predicted when the model has a tagging head).
``output="tree"`` / ``output="prediction"`` give mlparse's own objects instead
(:class:`mlparse.trees.tree.Tree`, :class:`mlparse.trees.dependency.DependencyPrediction`).

:meth:`LoadedParser.parse_sents` streams: it reads sentences ahead until their cost fills
``LOOKAHEAD`` forward passes of the token budget, packs them into sub-batches of similar lengths
(the way ``mlparse parse`` does over its whole input), parses them and yields their results in
input order before reading on.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import torch

from mlparse.package import PackageInfo, language_code, load_package
from mlparse.trees.writer import escape_word  # noqa: F401  (part of the API: how words with brackets are written)

#: A sentence as the API takes it.
SentenceInput = Union[str, Sequence[str], Sequence[Tuple[str, str]]]

#: How many forward passes' worth of sentences parse_sents reads ahead to sort them by length.
LOOKAHEAD = 8


class InputError(ValueError):
    """A sentence the parser cannot take; ``index`` is its position in the input (0-based)."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(f"sentence {index}: {message}")
        self.index = index


class EmptySentence(InputError):
    """A sentence without a word."""

    def __init__(self, index: int) -> None:
        super().__init__(index, "empty: a sentence needs at least one word")


class SentenceTooLong(InputError):
    """A sentence longer than the model's position table allows."""

    def __init__(self, index: int, length: int, maximum: int) -> None:
        super().__init__(index, f"{length} words, longer than this model's maximum of {maximum} words")
        self.length, self.maximum = length, maximum


class MissingExtra(ImportError):
    """A feature needs an optional dependency that is not installed; the message names the extra."""

    def __init__(self, feature: str, extra: str, module: str) -> None:
        super().__init__(f"{feature} needs the '{module}' package: pip install 'mlparse[{extra}]'")
        self.extra = extra


def load(path: Any, device: Optional[Union[str, torch.device]] = None, trust: bool = False,
         warn: Optional[Callable[[str], None]] = None, quantize: Optional[bool] = None) -> "LoadedParser":
    """The parser of a model package, a finished run directory, an ensemble's run directory or a checkpoint file,
    ready to parse (eval mode); ``mlparse parse`` parses with this same parser object (:attr:`LoadedParser.parser`).

    ``device``: ``"cpu"``, ``"cuda"``, ... (default: CUDA when available; the CPU with ``quantize``).  ``trust``:
    read a checkpoint that is not plain data (mlparse's old format) by unpickling it, which runs any code it
    carries, after ``warn`` (a function given the message) says so; only for files you trust.  ``quantize``:
    True parses with the linear layers quantized to int8 (CPU only: faster, scores change by the rounding),
    False with the float weights, None as the package says (``mlparse export --quantize``); it applies to
    the bundled tagger too.  Raises :class:`mlparse.package.ModelNotFound`, :class:`~mlparse.package.NotAModel`
    or :class:`~mlparse.package.IncompatiblePackage` (all :class:`~mlparse.package.PackageError`).
    """
    parser, info = load_package(path, device, trust=trust, warn=warn, quantize=quantize)
    tagger = None
    if not parser.tags_words:
        from mlparse.models.inference import tagger_location

        location = tagger_location(path, info.tagger)
        if location is not None:
            tagger, _ = load_package(location, device, trust=trust, warn=warn, quantize=quantize)
            if not tagger.tags_words:
                from mlparse.package import NotAModel

                raise NotAModel(f"{location}: the bundled tagger is a {tagger.kind} model, not a tagger")
    return LoadedParser(parser, info, tagger)


class LoadedParser:
    """A trained parser (any kind) with a sentence-level interface; see the module doc."""

    def __init__(self, parser: Any, info: PackageInfo, tagger: Any = None) -> None:
        self.parser = parser
        self.info = info
        self.tagger = tagger  # a TaggerParser that tags sentences given without tags, or None
        self.kind: str = parser.kind
        self.task: str = parser.task
        self.language: str = info.language
        self.max_words: int = parser.max_words
        self.decoder = "torch" if parser.device().type == "cuda" else "cython"
        self._cost = parser.memory_cost(training=False, decoder=self.decoder)
        self._tokenizer: Any = None
        from mlparse.tasks import task_class

        self._task = task_class(self.task).for_model(parser)  # its text input and output

    def __repr__(self) -> str:
        return f"LoadedParser({self.kind} {self.task}, {self.info.language} {self.info.dataset}, on {self.parser.device()})"

    # -- parsing ---------------------------------------------------------------------------------
    def parse(self, sentence: SentenceInput, output: Optional[str] = None) -> Any:
        """The parse of one sentence (see the module doc for inputs and outputs)."""
        return next(iter(self.parse_sents([sentence], output=output)))

    def parse_sents(self, sentences: Iterable[SentenceInput], batch_size: Optional[int] = None,
                    output: Optional[str] = None) -> Iterator[Any]:
        """The parses of ``sentences``, in their order, yielded as each group of sentences is parsed.

        ``batch_size`` is the budget of one forward pass in token-equivalents (a sentence of n words
        costs about n + 2; default: the recipe's ``eval.subbatch_tokens``).  A sentence that cannot be
        parsed raises an :class:`InputError` naming its index when the stream reaches it (the
        sentences before it have been yielded).
        """
        budget = self.info.parse_budget if batch_size is None else batch_size
        if isinstance(budget, bool) or not isinstance(budget, int) or budget <= 0:
            raise ValueError(f"batch_size is a token budget and must be a positive integer, got {batch_size!r}")
        output = self._output(output)
        if isinstance(sentences, (str, bytes)):
            raise TypeError("parse_sents takes an iterable of sentences; parse() takes one sentence")
        window: List[Tuple[List[str], Optional[List[str]]]] = []
        filled = 0.0
        for index, sentence in enumerate(sentences):
            try:
                words, tags = self._words(index, sentence)
            except InputError:
                if window:  # the sentences before it are parsed and yielded first
                    yield from self._parse_window(window, budget, output)
                raise
            window.append((words, tags))
            filled += self._cost(len(words))
            if filled >= LOOKAHEAD * budget:
                yield from self._parse_window(window, budget, output)
                window, filled = [], 0.0
        if window:
            yield from self._parse_window(window, budget, output)

    # -- inputs ----------------------------------------------------------------------------------
    def _output(self, output: Optional[str]) -> str:
        choices = self._task.outputs
        output = output or choices[0]
        if output not in choices:
            raise ValueError(f"output {output!r} is not one of {', '.join(choices)} for a {self.task} model")
        if output == "nltk":
            _nltk_tree_class()  # says which extra is missing before any parsing
        return output

    def _words(self, index: int, sentence: Any) -> Tuple[List[str], Optional[List[str]]]:
        """(words, tags or None) of input sentence ``index``, checked."""
        if isinstance(sentence, str):
            words: List[str] = self._tokenize(sentence)
            tags: Optional[List[str]] = None
        elif isinstance(sentence, Sequence) and not isinstance(sentence, bytes):
            items = list(sentence)
            if items and all(isinstance(item, str) for item in items):
                words, tags = items, None
            elif all(isinstance(item, (tuple, list)) and len(item) == 2 and all(isinstance(x, str) for x in item)
                     for item in items):
                words, tags = [item[0] for item in items], [item[1] for item in items]
            else:
                raise InputError(index, "give a string of text, a list of words, or a list of (word, tag) pairs")
        else:
            raise InputError(index, f"give a string of text, a list of words, or a list of (word, tag) pairs, "
                                    f"not {type(sentence).__name__}")
        if not words:
            raise EmptySentence(index)
        if len(words) > self.max_words:
            raise SentenceTooLong(index, len(words), self.max_words)
        for number, word in enumerate(words, start=1):
            if not word or any(char.isspace() for char in word):
                raise InputError(index, f"word {number} ({word!r}) is empty or holds white space")
        if tags is not None:
            for number, tag in enumerate(tags, start=1):
                if not tag or any(char.isspace() or char in "()" for char in tag):
                    raise InputError(index, f"the tag of word {number} ({tag!r}) is empty or holds white space or brackets")
        elif self._takes_tags() and self.tagger is None:
            raise InputError(index, "this model takes POS tags as input and carries no tagger: give (word, tag) pairs")
        return words, tags

    def _members(self) -> List[Any]:
        """The parsers whose settings count: an ensemble's members, or the parser itself."""
        return list(self.parser.members) if self.kind == "ensemble" else [self.parser]

    def _takes_tags(self) -> bool:
        return any(member.reads_tags for member in self._members())

    def _tokenize(self, text: str) -> List[str]:
        if self._tokenizer is None:
            self._tokenizer = _spacy_tokenizer(self.language)
        return [token.text for token in self._tokenizer(text) if not token.text.isspace()]

    # -- parsing a window ------------------------------------------------------------------------
    def _parse_window(self, window: List[Tuple[List[str], Optional[List[str]]]], budget: int, output: str) -> Iterator[Any]:
        from mlparse.data.batching import pack_by_tokens

        window = self._tag_first(window, budget)
        examples = [self._example(words, tags) for words, tags in window]
        results: List[Any] = [None] * len(examples)
        with torch.no_grad():
            for group in pack_by_tokens([len(words) for words, _ in window], budget, self._cost):
                for index, result in zip(group, self.parser.predict([examples[i] for i in group], decoder=self.decoder)):
                    results[index] = result
        for (words, tags), example, result in zip(window, examples, results):
            if tags is not None and self._writes_input_tags():
                result = _with_tags(result, tags)
            yield self._convert(words, example, result, output)

    def _writes_input_tags(self) -> bool:
        """Does a constituency model's tree carry the tags it was given (no tagging head of its own)?"""
        return self._task.writes_trees and not any(
            member.predicts_tags for member in self._members())

    def _tag_first(self, window: List[Tuple[List[str], Optional[List[str]]]],
                   budget: int) -> List[Tuple[List[str], Optional[List[str]]]]:
        """The window with the bundled tagger's tags for sentences given without tags, when the parser reads
        tags or writes them into trees (a tagger is bundled only with such parsers)."""
        untagged = [k for k, (_, tags) in enumerate(window) if tags is None]
        if self.tagger is None or not untagged or not (self._takes_tags() or self._writes_input_tags()):
            return window
        from mlparse.data.batching import pack_by_tokens

        cost = self.tagger.memory_cost(training=False, decoder="cython")
        words = [window[k][0] for k in untagged]
        tagged: List[Any] = [None] * len(words)
        with torch.no_grad():
            for group in pack_by_tokens([len(w) for w in words], budget, cost):
                for index, tags in zip(group, self.tagger.predict([words[i] for i in group])):
                    tagged[index] = tags
        out = list(window)
        for k, tags in zip(untagged, tagged):
            out[k] = (window[k][0], list(tags))
        return out

    def _example(self, words: List[str], tags: Optional[List[str]]) -> Any:
        column = getattr(getattr(self._members()[0], "dep_config", None), "tag_column", "upos")
        return self._task.example_from_words(words, tags, column)

    def _convert(self, words: List[str], example: Any, result: Any, output: str) -> Any:
        if output == "nltk":
            return to_nltk(self._task.render(example, result, "tree"))
        return self._task.render(example, result, output)


def _with_tags(result: Any, tags: List[str]) -> Any:
    """A constituency (or joint) prediction whose preterminals carry ``tags`` (the bundled tagger's or the
    caller's) instead of what the parser wrote (the placeholder ``UNK`` of a parser without a tagging head)."""
    tree = getattr(result, "tree", result)
    for leaf, tag in zip(tree.leaves(), tags):
        leaf.tag = tag
    return result


def to_nltk(tree: Any) -> Any:
    """The :class:`nltk.Tree` of an mlparse tree (labels, tags and words as they are)."""
    nltk_tree = _nltk_tree_class()

    def convert(node: Any) -> Any:
        if node.is_leaf:
            return nltk_tree(node.tag, [node.word])
        return nltk_tree(node.label, [convert(child) for child in node.children])

    return convert(tree)


def _nltk_tree_class() -> Any:
    try:
        from nltk import Tree
    except ImportError:
        raise MissingExtra("an nltk.Tree output", "nltk", "nltk") from None
    return Tree


def _spacy_tokenizer(language: str) -> Any:
    """spaCy's rule-based tokenizer for ``language`` (its blank pipeline: no model download)."""
    try:
        import spacy
    except ImportError:
        raise MissingExtra("parsing raw text (spaCy's tokenizer)", "spacy", "spacy") from None
    code = language_code(language) or "xx"
    try:
        return spacy.blank(code).tokenizer
    except Exception:  # a language spaCy does not have, or one whose tokenizer needs another package
        return spacy.blank("xx").tokenizer
