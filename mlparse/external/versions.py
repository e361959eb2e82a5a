"""A peer's version, read from what its version command printed, and checked against the recipe's; the names a peer
knows the treebank by (``{lang}``, ``{treebank}``).

The version command's output may hold more than the version (a warning printed after it, a banner) and bytes a
terminal would act on (a NUL, an escape sequence): the version is the last line with a version number in it, its
control characters replaced, and it matches the recipe's ``external.version`` only as a whole version number.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Dict, List

#: A version number as peers print it: 1.1.4, 1.15.0, 2.0.0rc1, 0.2.0.post1.
VERSION = re.compile(r"\d+(?:\.\d+)+[0-9A-Za-z.+-]*")


def printable(text: str) -> str:
    """``text`` without control characters (a NUL or an escape sequence printed by a peer stays off the terminal)."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def version_line(lines: List[str]) -> str:
    """The line of a version command's output that holds the version: the last that has a version number (a warning
    printed after it is not the version), else the last line; control characters replaced."""
    with_number = [line for line in lines if VERSION.search(line)]
    return printable((with_number or lines)[-1])


def same_version(expected: str, installed: str) -> bool:
    """Is ``installed`` (a version command's line) the version ``expected``? A whole version number must equal it:
    ``1.1`` is not ``1.1.4``, nor is ``1.1.4`` ``11.1.4``."""
    return expected.strip() in VERSION.findall(installed)


def treebank_names(config: Any) -> Dict[str, str]:
    """``{lang}`` and ``{treebank}`` of a recipe's data: a UD treebank's language code and file prefix (``en``,
    ``en_ewt``: what Stanza's ``--lang`` and ``--shorthand`` take), from the prepared data's manifest; for other
    data the recipe's ``data.language`` for both. A template that uses them on data without them gets them empty
    (the peer then says what it misses)."""
    manifest = Path(config.split_path("train")).parent / "manifest.json"
    try:
        ud = json.loads(manifest.read_text(encoding="utf-8")).get("ud") or {}
    except (OSError, ValueError, AttributeError):
        ud = {}
    language = str(config.data.language or "")
    return {"lang": str(ud.get("language_code") or language), "treebank": str(ud.get("file_prefix") or language)}
