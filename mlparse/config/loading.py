"""Recipe files: YAML reading with line-numbered errors, ``base:`` inheritance, ``--set`` overrides, bundled recipes.

A recipe is a YAML file of sections (``data``, ``model``, ``train``, ``eval``, each
kind's own: :data:`mlparse.config.schema.SECTIONS`) and optional ``name``/``description``/
``deviation``/``base`` keys.  A file of an older layout is read in the current one, with a
one-line note (:func:`mlparse.config.layout.migrate_layout`).  ``base:`` names
another recipe (a path relative to the recipe's folder, ``.yaml`` optional)
whose values are deep-merged under this one's.  Command-line overrides
(``--set train.lr=0.001``) are applied last; their values are parsed as YAML
(``true`` → bool, ``[a, b]`` → list; a float key also takes text Python's ``float()`` reads,
such as ``1e-3``, which YAML 1.1 leaves a string).  Problems in a file are reported with
its line (a key given twice, with both); an empty file is refused; the merged data is
checked by :mod:`mlparse.config.schema`, and a range error an override causes names that
``--set`` (:func:`load_recipe`).
"""

from __future__ import annotations

import copy
import difflib
import re
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import yaml

from mlparse.config.catalog_defaults import apply_catalog_defaults
from mlparse.config.tag_input import resolve_tag_input
from mlparse.config.layout import MOVED_KEYS, RECIPE_LAYOUT, both_given, migrate_layout
from mlparse.config.schema import (
    SECTIONS,
    TOP_LEVEL_KEYS,
    ConfigError,
    RecipeConfig,
    build_section,
    field_names,
    section_value,
    unknown_key_error,
)
from mlparse.config.validation import check_minutes, from_dict


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> Dict[str, Any]:
    """``override`` on top of ``base``; nested mappings merge, everything else replaces."""
    out = copy.deepcopy(dict(base))
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _resolve_base(base: str, relative_to: Path, where: str) -> Path:
    """The file a ``base:`` names: beside the recipe first, else a bundled recipe by name (``base``,
    ``hebrew``, ``ud/base``), so that a recipe anywhere on disk can build on the bundled ones.  ``where``
    (the recipe and the line of its ``base:``) starts the error when there is none."""
    candidates = [relative_to / base, relative_to / f"{base}.yaml"]
    if not Path(base).is_absolute():
        candidates += [recipes_dir() / base, recipes_dir() / f"{base}.yaml"]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise ConfigError(f"{where}: base recipe '{base}' not found (looked for {', '.join(map(str, candidates))}).")


