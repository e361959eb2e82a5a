"""Suite files: which recipes a benchmark runs, with which overrides, seeds and cluster resources.

A suite is a YAML file (bundled ones in ``recipes/suites/``, found by name)::

    description: the free treebanks with the demo-size model
    seeds: [1]                 # optional: each member once per seed (--seeds wins); default: the recipe's seed
    max_minutes: 10            # optional: training budget of each member (--max-minutes wins)
    set: [model.d_model=128]   # optional: overrides for every member (--set adds to them)
    slurm: {partition: gpu, time_minutes: 240, gpus_per_member: 1, cpus_per_task: 8, mem_gb: 32}
    members:
      - free/english           # a recipe: a path (relative to the suite file) or a bundled recipe name
      - recipe: free/icelandic
        set: [train.lr=0.001]  # this member's own overrides
    discover: {family: ud, require: train, recipe: ud}   # optional: members found in the prepared data
                               # when the sweep starts (mlparse.sweep.discover), besides or instead of members

Every member is loaded (``base:`` chain, overrides) when the suite is read, so an unknown recipe or
a bad override is reported before anything runs, naming the suite file and the line.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import yaml

from mlparse.config import ConfigError, RecipeConfig, load_recipe
from mlparse.config.loading import SUITES_FOLDER, recipes_dir, resolve_bundled
from mlparse.config.schema import unknown_key_error
from mlparse.config.validation import check_minutes
from mlparse.sweep.discover import Discover, discovered_recipes

SUITE_KEYS = ("name", "description", "seeds", "max_minutes", "set", "slurm", "members", "discover")
DISCOVER_KEYS = ("family", "require", "recipe")
MEMBER_KEYS = ("recipe", "set", "seeds")
LAUNCHERS = ("local", "slurm")


class SuiteError(ConfigError):
    """A suite file that cannot be used; the message names the file and line."""


@dataclass
class SlurmSettings:
    """Resources of one member's Slurm job (suite ``slurm:`` section; command-line flags win)."""

    partition: Optional[str] = None
    time_minutes: int = 240  # the job's time limit
    # GPUs of one member's job; more than 1 runs `mlparse run --gpus N` (torchrun); 0: a CPU job;
    # None: what the member's recipe needs (none for train.device cpu, else one)
    gpus_per_member: Optional[int] = None
    cpus_per_task: int = 8
    mem_gb: Optional[float] = None
    cluster: Optional[str] = None  # None: Slurm (submitit's auto); "local" runs jobs as local processes (tests)


@dataclass(frozen=True)
class Member:
    """One run of the sweep: a recipe with its overrides (the seed's included) and the resolved config."""

    recipe: str  # the recipe file as the suite names it, resolved to a path
    overrides: Tuple[str, ...]
    seed: Optional[int]
    config: RecipeConfig = field(compare=False, hash=False)
    line: int = 0  # the suite line naming it
    # a tagger of a jack-knifing member's recipe (mlparse/sweep/taggers.py): ``mlparse run RECIPE --tagger FOLD``,
    # with ``config`` the tagger's own recipe; None for an ordinary member
    tagger: Optional[str] = None
    name: Optional[str] = None  # the label, when not the recipe's name and seed (a tagger's)
    after: Tuple[str, ...] = ()  # labels of the members that must complete before this one starts (its taggers)

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        seed = f" seed {self.seed}" if self.seed is not None else ""
        return f"{self.config.name}{seed}"

    @property
    def treebank(self) -> Tuple[str, str, str]:
        """(data root, family, language) that the member trains on."""
        data = self.config.data
        return data.root, data.family, data.language


