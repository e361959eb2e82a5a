"""``mlparse ensemble``: train the members (when given as recipes), then parse and score dev and test with their
ensemble (:class:`mlparse.models.ensemble.EnsembleParser`) into a run directory of its own.

Members are finished run directories or recipes.  A recipe member is an ordinary run
(:func:`mlparse.train.runner.run_planned`: same run directory, same resume rules).  With ``folds: N``
(jack-knifing, :mod:`mlparse.train.folds`) member j trains on every fold but ``j mod N``; a single recipe
with folds becomes N members.  A recipe named again for the same fold (or without folds) gets
``train.seed`` + 1 for its second appearance, + 2 for its third, so that repeats are different models.
``3 × SelfAtt + 3 × BiLSTM`` on 6 folds (Li et al. 2019, Table 4) is the member list
``[ud/english-ewt] * 3 + [ud/english-ewt-bilstm] * 3`` with ``folds: 6``.

The ensemble's run directory (``RUNS/<name>/<id>/``; ``id`` from the members' recipe hashes and the
averaging) holds ``ensemble.yaml`` (its definition), the predictions and scorer reports of dev and test,
and ``results.json`` naming its members with their own dev and test scores (:class:`MemberSummary`).
Members must share task, parser kind and evaluation data (data set, language, dev and test files,
scoring settings); their label lists may differ only when they were trained on one training file.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch
import yaml

from mlparse.config import ConfigError, RecipeConfig, kinds, load_recipe
from mlparse.config.loading import recipe_from_yaml_text
from mlparse.io_utils import atomic_write_text
from mlparse.models.ensemble import AVERAGING_MODES, EnsembleError, EnsembleParser
from mlparse.models.registry import parser_class, parser_from_spec
from mlparse.results import COMPLETE, FAILED, RUNNING, MemberSummary, RunResults
from mlparse.run_dir import ENSEMBLE_FILE, RunDir
from mlparse.tasks import DataError
from mlparse.train import checkpoint
from mlparse.train.eval_tags import attach_eval_tags, choose_eval_tags
from mlparse.train.environment import hardware_info, now_iso, versions
from mlparse.run_lock import RunLock, RunLocked
from mlparse.train.run_plan import RunError, RunPlan, pick_device
from mlparse.train.runner import WARMUP_SENTENCES, RunOptions, run_planned
from mlparse.train.prediction import predict_in_batches, resolve_decoder
from mlparse.train.trainer import Reporter, subbatch_budgets
from mlparse.train.split_record import gold_record
from mlparse.train.cpu_share import others_since_start
from mlparse.train.threads import choose_threads

#: The keys of an ``ensemble:`` recipe section.
ENSEMBLE_KEYS = ("members", "folds", "fold_assignment", "average")


@dataclass
class EnsemblePlan:
    """An ensemble to build: ``members`` are run directories or recipes (names or files)."""

    members: List[str]
    name: str = ""  # the run folder's name (default: ensemble-<member recipe names>)
    folds: Optional[int] = None  # jack-knife the recipe members over N folds
    fold_assignment: str = "modulo"  # modulo | blocks | permutation (mlparse/train/folds.py)
    average: str = "probability"  # AVERAGING_MODES
    overrides: List[str] = field(default_factory=list)  # --set for every recipe member

    def check(self, where: str = "ensemble") -> None:
        if not self.members:
            raise EnsembleError(f"{where}: an ensemble needs at least one member (run directories or recipes)")
        if self.average not in AVERAGING_MODES:
            raise EnsembleError(f"{where}: average must be one of {', '.join(AVERAGING_MODES)}, got {self.average!r}")
        if self.folds is not None and self.folds < 2:
            raise EnsembleError(f"{where}: folds must be at least 2, got {self.folds}")
        if self.fold_assignment not in ("modulo", "blocks", "permutation"):
            raise EnsembleError(f"{where}: fold_assignment must be modulo, blocks or permutation, got "
                                f"{self.fold_assignment!r}")


def is_ensemble_recipe(path: Path) -> bool:
    """Is ``path`` a YAML file with an ``ensemble:`` section?"""
    if not (path.is_file() and path.suffix in (".yaml", ".yml")):
        return False
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False
    return isinstance(data, dict) and "ensemble" in data


def read_ensemble_recipe(path: Path) -> EnsemblePlan:
    """The plan of an ensemble recipe: ``name``, ``description`` and an ``ensemble:`` section of
    :data:`ENSEMBLE_KEYS`; relative member paths are taken from the recipe's folder."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise EnsembleError(f"{path}: cannot read the ensemble recipe: {error}") from None
    section = data.get("ensemble") if isinstance(data, dict) else None
    if not isinstance(section, dict):
        raise EnsembleError(f"{path}: the ensemble: section must be a mapping of {', '.join(ENSEMBLE_KEYS)}")
    for key in list(data):
        if key not in ("name", "description", "ensemble"):
            raise EnsembleError(f"{path}: unknown key {key!r} in an ensemble recipe (keys: name, description, ensemble)")
    for key in section:
        if key not in ENSEMBLE_KEYS:
            raise EnsembleError(f"{path}: unknown key ensemble.{key}; valid keys: {', '.join(ENSEMBLE_KEYS)}")
    members = section.get("members")
    if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
        raise EnsembleError(f"{path}: ensemble.members must be a list of run directories or recipes")
    folds = section.get("folds")
    if folds is not None and (isinstance(folds, bool) or not isinstance(folds, int)):
        raise EnsembleError(f"{path}: ensemble.folds must be a whole number, got {folds!r}")
    resolved = [str(path.parent / m) if (path.parent / m).exists() else m for m in members]
    plan = EnsemblePlan(members=resolved, name=str(data.get("name") or path.stem), folds=folds,
                        fold_assignment=str(section.get("fold_assignment", "modulo")),
                        average=str(section.get("average", "probability")))
    plan.check(str(path))
    return plan


