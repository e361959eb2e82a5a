"""Parser kinds → parser classes, and rebuilding any parser from a checkpoint's spec.

The registry itself is :mod:`mlparse.config.kinds` (below the parsers, so that a recipe can ask a kind's
class for its task, sections and checks); this module is its face for code that works with parsers:
:func:`register` a parser class from outside mlparse, :func:`parser_class` of a kind, and
:func:`parser_from_spec` for a checkpoint.  Checkpoints written before kinds existed hold a span
parser's spec without a ``kind``: they read as ``span``.
"""

from __future__ import annotations

from typing import Any, Dict, Type

from mlparse.config.kinds import (ENTRY_POINT_GROUP, LEGACY_KIND, UnknownParserKind, builtin_kinds, is_known,
                                  kind_of_spec, kinds, register, sections_of, task_of, unregister)
from mlparse.config.kinds import parser_class as _parser_class
from mlparse.models.base import Parser


def parser_class(kind: str) -> Type[Parser]:
    """The class registered for ``kind``."""
    cls = _parser_class(kind)
    if not (isinstance(cls, type) and issubclass(cls, Parser)):
        raise UnknownParserKind(f"parser kind {kind!r}: {cls!r} is not a mlparse.models.base.Parser")
    return cls


def parser_from_spec(spec: Dict[str, Any]) -> Parser:
    """The parser a checkpoint describes (weights not loaded), whatever its kind."""
    return parser_class(kind_of_spec(spec)).from_spec(spec)


__all__ = ["ENTRY_POINT_GROUP", "LEGACY_KIND", "UnknownParserKind", "builtin_kinds", "is_known", "kind_of_spec", "kinds",
           "parser_class", "parser_from_spec", "register", "sections_of", "task_of", "unregister"]
