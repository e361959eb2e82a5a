"""Console scripts ``evalb`` and ``evalb_spmrl``.

Options are read like the original: each argument starting with ``-`` is one
option letter (letters after the first are ignored, ``-c40`` and ``-c 40`` are
both accepted), options apply in argument order, the first two other arguments
are the gold and test files.  ``--strict`` is the one addition.
"""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

from .engine import run
from .lines import split_lines
from .params import EvalbParams, ParamFileError, c_atoi, read_param_file
from .report import HEADER, format_compact, format_sentences, format_status_file, format_summary
from .results import Problem, summarize

USAGE = """\
usage: {prog} [-dDh] [-c n] [-e n] [-p param_file]{extra} [--strict] gold-file test-file

Scores the bracketing of test-file against gold-file (one tree per line):
bracket recall, precision and F-measure, complete match, crossing brackets,
tagging accuracy; per sentence, overall and for sentences up to a cut-off length.

  -d             debug: print the terminals and brackets of every sentence
  -D             debug, plus tokenizing and matching details
  -c n           cut-off length of the second summary block (default 40)
  -e n           stop after more than n errors (default 10)
  -p file        parameter file (applied at its place among the options)
{spmrl_help}  -h             this help
  --strict       fail (exit status 2) with a list of every sentence that was
                 skipped or in error, after printing the report
"""

SPMRL_HELP = """\
  -K n           score only the first n lines
  -X             count an empty test tree as unparsed (its gold brackets are missed)
  -L             one-line summary of all sentences (Prec and Rec are printed swapped,
                 as in the original)
  -l             one-line summary of the cut-off block
  -V             name the two files in the summary header
"""


def _usage(spmrl: bool) -> None:
    prog = "evalb_spmrl" if spmrl else "evalb"
    extra = " [-K n] [-LlXV]" if spmrl else ""
    sys.stderr.write(USAGE.format(prog=prog, extra=extra, spmrl_help=SPMRL_HELP if spmrl else ""))


class _Options:
    def __init__(self) -> None:
        self.params = EvalbParams()
        self.files: list[bytes] = []
        self.strict = False
        self.max_sentences = -1
        self.compact = False
        self.compact_cutoff = False
        self.count_unparsed = False
        self.print_names = False


_MISSING = {
    "c": "cut-off length for statistices",
    "e": "number of error to kill",
    "p": "parameter file",
    "K": "Max nb of  sentences to read",
}


def _parse_args(args: list[bytes], spmrl: bool, err) -> _Options | int:
    """Apply options in order; returns the options or an exit status."""
    opts = _Options()
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == b"--strict":
            opts.strict = True
        elif arg[:1] == b"-":
            if len(arg) == 1:
                i += 1
                continue
            letter = chr(arg[1])
            if letter == "h":
                _usage(spmrl)
                return 1
            if letter in ("d", "D"):
                opts.params.debug = 1 if letter == "d" else 2
            elif letter in ("c", "e", "p") or (spmrl and letter == "K"):
                if len(arg) > 2:
                    value = arg[2:]
                elif i + 1 < len(args):
                    i += 1
                    value = args[i]
                else:
                    err(b"Missing argument: %s\n" % _MISSING[letter].encode())
                    value = b""
                if letter == "c":
                    opts.params.cutoff_len = c_atoi(value)
                    if spmrl:
                        err(b"cutoff %d\n" % opts.params.cutoff_len)
                elif letter == "e":
                    opts.params.max_error = c_atoi(value)
                elif letter == "K":
                    opts.max_sentences = c_atoi(value)
                else:
                    try:
                        _, warnings = read_param_file(os.fsdecode(value), opts.params)
                    except ParamFileError:
                        err(b"Can't open parameter file (%s)\n" % value)
                        return 1
                    for warning in warnings:
                        err(warning.encode("utf-8", "surrogateescape"))
            elif spmrl and letter in "LlXV":
                if letter in "Ll":
                    opts.compact = True
                    opts.compact_cutoff = opts.compact_cutoff or letter == "l"
                elif letter == "X":
                    opts.count_unparsed = True
                else:
                    opts.print_names = True
            else:
                _usage(spmrl)
                return 0
        elif len(opts.files) < 2:
            opts.files.append(arg)
        i += 1
    return opts


def _read_lines(name: bytes | None, which: str, err) -> tuple[list[bytes], bool] | None:
    shown = b"(null)" if name is None else name
    if name is None:
        err(b"Can't open %s file (%s)\n" % (which.encode(), shown))
        return None
    try:
        data = Path(os.fsdecode(name)).read_bytes()
    except OSError:
        err(b"Can't open %s file (%s)\n" % (which.encode(), shown))
        return None
    return split_lines(data)