def is_run_dir(path: str) -> bool:
    folder = Path(path)
    return folder.is_dir() and RunDir(folder).results.is_file()


def member_overrides(plan: EnsemblePlan) -> List[Tuple[str, List[str]]]:
    """(recipe, overrides) of each recipe member, folds and repeat seeds applied; run directories as (path, [])."""
    members = list(plan.members)
    if plan.folds and len(members) == 1 and not is_run_dir(members[0]):
        members = members * plan.folds
    if plan.folds and any(is_run_dir(m) for m in members):
        raise EnsembleError("folds apply to recipe members; a run directory is trained already "
                            f"({next(m for m in members if is_run_dir(m))})")
    out: List[Tuple[str, List[str]]] = []
    seen: Counter = Counter()
    for j, member in enumerate(members):
        if is_run_dir(member):
            out.append((member, []))
            continue
        if Path(member).is_dir():
            raise EnsembleError(f"{member} is a folder but not a run directory (no {RunDir(Path(member)).results.name})")
        fold = j % plan.folds if plan.folds else None
        repeat = seen[(member, fold)]
        seen[(member, fold)] += 1
        extra = list(plan.overrides)
        if fold is not None:
            extra += [f"data.folds={plan.folds}", f"data.fold={fold}", f"data.fold_assignment={plan.fold_assignment}"]
        if repeat:
            base_seed = load_recipe(member, extra).train.seed
            extra.append(f"train.seed={base_seed + repeat}")
        out.append((member, extra))
    return out


def train_members(plan: EnsemblePlan, options: RunOptions,
                  reporter: Optional[Callable[[], Reporter]] = None,
                  on_member: Optional[Callable[[str], None]] = None) -> List[Path]:
    """The run directory of every member, training the recipe members first (resuming as ``mlparse run``)."""
    dirs: List[Path] = []
    for member, extra in member_overrides(plan):
        if not extra and is_run_dir(member):
            dirs.append(Path(member))
            continue
        try:
            config = load_recipe(member, extra)
        except ConfigError as error:
            raise EnsembleError(str(error)) from None
        if kinds.declaration(config.model.kind).runs_outside:
            raise EnsembleError(f"{member}: model.kind {config.model.kind} runs another toolkit's parser, whose model "
                                "mlparse cannot load; an ensemble's members are parsers mlparse trains")
        plan = RunPlan.for_recipe(config, options.runs_dir)
        run_dir = plan.run_dir
        if on_member is not None:
            on_member(str(run_dir.path))
        results = run_planned(plan, options, reporter() if reporter is not None else None)
        if results.status != COMPLETE:
            raise EnsembleError(f"member {run_dir.path} did not finish (status {results.status})")
        dirs.append(run_dir.path)
    return dirs


@dataclass
class LoadedMember:
    run_dir: Path
    config: RecipeConfig
    results: RunResults
    parser: Any


