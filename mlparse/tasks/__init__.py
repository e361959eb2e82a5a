"""Tasks: constituency and dependency parsing. Each reads prepared splits, writes predictions and scores them
(:class:`mlparse.tasks.base.Task`); :func:`task_for` gives the task of a recipe or a parser kind."""

from __future__ import annotations

from mlparse.tasks.base import DataError, EvalOutcome, Split, Task


def task_for(name: str, column: str = "upos") -> Task:
    """The task called ``name`` (``constituency``, ``dependency``, ``joint`` or ``tagging``; ``column`` is the
    tagging task's tag column, ``tagger.column``)."""
    if name == "constituency":
        from mlparse.tasks.constituency import ConstituencyTask

        return ConstituencyTask()
    if name == "dependency":
        from mlparse.tasks.dependency import DependencyTask

        return DependencyTask()
    if name == "joint":
        from mlparse.tasks.joint import JointTask

        return JointTask()
    if name == "tagging":
        from mlparse.tasks.tagging import TaggingTask

        return TaggingTask(column)
    raise ValueError(f"unknown task {name!r}; tasks: constituency, dependency, joint, tagging")


__all__ = ["DataError", "EvalOutcome", "Split", "Task", "task_for"]
