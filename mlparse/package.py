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
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import yaml

from mlparse.version import __version__
from mlparse.config.kinds import LEGACY_KIND, is_known, kind_of_spec, parser_class
from mlparse.io_utils import atomic_write_json, atomic_write_text
from mlparse.run_dir import BEST_CHECKPOINT, CHECKPOINTS_DIR, ENSEMBLE_FILE, LAST_CHECKPOINT, RECIPE_FILE, RunDir

PACKAGE_FORMAT = "mlparse-package"
#: Bump when a package written by this version cannot be read correctly by an older one.
PACKAGE_FORMAT_VERSION = 1

INFO_FILE, SPEC_FILE, WEIGHTS_FILE, CARD_FILE = "package.json", "spec.json", "model.pt", "README.md"  # + RECIPE_FILE
PRETRAINED_DIR = "pretrained"
TAGGER_DIR = "tagger"

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
    tagger: str = ""  # the folder of the bundled tagger's package (TAGGER_DIR), or "" without one
    # where the part-of-speech tags of its output / input come from: "tagging head" | "bundled tagger" |
    # "input" (the caller's tags) | "none" (constituency trees then carry the placeholder UNK)
    tags: str = ""
    # "dynamic-int8": parse with the linear layers quantized to int8 (mlparse export --quantize; CPU only), "": float
    quantization: str = ""

    @classmethod
    def from_json_dict(cls, data: Dict[str, Any]) -> "PackageInfo":
        known = set(cls.__dataclass_fields__)
        return cls(**{key: value for key, value in data.items() if key in known})


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
        return export_ensemble(run, out, quantization)
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
        dev=_scores(results.dev), test=_scores(results.test),
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


def _scores(split: Any) -> Dict[str, Any]:
    if split is None:
        return {}
    return {key: value for key, value in asdict(split).items() if value is not None}


def model_card(info: PackageInfo, members: int = 0, average: str = "") -> str:
    """The package's README.md (``members``: an ensemble's member count, with its ``average``)."""
    from mlparse.tasks import metric_label, task_class

    task = task_class(info.task)  # its scores and its line of Python
    def scores(split: Dict[str, Any]) -> str:
        names = task.card_metrics
        shown = [f"{metric_label(name)} {split[name]:.2f}"
                 for name in names if isinstance(split.get(name), (int, float))]
        extra = f" ({split['scorer']}, {split.get('sentences', 0)} sentences)" if split.get("scorer") else ""
        return (", ".join(shown) + extra) if shown else "not recorded"

    selected = f"the best dev {metric_label(info.metric)}" if info.metric else "the best dev score"
    return (
        f"# mlparse model: {info.kind} {info.task} parser, {info.language} ({info.dataset})\n\n"
        f"- System: {info.system or info.kind}\n"
        + (f"- Trained on: the {info.dataset} treebank, {info.language}, recipe `{info.recipe}` (run {info.run_id}; "
           f"the resolved recipe is `{RECIPE_FILE}`)\n"
           f"- Checkpoint: the one with {selected}\n" if not members else
           f"- Ensemble `{info.recipe}` (run {info.run_id}) of {members} members trained on the {info.dataset} treebank, "
           f"{info.language}, each a package of its own under `members/` (its recipe, checkpoint and scores); their "
           f"scores are averaged ({average}) and decoded once\n")
        + _tags_line(info)
        + (f"- Parses with its linear layers quantized to int8 on the CPU (`mlparse export --quantize`); "
           f"`mlparse.load(PATH, quantize=False)` parses with the float weights it stores\n"
           if info.quantization else "")
        + f"- Dev: {scores(info.dev)}\n"
        f"- Test: {scores(info.test)}\n"
        f"- Written by mlparse {info.mlparse_version} (package format {info.format_version})\n\n"
        "## Use it\n\n"
        "```python\n"
        "import mlparse\n"
        "parser = mlparse.load(\"PATH/TO/THIS/FOLDER\")\n"
        + task.card_usage + "\n"
        + "```\n\n"
        + ("or `nlp.add_pipe(\"mlparse\", config={\"model\": \"PATH/TO/THIS/FOLDER\"})` in a spaCy pipeline that sets "
           "sentence boundaries. `mlparse parse --model PATH/TO/THIS/FOLDER` parses files.\n" if not members else
           "`mlparse parse --model PATH/TO/THIS/FOLDER` parses files.\n"))