def load_member(path: Path, device: torch.device, trust: bool = False) -> LoadedMember:
    """A finished run's recipe, results and best parser (``best.pt``) on ``device``."""
    run = RunDir(Path(path))
    results = run.read_results()
    if results is None:
        raise EnsembleError(f"{path}: not a run directory (no readable {run.results.name})")
    if results.status != COMPLETE:
        raise EnsembleError(f"{path}: the run is {results.status}, not complete; finish it first (`mlparse run`)")
    if results.members:
        raise EnsembleError(f"{path} is an ensemble itself; name its members instead")
    try:
        config = recipe_from_yaml_text(run.recipe.read_text(encoding="utf-8"), str(run.recipe))
    except (OSError, ConfigError) as error:
        raise EnsembleError(f"{run.recipe}: cannot read the run's recipe: {error}") from None
    source = run.best if run.best.is_file() else run.last
    if not source.is_file():
        raise EnsembleError(f"{path}: no checkpoint ({run.best.name} or {run.last.name}) to load")
    saved = checkpoint.load(source, map_location=device, trust=trust)
    parser = parser_from_spec(saved["spec"]).to(device)
    parser.load_state_dict(saved["model"])
    parser.eval()
    return LoadedMember(Path(path), config, results, parser)


def _evaluation_data(config: RecipeConfig) -> Dict[str, Any]:
    """What members must share to be scored together: the task, the kind and the evaluation data."""
    d = config.data
    return {"task": config.task, "parser kind (model.kind)": config.model.kind, "data set (data.family)": d.family,
            "language (data.language)": d.language, "dev file": str(config.split_path("dev")),
            "test file": str(config.split_path("test")), "data.evalb_params": d.evalb_params,
            "eval.dependency_scoring": config.eval.dependency_scoring, "data.eval_tags": d.eval_tags,
            "data.dev_tags": d.dev_tags, "data.test_tags": d.test_tags}


def check_compatible(members: Sequence[LoadedMember]) -> bool:
    """Raise :class:`EnsembleError` naming two runs and what differs when members cannot be ensembled;
    returns whether they were trained on one training file (then label lists may differ: their union)."""
    first = members[0]
    mine = _evaluation_data(first.config)
    for other in members[1:]:
        theirs = _evaluation_data(other.config)
        for key, value in mine.items():
            if theirs[key] != value:
                raise EnsembleError(f"cannot ensemble {first.run_dir} and {other.run_dir}: their {key} differs "
                                    f"({value} against {theirs[key]})")
    return len({str(m.config.split_path("train")) for m in members}) == 1


def system_name(systems: Sequence[str]) -> str:
    """``mlparse span (CharLSTM + words), ensemble of 3``; mixed members are counted: ``3 × A + 3 × B, ensemble of 6``."""
    counts = Counter(systems)
    if len(counts) == 1:
        head = systems[0]
    else:
        head = " + ".join(f"{n} × {name}" for name, n in counts.items())
    return f"{head}, ensemble of {len(systems)}"


def ensemble_id(members: Sequence[LoadedMember], average: str) -> str:
    key = json.dumps([[m.results.recipe_hash, m.results.run_id] for m in members] + [average])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]


def default_name(members: Sequence[LoadedMember]) -> str:
    return "ensemble-" + "+".join(dict.fromkeys(m.results.recipe or m.config.name for m in members))


def evaluate_ensemble(run_dirs: Sequence[Path], average: str = "probability", name: str = "",
                      runs_dir: Path = Path("runs"), out: Optional[Path] = None,
                      trust: bool = False) -> Tuple[RunResults, RunDir]:
    """Parse and score dev and test with the ensemble of ``run_dirs``; writes its run directory (under
    ``runs_dir/<name>/<id>/``, or ``out``) and returns its results."""
    if not run_dirs:
        raise EnsembleError("an ensemble needs at least one member")
    first_config = recipe_from_yaml_text(RunDir(Path(run_dirs[0])).recipe.read_text(encoding="utf-8")) \
        if RunDir(Path(run_dirs[0])).recipe.is_file() else None
    device = pick_device(first_config) if first_config is not None else torch.device("cpu")
    members = [load_member(Path(path), device, trust) for path in run_dirs]
    union = check_compatible(members)
    config = members[0].config
    torch.set_num_threads(choose_threads(config.train.num_threads, others=others_since_start()).threads)
    ensemble = EnsembleParser([m.parser for m in members], [str(m.run_dir) for m in members], average, union=union)
    name = name or default_name(members)
    identifier = ensemble_id(members, average)
    run = RunDir(Path(out) if out is not None else Path(runs_dir) / name / identifier)
    run.path.mkdir(parents=True, exist_ok=True)
    try:
        with RunLock(run.path):
            return _evaluate(ensemble, members, config, run, name, identifier, average, union, device), run
    except RunLocked as error:
        raise EnsembleError(str(error)) from None


