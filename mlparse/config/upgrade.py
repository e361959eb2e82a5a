"""Rewriting a recipe file of an older layout in the current one, comments and order kept (``mlparse upgrade``).

Layout 2 of the recipe moved the span head's keys from ``model:`` to ``span:``
(:data:`mlparse.config.layout.MOVED_KEYS`).  Such a recipe still loads (:func:`mlparse.config.loading.load_raw`
moves the keys and says so in one line) and keeps its run id; :func:`upgrade_recipe_text` rewrites its text:
the lines of each moved key (its comment included) leave ``model:`` and go, in their order, to the end of the
``span:`` section, which is made right after ``model:``'s last key when the file has none.  Nothing else in
the file changes.  A ``model:`` section written in flow style (``model: {d_model: 8, ...}``) is not rewritten
(an error says to move the keys by hand).
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Optional, Tuple

import yaml

from mlparse.config.layout import MOVED_KEYS, migrate_layout
from mlparse.config.schema import ConfigError


def _top_sections(root: yaml.MappingNode) -> Dict[str, Tuple[yaml.Node, yaml.Node]]:
    return {str(key.value): (key, value) for key, value in root.value}


def _last_line(node: yaml.Node) -> int:
    """0-based index of the last line that holds some of ``node`` (a block node's end mark is at the start of
    the line after it)."""
    end = node.end_mark
    return end.line - 1 if end.column == 0 and end.line > node.start_mark.line else end.line


def _child_indent(node: yaml.MappingNode) -> Optional[int]:
    return node.value[0][0].start_mark.column if node.value else None


def upgrade_recipe_text(text: str, source: str = "recipe") -> Optional[str]:
    """``text`` (one recipe file) in the current layout; None when it already is.  Raises
    :class:`~mlparse.config.schema.ConfigError` naming ``source`` when it cannot be rewritten."""
    try:
        root = yaml.compose(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{source}, line {mark.line + 1}" if mark is not None else source
        raise ConfigError(f"{where}: invalid YAML ({getattr(error, 'problem', error)}).") from None
    if not isinstance(root, yaml.MappingNode):
        return None
    sections = _top_sections(root)
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    moved_lines: Dict[int, str] = {}  # line index -> its text, to leave its section
    inserts: Dict[int, List[str]] = {}  # after this line index -> the lines to put there
    for old in sorted({old for old, _ in MOVED_KEYS}):
        if old not in sections or not isinstance(sections[old][1], yaml.MappingNode):
            continue
        section = sections[old][1]
        moving = [(key, value) for key, value in section.value if (old, str(key.value)) in MOVED_KEYS]
        if not moving:
            continue
        if section.flow_style:
            raise ConfigError(f"{source}, line {section.start_mark.line + 1}: the {old}: section is written in flow "
                              f"style ({{...}}), which this rewrite does not edit; move "
                              f"{', '.join(f'{old}.{k.value}' for k, _ in moving)} to the sections they now belong to by hand.")
        for new in sorted({MOVED_KEYS[(old, str(key.value))] for key, _ in moving}):
            group = [(key, value) for key, value in moving if MOVED_KEYS[(old, str(key.value))] == new]
            indent_from = _child_indent(section) or 0
            target = sections.get(new)
            if target is not None and not (isinstance(target[1], yaml.MappingNode) and not target[1].flow_style
                                           or isinstance(target[1], yaml.ScalarNode) and target[1].value == ""):
                raise ConfigError(f"{source}, line {target[0].start_mark.line + 1}: the {new}: section is not a "
                                  f"block of keys; move {', '.join(f'{old}.{k.value}' for k, _ in group)} by hand.")
            existing = target[1] if target is not None and isinstance(target[1], yaml.MappingNode) else None
            if existing is not None:
                present = {str(key.value) for key, _ in existing.value}
                both = [str(key.value) for key, _ in group if str(key.value) in present]
                if both:
                    raise ConfigError(f"{source}: {', '.join(f'{old}.{k} and {new}.{k}' for k in both)} are both "
                                      f"given; {old}: is the old place (recipe layout 1): keep the {new}: one only.")
            indent_to = (_child_indent(existing) if existing is not None and existing.value else None) or indent_from
            block: List[str] = []
            for key, value in group:
                for index in range(key.start_mark.line, _last_line(value) + 1):
                    moved_lines[index] = lines[index]
                    line = lines[index]
                    strip = min(indent_from, len(line) - len(line.lstrip(" ")))
                    block.append(" " * indent_to + line[strip:] if line.strip() else line)
            if existing is not None and existing.value:
                after = max(_last_line(value) for _, value in existing.value)
            elif target is not None:  # `span:` with nothing under it
                after = target[0].start_mark.line
            else:
                after = max(_last_line(value) for key, value in section.value)
                block.insert(0, f"{new}:\n")
            inserts.setdefault(after, []).extend(block)
    if not moved_lines:
        return None
    out: List[str] = []
    for index, line in enumerate(lines):
        if index not in moved_lines:
            out.append(line)
        out.extend(inserts.get(index, []))
    upgraded = "".join(out)
    _check_same_recipe(text, upgraded, source)
    return upgraded


def _check_same_recipe(old: str, new: str, source: str) -> None:
    """The rewritten text must hold the same recipe as the old one read in the current layout."""
    try:
        before, _ = migrate_layout(yaml.safe_load(old) or {}, source)
        after = yaml.safe_load(new) or {}
    except yaml.YAMLError:
        after = None
    if after is None or migrate_layout(after, source)[1] or _sections(after) != _sections(before):
        raise ConfigError(f"{source}: this file's layout could not be rewritten safely (unusual formatting); move "
                          f"{', '.join(f'{old}.{key}' for (old, key) in MOVED_KEYS)} to the sections "
                          f"{', '.join(sorted(set(MOVED_KEYS.values())))} by hand.")


def _sections(data: Dict[str, object]) -> Dict[str, object]:
    """``data`` with empty sections left out (``model:`` emptied by the move reads as null)."""
    return {key: value for key, value in data.items() if value not in (None, {})}


def upgrade_recipe_file(path: Path) -> Optional[List[str]]:
    """Rewrite the recipe file ``path`` in the current layout, atomically; the keys moved (``model.d_label_hidden
    -> span.d_label_hidden``), or None when it already was in it."""
    from mlparse.io_utils import atomic_write_text

    text = Path(path).read_text(encoding="utf-8")
    upgraded = upgrade_recipe_text(text, str(path))
    if upgraded is None:
        return None
    _, moves = migrate_layout(yaml.safe_load(text) or {}, str(path))
    atomic_write_text(path, upgraded)
    return [f"{old}.{key} -> {new}.{key}" for old, key, new in moves]