@dataclass
class Suite:
    name: str
    path: Path
    description: str = ""
    seeds: Optional[List[int]] = None
    max_minutes: Optional[float] = None
    overrides: List[str] = field(default_factory=list)
    slurm: SlurmSettings = field(default_factory=SlurmSettings)
    entries: List[Tuple[str, List[str], Optional[List[int]], int]] = field(default_factory=list)  # recipe, set, seeds, line
    discover: Optional[Discover] = None  # members found in the prepared data when the sweep starts
    discover_line: int = 0

    def members(self, seeds: Optional[Sequence[int]] = None, overrides: Sequence[str] = ()) -> List[Member]:
        """Every member: each entry × each seed (``seeds`` wins over the suite's and the entry's), with the
        suite's overrides, then the entry's, then ``overrides`` (``--set``), then the seed."""
        members: List[Member] = []
        seen: Dict[Tuple[str, str], str] = {}
        entries = list(self.entries)
        if self.discover is not None:
            where = f"{self.path}, line {self.discover_line}"
            try:
                found = discovered_recipes(self.discover, [*self.overrides, *overrides], where)
            except ConfigError as error:
                raise SuiteError(str(error)) from None
            entries += [(name, [], None, self.discover_line) for name in found]
        for recipe, own, entry_seeds, line in entries:
            chosen = list(seeds) if seeds else (entry_seeds or self.seeds or [None])
            for seed in chosen:
                sets = [*self.overrides, *own, *overrides] + ([f"train.seed={seed}"] if seed is not None else [])
                try:
                    config = load_recipe(recipe, sets)
                except ConfigError as error:
                    raise SuiteError(f"{self.path}, line {line}: member '{recipe}': {error}") from None
                member = Member(recipe=recipe, overrides=tuple(sets), seed=seed, config=config, line=line)
                key = (config.name, config.hash())
                if key in seen:
                    raise SuiteError(f"{self.path}, line {line}: member '{member.label}' is the same run as "
                                     f"'{seen[key]}' (same recipe and overrides)")
                seen[key] = member.label
                members.append(member)
        return members


def suites_dir() -> Path:
    """The bundled suites (``recipes/suites/``)."""
    return recipes_dir() / SUITES_FOLDER


def bundled_suites() -> List[str]:
    return sorted(path.stem for path in suites_dir().glob("*.yaml"))


def resolve_suite(name_or_path: str) -> Path:
    """A suite file: the path itself, else a bundled suite by name (``free``, ``spmrl``)."""
    return resolve_bundled(name_or_path, suites_dir(), bundled_suites, "suite", SuiteError)


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _mapping(node: yaml.Node) -> Dict[str, Tuple[yaml.Node, yaml.Node]]:
    return {str(key.value): (key, value) for key, value in node.value}


def load_suite(name_or_path: str) -> Suite:
    """Read and check a suite file (its members' recipes are loaded by :meth:`Suite.members`)."""
    path = resolve_suite(name_or_path)
    try:
        text = path.read_text(encoding="utf-8")
        root = yaml.compose(text)
    except OSError as error:
        raise SuiteError(f"{path}: cannot read the suite ({error.strerror or error}).") from None
    except UnicodeDecodeError:
        raise SuiteError(f"{path}: not UTF-8 text; suites are UTF-8 YAML files.") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}, line {mark.line + 1}" if mark is not None else str(path)
        raise SuiteError(f"{where}: invalid YAML ({getattr(error, 'problem', error)}).") from None
    if not isinstance(root, yaml.MappingNode):
        raise SuiteError(f"{path}: a suite must be a mapping with a 'members:' list.")
    top = _mapping(root)
    for key, (key_node, _) in top.items():
        if key not in SUITE_KEYS:
            raise SuiteError(str(unknown_key_error(key, SUITE_KEYS, f"{path}, line {_line(key_node)}")))
    data = yaml.safe_load(text)
    suite = Suite(name=str(data.get("name") or path.stem), path=path, description=str(data.get("description") or ""))

    def where(key: str) -> str:
        return f"{path}, line {_line(top[key][0])}"

    if "seeds" in top:
        suite.seeds = _seeds(data["seeds"], where("seeds"))
    if data.get("max_minutes") is not None:
        if not _number(data["max_minutes"]):
            raise SuiteError(f"{where('max_minutes')}: max_minutes must be a number of minutes, got {data['max_minutes']!r}.")
        try:  # finite and not negative, as --max-minutes
            check_minutes(float(data["max_minutes"]), f"{where('max_minutes')}: max_minutes")
        except ConfigError as error:
            raise SuiteError(str(error)) from None
        suite.max_minutes = float(data["max_minutes"])
    if "set" in top:
        suite.overrides = _overrides(data["set"], where("set"))
    if "slurm" in top:
        suite.slurm = _slurm(top["slurm"][1], data["slurm"], path)
    if "discover" in top:
        suite.discover, suite.discover_line = _discover(top["discover"][1], data["discover"], path), _line(top["discover"][0])
        if "members" not in top:
            return suite
    if "members" not in top or not isinstance(top["members"][1], yaml.SequenceNode) or not top["members"][1].value:
        raise SuiteError(f"{path}: a suite needs a non-empty 'members:' list of recipes (or 'discover:').")
    for node, value in zip(top["members"][1].value, data["members"]):
        suite.entries.append(_entry(node, value, path))
    return suite


