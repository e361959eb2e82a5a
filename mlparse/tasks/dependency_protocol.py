"""What a dependency score counts: the punctuation PTB scoring leaves out, and which metrics mean something.

Two decisions taken from the data, not from the scorer's defaults (issue 23, §1-§2):

* **Punctuation belongs to the treebank.**  ``eval.dependency_scoring: ptb`` leaves out the words whose gold
  tag marks punctuation.  Which tags, in which CoNLL-U column, is the recipe's ``eval.punct_tags`` /
  ``eval.punct_column`` when set, else the treebank catalog's ``punctuation`` for ``data.family`` /
  ``data.language`` (PTB: ``` `` '' : , . ``` in XPOS; Sinica: its ``…CATEGORY`` tags; UD: ``PUNCT`` in
  UPOS), else the PTB set in XPOS, with a note saying that the catalog does not describe the data.
* **CLAS, MLAS and BLEX only over UD relations.**  The CoNLL 2018 definitions count the words whose
  relation's universal part is a UD v2 content relation.  On relations that are not UD (the Collins-derived
  ``parent/head/dependent`` relations, Sinica's roles) only ``root`` would count, so the numbers say nothing:
  they are left out (None) and :class:`DependencyProtocol` says why.  The check reads the gold relations of
  the split scored: every universal part (before ``:``) must be one of :data:`UD_RELATIONS`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any, Dict, Iterable, List, Optional, Tuple

#: The 37 universal relations of UD v2 (universaldependencies.org/u/dep), the ones ``conll18_ud_eval.py`` knows.
UD_RELATIONS = frozenset((
    "acl", "advcl", "advmod", "amod", "appos", "aux", "case", "cc", "ccomp", "clf", "compound", "conj", "cop",
    "csubj", "dep", "det", "discourse", "dislocated", "expl", "fixed", "flat", "goeswith", "iobj", "list", "mark",
    "nmod", "nsubj", "nummod", "obj", "obl", "orphan", "parataxis", "punct", "reparandum", "root", "vocative",
    "xcomp"))

#: The metrics defined over UD content relations.
CONTENT_METRICS = ("clas", "mlas", "blex")

#: Gold tags marking punctuation in the PTB convention (``depeval.PTB_PUNCT_TAGS``), the fallback.
PTB_TAGS: Tuple[str, ...] = ("``", "''", ":", ",", ".")


@dataclass(frozen=True)
class Punctuation:
    """The tags PTB scoring leaves out, their gold column (``xpos`` | ``upos``) and where they came from."""

    tags: Tuple[str, ...]
    column: str
    source: str  # "recipe" | "catalog <family>/<language>" | "default (PTB)"


@dataclass
class DependencyProtocol:
    """``results.json``'s ``dependency_scoring``: how the run's UAS/LAS were counted, and which metrics exist.

    ``convention``: ``conll18`` (every word) or ``ptb`` (punctuation left out: ``punct_tags`` in the gold
    ``punct_column``, chosen by ``punct_source``).  ``ud_relations``: the gold relations are UD v2 relations;
    ``content_metrics`` the metrics recorded (CLAS, MLAS, BLEX: only then); ``absent_reason`` why they are
    not, naming some relations that are not UD."""

    convention: str
    punct_tags: Optional[List[str]] = None
    punct_column: Optional[str] = None
    punct_source: Optional[str] = None
    ud_relations: bool = True
    content_metrics: List[str] = field(default_factory=lambda: list(CONTENT_METRICS))
    absent_reason: Optional[str] = None

    def to_json_dict(self) -> Dict[str, Any]:
        return asdict(self)


def _catalog_punctuation(family: str, language: str) -> Optional[Tuple[Tuple[str, ...], str]]:
    """(tags, column) the catalog names for the data; None where it names none or cannot be read."""
    # YAML only; imported on use so that importing the task stays light.
    from mlparse.data.catalog import catalog_dir
    from mlparse.data.specs import CatalogError

    try:
        directory = str(catalog_dir())
    except CatalogError:
        return None
    return _punctuation_in(directory, family, language)


@lru_cache(maxsize=64)
def _punctuation_in(directory: str, family: str, language: str) -> Optional[Tuple[Tuple[str, ...], str]]:
    """:func:`_catalog_punctuation` for one catalog folder, cached (dev checks score many times)."""
    from pathlib import Path

    from mlparse.data.catalog import punctuation_for
    from mlparse.data.specs import CatalogError

    try:
        spec = punctuation_for(family, language, Path(directory))
    except CatalogError:
        return None
    return (spec.tags, spec.column) if spec is not None else None


def resolve_punctuation(config: Any) -> Punctuation:
    """The punctuation of ``config``'s data: the recipe's ``eval.punct_tags`` / ``punct_column``, else the
    catalog's for ``data.family`` / ``data.language``, else the PTB tags in XPOS."""
    e, d = config.eval, config.data
    catalog = _catalog_punctuation(d.family, d.language)
    if e.punct_tags is not None:
        column = e.punct_column or (catalog[1] if catalog else "xpos")
        return Punctuation(tuple(e.punct_tags), column, "recipe")
    if catalog is not None:
        return Punctuation(catalog[0], e.punct_column or catalog[1], f"catalog {d.family}/{d.language}")
    return Punctuation(PTB_TAGS, e.punct_column or "xpos", "default (PTB)")


def non_ud_relations(deprels: Iterable[str], limit: int = 5) -> List[str]:
    """Up to ``limit`` distinct relations (in order of appearance) whose universal part is not a UD v2 relation."""
    found: List[str] = []
    for deprel in deprels:
        if deprel.split(":", 1)[0] not in UD_RELATIONS and deprel not in found:
            found.append(deprel)
            if len(found) >= limit:
                break
    return found


def dependency_protocol(config: Any, gold_deprels: Iterable[str]) -> DependencyProtocol:
    """The record of one scoring of gold relations ``gold_deprels`` under ``config`` (see the module text)."""
    convention = config.eval.dependency_scoring
    protocol = DependencyProtocol(convention=convention)
    if convention == "ptb":
        punctuation = resolve_punctuation(config)
        protocol.punct_tags, protocol.punct_column = list(punctuation.tags), punctuation.column
        protocol.punct_source = punctuation.source
    outside = non_ud_relations(gold_deprels)
    if outside:
        protocol.ud_relations, protocol.content_metrics = False, []
        protocol.absent_reason = (
            "CLAS, MLAS and BLEX are left out: they are defined over UD relations, and these gold relations are not "
            f"UD v2 relations ({', '.join(outside)}{', ...' if len(outside) >= 5 else ''}); the CoNLL 2018 definition would count only root as a "
            "content relation")
    return protocol


__all__ = ["CONTENT_METRICS", "DependencyProtocol", "Punctuation", "UD_RELATIONS", "dependency_protocol",
           "non_ud_relations", "resolve_punctuation"]
