"""Evaluation parameters: the dataclass and the parameter-file reader.

A parameter file holds one ``KEYWORD value`` per line.  Reading follows the
original program: a line is first stripped of trailing whitespace (the first
character is never stripped), lines starting with ``#`` or shorter than three
characters are skipped, the keyword is the text up to the first whitespace and
the value is everything after the whitespace that follows it (so a value may
contain spaces).  Keywords apply in file order on top of what was set before,
which is how ``-c 20 -p file`` and ``-p file -c 20`` can differ.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .lines import split_lines

#: Bytes that C's ``isspace`` accepts in the "C" locale.
C_SPACE = b" \t\n\v\f\r"

PARAMS_DIR = Path(__file__).resolve().parent / "params"

#: Names of the parameter files shipped in ``evalb/params``.
BUILTIN_PARAMS = ("COLLINS", "nk", "spmrl", "spmrl_hebrew")


@dataclass
class EvalbParams:
    """Every setting the scorer reads.  Labels and words are raw bytes.

    ``delete_labels`` are compared to POS tags (raw) and to truncated bracket
    labels; ``eq_labels``/``eq_words`` are symmetric pairs.
    """

    debug: int = 0
    max_error: int = 10
    cutoff_len: int = 40
    labeled: int = 1
    delete_labels: list[bytes] = field(default_factory=list)
    delete_labels_for_length: list[bytes] = field(default_factory=list)
    quote_labels: list[bytes] = field(default_factory=list)
    eq_labels: list[tuple[bytes, bytes]] = field(default_factory=list)
    eq_words: list[tuple[bytes, bytes]] = field(default_factory=list)

    def copy(self) -> "EvalbParams":
        return EvalbParams(
            self.debug,
            self.max_error,
            self.cutoff_len,
            self.labeled,
            list(self.delete_labels),
            list(self.delete_labels_for_length),
            list(self.quote_labels),
            list(self.eq_labels),
            list(self.eq_words),
        )


class ParamFileError(OSError):
    """The parameter file cannot be opened."""


def c_atoi(text: bytes) -> int:
    """C ``atoi``: optional leading whitespace and sign, then digits; 0 when none.

    Values outside the 32-bit range wrap like the C ``int`` they end up in.
    """
    i, n = 0, len(text)
    while i < n and text[i] in C_SPACE:
        i += 1
    sign = 1
    if i < n and text[i] in b"+-":
        sign = -1 if text[i] == 45 else 1
        i += 1
    start = i
    while i < n and 48 <= text[i] <= 57:
        i += 1
    if i == start:
        return 0
    value = (sign * int(text[start:i])) & 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _keyword_is(line: bytes, keyword: bytes) -> bool:
    """The keyword test of the original: a prefix followed by end or whitespace."""
    if not line.startswith(keyword):
        return False
    rest = line[len(keyword) : len(keyword) + 1]
    return rest == b"" or rest in C_SPACE


def _split_words(value: bytes) -> list[bytes]:
    out: list[bytes] = []
    word = bytearray()
    for byte in value:
        if byte in C_SPACE:
            if word:
                out.append(bytes(word))
                word = bytearray()
        else:
            word.append(byte)
    if word:
        out.append(bytes(word))
    return out


def apply_param_line(params: EvalbParams, line: bytes, warnings: list[str]) -> None:
    """Apply one cleaned, non-comment line (``KEYWORD value``) to ``params``."""
    for keyword, attr in ((b"DEBUG", "debug"), (b"MAX_ERROR", "max_error"), (b"CUTOFF_LEN", "cutoff_len"), (b"LABELED", "labeled")):
        if _keyword_is(line, keyword):
            setattr(params, attr, c_atoi(_value_of(line)))
            return
    value = _value_of(line)
    if _keyword_is(line, b"DELETE_LABEL"):
        params.delete_labels.append(value)
    elif _keyword_is(line, b"DELETE_LABEL_FOR_LENGTH"):
        params.delete_labels_for_length.append(value)
    elif _keyword_is(line, b"QUOTE_LABEL"):
        params.quote_labels.append(value)
    elif _keyword_is(line, b"EQ_LABEL") or _keyword_is(line, b"EQ_WORD"):
        is_label = _keyword_is(line, b"EQ_LABEL")
        pair = _split_words(value)
        if len(pair) != 2:
            warnings.append("EQ_LABEL requires two values\n" if is_label else "EQ_WORD requires two values\n")
            return
        (params.eq_labels if is_label else params.eq_words).append((pair[0], pair[1]))
    else:
        warnings.append("Unknown keyword (%s) in parameter file\n" % line.decode("utf-8", "surrogateescape"))


def _value_of(line: bytes) -> bytes:
    i, n = 0, len(line)
    while i < n and line[i] not in C_SPACE:
        i += 1
    while i < n and line[i] in C_SPACE:
        i += 1
    return line[i:]


def read_param_file(path: str | Path, params: EvalbParams | None = None) -> tuple[EvalbParams, list[str]]:
    """Read ``path`` on top of ``params`` (a fresh default when None).

    Returns the updated params and the warning lines the original program would
    print on stderr (unknown keyword, empty value, bad EQ_* arity).
    Raises :class:`ParamFileError` when the file cannot be read.
    """
    params = EvalbParams() if params is None else params
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ParamFileError(f"Can't open parameter file ({path})") from exc
    warnings: list[str] = []
    for number, raw in enumerate(split_lines(data)[0], start=1):
        line = raw[:1] + raw[1:].rstrip(C_SPACE)
        if line[:1] == b"#" or len(line) < 3:
            continue
        if _value_of(line) == b"":
            warnings.append(f"Empty value in parameter file ({number})\n")
        apply_param_line(params, line, warnings)
    return params, warnings


def builtin_param_path(name: str) -> Path:
    """Path of a shipped parameter file: ``COLLINS``, ``nk``, ``spmrl`` or ``spmrl_hebrew``."""
    stem = name[:-4] if name.endswith(".prm") else name
    path = PARAMS_DIR / f"{stem}.prm"
    if stem not in BUILTIN_PARAMS or not path.is_file():
        raise ValueError(f"unknown parameter set {name!r}; shipped: {', '.join(BUILTIN_PARAMS)}")
    return path


def load_params(spec: "str | Path | EvalbParams | None") -> EvalbParams:
    """Resolve ``spec``: an :class:`EvalbParams` (copied), a shipped name, a file path, or None (defaults)."""
    if spec is None:
        return EvalbParams()
    if isinstance(spec, EvalbParams):
        return spec.copy()
    text = str(spec)
    stem = text[:-4] if text.endswith(".prm") else text
    path = builtin_param_path(stem) if stem in BUILTIN_PARAMS and not Path(text).exists() else Path(text)
    params, _ = read_param_file(path)
    return params
