"""The treebank catalog: one YAML file per family in ``treebanks/``, loaded into typed specs.

A family file looks like::

    family: free
    description: ...
    source: {search_shared: true}          # where to look when --source is not given
    defaults:                                # merged into every language (language keys win)
      reader: {format: bracketed}
      evalb: COLLINS.prm
    languages:
      icelandic:
        folder: is-icepahc                   # sub-folder of the source directory (glob, any case)
        files: "psd/*.psd"
        split: {scheme: modulo, unit: file, modulus: 10, dev: [8], test: [9]}
        pipeline:
          - drop_leaves: {tags: [ID, CODE]}
          - ensure_top
        heads: collins-ptb                   # optional: write the dependency version too
        punctuation: {tags: [",", "."], column: xpos}   # optional: its punctuation tags (PTB scoring)

``heads`` names a bundled head table (``mlparse/trees/head_tables/<name>.yaml``) or
``treebank`` (heads marked by the treebank, for formats that mark them); ``prepare`` then
writes ``<split>.conllu`` beside each ``<split>.trees`` (:mod:`mlparse.data.dependencies`).
``punctuation`` names the gold tags (and the CoNLL-U column, ``xpos`` by default) that mark
punctuation in that dependency version, which ``eval.dependency_scoring: ptb`` leaves out
(:func:`punctuation_for`; a recipe may override with ``eval.punct_tags`` / ``eval.punct_column``).

Templates ``{lang}``, ``{Lang}`` and ``{LANG}`` in string values are replaced by the
language key in lower, capitalized and upper case (the SPMRL layout needs them).

The catalog folder is the repository's ``treebanks/``; the package reaches it through
``mlparse/data/catalog`` (a symbolic link to ``../../treebanks``), so that setuptools
ships the YAML files as package data and an installed package finds them too.
``$MLPARSE_CATALOG`` overrides both.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, List, Mapping, Optional, Tuple

import yaml

from mlparse.data.dependencies import check_heads_setting
from mlparse.data.formats import DEPENDENCY_FORMATS, FORMATS
from mlparse.data.specs import (
    CatalogError,
    FamilySpec,
    LanguageSpec,
    PunctuationSpec,
    ReaderSpec,
    SourceSpec,
    SplitSpec,
    StepSpec,
)
from mlparse.data.splits import SCHEMES
from mlparse.data.steps import STEPS

#: The catalog as shipped with the package (a link to the repository's treebanks/).
PACKAGE_CATALOG = Path(__file__).resolve().parent / "catalog"
#: The repository's treebanks/ folder, for a source checkout without the link.
REPO_CATALOG = Path(__file__).resolve().parents[2] / "treebanks"

FAMILY_KEYS = ("family", "description", "source", "defaults", "languages", "notes")
LANGUAGE_KEYS = ("folder", "files", "reader", "split", "pipeline", "evalb", "output", "notes", "iso", "heads",
                 "punctuation")
PUNCTUATION_KEYS = ("tags", "column")
PUNCTUATION_COLUMNS = ("xpos", "upos")
SOURCE_KEYS = ("search_shared", "required_hint", "discover")


def catalog_dir() -> Path:
    """The folder holding the family YAML files."""
    env = os.environ.get("MLPARSE_CATALOG")
    if env:
        return Path(env)
    for candidate in (PACKAGE_CATALOG, REPO_CATALOG):
        if candidate.is_dir() and any(candidate.glob("*.yaml")):
            return candidate
    raise CatalogError(f"treebank catalog not found: looked in {PACKAGE_CATALOG} and {REPO_CATALOG}")


def family_names(directory: Optional[Path] = None) -> List[str]:
    """The families of the catalog, e.g. ``['free', 'ptb', 'ptb-sample', 'spmrl', 'ud']``."""
    directory = directory or catalog_dir()
    return sorted(path.stem for path in directory.glob("*.yaml"))


def load_family(name: str, directory: Optional[Path] = None) -> FamilySpec:
    """Load and validate ``<catalog>/<name>.yaml``."""
    directory = directory or catalog_dir()
    path = directory / f"{name}.yaml"
    if not path.is_file():
        known = ", ".join(family_names(directory))
        raise CatalogError(f"unknown treebank family {name!r}; the catalog ({directory}) has: {known}")
    with open(path, encoding="utf-8") as handle:
        data = yaml.safe_load(handle)
    return parse_family(data, path)


def evalb_params_for(family: str, language: str, directory: Optional[Path] = None) -> Optional[str]:
    """The evalb parameter file the catalog names for ``family``/``language`` (``spmrl.prm`` for the SPMRL
    languages, a language's own ``evalb`` where it has one); None where the catalog has no such family or
    language, or names no file for it (UD).  A family file that does not load raises :class:`CatalogError`."""
    directory = directory or catalog_dir()
    if family not in family_names(directory):
        return None
    spec = load_family(family, directory).languages.get(language)
    return spec.evalb if spec is not None else None


def parse_family(data: Any, path: Path) -> FamilySpec:
    """Validate a loaded YAML document into a :class:`FamilySpec`."""
    where = str(path)
    if not isinstance(data, dict):
        raise CatalogError(f"{where}: expected a mapping at the top level")
    _check_keys(data, FAMILY_KEYS, where)
    name = _required(data, "family", where)
    source_data = data.get("source") or {}
    _check_keys(source_data, SOURCE_KEYS, f"{where}: source")
    source = SourceSpec(**source_data)
    defaults = data.get("defaults") or {}
    _check_keys(defaults, LANGUAGE_KEYS, f"{where}: defaults")
    languages_data = data.get("languages")
    if languages_data is None and source.discover:
        languages_data = {}  # every treebank is discovered; none needs an entry
    if not isinstance(languages_data, dict) or (not languages_data and not source.discover):
        raise CatalogError(f"{where}: 'languages' must be a non-empty mapping")
    languages = {}
    for language, body in languages_data.items():
        body = dict(body or {})
        context = f"{where}: languages.{language}"
        _check_keys(body, LANGUAGE_KEYS, context)
        merged = _expand({**defaults, **body}, str(language))
        languages[str(language)] = _language(name, str(language), merged, context)
    default_punctuation = _punctuation(defaults.get("punctuation"), f"{where}: defaults")
    return FamilySpec(name, str(data.get("description", "")), source, languages, path, default_punctuation,
                      dict(defaults))


def _punctuation(data: Any, context: str) -> Optional[PunctuationSpec]:
    """``punctuation: {tags: [...], column: xpos|upos}`` (column defaults to xpos); None when absent."""
    if data is None:
        return None
    if not isinstance(data, dict):
        raise CatalogError(f"{context}: punctuation must be a mapping {{tags: [...], column: xpos|upos}}, not {data!r}")
    _check_keys(data, PUNCTUATION_KEYS, f"{context}: punctuation")
    tags = data.get("tags")
    if not isinstance(tags, list) or not tags or not all(isinstance(tag, str) and tag for tag in tags):
        raise CatalogError(f"{context}: punctuation.tags must be a non-empty list of tags, not {tags!r}")
    column = data.get("column", "xpos")
    if column not in PUNCTUATION_COLUMNS:
        raise CatalogError(f"{context}: punctuation.column must be xpos or upos, not {column!r}")
    return PunctuationSpec(tuple(tags), column)


def punctuation_for(family: str, language: str, directory: Optional[Path] = None) -> Optional[PunctuationSpec]:
    """The punctuation tags and column the catalog names for ``family``/``language`` (a language's own over the
    family's ``defaults``; the defaults also for a language the family finds without listing it, as any
    ``UD_*`` folder); None where the catalog has no such family or names none."""
    directory = directory or catalog_dir()
    if family not in family_names(directory):
        return None
    spec = load_family(family, directory)
    language_spec = spec.languages.get(language)
    if language_spec is not None:
        return language_spec.punctuation
    return spec.punctuation


def generic_language(family: FamilySpec, name: str) -> LanguageSpec:
    """The spec of a treebank the catalog does not list: the family's defaults, in the folder ``name``."""
    context = f"{family.path}: defaults (for {name})"
    return _language(family.name, name, _expand({**family.defaults, "folder": name}, name), context)


def _language(family: str, name: str, data: Mapping[str, Any], context: str) -> LanguageSpec:
    reader = dict(_required(data, "reader", context))
    fmt = reader.pop("format", None)
    if fmt not in FORMATS and fmt not in DEPENDENCY_FORMATS:
        known = ", ".join(sorted((*FORMATS, *DEPENDENCY_FORMATS)))
        raise CatalogError(f"{context}: unknown reader format {fmt!r}; known: {known}")
    split = dict(_required(data, "split", context))
    scheme = split.pop("scheme", None)
    if scheme not in SCHEMES:
        raise CatalogError(f"{context}: unknown split scheme {scheme!r}; known: {', '.join(sorted(SCHEMES))}")
    steps = []
    for item in data.get("pipeline") or []:
        step = _step(item, context)
        if step.name not in STEPS:
            raise CatalogError(f"{context}: unknown pipeline step {step.name!r}; known: {', '.join(sorted(STEPS))}")
        steps.append(step)
    output = data.get("output", "trees")
    if output not in ("trees", "conllu"):
        raise CatalogError(f"{context}: output must be 'trees' or 'conllu', not {output!r}")
    heads = check_heads_setting(data.get("heads"), fmt, output, context)
    return LanguageSpec(
        family=family,
        name=name,
        folder=data.get("folder"),
        files=data.get("files"),
        reader=ReaderSpec(fmt, reader),
        split=SplitSpec(scheme, split),
        pipeline=tuple(steps),
        evalb=data.get("evalb"),
        output=output,
        notes=str(data.get("notes", "")),
        heads=heads,
        punctuation=_punctuation(data.get("punctuation"), context),
    )


def _step(item: Any, context: str) -> StepSpec:
    if isinstance(item, str):
        return StepSpec(item)
    if isinstance(item, dict) and len(item) == 1:
        (name, options), = item.items()
        return StepSpec(str(name), dict(options or {}))
    raise CatalogError(f"{context}: a pipeline step is a name or a one-key mapping name: {{options}}, not {item!r}")


def _expand(value: Any, language: str) -> Any:
    """Replace ``{lang}``, ``{Lang}``, ``{LANG}`` in every string of ``value``."""
    if isinstance(value, str):
        return (
            value.replace("{lang}", language.lower())
            .replace("{Lang}", language.capitalize())
            .replace("{LANG}", language.upper())
        )
    if isinstance(value, list):
        return [_expand(item, language) for item in value]
    if isinstance(value, dict):
        return {key: _expand(item, language) for key, item in value.items()}
    return value


def _check_keys(data: Any, allowed: Tuple[str, ...], where: str) -> None:
    if not isinstance(data, dict):
        raise CatalogError(f"{where}: expected a mapping, got {data!r}")
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise CatalogError(f"{where}: unknown key(s) {', '.join(unknown)}; valid keys: {', '.join(allowed)}")


def _required(data: Mapping[str, Any], key: str, where: str) -> Any:
    if data.get(key) in (None, ""):
        raise CatalogError(f"{where}: missing required key {key!r}")
    return data[key]