def strict_message(problems: list[Problem], errors: int, skips: int, aborted: bool, prog: str) -> str:
    """The ``--strict`` failure text: one entry per offending sentence."""
    head = f"{prog} --strict: {len(problems)} problem(s): {errors} error sentence(s), {skips} skipped sentence(s)"
    if aborted:
        head += "; the run stopped early (more errors than MAX_ERROR), so no summary was printed"
    head += ". The original program leaves such sentences out of every total:\n"
    return head + "".join(p.describe() + "\n" for p in problems)


def emptied_note(lines: list[int], prog: str, shown: int = 10) -> str:
    """The ``--strict`` note on sentences that DELETE_LABEL empties on both sides (no error)."""
    where = ", ".join(str(line) for line in lines[:shown]) + (f" and {len(lines) - shown} more" if len(lines) > shown else "")
    return (f"{prog} --strict: {len(lines)} sentence(s) with no word left after DELETE_LABEL in either tree "
            f"({'line' if len(lines) == 1 else 'lines'} {where}): skipped, as the original program does; not an error\n")


def _run(argv: list[str] | None, spmrl: bool) -> int:
    prog = "evalb_spmrl" if spmrl else "evalb"
    args = [os.fsencode(a) for a in (sys.argv[1:] if argv is None else argv)]
    stderr = sys.stderr.buffer if hasattr(sys.stderr, "buffer") else None

    def err(data: bytes) -> None:
        if stderr is not None:
            stderr.write(data)
            stderr.flush()
        else:
            sys.stderr.write(data.decode("utf-8", "surrogateescape"))

    parsed = _parse_args(args, spmrl, err)
    if isinstance(parsed, int):
        return parsed
    opts = parsed
    names = opts.files + [None] * (2 - len(opts.files))
    gold = _read_lines(names[0], "gold", err)
    if gold is None:
        return 1
    test = _read_lines(names[1], "test", err)
    if test is None:
        return 1
    params = opts.params
    out = run(
        gold[0],
        test[0],
        params,
        spmrl=spmrl,
        count_unparsed=opts.count_unparsed,
        max_sentences=opts.max_sentences,
        gold_ends_with_newline=gold[1],
        test_ends_with_newline=test[1],
    )
    sink = out.sink
    body = b"".join(sink.stdout) if sink.live_output else format_sentences(sink.records)
    chunks = [HEADER, body]
    every = short = None
    if not out.aborted:
        every, short = summarize(sink.records, params.cutoff_len)
        if spmrl and opts.compact:
            block = short if opts.compact_cutoff else every
            chunks.append(format_compact(block, names[1]))
        else:
            title = b"=== Summary ===" if not (spmrl and opts.print_names) else b"=== Summary: %s\tvs\t%s ===" % (names[0], names[1])
            chunks.append(format_summary(every, short, params.cutoff_len, title))
    try:
        sys.stdout.buffer.write(b"".join(chunks))
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    err(b"".join(sink.stderr))
    if spmrl and every is not None and not opts.compact:
        try:
            Path("status").write_bytes(format_status_file(every))
        except OSError as exc:
            err(f"{prog}: cannot write the status file in {os.getcwd()}: {exc.strerror}\n".encode())
    status = 1 if out.aborted else 0
    if opts.strict and out.emptied:
        err(emptied_note(out.emptied, prog).encode())
    if opts.strict and (out.problems or out.aborted):
        errors = sum(1 for r in sink.records if r[2] == 1)
        skips = sum(1 for r in sink.records if r[2] in (2, 3)) - len(out.emptied)
        err(strict_message(out.problems, errors, skips, out.aborted, prog).encode("utf-8", "surrogateescape"))
        status = status or 2
    return status


def _run_without_gc(argv: list[str] | None, spmrl: bool) -> int:
    """:func:`_run` with the cyclic garbage collector paused: a run allocates one row tuple per sentence and
    no cycles, and the collections those allocations trigger would only traverse the growing list of rows."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _run(argv, spmrl)
    finally:
        if enabled:
            gc.enable()


def main(argv: list[str] | None = None) -> int:
    """``evalb``: the standard program."""
    return _run_without_gc(argv, spmrl=False)


def main_spmrl(argv: list[str] | None = None) -> int:
    """``evalb_spmrl``: the SPMRL 2013 variant."""
    return _run_without_gc(argv, spmrl=True)


if __name__ == "__main__":
    sys.exit(main())