def _tags_line(info: PackageInfo) -> str:
    """The model card's line on part-of-speech tags."""
    text = {
        "tagging head": "its own tagging head predicts them",
        "bundled tagger": f"the tagger bundled in `{info.tagger}/` tags raw text and words first (as in training, "
                          "where the parser read a tagger's tags); give (word, tag) pairs to use your own",
        "input": "the model reads them as input: give (word, tag) pairs (no tagger is bundled)",
        "none": "none: the trees' part-of-speech tags are the placeholder `UNK` (no tagging head, no tagger; in a "
                "spaCy pipeline, the `Token.tag_` of a tagger before it is used)",
    }.get(info.tags)
    return f"- Part-of-speech tags: {text}\n" if text else ""


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
        return load_ensemble(folder, device, trust=trust, warn=warn)
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


# -- Ensembles --------------------------------------------------------------------------------------
#
# Ensembles (``mlparse ensemble``) as models: loaded from their run directory, exported as one package.
#
# An ensemble run directory holds ``ensemble.yaml`` (the members' run directories and the averaging) and
# ``results.json``; its members are ordinary finished runs, each loaded as :func:`mlparse.package.load_package`
# loads a run directory, then put into one :class:`~mlparse.models.ensemble.EnsembleParser` on the device.
# A member's run directory is looked for where ``ensemble.yaml`` recorded it: its absolute path, then the
# path as written (relative to the working directory of ``mlparse ensemble``), then that path relative to
# the runs folder that holds the ensemble (``RUNS/<name>/<id>``: two levels up) and to the folder above it,
# then the member's ``<name>/<id>`` in that runs folder: a runs folder moved or copied as a whole still
# loads.  A candidate whose ``results.json`` names another run id is not the member.
#
# ``mlparse export ENSEMBLE_RUN_DIR OUT`` (:func:`export_ensemble`) writes one package: ``package.json`` of
# kind ``ensemble``, ``ensemble.yaml`` (the averaging and each member's package folder), and each member as an
# ordinary package under ``members/<k>/``; ``mlparse.load(OUT)`` loads it without the run directories.

#: Where an ensemble package keeps its members, one package each (``members/0``, ``members/1``, ...).
MEMBERS_DIR = "members"


def is_ensemble_dir(folder: Path) -> bool:
    """Is ``folder`` an ensemble's run directory or package (it has ``ensemble.yaml``)?"""
    return (folder / ENSEMBLE_FILE).is_file()


def read_definition(folder: Path) -> Dict[str, Any]:
    """``ensemble.yaml`` of ``folder``, checked: a mapping with a non-empty ``members`` list."""
    path = folder / ENSEMBLE_FILE
    try:
        definition = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise NotAModel(f"{path}: cannot read the ensemble's definition: {str(error).splitlines()[0]}") from None
    members = definition.get("members") if isinstance(definition, dict) else None
    if not isinstance(members, list) or not members or not all(isinstance(m, dict) and m.get("run_dir") for m in members):
        raise NotAModel(f"{path}: not an ensemble definition (no list of members with their run_dir)")
    return definition


def member_folder(entry: Dict[str, Any], ensemble: Path) -> Path:
    """Where member ``entry`` of the ensemble in ``ensemble`` is (see the module docstring)."""
    written = Path(str(entry["run_dir"]))
    candidates: List[Path] = []
    if entry.get("path"):
        candidates.append(Path(str(entry["path"])))
    candidates.append(written)
    folder = ensemble.resolve()
    if not written.is_absolute():
        candidates += [folder.parents[k] / written for k in (1, 2) if k < len(folder.parents)]
    if len(written.parts) >= 2 and len(folder.parents) > 1:  # RUNS/<name>/<id> beside the ensemble's
        candidates.append(folder.parents[1] / written.parts[-2] / written.parts[-1])
    for candidate in candidates:
        if RunDir(candidate).checkpoints.folder.is_dir() and _run_id(candidate) in (None, entry.get("run_id")):
            return candidate
    raise PackageError(f"{ensemble}: member {written} not found (looked in {', '.join(str(c) for c in candidates)}); "
                       "the members' run directories must stay where mlparse ensemble found them, or move with the "
                       "runs folder")


def _run_id(folder: Path) -> Optional[str]:
    """The run id ``results.json`` of ``folder`` records (None: none readable); a candidate whose id differs
    from the member's is another run, not the member moved."""
    try:
        value = json.loads(RunDir(folder).results.read_text(encoding="utf-8")).get("run_id")
    except (OSError, ValueError, AttributeError):
        return None
    return str(value) if value else None


def is_ensemble_package(folder: Path) -> bool:
    """Is ``folder`` a package written by :func:`export_ensemble`?"""
    return (folder / INFO_FILE).is_file() and (folder / ENSEMBLE_FILE).is_file() and (folder / MEMBERS_DIR).is_dir()


