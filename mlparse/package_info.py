"""What a model package is (``package.json``), its model card, and the errors of packages: the description that
the loaders of single parsers (:mod:`mlparse.package`) and of ensembles (:mod:`mlparse.package_ensemble`) share."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, Union

from mlparse.version import __version__
from mlparse.run_dir import RECIPE_FILE

PACKAGE_FORMAT = "mlparse-package"
#: Bump when a package written by this version cannot be read correctly by an older one.
PACKAGE_FORMAT_VERSION = 1

INFO_FILE, SPEC_FILE, WEIGHTS_FILE, CARD_FILE = "package.json", "spec.json", "model.pt", "README.md"  # + RECIPE_FILE
PathLike = Union[str, "os.PathLike[str]"]

#: The budget of one forward pass (token-equivalents) when the recipe does not say.
DEFAULT_PARSE_BUDGET = 5000


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


def scores_of(split: Any) -> Dict[str, Any]:
    """A split's scores of ``results.json`` as ``package.json`` keeps them: without null fields."""
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
