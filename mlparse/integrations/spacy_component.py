"""The ``mlparse`` spaCy pipeline component: ``nlp.add_pipe("mlparse", config={"model": PATH})``.

It parses every sentence of a document (the pipeline must set sentence boundaries: a sentencizer,
a parser or a senter before it) with the model package or run directory ``PATH``.

- A **constituency** model gives every span the attributes benepar gives, under the same names:
  ``Span._.labels`` (the labels of the constituents that cover exactly this span, outermost first;
  ``()`` for a span that is a single word with no constituent of its own), ``Span._.parse_string``
  (its subtree in brackets, POS tags and words included), ``Span._.children`` (the constituents and
  words right below it, as spans) and ``Span._.parent`` (the smallest constituent strictly larger,
  ``None`` for a sentence).  A span that is not a constituent and not a word has no parse: its
  ``labels``, ``parse_string``, ``children`` raise ``ValueError``.  The root ``TOP`` of the tree is
  left out: a sentence's span has the labels of the constituents below ``TOP`` that cover it.
- A **dependency** model sets ``Token.head`` and ``Token.dep_`` of every token.

**Word alignment.** Each spaCy token that is not white space is one word of the model: tokens are
never split or merged again, so a token that the model's treebank would split differently
(``long-term`` kept whole by the PTB but split by spaCy, ``cannot`` split by the PTB, say) is parsed
as spaCy tokenized it, one leaf per token.  Brackets are written ``-LRB-``/``-RRB-`` in
``parse_string`` (the words of the tree), the tokens keep their text.  White-space tokens get no
word: in a constituency parse they belong to no constituent; a dependency model attaches each to the
word before it (the first word of the sentence when it comes first) with the relation ``dep``.
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional, Tuple

from spacy.language import Language
from spacy.tokens import Doc, Span

from mlparse.api import LoadedParser, load
from mlparse.tasks import task_class

#: The relation of a white-space token attached to its neighbour.
SPACE_RELATION = "dep"

_Key = Tuple[int, int]


class ParseData:
    """The constituency parses of a document: spans (token offsets in the doc) → what the tree says."""

    def __init__(self) -> None:
        self.labels: Dict[_Key, Tuple[str, ...]] = {}
        self.strings: Dict[_Key, str] = {}
        self.children: Dict[_Key, List[_Key]] = {}
        self.parent: Dict[_Key, Optional[_Key]] = {}

    def add(self, tree: Any, positions: List[int]) -> None:
        """Record ``tree`` (TOP-rooted), whose leaf k is the doc's token ``positions[k]``."""
        leaves = iter(positions)

        def visit(node: Any, above: List[Any]) -> _Key:
            chain = above + [node]
            if not node.is_leaf and len(node.children) == 1:  # a unary chain covers one span: go down it
                return visit(node.children[0], chain)
            if node.is_leaf:
                start = next(leaves)
                key, below = (start, start + 1), []
            else:
                below = [visit(child, []) for child in node.children]
                key = (below[0][0], below[-1][1])
            for child in below:
                self.parent[child] = key
            self.labels[key] = tuple(n.label for n in chain if not n.is_leaf and n.label and n.label != "TOP")
            shown = next((n for n in chain if n.is_leaf or (n.label and n.label != "TOP")), chain[0])
            self.strings[key] = shown.to_bracketed()
            self.children[key] = below
            self.parent.setdefault(key, None)
            return key

        visit(tree, [])

    def find(self, span: Span) -> _Key:
        key = (span.start, span.end)
        if key not in self.labels:
            raise ValueError(f"the span {span.text!r} ({span.start}..{span.end}) is not a constituent of the mlparse parse")
        return key


def _data(span: Span) -> ParseData:
    data = span.doc._.mlparse_parse
    if data is None:
        raise ValueError("this document was not parsed by the mlparse component (or its model is a dependency model)")
    return data


def _labels(span: Span) -> Tuple[str, ...]:
    data = _data(span)
    return data.labels[data.find(span)]


def _parse_string(span: Span) -> str:
    data = _data(span)
    return data.strings[data.find(span)]


def _children(span: Span) -> Iterator[Span]:
    data = _data(span)
    for start, end in data.children[data.find(span)]:
        yield span.doc[start:end]


def _parent(span: Span) -> Optional[Span]:
    data = _data(span)
    key = data.find(span)
    parent = data.parent.get(key)
    return span.doc[parent[0]:parent[1]] if parent is not None else None


