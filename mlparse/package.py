"""Model packages: a trained parser in a folder of its own (``mlparse export``), and reading one back.

A package is a folder that needs nothing else to be used (no run directory, prepared data or
recipe search path)::

    package.json   what it is: format and format_version, the mlparse version that wrote it, the
                   parser's kind and task, the treebank (dataset, language), the run it came from,
                   the scores its checkpoint was selected on (dev, and test), the parse budget
    spec.json      the parser's spec (:meth:`mlparse.models.base.Parser.spec`: settings, vocabularies, labels)
    model.pt       spec and weights only, written by :func:`mlparse.train.checkpoint.save` (plain data,
                   read with ``torch.load(weights_only=True)`` after its checksums are checked)
    pretrained/    only for a parser with a pretrained encoder: its tokenizer and configuration, and for a
                   frozen encoder its weights too (``save_pretrained``), so that the package parses without
                   the model hub or the directory it was trained from; a fine-tuned encoder's weights are
                   in model.pt
    recipe.yaml    the run's resolved recipe, as it was
    README.md      a model card: data, scores, how to load it

:func:`export_package` writes all of it into a temporary folder beside ``OUT_DIR`` and renames it
into place, so an interrupted export leaves no half-written package.  :func:`load_package` reads a
package or a run directory and refuses a package of a newer, incompatible format with a message
naming both mlparse versions.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, Optional, Tuple, Union

import yaml

from mlparse import __version__
from mlparse.io_utils import atomic_write_json, atomic_write_text
from mlparse.run_dir import ENSEMBLE_FILE, RECIPE_FILE, RunDir

PACKAGE_FORMAT = "mlparse-package"
#: Bump when a package written by this version cannot be read correctly by an older one.
PACKAGE_FORMAT_VERSION = 1

INFO_FILE, SPEC_FILE, WEIGHTS_FILE, CARD_FILE = "package.json", "spec.json", "model.pt", "README.md"  # + RECIPE_FILE
PRETRAINED_DIR = "pretrained"

#: The budget of one forward pass (token-equivalents) when the recipe does not say.
DEFAULT_PARSE_BUDGET = 5000

PathLike = Union[str, "os.PathLike[str]"]


class PackageError(ValueError):
    """A model package or run directory that cannot be exported or loaded; the message is for the user."""


class ModelNotFound(PackageError):
    """The path names nothing."""


class NotAModel(PackageError):
    """The path exists but is neither a model package nor a finished run directory."""


class IncompatiblePackage(PackageError):
    """A package written by a newer mlparse, in a package format this version cannot read."""


@dataclass
class PackageInfo:
    """``package.json``: what a package holds and where it comes from."""

    format: str = PACKAGE_FORMAT
    format_version: int = PACKAGE_FORMAT_VERSION
    mlparse_version: str = __version__
    kind: str = ""  # parser kind: span, biaffine, ...
    task: str = ""  # constituency | dependency
    dataset: str = ""  # treebank family, e.g. ptb-sample
    language: str = ""  # e.g. english
    recipe: str = ""
    run_id: str = ""
    system: str = ""
    metric: str = ""  # the dev metric the checkpoint was selected on (f1, las)
    dev: Dict[str, Any] = field(default_factory=dict)  # scores of results.json (without null fields)
    test: Dict[str, Any] = field(default_factory=dict)
    parse_budget: int = DEFAULT_PARSE_BUDGET  # eval.subbatch_tokens of the recipe
    exported_at: str = ""

    @classmethod
    def from_json_dict(cls, data: Dict[str, Any]) -> "PackageInfo":
        known = set(cls.__dataclass_fields__)
        return cls(**{key: value for key, value in data.items() if key in known})


# -- export ------------------------------------------------------------------------------------------

def export_package(run_dir: PathLike, out_dir: PathLike) -> PackageInfo:
    """Write the package of the finished run ``run_dir`` (its ``checkpoints/best.pt``) to ``out_dir``.

    ``out_dir`` must not exist yet (or be an empty folder).  Raises :class:`PackageError`.
    """
    from mlparse.results import DEV_METRIC, RunResults
    from mlparse.train import checkpoint
    from mlparse.train.environment import now_iso

    run, out = Path(run_dir), Path(out_dir)
    if not run.exists():
        raise ModelNotFound(f"run directory not found: {run}")
    best = RunDir(run).best
    if run.is_dir() and (run / ENSEMBLE_FILE).is_file():  # an ensemble: its members in one package
        from mlparse.ensemble_package import export_ensemble

        return export_ensemble(run, out)
    if not run.is_dir() or not best.is_file():
        raise NotAModel(f"{run} is not a finished run directory (it has no checkpoints/best.pt)")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise PackageError(f"{out} already exists; give a new folder (or remove it first)")
    try:
        saved = checkpoint.load(best)
    except checkpoint.CheckpointError as error:
        raise NotAModel(str(error)) from None
    spec, weights = saved["spec"], saved["model"]
    recipe_text = _read_text(RunDir(run).recipe)
    recipe = _recipe_dict(recipe_text, RunDir(run).recipe)
    results = RunResults()
    if RunDir(run).results.is_file():
        try:
            results = RunResults.from_json_dict(json.loads(_read_text(RunDir(run).results)))
        except (ValueError, TypeError) as error:
            raise PackageError(f"{RunDir(run).results}: not readable as results ({error})") from None
    data = recipe.get("data") or {}
    info = PackageInfo(
        kind=str(spec.get("kind", "span")), task=results.task, dataset=str(data.get("family", results.dataset)),
        language=str(data.get("language", results.language)), recipe=results.recipe, run_id=results.run_id or run.name,
        system=results.system, metric=DEV_METRIC.get(results.task, ""),
        dev=_scores(results.dev), test=_scores(results.test),
        parse_budget=_recipe_parse_budget(recipe),
        exported_at=now_iso())
    from mlparse.models.registry import parser_class

    try:
        info.task = parser_class(info.kind).task
    except ValueError as error:
        raise NotAModel(f"{best}: {error}") from None
    out.parent.mkdir(parents=True, exist_ok=True)
    temporary = out.parent / f".{out.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    temporary.mkdir()
    try:
        if spec.get("pretrained"):
            from mlparse.modules.pretrained_loading import PretrainedError, save_copy

            try:
                save_copy(spec["pretrained"], temporary / PRETRAINED_DIR)
            except PretrainedError as error:
                raise PackageError(f"cannot export {run}: {error}") from None
        checkpoint.save({"spec": spec, "model": weights}, temporary / WEIGHTS_FILE)
        atomic_write_json(temporary / SPEC_FILE, spec)
        atomic_write_text(temporary / RECIPE_FILE, recipe_text)
        atomic_write_json(temporary / INFO_FILE, asdict(info))
        atomic_write_text(temporary / CARD_FILE, model_card(info))
        if out.is_dir():
            out.rmdir()  # empty (checked above): rename replaces nothing else
        os.rename(temporary, out)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    return info


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise NotAModel(f"{path.parent} is not a run directory (it has no {path.name})") from None
    except (OSError, UnicodeDecodeError) as error:
        raise PackageError(f"cannot read {path}: {error}") from None


def _recipe_dict(text: str, path: Path) -> Dict[str, Any]:
    try:
        recipe = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise PackageError(f"{path}: not readable YAML ({error})") from None
    if not isinstance(recipe, dict):
        raise PackageError(f"{path}: not a recipe (a YAML mapping)")
    return recipe


def _scores(split: Any) -> Dict[str, Any]:
    if split is None:
        return {}
    return {key: value for key, value in asdict(split).items() if value is not None}


def model_card(info: PackageInfo, members: int = 0, average: str = "") -> str:
    """The package's README.md (``members``: an ensemble's member count, with its ``average``)."""
    def scores(split: Dict[str, Any]) -> str:
        names = {"constituency": ("f1", "recall", "precision", "complete_match"),
                 "joint": ("f1", "recall", "precision", "complete_match", "las", "uas")}.get(info.task, ("las", "uas", "clas"))
        shown = [f"{name.upper() if name != 'complete_match' else 'exact match'} {split[name]:.2f}"
                 for name in names if isinstance(split.get(name), (int, float))]
        extra = f" ({split['scorer']}, {split.get('sentences', 0)} sentences)" if split.get("scorer") else ""
        return (", ".join(shown) + extra) if shown else "not recorded"

    selected = f"the best dev {info.metric.upper()}" if info.metric else "the best dev score"
    return (
        f"# mlparse model: {info.kind} {info.task} parser, {info.language} ({info.dataset})\n\n"
        f"- System: {info.system or info.kind}\n"
        + (f"- Trained on: the {info.dataset} treebank, {info.language}, recipe `{info.recipe}` (run {info.run_id}; "
           f"the resolved recipe is `{RECIPE_FILE}`)\n"
           f"- Checkpoint: the one with {selected}\n" if not members else
           f"- Ensemble `{info.recipe}` (run {info.run_id}) of {members} members trained on the {info.dataset} treebank, "
           f"{info.language}, each a package of its own under `members/` (its recipe, checkpoint and scores); their "
           f"scores are averaged ({average}) and decoded once\n")
        + f"- Dev: {scores(info.dev)}\n"
        f"- Test: {scores(info.test)}\n"
        f"- Written by mlparse {info.mlparse_version} (package format {info.format_version})\n\n"
        "## Use it\n\n"
        "```python\n"
        "import mlparse\n"
        "parser = mlparse.load(\"PATH/TO/THIS/FOLDER\")\n"
        + {"constituency": "tree = parser.parse([\"The\", \"dog\", \"barks\", \".\"])   # an nltk.Tree\n",
           "joint": "both = parser.parse([\"The\", \"dog\", \"barks\", \".\"])   # .tree and .dependencies (heads, deprels)\n"}.get(
            info.task, "sentence = parser.parse([\"The\", \"dog\", \"barks\", \".\"])   # a conllu TokenList\n")
        + "```\n\n"
        + ("or `nlp.add_pipe(\"mlparse\", config={\"model\": \"PATH/TO/THIS/FOLDER\"})` in a spaCy pipeline that sets "
           "sentence boundaries. `mlparse parse --model PATH/TO/THIS/FOLDER` parses files.\n" if not members else
           "(`mlparse parse --model` takes single models only; parse files with a member, or from Python.)\n"))


# -- loading -----------------------------------------------------------------------------------------

def is_package(path: PathLike) -> bool:
    return (Path(path) / INFO_FILE).is_file()


def read_info(path: PathLike) -> PackageInfo:
    """``package.json`` of the package at ``path``, checked to be a format this version reads."""
    folder = Path(path)
    try:
        data = json.loads((folder / INFO_FILE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise NotAModel(f"{folder / INFO_FILE}: not a model package description ({error})") from None
    if not isinstance(data, dict) or data.get("format") != PACKAGE_FORMAT or not isinstance(data.get("format_version"), int):
        raise NotAModel(f"{folder}: not an mlparse model package ({INFO_FILE} has no mlparse package format)")
    if data["format_version"] > PACKAGE_FORMAT_VERSION:
        raise IncompatiblePackage(
            f"{folder}: this model package was written by mlparse {data.get('mlparse_version', '(unknown)')} in package "
            f"format {data['format_version']}; this mlparse {__version__} reads package format up to "
            f"{PACKAGE_FORMAT_VERSION}: upgrade mlparse to load it")
    return PackageInfo.from_json_dict(data)


def load_package(path: PathLike, device: Any = None) -> Tuple[Any, PackageInfo]:
    """The parser (in eval mode, on ``device``; default CUDA when available) and its description, from a
    package, a finished run directory or an ensemble's run directory (:mod:`mlparse.ensemble_package`)."""
    import torch

    from mlparse.models.registry import UnknownParserKind, parser_from_spec
    from mlparse.modules.pretrained_loading import PretrainedError, with_local_copy
    from mlparse.train import checkpoint

    folder = Path(path)
    if not folder.exists():
        raise ModelNotFound(f"model not found: {folder} does not exist")
    from mlparse.ensemble_package import is_ensemble_dir, load_ensemble

    if folder.is_dir() and is_ensemble_dir(folder):  # an ensemble's run directory or package
        if is_package(folder):
            read_info(folder)  # refuses a package of a newer format
        return load_ensemble(folder, device)
    if is_package(folder):
        info = read_info(folder)
        weights = folder / WEIGHTS_FILE
    elif folder.is_dir() and RunDir(folder).best.is_file():
        info = _run_info(folder)
        weights = RunDir(folder).best
    else:
        raise NotAModel(f"{folder} is not an mlparse model: neither a package (no {INFO_FILE}) nor a finished run "
                        "directory (no checkpoints/best.pt)")
    device = torch.device(device) if device is not None else torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        saved = checkpoint.load(weights, map_location=device)
    except checkpoint.CheckpointError as error:
        raise NotAModel(str(error)) from None
    spec = saved["spec"]
    if spec.get("pretrained") and (folder / PRETRAINED_DIR).is_dir():
        spec = with_local_copy(spec, folder / PRETRAINED_DIR)
    try:
        parser = parser_from_spec(spec)
        parser.load_state_dict(saved["model"])
    except UnknownParserKind as error:
        raise NotAModel(f"{weights}: {error}") from None
    except PretrainedError as error:  # not installed, not found, not the copy it was trained with
        raise PackageError(f"{weights}: {error}") from None
    except Exception as error:  # a spec and weights that do not fit together
        detail = (str(error).strip().splitlines() or [""])[0][:200]
        raise NotAModel(f"{weights}: not a usable parser ({type(error).__name__}{': ' + detail if detail else ''})") from None
    info.kind, info.task = parser.kind, parser.task
    return parser.to(device).eval(), info


