"""Parser kinds: ``model.kind`` → the parser class that owns the kind, imported on first use.

A parser class (:class:`mlparse.models.base.Parser`) declares everything about its kind
(:class:`mlparse.models.kind.ParserKind`): ``kind``, the ``task`` it solves, the recipe ``sections`` it
owns and a ``check`` of a recipe's values for it.  This registry only knows where each class lives, as
``"package.module:Class"``, so that the recipe layer can ask the class without importing it at module
level (it sits below the parsers) and so that ``mlparse --help`` and ``import mlparse`` stay free of
torch.  Everything that depends on a kind asks the class: :func:`parser_class`, or :func:`declaration`
for what a recipe needs.  A built-in parser's declarations live in a light class it derives from
(:mod:`mlparse.models.declarations`), so checking a recipe does not import torch.

Kinds come from three places, looked up in this order:

1. :func:`register` (a later registration of a kind replaces an earlier one);
2. the built-in parsers (:data:`BUILTIN`);
3. installed packages that declare an entry point in the group :data:`ENTRY_POINT_GROUP`
   (``[project.entry-points."mlparse.parsers"]`` with ``toy = "mlparse_toy.parser:ToyParser"``): the
   entry point's name is the kind, its value the class; read once, on the first lookup of a kind
   that is neither registered nor built in (or on a listing of all kinds).
"""

from __future__ import annotations

import importlib
from typing import Any, Dict, List, Optional, Tuple, Union

#: The recipe sections every parser kind reads; any other section belongs to the kinds that declare it
#: (``Parser.sections``; ``tagger`` also to a parser whose tags jack-knifed taggers make).
SHARED_SECTIONS = ("data", "model", "train", "eval", "pretrained")

#: The entry-point group where installed packages declare parser kinds (name: the kind; value: "module:Class").
ENTRY_POINT_GROUP = "mlparse.parsers"

#: The parsers that come with mlparse: kind → "module:Class".
BUILTIN: Dict[str, str] = {
    "span": "mlparse.models.span_parser:SpanParser",
    "biaffine": "mlparse.models.dep_parser:BiaffineParser",
    "joint": "mlparse.models.joint_parser:JointParser",
    "tagger": "mlparse.models.tagger:TaggerParser",
    "external": "mlparse.models.declarations:ExternalKind",  # another toolkit's parser (mlparse/external/): no torch model
}
#: Their declarations, which each class derives from (no torch): kind → "module:Class".
BUILTIN_DECLARATIONS: Dict[str, str] = {kind: f"mlparse.models.declarations:{name}Kind" for kind, name in
                                        (("span", "Span"), ("biaffine", "Biaffine"), ("joint", "Joint"),
                                         ("tagger", "Tagger"), ("external", "External"))}

#: The kind of a checkpoint spec saved before specs named their kind.
LEGACY_KIND = "span"

_registered: Dict[str, Union[str, type]] = {}  # kind → "module:Class" or the class itself
_entry_points: Optional[Dict[str, str]] = None  # kind → "module:Class", read once
_classes: Dict[str, type] = {}  # kind → its class, once imported and checked


class UnknownParserKind(ValueError):
    """A recipe, checkpoint or package names a parser kind this installation does not know."""


def register(kind: Union[str, type], target: Union[str, type, None] = None) -> None:
    """Make a parser kind known: ``register(ToyParser)`` (the class declares its ``kind``), or
    ``register("toy", "package.module:ToyParser")`` (imported on first use).  A later registration of the
    same kind replaces an earlier one, a built-in one included."""
    if isinstance(kind, type):
        cls, kind = kind, getattr(kind, "kind", "")
        if not kind or not isinstance(kind, str):
            raise ValueError(f"{cls.__module__}.{cls.__qualname__} declares no kind (a class attribute `kind = \"...\"`)")
        target = cls
    if not isinstance(target, type) and (not isinstance(target, str) or target.count(":") != 1):
        raise ValueError(f"a parser class is named 'module:Class', got {target!r}")
    _registered[kind] = target
    _classes.pop(kind, None)


def unregister(kind: str) -> None:
    """Forget a kind given to :func:`register` (a built-in or installed kind stays known)."""
    _registered.pop(kind, None)
    _classes.pop(kind, None)