def _evaluate(ensemble: EnsembleParser, members: Sequence[LoadedMember], config: RecipeConfig, run: RunDir,
              name: str, identifier: str, average: str, union: bool, device: torch.device) -> RunResults:
    task = parser_class(config.model.kind).make_task(config)
    if config.data.tags == "jackknife":
        raise EnsembleError("an ensemble of parsers with data.tags: jackknife is not supported yet: it would parse dev "
                            "and test with their gold tags; ensemble members that read gold tags or tag files")
    eval_tags = choose_eval_tags(config)
    summaries = [MemberSummary(run_dir=str(m.run_dir), run_id=m.results.run_id, recipe=m.results.recipe,
                               recipe_hash=m.results.recipe_hash, system=m.results.system, dev=m.results.dev,
                               test=m.results.test) for m in members]
    notes = ["members' label lists differ (trained on folds of one training file): their union is used"] \
        if any(m.parser.output_inventories() != members[0].parser.output_inventories() for m in members) else []
    results = RunResults(
        mlparse_version=versions()["mlparse"], status=RUNNING, recipe=name, recipe_hash=identifier, run_id=identifier,
        task=config.task, model=config.model.kind, system=system_name([m.results.system for m in members]),
        dataset=config.data.family, language=config.data.language, hardware=hardware_info(str(device)),
        versions=versions(), started_at=now_iso(), eval_tags=eval_tags.kind, eval_tag_files=eval_tags.files,
        members=[asdict(s) for s in summaries], averaging=average, notes=notes)
    definition = {"name": name, "average": average, "union_of_labels": union,
                  "members": [{"run_dir": s.run_dir, "path": str(Path(s.run_dir).resolve()), "recipe": s.recipe,
                               "run_id": s.run_id} for s in summaries]}
    atomic_write_text(run.path / ENSEMBLE_FILE, yaml.safe_dump(definition, sort_keys=False, allow_unicode=True))
    run.write_results(results)
    try:
        try:
            dev, test = (task.read_split(config.split_path(s)) for s in ("dev", "test"))
            results.gold = gold_record(task, config)  # what dev and test are scored against (mlparse compare checks it)
            attach_eval_tags(eval_tags, {"dev": dev, "test": test}, config.biaffine.tag_column)
        except DataError as error:
            raise EnsembleError(str(error)) from None
        decoder = resolve_decoder(config, device)
        budget = subbatch_budgets(config, ensemble, device, decoder)[1]
        warm = task.inputs(dev)[:WARMUP_SENTENCES]
        predict_in_batches(ensemble, warm, [task.length(e) for e in dev.examples[:len(warm)]], budget, decoder)
        seconds, parsed = 0.0, 0
        for split_name, split in (("dev", dev), ("test", test)):
            inputs = task.inputs(split)
            start = time.perf_counter()
            predicted = predict_in_batches(ensemble, inputs, [task.length(e) for e in split.examples], budget, decoder)
            seconds += time.perf_counter() - start
            parsed += len(inputs)
            task.write_predictions(run.pred(split_name, task.suffix), split, predicted)
            outcome = task.score(split, predicted, config)
            atomic_write_text(run.report(split_name, task.report_suffix), outcome.report)
            setattr(results, split_name, outcome.scores)
            results.record_dependency_scoring(outcome.protocol)
        results.parse_sentences_per_second = round(parsed / max(seconds, 1e-9), 2)
        results.status, results.finished_at = COMPLETE, now_iso()
        run.write_results(results)
        return results
    except BaseException as error:
        if not isinstance(error, KeyboardInterrupt):
            results.status, results.error, results.finished_at = FAILED, str(error) or type(error).__name__, now_iso()
            try:
                run.write_results(results)
            except OSError:
                pass
        raise


def run_ensemble(plan: EnsemblePlan, options: RunOptions, out: Optional[Path] = None,
                 reporter: Optional[Callable[[], Reporter]] = None,
                 on_member: Optional[Callable[[str], None]] = None) -> Tuple[RunResults, RunDir]:
    """Train the plan's recipe members (as ordinary runs), then evaluate their ensemble."""
    plan.check()
    dirs = train_members(plan, options, reporter, on_member)
    return evaluate_ensemble(dirs, plan.average, plan.name, options.runs_dir, out, options.trust_checkpoint)


__all__ = ["EnsembleError", "EnsemblePlan", "RunError", "evaluate_ensemble", "is_ensemble_recipe", "read_ensemble_recipe",
           "run_ensemble", "train_members"]