def load_ensemble(folder: Path, device: Any = None, trust: bool = False, warn: Any = None) -> Tuple[Any, PackageInfo]:
    """The :class:`~mlparse.models.ensemble.EnsembleParser` of the ensemble run directory or ensemble package
    ``folder`` (eval mode, on ``device``) and its description (a package's own; for a run directory the first
    member's dataset and language and the members' smallest parse budget)."""
    from mlparse.models.ensemble import AVERAGING_MODES, EnsembleError, EnsembleParser

    definition = read_definition(folder)
    average = str(definition.get("average", "probability"))
    if average not in AVERAGING_MODES:
        raise NotAModel(f"{folder / ENSEMBLE_FILE}: unknown averaging {average!r} (one of {', '.join(AVERAGING_MODES)})")
    packaged = is_ensemble_package(folder)
    members, names, infos = [], [], []
    for entry in definition["members"]:
        where = folder / str(entry["package"]) if packaged and entry.get("package") else member_folder(entry, folder)
        parser, info = load_package(where, device, trust=trust, warn=warn, quantize=False)  # the whole ensemble, later
        members.append(parser)
        names.append(str(entry["run_dir"]))
        infos.append(info)
    try:
        ensemble = EnsembleParser(members, names, mode=average, union=bool(definition.get("union_of_labels", False)))
    except EnsembleError as error:
        raise PackageError(f"{folder}: {error}") from None
    if packaged:
        info = read_info(folder)
    else:
        first = infos[0]
        info = PackageInfo(kind=ensemble.kind, task=ensemble.task, dataset=first.dataset, language=first.language,
                           recipe=str(definition.get("name", "")), run_id=folder.name,
                           system=f"ensemble of {len(members)}: {first.system or first.kind}",
                           parse_budget=_smallest_budget(infos))
    return ensemble.eval(), info


def export_ensemble(run: Path, out: Path, quantization: str = "") -> PackageInfo:
    """Write the package of the ensemble run directory ``run`` to ``out`` (see the module docstring): every
    member exported as a package of its own under ``members/<k>/``, the whole written beside ``out`` and
    renamed into place, so that a failure leaves no half package."""
    from mlparse.results import RunResults
    from mlparse.tasks import dev_metric
    from mlparse.train.environment import now_iso

    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise PackageError(f"{out} already exists; give a new folder (or remove it first)")
    definition = read_definition(run)
    results = RunResults()
    if RunDir(run).results.is_file():
        try:
            results = RunResults.from_json_dict(json.loads(RunDir(run).results.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError) as error:
            raise PackageError(f"{RunDir(run).results}: not readable as results ({error})") from None
    sources = [member_folder(entry, run) for entry in definition["members"]]
    out.parent.mkdir(parents=True, exist_ok=True)
    temporary = out.parent / f".{out.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    temporary.mkdir()
    try:
        infos = [export_package(source, temporary / MEMBERS_DIR / str(k)) for k, source in enumerate(sources)]
        first = infos[0]
        packaged = {**definition, "members": [
            {**{key: entry[key] for key in ("run_dir", "recipe", "run_id") if key in entry},
             "package": f"{MEMBERS_DIR}/{k}"} for k, entry in enumerate(definition["members"])]}
        info = PackageInfo(
            kind="ensemble", task=first.task, dataset=first.dataset, language=first.language,
            recipe=str(definition.get("name", "")), run_id=results.run_id or run.name,
            system=results.system or f"ensemble of {len(infos)}", metric=dev_metric(first.task, ""),
            dev=_scores(results.dev), test=_scores(results.test), parse_budget=_smallest_budget(infos),
            exported_at=now_iso(), quantization=quantization)
        atomic_write_text(temporary / ENSEMBLE_FILE, yaml.safe_dump(packaged, sort_keys=False, allow_unicode=True))
        atomic_write_json(temporary / INFO_FILE, asdict(info))
        atomic_write_text(temporary / CARD_FILE, model_card(info, members=len(infos),
                                                          average=str(definition.get("average", "probability"))))
        if out.is_dir():
            out.rmdir()  # empty (checked above)
        os.rename(temporary, out)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    return info


def _smallest_budget(infos: List[PackageInfo]) -> int:
    """The members' smallest parse budget (each member's whole batch is held until the scores are averaged;
    the ensemble's cost model adds the members' costs up)."""
    budgets: List[Optional[int]] = [info.parse_budget for info in infos]
    chosen = [b for b in budgets if isinstance(b, int) and b > 0]
    return min(chosen) if chosen else DEFAULT_PARSE_BUDGET