def _run_info(run: Path) -> PackageInfo:
    """What a run directory says about its model (as a package would)."""
    info = PackageInfo(run_id=run.name, exported_at="")
    recipe_path = run / RECIPE_FILE
    if recipe_path.is_file():
        recipe = _recipe_dict(_read_text(recipe_path), recipe_path)
        data = recipe.get("data") or {}
        info.dataset, info.language = str(data.get("family", "")), str(data.get("language", ""))
        info.parse_budget = _recipe_parse_budget(recipe)
    return info


def language_code(language: str) -> Optional[str]:
    """The ISO 639-1 code of a treebank language name (``english`` → ``en``), or None when unknown."""
    return _LANGUAGE_CODES.get(language.lower())


_LANGUAGE_CODES = {
    "english": "en", "arabic": "ar", "basque": "eu", "french": "fr", "german": "de", "hebrew": "he", "hungarian": "hu",
    "korean": "ko", "polish": "pl", "swedish": "sv", "chinese": "zh", "indonesian": "id", "spanish": "es",
    "portuguese": "pt", "icelandic": "is", "faroese": "fo", "japanese": "ja", "dutch": "nl", "czech": "cs",
    "russian": "ru", "italian": "it", "turkish": "tr", "finnish": "fi",
}


def _recipe_parse_budget(recipe: Dict[str, Any]) -> int:
    """The recipe's ``eval.subbatch_tokens`` when it is a number; ``auto`` (sized for the device by
    ``mlparse run``) and a missing value give the CPU default."""
    value = (recipe.get("eval") or {}).get("subbatch_tokens")
    return int(value) if isinstance(value, int) and not isinstance(value, bool) and value > 0 else DEFAULT_PARSE_BUDGET
