"""The catalog's typed specs: a family, its languages, their reader, split and pipeline steps.

Plain frozen dataclasses, filled and validated by :mod:`mlparse.data.catalog`, which also
re-exports them.  They live apart from the loader because the loader checks step names against
:mod:`mlparse.data.steps`, which itself needs :class:`StepSpec` and :class:`CatalogError`: with
the types here, imports go one way (catalog → steps → specs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Optional, Tuple


class CatalogError(ValueError):
    """A catalog file is malformed (unknown key, missing value, unknown format or step)."""


@dataclass(frozen=True)
class StepSpec:
    """One pipeline step: a registered transform name and its options."""

    name: str
    options: Dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        if not self.options:
            return self.name
        inner = ", ".join(f"{key}={value!r}" for key, value in self.options.items())
        return f"{self.name}({inner})"


@dataclass(frozen=True)
class ReaderSpec:
    """A registered format name and its options (encoding, tolerant, ...)."""

    format: str
    options: Dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SplitSpec:
    """How files (or trees) are assigned to train/dev/test; ``scheme`` names the rule."""

    scheme: str
    options: Dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PunctuationSpec:
    """The gold tags that mark punctuation in a treebank's dependency version, and the CoNLL-U column that
    holds them (``xpos`` or ``upos``): what ``eval.dependency_scoring: ptb`` leaves out (PTB: ``` `` '' : , . ```
    in XPOS; Sinica: its ``…CATEGORY`` tags; UD: ``PUNCT`` in UPOS)."""

    tags: Tuple[str, ...]
    column: str = "xpos"


@dataclass(frozen=True)
class LanguageSpec:
    """Everything needed to prepare one treebank of a family."""

    family: str
    name: str
    folder: Optional[str]
    files: Optional[str]
    reader: ReaderSpec
    split: SplitSpec
    pipeline: Tuple[StepSpec, ...]
    evalb: Optional[str]
    output: str  # "trees" or "conllu"
    notes: str = ""
    #: Heads of the dependency version: a head table's name, ``treebank`` (marked by the
    #: treebank, read by its format) or None (no dependency version).
    heads: Optional[str] = None
    #: The punctuation tags of its dependency version (None: the catalog does not say).
    punctuation: Optional[PunctuationSpec] = None


@dataclass(frozen=True)
class SourceSpec:
    """Where a family's data is looked for when ``--source`` is not given."""

    search_shared: bool = False
    required_hint: str = ""
    #: Every treebank folder found under the source is prepared, catalog entry or not
    #: (:mod:`mlparse.data.ud_release`); the catalog's languages are then overrides, not the list.
    discover: bool = False


@dataclass(frozen=True)
class FamilySpec:
    name: str
    description: str
    source: SourceSpec
    languages: Dict[str, LanguageSpec]
    path: Path
    #: ``defaults: punctuation``: for languages the family finds without listing them (any ``UD_*`` folder).
    punctuation: Optional[PunctuationSpec] = None
    #: The family's ``defaults:`` (language keys), which a discovered treebank without an entry gets.
    defaults: Dict[str, Any] = field(default_factory=dict, compare=False)