def _discover(node: yaml.Node, value: Any, path: Path) -> Discover:
    if not isinstance(node, yaml.MappingNode):
        raise SuiteError(f"{path}, line {_line(node)}: discover must be a mapping (family, require, recipe).")
    for key, (key_node, value_node) in _mapping(node).items():
        where = f"{path}, line {_line(key_node)}"
        if key not in DISCOVER_KEYS:
            raise SuiteError(str(unknown_key_error(key, DISCOVER_KEYS, f"{where}: discover")))
        if not isinstance(value[key], str) or not value[key]:
            raise SuiteError(f"{where}: discover.{key} must be a name, got {value[key]!r}.")
    if value.get("require", "train") not in ("train", "dev", "test"):
        raise SuiteError(f"{path}, line {_line(node)}: discover.require must be train, dev or test.")
    return Discover(**value)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _seeds(value: Any, where: str) -> List[int]:
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise SuiteError(f"{where}: seeds must be a list of whole numbers, e.g. [1, 2, 3], got {value!r}.")
    if len(set(value)) != len(value):
        raise SuiteError(f"{where}: seeds repeat a seed: {value!r}.")
    return list(value)


def _overrides(value: Any, where: str) -> List[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and "=" in v for v in value):
        raise SuiteError(f"{where}: set must be a list of section.key=value overrides, got {value!r}.")
    return list(value)


def _slurm(node: yaml.Node, value: Any, path: Path) -> SlurmSettings:
    if not isinstance(node, yaml.MappingNode):
        raise SuiteError(f"{path}, line {_line(node)}: slurm must be a mapping of job settings.")
    names = [f.name for f in dataclasses.fields(SlurmSettings)]
    settings = SlurmSettings()
    for key, (key_node, _) in _mapping(node).items():
        where = f"{path}, line {_line(key_node)}"
        if key not in names:
            raise SuiteError(str(unknown_key_error(key, names, f"{where}: slurm")))
        item = value[key]
        if key in ("partition", "cluster"):
            if item is not None and not isinstance(item, str):
                raise SuiteError(f"{where}: slurm.{key} must be a name, got {item!r}.")
        elif item is not None and (not _number(item) or item < 0):
            raise SuiteError(f"{where}: slurm.{key} must be a non-negative number, got {item!r}.")
        elif key == "gpus_per_member" and item is not None and item != int(item):
            raise SuiteError(f"{where}: slurm.gpus_per_member must be a whole number (0: CPU jobs), got {item!r}.")
        setattr(settings, key, item)
    return settings


def _entry(node: yaml.Node, value: Any, path: Path) -> Tuple[str, List[str], Optional[List[int]], int]:
    line = _line(node)
    where = f"{path}, line {line}"
    if isinstance(value, str):
        return _recipe_path(value, path, where), [], None, line
    if not isinstance(value, dict) or "recipe" not in value:
        raise SuiteError(f"{where}: a member is a recipe name, or a mapping with 'recipe:' (and 'set:', 'seeds:').")
    for key, (key_node, _) in _mapping(node).items():
        if key not in MEMBER_KEYS:
            raise SuiteError(str(unknown_key_error(key, MEMBER_KEYS, f"{path}, line {_line(key_node)}: member")))
    seeds = _seeds(value["seeds"], where) if "seeds" in value else None
    own = _overrides(value.get("set") or [], where)
    return _recipe_path(str(value["recipe"]), path, where), own, seeds, line


def _recipe_path(name: str, suite_path: Path, where: str) -> str:
    """A member's recipe: a file beside the suite, else a path or bundled name (checked now, with the line)."""
    from mlparse.config.loading import resolve_recipe, treebank_recipe

    for candidate in (suite_path.parent / name, suite_path.parent / f"{name}.yaml"):
        if not Path(name).is_absolute() and candidate.is_file() and suite_path.parent != suites_dir():
            return str(candidate)
    if treebank_recipe(name) is not None:
        return name  # ud/UD_Finnish-TDT: the generic recipe, resolved by load_recipe
    try:
        return str(resolve_recipe(name))
    except ConfigError as error:
        raise SuiteError(f"{where}: {error}") from None
