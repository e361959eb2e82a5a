"""The command templates of an external parser's recipe (``external.train``, ``predict``, ``resume``,
``resume_when``, ``model``, ``version_command``): their syntax, checked when the recipe loads, and what their
placeholders stand for (:mod:`mlparse.external.commands` fills them in).

A template is a command line of words, split as a POSIX shell would split it (quotes group words) but run
without a shell: no pipes, no redirections, no variables.  Each word may hold placeholders in braces,
replaced after the split, so a path with spaces stays one word:

=============  =====================================================================================
``{python}``   the peer's interpreter (:func:`mlparse.external.commands.peer_python`)
``{train}``    the training file the peer reads (the run's tag protocol applied)
``{dev}``      the dev file the peer reads while it trains (with its trees: for its own dev checks)
``{test}``     refused everywhere: nothing of the test set reaches a training (prediction reads it as ``{input}``)
``{input}``    the file to predict (``predict`` only): dev's or test's prediction input
``{output}``   where ``predict`` writes its predictions
``{seed}``     the run's seed (``train.seed``)
``{minutes}``  the training budget left, in minutes (a number; a run without a budget cannot use it)
``{seconds}``  the same in whole seconds
``{workdir}``  the run's folder for the peer (``RUN_DIR/peer``): its model, its own files
``{threads}``  the CPU threads mlparse would train with now (cores other processes leave free)
``{lang}``     a UD treebank's language code (``en``), from the prepared manifest; other data: ``data.language``
``{treebank}`` a UD treebank's file prefix (``en_ewt``), likewise
``{repo}``     a checkout of the peer's source (``external.repo`` or ``MLPARSE_<SYSTEM>_REPO``,
               :func:`mlparse.external.commands.peer_repo`): a trainer its package lacks (benepar's ``src/main.py``)
=============  =====================================================================================

A literal brace is written twice (``{{``).  The paths (``{python}`` to ``{output}``, ``{workdir}``, ``{repo}``) are
absolute: the peer's commands run in ``{workdir}``, not in the folder mlparse was started in.
"""

from __future__ import annotations

import re
import shlex
import string
from typing import Dict, List, Set

#: Every placeholder, and the commands that may use it (``predict`` alone has ``{input}`` and ``{output}``).
PLACEHOLDERS = ("python", "train", "dev", "test", "input", "output", "seed", "minutes", "seconds", "workdir", "threads",
                "lang", "treebank", "probe", "repo")
#: The placeholders each command may use. Training never sees ``{test}`` (not even its words: nothing of the test set
#: reaches a training).
ALLOWED: Dict[str, Set[str]] = {
    "train": set(PLACEHOLDERS) - {"input", "output", "test"},
    "resume": set(PLACEHOLDERS) - {"input", "output", "test"},
    "resume_when": {"workdir", "seed"},
    "model": {"workdir", "seed"},
    "predict": {"python", "input", "output", "workdir", "seed", "threads", "lang", "treebank", "repo"},
    "version_command": {"python"},
    "model_check": {"python", "workdir", "seed", "threads", "repo"},
}
#: The keys that name one file, not a command.
ONE_WORD = ("model", "resume_when")
#: The placeholders a command must use to do its job.
REQUIRED: Dict[str, Set[str]] = {"train": {"train"}, "predict": {"input", "output"}}


class TemplateError(ValueError):
    """A command template that cannot be used: unbalanced quotes, an unknown placeholder, a missing one."""


def placeholders(template: str) -> List[str]:
    """The placeholders of ``template``, in order of appearance (a :class:`TemplateError` for a malformed one)."""
    found: List[str] = []
    for word in split_words(template):
        try:
            parsed = list(string.Formatter().parse(word))
        except ValueError as error:
            raise TemplateError(f"{word!r}: {error} (a literal brace is written twice: {{{{ or }}}})") from None
        for _, field, spec, conversion in parsed:
            if field is None:
                continue
            if not field or spec or conversion or not re.fullmatch(r"[a-z_]+", field):
                raise TemplateError(f"{word!r}: {{{field}{'!' + conversion if conversion else ''}"
                                    f"{':' + spec if spec else ''}}} is not a placeholder; placeholders are "
                                    f"{', '.join('{' + p + '}' for p in PLACEHOLDERS)}")
            found.append(field)
    return found


def split_words(template: str) -> List[str]:
    """``template`` split into words as a POSIX shell splits them (a :class:`TemplateError` for open quotes)."""
    try:
        return shlex.split(template)
    except ValueError as error:
        raise TemplateError(f"{template!r}: {error}") from None


def check_template(command: str, template: str) -> None:
    """``template`` as ``external.<command>``: well-formed, only the placeholders that command may use, and the
    ones it needs (:data:`REQUIRED`)."""
    used = placeholders(template)
    allowed = ALLOWED[command]
    for name in used:
        if name not in allowed:
            known = name in PLACEHOLDERS
            raise TemplateError(f"{{{name}}} {'cannot be used in' if known else 'is not a placeholder of'} "
                                f"external.{command}; it may use {', '.join('{' + p + '}' for p in sorted(allowed))}")
    if command in ONE_WORD and len(split_words(template)) != 1:
        raise TemplateError(f"external.{command} names one file, got {len(split_words(template))} words (a file "
                            f"name with a space is quoted inside the value, as in a command: "
                            f"{command}: \"'{{workdir}}/my model.pt'\")")
    missing = sorted(REQUIRED.get(command, set()) - set(used))
    if missing:
        raise TemplateError(f"external.{command} must use {', '.join('{' + m + '}' for m in missing)} (where it "
                            f"{'reads its training data' if command == 'train' else 'reads and writes'})")