def builtin_kinds() -> List[str]:
    """The kinds that come with mlparse, in their documented order."""
    return list(BUILTIN)


def kinds() -> List[str]:
    """Every known kind: the built-in ones first, then registered and installed ones, sorted."""
    others = (set(_registered) | set(_installed())) - set(BUILTIN)
    return builtin_kinds() + sorted(others)


def is_known(kind: str) -> bool:
    return kind in _registered or kind in BUILTIN or kind in _installed()


def parser_class(kind: str) -> Any:
    """The class of parser kind ``kind`` (imported on first use); :class:`UnknownParserKind` for a kind that is
    not known or a class that does not declare it."""
    cls = _classes.get(kind)
    if cls is not None:
        return cls
    target = _registered.get(kind) or BUILTIN.get(kind) or _installed().get(kind)
    if target is None:
        raise UnknownParserKind(f"unknown parser kind {kind!r}; known kinds: {', '.join(kinds())}")
    if isinstance(target, str):
        module_name, class_name = target.split(":")
        try:
            cls = getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError) as error:
            raise UnknownParserKind(f"parser kind {kind!r}: cannot import {target} ({error})") from None
    else:
        cls = target
    _check_declares(kind, cls, target)
    if kind not in _registered and kind in BUILTIN and not issubclass(cls, declaration(kind)):
        raise UnknownParserKind(f"{_name(target)} does not derive from its declaration {BUILTIN_DECLARATIONS[kind]}")
    _classes[kind] = cls
    return cls


def declaration(kind: str) -> Any:
    """What parser kind ``kind`` declares (``kind``, ``task``, ``sections``, ``check``, ``make_task``, ...): for a
    built-in kind the light class its parser class derives from, otherwise the parser class itself."""
    if kind in _registered or kind not in BUILTIN:
        return parser_class(kind)
    cls = _classes.get(f"{kind} declaration")
    if cls is None:
        module_name, class_name = BUILTIN_DECLARATIONS[kind].split(":")
        cls = getattr(importlib.import_module(module_name), class_name)
        _check_declares(kind, cls, BUILTIN_DECLARATIONS[kind])
        _classes[f"{kind} declaration"] = cls
    return cls


def task_of(kind: str) -> str:
    """The name of the task parser kind ``kind`` solves (its class's ``task``)."""
    return str(declaration(kind).task)


def sections_of(kind: str) -> Tuple[str, ...]:
    """The recipe sections parser kind ``kind`` owns (its class's ``sections``)."""
    return tuple(getattr(declaration(kind), "sections", ()))


def builtin_kind_for(task: str) -> str:
    """The first built-in kind that solves ``task`` (a recipe that only scores files of that task names it)."""
    for kind in BUILTIN:
        if task_of(kind) == task:
            return kind
    raise UnknownParserKind(f"no built-in parser solves the task {task!r}")


def kind_of_spec(spec: Dict[str, Any]) -> str:
    """The kind a checkpoint's spec names (:data:`LEGACY_KIND` when it names none)."""
    kind = spec.get("kind", LEGACY_KIND)
    if not isinstance(kind, str):
        raise UnknownParserKind(f"a checkpoint's parser kind must be a name, got {kind!r}")
    return kind


def _installed() -> Dict[str, str]:
    """Kinds declared by installed packages (entry points of :data:`ENTRY_POINT_GROUP`), read once."""
    global _entry_points
    if _entry_points is None:
        from importlib.metadata import entry_points

        _entry_points = {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}
    return _entry_points


def _check_declares(kind: str, cls: Any, target: Union[str, type]) -> None:
    if getattr(cls, "kind", None) != kind:
        raise UnknownParserKind(f"{_name(target)} is registered as kind {kind!r} but declares kind "
                                f"{getattr(cls, 'kind', None)!r}")
    if not getattr(cls, "task", None):
        raise UnknownParserKind(f"{_name(target)} (parser kind {kind!r}) declares no task")


def _name(target: Union[str, type]) -> str:
    return target if isinstance(target, str) else f"{target.__module__}:{target.__qualname__}"
