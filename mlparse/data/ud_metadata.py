"""What a Universal Dependencies treebank folder says about itself: its README metadata and its language code.

Every UD treebank's README ends with a block::

    === Machine-readable metadata (DO NOT REMOVE!) ======
    Data available since: UD v1.0
    License: CC BY-SA 4.0
    Includes text: yes
    Lemmas: automatic with corrections
    ...
    Contributors: Silveira, Natalia; Dozat, Timothy
    =====================================================

:func:`read_metadata` reads that block (``README.md``, else ``README.txt``, else ``README``) into a
:class:`~mlparse.data.manifest.UdInfo`.  Releases before the block existed (UD v1.x) write the same
``Key: value`` lines without the separators; for them only lines whose key is one of :data:`KNOWN_KEYS`
are taken.  The language code is the part of the file prefix before ``_`` (``en_ewt-ud-train.conllu``
→ prefix ``en_ewt``, code ``en``; ``eu-ud-train.conllu`` → ``eu``).

A treebank released without its text says ``Includes text: no``; its word forms are underscores, which
a parser cannot learn from.  :func:`no_text_reason` says so, from the README or from the forms
themselves (every word of the first sentences ``_``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence

from mlparse.data.manifest import UdInfo

README_NAMES = ("README.md", "README.txt", "README")
BLOCK_START = re.compile(r"^=+\s*Machine-readable metadata", re.IGNORECASE)
BLOCK_END = re.compile(r"^=+\s*$")
KEY_VALUE = re.compile(r"^([A-Za-z][A-Za-z ]*[A-Za-z]):\s*(.*)$")
#: Keys read outside a metadata block (UD v1.x READMEs), as the official block names them.
KNOWN_KEYS = ("Data available since", "License", "Includes text", "Genre", "Lemmas", "UPOS", "XPOS",
              "Features", "Relations", "Contributors", "Contributing", "Contact", "Data source",
              "Documentation status")
#: The annotation layers whose source the block states (manual native, converted, automatic ...).
ANNOTATION_KEYS = ("Lemmas", "UPOS", "XPOS", "Features", "Relations")
#: ``<prefix>-ud-<split>.conllu``
FILE_NAME = re.compile(r"^(?P<prefix>.+?)-ud-(?P<split>train|dev|test)\.conllu$", re.IGNORECASE)


def find_readme(folder: Path) -> Optional[Path]:
    for name in README_NAMES:
        path = folder / name
        if path.is_file():
            return path
    return None


def parse_metadata(text: str) -> Dict[str, str]:
    """``{key: value}`` of the machine-readable block; without a block, the :data:`KNOWN_KEYS` lines."""
    lines = text.splitlines()
    start = next((k for k, line in enumerate(lines) if BLOCK_START.match(line.strip())), None)
    found: Dict[str, str] = {}
    if start is not None:
        for line in lines[start + 1:]:
            if BLOCK_END.match(line.strip()):
                break
            match = KEY_VALUE.match(line.strip())
            if match:
                found[match.group(1)] = match.group(2).strip()
        return found
    for line in lines:
        match = KEY_VALUE.match(line.strip())
        if match and match.group(1) in KNOWN_KEYS and match.group(1) not in found:
            found[match.group(1)] = match.group(2).strip()
    return found


def file_prefix(names: Iterable[str]) -> Optional[str]:
    """The common ``<prefix>`` of ``<prefix>-ud-<split>.conllu`` file names (the first one's, sorted)."""
    prefixes = sorted({match.group("prefix") for match in map(FILE_NAME.match, names) if match})
    return prefixes[0] if prefixes else None


def language_name(treebank: str) -> str:
    """``UD_English-EWT`` → ``English``; ``UD_Basque-BDT-r1.4`` → ``Basque``; another name up to its first ``-``."""
    name = treebank[3:] if treebank.startswith("UD_") else treebank
    return name.split("-", 1)[0]


def language_code(prefix: Optional[str]) -> Optional[str]:
    return prefix.split("_", 1)[0].lower() if prefix else None


def contributors(value: str) -> List[str]:
    return [name.strip() for name in value.split(";") if name.strip()]


def read_metadata(folder: Path, treebank: str, files: Sequence[str]) -> UdInfo:
    """The manifest's ``ud`` section for a treebank folder: README metadata, file prefix, language code."""
    readme = find_readme(folder)
    metadata: Dict[str, str] = {}
    if readme is not None:
        metadata = parse_metadata(readme.read_text(encoding="utf-8", errors="replace"))
    prefix = file_prefix(files)
    includes = metadata.get("Includes text")
    return UdInfo(
        treebank=treebank,
        language_code=language_code(prefix),
        file_prefix=prefix,
        readme=readme.name if readme is not None else None,
        license=metadata.get("License"),
        includes_text=None if includes is None else includes.strip().lower() != "no",
        annotation_sources={key: metadata[key] for key in ANNOTATION_KEYS if key in metadata},
        contributors=contributors(metadata.get("Contributors", "")),
        metadata=metadata,
    )


def readme_says_no_text(info: UdInfo) -> Optional[str]:
    if info.includes_text is False:
        return f"released without its text ({info.readme}: 'Includes text: no'); its word forms are underscores"
    return None


def forms_are_hidden(forms: Iterable[str], enough: int = 50) -> bool:
    """True when the first ``enough`` word forms (or all, if fewer) are every one ``_``."""
    seen = 0
    for form in forms:
        if form != "_":
            return False
        seen += 1
        if seen >= enough:
            break
    return seen > 0