def load_raw(path: Union[str, Path], _seen: Tuple[Path, ...] = ()) -> Dict[str, Any]:
    """The recipe at ``path`` merged over its ``base:`` chain, as plain dicts."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"recipe not found: {path}")
    resolved = path.resolve()
    if resolved in _seen:
        raise ConfigError(f"{path}: circular 'base:' chain ({' -> '.join(map(str, _seen + (resolved,)))}).")
    text = _read_recipe_text(path)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}, line {mark.line + 1}" if mark is not None else str(path)
        raise ConfigError(f"{where}: invalid YAML ({getattr(error, 'problem', error)}).") from None
    if data is None or data == {}:  # it would train the default span parser on the default data
        raise ConfigError(f"{path}: the recipe is empty; give it a recipe to build on (base: demo) and the "
                          "sections it changes (data, model, train, ...).")
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a recipe must be a mapping of sections, got {type(data).__name__}.")
    check_duplicate_keys(yaml.compose(text), str(path))
    data, moves = migrate_layout(data, str(path))
    lines = _key_lines(text)
    if moves:
        _note_moves(path, lines, moves)
    _check_file_keys(path, lines, data, moves)
    base = data.pop("base", None)
    if base is not None:
        where = f"{path}, line {lines[('base',)]}" if ("base",) in lines else str(path)
        parent = load_raw(_resolve_base(str(base), path.parent, where), _seen + (resolved,))
        parent.pop("name", None)
        parent.pop("description", None)
        parent.pop("deviation", None)  # each recipe says how it differs from the paper (a child may not differ)
        data = deep_merge(parent, data)
    return data


def _read_recipe_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the recipe ({error.strerror or error}).") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ConfigError(f"{path}, line {line}: not UTF-8 text (byte 0x{data[error.start]:02x}); "
                          "recipes are UTF-8 YAML files.") from None


def check_duplicate_keys(node: Optional[yaml.Node], source: str, keys: Tuple[str, ...] = ()) -> None:
    """Refuse a key given twice in one mapping of a YAML document (``node``: :func:`yaml.compose`'s), naming both
    lines: YAML keeps the last one silently, so ``lr: 0.002`` then ``lr: 5`` in one section would train at 5."""
    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            check_duplicate_keys(item, source, keys)
    if not isinstance(node, yaml.MappingNode):
        return
    seen: Dict[str, Tuple[yaml.Node, yaml.Node]] = {}
    for key_node, value_node in node.value:
        key = str(key_node.value)
        if key in seen:
            first_key, first_value = seen[key]
            what = ".".join((*keys, key)) if keys else f"the {'section' if key in SECTIONS else 'key'} '{key}'"
            both = (f" ({first_value.value}, then {value_node.value})"
                    if isinstance(first_value, yaml.ScalarNode) and isinstance(value_node, yaml.ScalarNode) else "")
            raise ConfigError(f"{source}, lines {first_key.start_mark.line + 1} and {key_node.start_mark.line + 1}: "
                              f"{what} is given twice{both}; YAML would keep the last one silently: keep one.")
        seen[key] = (key_node, value_node)
        check_duplicate_keys(value_node, source, (*keys, key))


def _key_lines(text: str) -> Dict[Tuple[str, ...], int]:
    """1-based line of every key of the recipe's top level and its sections: ``("train", "lr") -> 12``."""
    try:
        root = yaml.compose(text)
    except yaml.YAMLError:
        return {}
    lines: Dict[Tuple[str, ...], int] = {}
    if not isinstance(root, yaml.MappingNode):
        return lines
    for key_node, value_node in root.value:
        top = str(key_node.value)
        lines[(top,)] = key_node.start_mark.line + 1
        if isinstance(value_node, yaml.MappingNode):
            for inner_key, _ in value_node.value:
                lines[(top, str(inner_key.value))] = inner_key.start_mark.line + 1
    return lines


def _check_file_keys(path: Path, lines: Dict[Tuple[str, ...], int], data: Mapping[str, Any],
                     moves: Sequence[Tuple[str, str, str]] = ()) -> None:
    """Unknown keys and badly typed values of one recipe file, reported with the file's line number
    (``lines``: :func:`_key_lines`; a key that ``moves`` moved is reported at its line in the file)."""
    lines = {**lines, **{(new, key): lines[(old, key)] for old, key, new in moves if (old, key) in lines}}

    def where(*keys: str) -> str:
        line = lines.get(tuple(keys))
        return f"{path}, line {line}" if line else str(path)

    for key in data:
        if key not in TOP_LEVEL_KEYS:
            raise unknown_key_error(str(key), TOP_LEVEL_KEYS, where(str(key)))
    for name, cls in SECTIONS.items():
        if data.get(name) is not None:
            build_section(name, cls, data[name], where)
    minutes = (data.get("train") or {}).get("max_minutes")
    if minutes is not None:  # a number now (build_section); its range here, where its line is known
        check_minutes(float(minutes), f"{where('train', 'max_minutes')}: train.max_minutes")


#: Notes already printed (a sweep loads the same recipe many times).
_NOTED: set = set()


def note(message: str, once_for: Optional[str] = None) -> None:
    """One line on stderr, once per process for each ``once_for`` (default: the message): a recipe in an older
    layout was read in the current one."""
    key = once_for if once_for is not None else message
    if key not in _NOTED:
        _NOTED.add(key)
        print(f"note: {message}", file=sys.stderr)


def _note_moves(path: Path, lines: Mapping[Tuple[str, ...], int], moves: Sequence[Tuple[str, str, str]]) -> None:
    """The one-line note for a recipe file written in an older layout."""
    first = min((lines[(old, key)] for old, key, _ in moves if (old, key) in lines), default=None)
    where = f"{path}, line {first}" if first else str(path)
    olds = ", ".join(f"{old}.{key}" for old, key, _ in moves)
    news = ", ".join(f"{new}.{key}" for _, key, new in moves)
    note(f"{where}: {olds} {'is' if len(moves) == 1 else 'are'} now {news} (recipe layout {RECIPE_LAYOUT}), read as such; "
         f"`mlparse upgrade {path}` rewrites the file.", once_for=str(path.resolve()))


def parse_override(text: str) -> Tuple[List[str], Any]:
    """``"train.lr=0.001"`` → (["train", "lr"], 0.001)."""
    if "=" not in text:
        raise ConfigError(f"override '{text}' must look like section.key=value (e.g. train.lr=0.001).")
    key, value = text.split("=", 1)
    try:
        parsed = yaml.safe_load(value) if value.strip() else ""
    except yaml.YAMLError:
        parsed = value
    return key.strip().split("."), parsed


def apply_overrides(data: Dict[str, Any], overrides: Sequence[str]) -> Dict[str, Any]:
    """``data`` with the ``--set section.key=value`` overrides applied in order, each checked like a recipe key."""
    out = copy.deepcopy(data)
    named: Dict[Tuple[str, str], str] = {}  # a moved key's place now -> the name an override gave it
    for text in overrides:
        keys, value = parse_override(text)
        if keys[0] not in TOP_LEVEL_KEYS or keys[0] == "base":
            raise unknown_key_error(keys[0], [k for k in TOP_LEVEL_KEYS if k != "base"], f"--set {text}")
        given = ".".join(keys)
        if len(keys) == 2 and (keys[0], keys[1]) in MOVED_KEYS:  # an older layout's place of the key
            moved = MOVED_KEYS[(keys[0], keys[1])]
            note(f"--set {text}: {keys[0]}.{keys[1]} is now {moved}.{keys[1]} (recipe layout {RECIPE_LAYOUT}), set as such.")
            keys = [moved, keys[1]]
        if len(keys) == 2 and keys[0] in MOVED_KEYS.values():
            earlier = named.setdefault((keys[0], keys[1]), given)
            if earlier != given:  # the old and the new name of one key: which value was meant is unclear
                new = f"{keys[0]}.{keys[1]}"
                raise both_given(f"--set {text}", earlier if given == new else given, new)
        if keys[0] in SECTIONS:
            cls = SECTIONS[keys[0]]
            if len(keys) != 2:
                raise ConfigError(f"--set {text}: use section.key=value, e.g. {keys[0]}.{field_names(cls)[0]}=...")
            value = section_value(cls, keys[0], keys[1], value, f"--set {text}", f"--set {text}")
            out.setdefault(keys[0], {})
            if not isinstance(out[keys[0]], dict):
                out[keys[0]] = {}
            out[keys[0]][keys[1]] = value
        else:
            out[keys[0]] = value
    return out


def recipes_dir() -> Path:
    """The bundled recipes (``recipes/`` of the repository, shipped in the package as ``mlparse/recipes``)."""
    return Path(__file__).resolve().parent.parent / "recipes"


#: The folder of ``recipes/`` that holds benchmark suites (``mlparse sweep``), not recipes.
SUITES_FOLDER = "suites"


def bundled_recipe_names() -> List[str]:
    """``hebrew``, ``free/icelandic``, ``ud/base``, …: every bundled recipe (the suites left out)."""
    paths = (path.relative_to(recipes_dir()) for path in recipes_dir().rglob("*.yaml"))
    return sorted(str(path)[: -len(".yaml")] for path in paths if path.parts[0] != SUITES_FOLDER)


def resolve_bundled(name_or_path: Union[str, Path], folder: Path, names: Callable[[], Sequence[str]], what: str,
                    error: Callable[[str], Exception]) -> Path:
    """The file ``name_or_path`` itself, else ``folder/<name>.yaml``; else ``error`` naming the bundled
    ``what`` files (``names()``) and the closest one."""
    path = Path(name_or_path)
    if path.is_file():
        return path
    bundled = folder / (str(name_or_path) if path.suffix == ".yaml" else f"{name_or_path}.yaml")
    if bundled.is_file():
        return bundled
    known = list(names())
    close = difflib.get_close_matches(str(name_or_path), known, n=1)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    raise error(f"{what} '{name_or_path}' not found: no such file, and no bundled {what} of that name "
                f"(bundled: {', '.join(known)}).{hint}")


def resolve_recipe(name_or_path: Union[str, Path]) -> Path:
    """A recipe file: the path itself, else a bundled recipe by name (``hebrew``, ``free/icelandic``)."""
    return resolve_bundled(name_or_path, recipes_dir(), bundled_recipe_names, "recipe", ConfigError)


#: ``ud/<treebank>`` names the generic UD recipe for that treebank (a bundled recipe of that name wins).
TREEBANK_RECIPE = re.compile(r"^ud/(UD_[^/]+?)(?:\.yaml)?$")
#: The generic recipe for any UD treebank (``mlparse run ud --set data.language=UD_Finnish-TDT``).
GENERIC_UD_RECIPE = "ud"


def treebank_recipe(name: Union[str, Path]) -> Optional[Tuple[Path, List[str]]]:
    """``ud/UD_Finnish-TDT`` → (the generic ``ud`` recipe, ``["data.language=UD_Finnish-TDT"]``); None for a
    file, a bundled recipe, or any other name."""
    text = str(name)
    match = TREEBANK_RECIPE.match(text)
    if match is None or Path(text).is_file():
        return None
    if (recipes_dir() / (text if text.endswith(".yaml") else f"{text}.yaml")).is_file():
        return None
    return recipes_dir() / f"{GENERIC_UD_RECIPE}.yaml", [f"data.language={match.group(1)}"]


def load_recipe(path: Union[str, Path], overrides: Sequence[str] = ()) -> RecipeConfig:
    """Load a recipe file (or bundled recipe name) with its ``base:`` chain and ``--set`` overrides.

    ``ud/<treebank>`` is the generic ``ud`` recipe with ``data.language=<treebank>`` (:func:`treebank_recipe`).
    The recipe's name defaults to the file stem; ``{language}`` in a name is replaced by ``data.language``
    (the generic recipe is named ``ud-{language}``, so each treebank's runs have their own folder and sweep
    label).  An unset ``data.evalb_params`` is the treebank catalog's (:mod:`mlparse.config.catalog_defaults`)."""
    generic = treebank_recipe(path)
    if generic is not None:
        path, overrides = generic[0], [*generic[1], *overrides]
    path = resolve_recipe(path)
    raw = load_raw(path)
    data = apply_overrides(raw, overrides)  # (an override's unknown key or type is named --set here)
    try:
        return _build(path, data, str(path))
    except ConfigError as error:
        blamed = _override_error(path, raw, overrides)
        if blamed is None:
            raise error from None
        raise blamed from None


def _override_error(path: Path, raw: Dict[str, Any], overrides: Sequence[str]) -> Optional[ConfigError]:
    """The error of a recipe that ``overrides`` broke, named as the ``--set`` after the last prefix of them with which
    the recipe still builds (its range, or its clash with the recipe, not the file's); the message is that of all
    the overrides together.
    None when the recipe does not build even with none of them, nor with any prefix: the file is to blame."""
    for count in range(len(overrides) - 1, -1, -1):
        try:
            _build(path, apply_overrides(raw, overrides[:count]), str(path))
        except ConfigError:
            continue
        try:  # the whole set's error (a later --set may change what is missing), named after the one that broke it
            _build(path, apply_overrides(raw, overrides), f"--set {overrides[count]}")
        except ConfigError as error:
            return error
        return None
    return None


def _build(path: Path, data: Dict[str, Any], source: str) -> RecipeConfig:
    """The recipe of ``path`` from its merged, overridden ``data`` (changed in place); ``source`` starts the
    messages of its checks."""
    if not data.get("name"):
        data["name"] = path.stem
    if "{language}" in str(data["name"]):
        language = (data.get("data") or {}).get("language")
        if not language:
            raise ConfigError(f"{path}: the name {data['name']!r} needs data.language (--set data.language=...).")
        data["name"] = str(data["name"]).replace("{language}", str(language))
    resolve_tag_input(data)  # data.tags: jackknife / none turn the tag input on / off (mlparse.config.tag_input)
    return apply_catalog_defaults(from_dict(data, source=source), data, source)


def recipe_from_yaml_text(text: str, source: str = "recipe") -> RecipeConfig:
    """A resolved recipe saved in a run directory (``recipe.yaml``)."""
    data = yaml.safe_load(text) or {}
    if isinstance(data, dict):
        resolve_tag_input(data)
    return apply_catalog_defaults(from_dict(data, source=source), data, source)
