"""Parser kinds → parser classes, and rebuilding any parser from a checkpoint's spec.

A kind names its class by module path, imported on first use, so that registering a parser
costs nothing until it is used (and ``mlparse --help`` stays instant).  Checkpoints written
before kinds existed hold a span parser's spec without a ``kind``: they read as ``span``.
"""

from __future__ import annotations

import importlib
from typing import Any, Dict, List, Type

from mlparse.models.base import Parser

#: kind → "module:Class"
_KINDS: Dict[str, str] = {
    "span": "mlparse.models.span_parser:SpanParser",
    "biaffine": "mlparse.models.dep_parser:BiaffineParser",
    "joint": "mlparse.models.joint_parser:JointParser",
    "tagger": "mlparse.models.tagger:TaggerParser",
}

#: The kind of a spec saved before specs named their kind.
LEGACY_KIND = "span"


class UnknownParserKind(ValueError):
    """A recipe or checkpoint names a parser kind this version does not know."""


def register(kind: str, target: str) -> None:
    """Make ``kind`` build ``target`` (``"package.module:Class"``); a later registration replaces an earlier one."""
    if ":" not in target:
        raise ValueError(f"a parser class is named 'module:Class', got {target!r}")
    _KINDS[kind] = target


def kinds() -> List[str]:
    return sorted(_KINDS)


def parser_class(kind: str) -> Type[Parser]:
    """The class registered for ``kind``."""
    target = _KINDS.get(kind)
    if target is None:
        raise UnknownParserKind(f"unknown parser kind {kind!r}; known kinds: {', '.join(kinds())}")
    module_name, class_name = target.split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    if getattr(cls, "kind", None) != kind:
        raise UnknownParserKind(f"{target} is registered as kind {kind!r} but declares kind {getattr(cls, 'kind', None)!r}")
    return cls


def kind_of_spec(spec: Dict[str, Any]) -> str:
    kind = spec.get("kind", LEGACY_KIND)
    if not isinstance(kind, str):
        raise UnknownParserKind(f"a checkpoint's parser kind must be a name, got {kind!r}")
    return kind


def parser_from_spec(spec: Dict[str, Any]) -> Parser:
    """The parser a checkpoint describes (weights not loaded), whatever its kind."""
    return parser_class(kind_of_spec(spec)).from_spec(spec)
