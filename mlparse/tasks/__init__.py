"""Tasks: constituency and dependency parsing, both at once, tagging. Each reads prepared splits, writes
predictions and scores them (:class:`mlparse.tasks.base.Task`); :func:`task_for` gives a task by its name
(a parser class's ``task``), :func:`register_task` adds one."""

from __future__ import annotations

import importlib
from typing import Any, Dict, List, Optional, Union

from mlparse.tasks.base import DataError, EvalOutcome, Split, Task

#: task name → "module:Class" (imported on first use) or the class
_TASKS: Dict[str, Union[str, type]] = {
    "constituency": "mlparse.tasks.constituency:ConstituencyTask",
    "dependency": "mlparse.tasks.dependency:DependencyTask",
    "joint": "mlparse.tasks.joint:JointTask",
    "tagging": "mlparse.tasks.tagging:TaggingTask",
}


def register_task(name: str, target: Union[str, type]) -> None:
    """Make task ``name`` known: a :class:`Task` subclass or its ``"module:Class"``."""
    if isinstance(target, str) and target.count(":") != 1:
        raise ValueError(f"a task class is named 'module:Class', got {target!r}")
    _TASKS[name] = target


def task_names() -> List[str]:
    return list(_TASKS)


def task_class(name: str) -> Any:
    """The class of task ``name``."""
    target = _TASKS.get(name)
    if target is None:
        raise ValueError(f"unknown task {name!r}; tasks: {', '.join(_TASKS)}")
    if isinstance(target, str):
        module_name, class_name = target.split(":")
        target = getattr(importlib.import_module(module_name), class_name)
    return target


def find_task(name: Any) -> Optional[Any]:
    """The class of task ``name``, or None where no task has that name (a results file of a task not installed
    here, an external run's record): what code outside the tasks asks about a task it read from a file."""
    return task_class(name) if isinstance(name, str) and name in _TASKS else None


def dev_metric(name: str, default: str = "f1") -> str:
    """The metric that selects the checkpoints of task ``name`` (its :attr:`Task.metric`, what ``log.jsonl``
    records); ``default`` for a name no task has (a results file of a task not installed here)."""
    return str(task_class(name).metric) if name in _TASKS else default


def metric_label(metric: str) -> str:
    """How people write the score ``metric`` (a ``SplitScores`` field): the label of the task whose dev metric it
    is (``F1``, ``LAS``, ``tag accuracy``), else ``exact match`` or the name in capitals (``UAS``, ``CLAS``)."""
    for name in _TASKS:
        cls = task_class(name)
        if cls.metric == metric and cls.metric_label:
            return str(cls.metric_label)
    return "exact match" if metric == "complete_match" else metric.upper()


def task_for(name: str, config: Any = None) -> Task:
    """The task called ``name`` for the recipe ``config`` (:meth:`Task.for_recipe`; None: the task's defaults)."""
    return task_class(name).for_recipe(config)


__all__ = ["DataError", "EvalOutcome", "Split", "Task", "dev_metric", "metric_label", "find_task", "register_task", "task_class", "task_for", "task_names"]