def register_extensions() -> None:
    """The ``Doc`` and ``Span`` extension attributes the component fills (benepar's names)."""
    Doc.set_extension("mlparse_parse", default=None, force=True)
    Span.set_extension("labels", getter=_labels, force=True)
    Span.set_extension("parse_string", getter=_parse_string, force=True)
    Span.set_extension("children", getter=_children, force=True)
    Span.set_extension("parent", getter=_parent, force=True)


class MlparseComponent:
    """Parses each sentence of a doc with an mlparse model (see the module doc)."""

    def __init__(self, nlp: Language, name: str, model: str, batch_size: Optional[int] = None,
                 device: Optional[str] = None) -> None:
        if not model:
            raise ValueError('the mlparse component needs a model: nlp.add_pipe("mlparse", config={"model": PATH})')
        self.name = name
        self.parser: LoadedParser = load(model, device=device)
        if task_class(self.parser.task).parse_output not in ("trees", "conllu"):
            raise ValueError(f"{model} is a {self.parser.task} model, not a parser: the mlparse component sets trees "
                             "or heads (a tagger's tags come with the parser it is bundled with)")
        self.batch_size = batch_size
        register_extensions()

    def _pipeline_tags(self, doc: Doc) -> Optional[Any]:
        return _tag_reader(self.parser, doc)

    def __call__(self, doc: Doc) -> Doc:
        if len(doc) == 0:
            return doc
        if not doc.has_annotation("SENT_START"):
            raise ValueError("the mlparse component needs sentence boundaries: add a sentencizer (or a parser) before "
                             'it, e.g. nlp.add_pipe("sentencizer", before="mlparse")')
        sentences = []
        for sent in doc.sents:
            positions = [token.i for token in sent if not token.is_space]
            if positions:
                sentences.append((sent, positions))
        words = [[doc[i].text for i in positions] for _, positions in sentences]
        pipeline_tags = self._pipeline_tags(doc)
        if pipeline_tags is not None:  # (word, tag) pairs: the tags of a tagger that ran before this component
            words = [[(doc[i].text, pipeline_tags(doc[i])) for i in positions] for _, positions in sentences]
        if task_class(self.parser.task).parse_output == "trees":
            data = ParseData()
            for (_, positions), tree in zip(sentences, self.parser.parse_sents(words, self.batch_size, output="tree")):
                data.add(tree, positions)
            doc._.mlparse_parse = data
            return doc
        heads = list(range(len(doc)))
        deps = [""] * len(doc)
        for (sent, positions), prediction in zip(sentences, self.parser.parse_sents(words, self.batch_size, output="prediction")):
            for k, position in enumerate(positions):
                head = prediction.heads[k]
                heads[position] = positions[head - 1] if head else position
                deps[position] = prediction.deprels[k]
            last = None
            for token in sent:
                if token.is_space:
                    heads[token.i] = last if last is not None else positions[0]
                    deps[token.i] = SPACE_RELATION
                else:
                    last = token.i
        for token in doc:
            token.head = doc[heads[token.i]]
            token.dep_ = deps[token.i]
        return doc


def _tag_reader(parser: LoadedParser, doc: Doc) -> Optional[Any]:
    """How to read a token's tag from the pipeline, when the parser needs tags it has no tagger for: a
    dependency model reads the column it was trained on (UPOS: ``Token.pos_``; XPOS: ``Token.tag_``), a
    constituency model without a tagging head writes ``Token.tag_`` into its trees; None otherwise."""
    if parser.tagger is not None or not (parser._takes_tags() or parser._writes_input_tags()):
        return None
    column = getattr(getattr(parser._members()[0], "dep_config", None), "tag_column", "xpos")
    reads_conllu = task_class(parser.task).parse_output == "conllu"
    attribute, annotation = ("pos_", "POS") if reads_conllu and column == "upos" else ("tag_", "TAG")
    if not doc.has_annotation(annotation):
        return None
    return lambda token: getattr(token, attribute) or "_"


def make_component(nlp: Language, name: str, model: str, batch_size: Optional[int], device: Optional[str]) -> MlparseComponent:
    """The factory behind ``nlp.add_pipe("mlparse", config={"model": PATH})``."""
    return MlparseComponent(nlp, name, model, batch_size, device)


# Registering again (the module imported both directly and through the entry point) is allowed by spaCy
# for the same function.
Language.factory("mlparse", default_config={"model": "", "batch_size": None, "device": None},
                 assigns=["token.head", "token.dep", "doc._.mlparse_parse"], func=make_component)
