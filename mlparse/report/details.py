"""Per-run details: one row per run folder, shared by every renderer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, List, Optional, Tuple

from mlparse.run_index.collect import RunRecord
from mlparse.report.model import Report, fmt_duration, fmt_hardware, fmt_score, fmt_speed

#: Split metrics in display order, with their column names.
SPLIT_METRICS: Tuple[Tuple[str, str], ...] = (
    ("recall", "LR"), ("precision", "LP"), ("f1", "F1"), ("complete_match", "CM"),
    ("tagging_accuracy", "Tag"), ("uas", "UAS"), ("las", "LAS"), ("clas", "CLAS"), ("mlas", "MLAS"), ("blex", "BLEX"),
)
#: Shown even when no run has them (the constituency core); the rest only when some run has a value.
ALWAYS = ("recall", "precision", "f1", "complete_match")
#: The run table's column for the POS tags the parser read (``results.json``'s ``input_tags``, else its older
#: ``eval_tags``): "gold tags", "jack-knifed, 10 folds, test 97.0%" (the tags' accuracy on test: the dev accuracy
#: chose the tagger's checkpoint, so it flatters the tags), "tag files, test 96.8%" (dev where a run has no test
#: figure: "dev 96.9%"); shown when some run records it (runs without tag input show "–").
INPUT_TAGS = "Input tags"
#: Why training ended (``results.json``'s ``stop_reason``), as the run table says it.
STOP_REASONS = {"max_epochs": "max epochs", "max_updates": "max updates", "patience": "patience",
                "max_minutes": "time budget"}


@dataclass
class DetailColumn:
    header: str
    get: Callable[[RunRecord], str]
    numeric: bool = True


def _split_value(split: str, metric: str) -> Callable[[RunRecord], str]:
    def get(record: RunRecord) -> str:
        scores = record.split(split)
        return fmt_score(getattr(scores, metric, None) if scores is not None else None)
    return get


def _has_value(records: List[RunRecord], split: str, metric: str) -> bool:
    return any(getattr(record.split(split), metric, None) is not None for record in records)


def _text(get: Callable[[RunRecord], Optional[str]]) -> Callable[[RunRecord], str]:
    return lambda record: get(record) or "–"


def detail_columns(report: Report) -> List[DetailColumn]:
    """Columns for the run table; optional metrics appear only when some run reports them."""
    records = report.records
    columns = [
        DetailColumn("Run", lambda r: r.label + (" *" if r.label in report.selected else ""), numeric=False),
        DetailColumn("State", lambda r: r.state, numeric=False),
        DetailColumn("System", _text(lambda r: r.results.system if r.results else None), numeric=False),
        DetailColumn("Data", _text(_data), numeric=False),
    ]
    if any(r.results is not None and (r.results.eval_tags or r.results.input_tags) for r in records):
        columns.append(DetailColumn(INPUT_TAGS, _text(input_tags_text), numeric=False))  # gold-tag scores compare
        # with no others
    for split in ("dev", "test"):
        for metric, name in SPLIT_METRICS:
            if metric in ALWAYS or _has_value(records, split, metric):
                columns.append(DetailColumn(f"{split.capitalize()} {name}", _split_value(split, metric)))
    columns += [
        DetailColumn("Speed", lambda r: fmt_speed(r.results.parse_sentences_per_second if r.results else None)),
        DetailColumn("Train time", lambda r: fmt_duration(r.results.training_seconds if r.results else None)),
    ]
    if any(r.results is not None and r.results.stop_reason for r in records):  # a time budget matters when comparing
        columns.append(DetailColumn("Stopped by", _text(_stop_reason), numeric=False))
    columns += [
        DetailColumn("Hardware", lambda r: fmt_hardware(r.results.hardware) if r.results else "–", numeric=False),
    ]
    return columns


def input_tags_text(record: RunRecord) -> Optional[str]:
    """What the Input tags column says about a run (see :data:`INPUT_TAGS`)."""
    results = record.results
    if results is None:
        return None
    tags = results.input_tags if isinstance(results.input_tags, dict) else None
    if tags is None:
        return {"gold": "gold tags", "predicted": "predicted (tag files)"}.get(results.eval_tags or "", results.eval_tags)
    accuracy = tags.get("accuracy") if isinstance(tags.get("accuracy"), dict) else {}
    percent = next((f", {split} {accuracy[split]:.1f}%" for split in ("test", "dev")
                    if isinstance(accuracy.get(split), (int, float)) and not isinstance(accuracy.get(split), bool)), "")
    source = tags.get("source")
    if source == "jackknife":
        folds = tags.get("folds")
        added = ", tag input added" if tags.get("input_added") is True else ""  # the recipe's parser read none
        return (f"jack-knifed, {folds} folds{percent}{added}" if isinstance(folds, int)
                else f"jack-knifed{percent}{added}")
    if source == "files":
        return f"tag files{percent}"
    if source == "gold":
        return "gold tags"
    if source == "none":  # data.tags: none (the parser may predict tags: its Tag columns)
        return "no tag input"
    return str(source) if source else None


def _data(record: RunRecord) -> Optional[str]:
    """``dataset/language``, with a dependency run's scoring convention and the evalb parameter file of a run evalb
    scored: ``ud/UD_English-EWT (conll18)``, ``spmrl/hebrew (spmrl.prm)``."""
    if record.results is None:
        return None
    text = f"{record.results.dataset or '?'}/{record.results.language or '?'}"
    rules = [rule for rule in (record.scoring, record.evalb_params) if rule]
    return f"{text} ({', '.join(rules)})" if rules else text


def _stop_reason(record: RunRecord) -> Optional[str]:
    reason = record.results.stop_reason if record.results is not None else None
    return STOP_REASONS.get(reason, reason) if reason else None


def detail_table(report: Report) -> Tuple[List[str], List[List[str]]]:
    """(headers, rows of strings) for the run table, runs sorted by recipe then run id."""
    columns = detail_columns(report)
    return [c.header for c in columns], [[c.get(record) for c in columns] for record in report.records]


def run_notes(record: RunRecord) -> List[str]:
    """The run's own notes (from training, in ``results.json``), what its dependency scoring counted, then the
    reader's (older schema, ...)."""
    if record.results is None:
        return list(record.notes)
    return list(record.results.notes) + scoring_notes(record.results.dependency_scoring) + record.notes


def scoring_notes(scoring: Optional[dict]) -> List[str]:
    """``results.json``'s ``dependency_scoring`` in words: the punctuation PTB scoring left out, and why CLAS,
    MLAS and BLEX are absent (relations that are not UD's)."""
    if not isinstance(scoring, dict):
        return []
    notes = []
    tags = scoring.get("punct_tags")
    if scoring.get("convention") == "ptb" and isinstance(tags, list):
        column = str(scoring.get("punct_column") or "xpos").upper()
        notes.append(f"PTB scoring: punctuation excluded = gold {column} in {' '.join(map(str, tags))} "
                     f"({scoring.get('punct_source') or 'source not recorded'})")
    if scoring.get("ud_relations") is False:
        notes.append(str(scoring.get("absent_reason") or "CLAS, MLAS and BLEX are left out: the relations are not UD's"))
    return notes


def run_messages(record: RunRecord) -> List[str]:
    """Error, warnings and notes of one run, in that order."""
    messages = []
    if record.error:
        messages.append(f"error: {record.error}")
    messages += [f"warning: {warning}" for warning in record.warnings]
    messages += [f"note: {note}" for note in run_notes(record)]
    return messages
