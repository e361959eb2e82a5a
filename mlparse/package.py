"""Model packages: a trained parser (or an ensemble) in a folder of its own (``mlparse export``), and reading one back.

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
    README.md      a model card: data, scores, where its part-of-speech tags come from, how to load it
    tagger/        only for a parser that carries its tagger: the tagger's own package (a ``model.kind: tagger``
                   run), which tags raw text or words before the parser reads them: the tagger of dev and test of
                   a parser trained on jack-knifed tags, or one given to ``mlparse export --tagger``

A package exported with ``--quantize`` (``quantization: dynamic-int8`` in ``package.json``) keeps its float
weights and is quantized when it is loaded on the CPU (:mod:`mlparse.modules.quantize`); an older mlparse,
which does not know the key, parses it in float.

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
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Dict, Optional, Tuple

import yaml

from mlparse.config.kinds import LEGACY_KIND, is_known, kind_of_spec, parser_class
from mlparse.io_utils import atomic_write_json, atomic_write_text
from mlparse.package_ensemble import MEMBERS_DIR, export_ensemble, is_ensemble_dir, load_ensemble  # noqa: F401
from mlparse.package_info import (  # noqa: F401  (the names of packages, where they have always been imported from)
    CARD_FILE, DEFAULT_PARSE_BUDGET, INFO_FILE, PACKAGE_FORMAT, PACKAGE_FORMAT_VERSION, SPEC_FILE, WEIGHTS_FILE,
    IncompatiblePackage, ModelNotFound, NotAModel, PackageError, PackageInfo, PathLike, is_package, model_card,
    read_info, scores_of)
from mlparse.run_dir import BEST_CHECKPOINT, CHECKPOINTS_DIR, ENSEMBLE_FILE, LAST_CHECKPOINT, RECIPE_FILE, RunDir

PRETRAINED_DIR = "pretrained"
TAGGER_DIR = "tagger"

# -- export ------------------------------------------------------------------------------------------

def export_package(run_dir: PathLike, out_dir: PathLike, tagger: Optional[PathLike] = None,
                   quantization: str = "") -> PackageInfo:
    """Write the package of the finished run ``run_dir`` (its ``checkpoints/best.pt``) to ``out_dir``.

    ``out_dir`` must not exist yet (or be an empty folder).  ``tagger``: the run directory of a tagger
    (``model.kind: tagger``) to bundle; by default a parser trained on jack-knifed tags bundles the tagger that
    tagged its dev and test (``results.json``'s ``input_tags.tagger_run_dir``).  ``quantization``:
    ``"dynamic-int8"`` makes the package (and its tagger) load with int8 linear layers on the CPU
    (:mod:`mlparse.modules.quantize`); the weights are stored in float either way.  Raises :class:`PackageError`.
    """
    check_quantization(quantization)
    from mlparse.results import RunResults
    from mlparse.tasks import dev_metric
    from mlparse.train import checkpoint
    from mlparse.train.environment import now_iso

    run, out = Path(run_dir), Path(out_dir)
    if not run.exists():
        raise ModelNotFound(f"run directory not found: {run}")
    best = RunDir(run).best
    if run.is_dir() and (run / ENSEMBLE_FILE).is_file():  # an ensemble: its members in one package
        return export_ensemble(run, out, export_package, quantization)
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
        kind=kind_of_spec(spec), task=results.task, dataset=str(data.get("family", results.dataset)),
        language=str(data.get("language", results.language)), recipe=results.recipe, run_id=results.run_id or run.name,
        system=results.system, metric=dev_metric(results.task, ""),
        dev=scores_of(results.dev), test=scores_of(results.test),
        parse_budget=_recipe_parse_budget(recipe),
        exported_at=now_iso(), quantization=quantization)
    try:
        parser = parser_class(info.kind)
    except ValueError as error:
        raise NotAModel(f"{best}: {error}") from None
    info.task = parser.task
    tagger_run = _tagger_run(run, results, tagger, parser)
    info.tagger = TAGGER_DIR if tagger_run is not None else ""
    info.tags = parser.tags_source(spec, tagger_run is not None)
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
        if tagger_run is not None:
            export_package(tagger_run, temporary / TAGGER_DIR, quantization=quantization)
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


def _tagger_run(run: Path, results: Any, given: Optional[PathLike], parser: Any) -> Optional[Path]:
    """The tagger run directory a package of ``run`` (a run of the parser class ``parser``) bundles (see
    :func:`export_package`), checked to be a tagger's."""
    if parser.tags_words:
        if given is not None:
            raise PackageError(f"{run} is a tagger itself: --tagger bundles a tagger with a parser")
        return None
    if given is None:
        recorded = (results.input_tags or {}).get("tagger_run_dir") if isinstance(results.input_tags, dict) else None
        if not recorded:
            return None
        given = recorded
        if not Path(given).is_dir():
            raise PackageError(f"{run} was trained on jack-knifed tags, but the tagger of its dev and test ({given}) is "
                               "gone; export it with --tagger RUN_DIR of another tagger, or train the run again")
    path = Path(given)
    recipe_path = path / RECIPE_FILE
    if not recipe_path.is_file():
        raise NotAModel(f"--tagger {path}: not a run directory (it has no {RECIPE_FILE})")
    recipe = _recipe_dict(_read_text(recipe_path), recipe_path)
    kind = str((recipe.get("model") or {}).get("kind", LEGACY_KIND))
    if not (is_known(kind) and parser_class(kind).tags_words):
        raise PackageError(f"--tagger {path}: a {kind} run, not a tagger (model.kind: tagger)")
    return path


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


# -- loading -----------------------------------------------------------------------------------------

def check_quantization(quantization: str) -> None:
    """Refuse a quantization mlparse does not offer (``""``: none)."""
    from mlparse.modules.quantize import DYNAMIC_INT8

    if quantization not in ("", DYNAMIC_INT8):
        raise PackageError(f"unknown quantization {quantization!r}: mlparse offers {DYNAMIC_INT8!r}")


def load_package(path: PathLike, device: Any = None, trust: bool = False,
                 warn: Optional[Callable[[str], None]] = None, quantize: Optional[bool] = None) -> Tuple[Any, PackageInfo]:
    """The parser (in eval mode, on ``device``; default CUDA when available) and its description, from a
    package, a finished run directory, an ensemble's run directory or package (see "Ensembles" below)
    or a checkpoint file: the one loader of ``mlparse.load``, ``mlparse parse`` and ``mlparse analyze``.

    Checkpoints are read as plain data (:func:`mlparse.train.checkpoint.load`): one that would need code to
    run is refused unless ``trust``, after ``warn`` says why that is dangerous.

    ``quantize``: True quantizes the linear layers to int8 (:mod:`mlparse.modules.quantize`; on the CPU, which
    is then the default device), False keeps them in float, None does what the package says (its
    ``quantization``, applied on the CPU only).  ``info.quantization`` says what was done.
    """
    from mlparse.modules.quantize import DYNAMIC_INT8, QuantizationError, quantize_linear_layers

    if quantize and device is None:
        device = "cpu"
    parser, info = _load_float(path, device, trust, warn)
    wanted = quantize if quantize is not None else (info.quantization == DYNAMIC_INT8 and parser.device().type == "cpu")
    if wanted:
        try:
            quantize_linear_layers(parser)
        except QuantizationError as error:
            raise PackageError(f"{path}: {error}") from None
    info.quantization = DYNAMIC_INT8 if wanted else ""
    return parser, info


def _load_float(path: PathLike, device: Any, trust: bool, warn: Optional[Callable[[str], None]]) -> Tuple[Any, PackageInfo]:
    """:func:`load_package` without quantization: the parser as its weights were saved."""
    import torch

    from mlparse.models.registry import UnknownParserKind, parser_from_spec
    from mlparse.models.span_parser import CheckpointFormatError
    from mlparse.modules.pretrained_loading import PretrainedError, with_local_copy
    from mlparse.train import checkpoint

    folder = Path(path)
    if not folder.exists():
        raise ModelNotFound(f"model not found: {folder} does not exist")
    if folder.is_dir() and is_ensemble_dir(folder):  # an ensemble's run directory or package
        if is_package(folder):
            read_info(folder)  # refuses a package of a newer format
        return load_ensemble(folder, load_package, device, trust=trust, warn=warn)
    if is_package(folder):
        info = read_info(folder)
        weights = folder / WEIGHTS_FILE
    elif folder.is_dir() and RunDir(folder).best.is_file():
        info = _run_info(folder)
        weights = RunDir(folder).best
    elif folder.is_file():  # a checkpoint file (best.pt, last.pt, a copy)
        info = _run_info(folder.parent.parent) if folder.parent.name == CHECKPOINTS_DIR else PackageInfo(exported_at="")
        weights = folder
    else:
        raise NotAModel(f"{folder} is not an mlparse model: neither a package (no {INFO_FILE}) nor a finished run "
                        "directory (no checkpoints/best.pt)")
    device = torch.device(device) if device is not None else torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        saved = checkpoint.load(weights, map_location=device, trust=trust, warn=warn)
    except checkpoint.CheckpointError as error:
        last = weights.parent / LAST_CHECKPOINT
        hint = (f" ({last} may still be good: --model {last})" if isinstance(error, checkpoint.CorruptCheckpoint)
                and weights.name == BEST_CHECKPOINT and last.is_file() else "")
        raise NotAModel(f"{error}{hint}") from None
    spec = saved["spec"]
    if spec.get("pretrained") and (folder / PRETRAINED_DIR).is_dir():
        spec = with_local_copy(spec, folder / PRETRAINED_DIR)
    try:
        parser = parser_from_spec(spec)
        parser.load_state_dict(saved["model"])
    except (UnknownParserKind, CheckpointFormatError) as error:
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
    results_path = RunDir(run).results
    if results_path.is_file():  # a parser trained on jack-knifed tags: the tagger of its dev and test
        try:
            recorded = (json.loads(_read_text(results_path)).get("input_tags") or {}).get("tagger_run_dir")
        except (ValueError, AttributeError):
            recorded = None
        if isinstance(recorded, str) and Path(recorded).is_dir():
            info.tagger = str(Path(recorded).resolve())
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


