"""The format of a run's records: its version, the fields every reader needs, the upgrade of older ones.

Every record appended to attempts.jsonl, and config.json, carries `store_format` (FORMAT, defined
with the typed records in core/records.py). A record of an older format is upgraded as it is
read: the legacy format (1: everything written before the store had versions, the same fields as
format 2 but for `harness_error`, and, in the oldest runs, without round scores, method notes or
end reasons) and format 2 (rounds without their `report`, recovered from the round's chat:
core.records.report_from_prompt). `check_record` returns the record as the
readers (resume, report, rescore, rows, the viewer) may index it, every optional field present, or
the reason it cannot be read: a field a reader needs missing or of the wrong type, an unknown type,
a newer format. The store skips such a line and names it with its line number; nothing a damaged
line holds can crash a reader.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from simreflect.core.records import FORMAT, FORMAT_KEY, LEGACY_FORMAT, report_from_prompt

_REQUIRED = object()
_NUMBER = (int, float)


@dataclass(frozen=True)
class _Field:
    name: str
    types: tuple[type, ...]
    default: Any = _REQUIRED  # a value, a callable of the record, or _REQUIRED
    nullable: bool = False
    written: bool = True  # the writer always writes it (its absence from a current record is worth a note)


def _score_of_verdict(rec: dict[str, Any]) -> float | None:
    """Legacy rounds without a score: an accepted round scored what its verdict did."""
    verdict = rec.get("verdict")
    if rec.get("accepted") and isinstance(verdict, dict) and _is_number(verdict.get("score")):
        return verdict["score"]
    return None


_COMMON = (_Field("task", (str,)), _Field("level", (str,)), _Field("run", (int,), 0, written=False))
_FIELDS: dict[str, tuple[_Field, ...]] = {
    "round": (
        _Field("round", (int,)),
        _Field("prompt", (list,)),
        _Field("program", (dict,), nullable=True),
        _Field("script", (str,), None, nullable=True),
        _Field("answer", (str,), ""),
        _Field("diagnosis", (str,), ""),
        _Field("error", (str,), ""),
        _Field("errors_before", (list,), lambda rec: []),
        _Field("errors_after", (list,), lambda rec: []),
        _Field("accepted", (bool,), False),
        _Field("rejected", (bool,), False),
        _Field("passed", (bool,), False),
        _Field("score", _NUMBER, _score_of_verdict, nullable=True),
        _Field("score_before", _NUMBER, None, nullable=True),
        _Field("verdict", (dict,), None, nullable=True),
        _Field("usage", (dict,), lambda rec: {}),
        _Field("method_notes", (dict,), lambda rec: {}),
        _Field("harness_error", (dict,), None, nullable=True, written=False),
        _Field("report", (str,), lambda rec: report_from_prompt(rec["prompt"], rec["method_notes"])),
    ),
    "infra_error": (_Field("round", (int,), 0), _Field("error", (str,), "")),
    "end": (
        _Field("solved", (bool,), False),
        _Field("reason", (str,), lambda rec: "solved" if rec.get("solved") else "budget"),
        _Field("rounds", (int,), 0),
    ),
}
RECORD_TYPES = tuple(_FIELDS)


@dataclass(frozen=True)
class CheckedRecord:
    """A line of the log as read: the record ready for the readers, or why there is none.
    `upgraded_from` is the older format a record was upgraded from (None: written in this one);
    `filled` names optional fields of a current-format record that were missing and read with
    their defaults."""

    record: dict[str, Any] | None
    problem: str = ""
    upgraded_from: int | None = None
    filled: tuple[str, ...] = ()

    @property
    def legacy(self) -> bool:
        return self.upgraded_from == LEGACY_FORMAT


def stamp(record: dict[str, Any]) -> dict[str, Any]:
    """The record as it is written: with the store's format."""
    return {**record, FORMAT_KEY: FORMAT}


def check_record(rec: Any) -> CheckedRecord:
    if not isinstance(rec, dict):
        return CheckedRecord(None, "not a JSON object")
    version = rec.get(FORMAT_KEY, LEGACY_FORMAT)
    if not isinstance(version, int) or isinstance(version, bool) or version < LEGACY_FORMAT:
        return CheckedRecord(None, f"{FORMAT_KEY} {_short(version)} is not a format version")
    if version > FORMAT:
        return CheckedRecord(None, f"written in store format {version}, newer than this simreflect reads ({FORMAT})")
    kind = rec.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        return CheckedRecord(None, f"unknown record type {_short(kind)}")
    out = dict(rec)
    filled = []
    for f in _COMMON + _FIELDS[kind]:
        if f.name not in out:
            if f.default is _REQUIRED:
                return CheckedRecord(None, f"{kind} record without {f.name!r}")
            out[f.name] = f.default(out) if callable(f.default) else f.default
            if f.written:
                filled.append(f.name)
            continue
        problem = _type_problem(f, out[f.name])
        if problem:
            return CheckedRecord(None, f"{kind} record: {f.name!r} {problem}")
    problem = _identity_problem(out) or _SHAPES.get(kind, _no_shape)(out)
    if problem:
        return CheckedRecord(None, f"{kind} record: {problem}")
    out[FORMAT_KEY] = FORMAT
    upgraded = None if version == FORMAT else version
    return CheckedRecord(out, upgraded_from=upgraded, filled=() if upgraded else tuple(filled))


def _is_number(value: Any) -> bool:
    return isinstance(value, _NUMBER) and not isinstance(value, bool)


def _type_problem(f: _Field, value: Any) -> str:
    if value is None:
        return "" if f.nullable else "is null"
    if isinstance(value, bool) and bool not in f.types:
        return "is a boolean"
    if f.types == _NUMBER and not _is_number(value):
        return f"is {_short(value)}, not a number"
    if not isinstance(value, f.types):
        return f"is a {type(value).__name__}, not a {' or '.join(t.__name__ for t in f.types)}"
    if f.name in ("round", "run", "rounds") and value < (1 if f.name == "round" else 0):
        return f"is {value}"
    return ""


def _round_shape(rec: dict[str, Any]) -> str:
    """The nested parts of a round the readers index: the chat, the program's result, the verdict."""
    prompt = rec["prompt"]
    if not prompt or not all(isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str)
                             for m in prompt):
        return "'prompt' is not a non-empty list of chat messages (role and content)"
    program = rec["program"]
    if program is not None:
        if not isinstance(program.get("status"), str):
            return "'program' has no status"
        for name in ("reason", "output_tail"):
            if not isinstance(program.setdefault(name, ""), str):
                return f"'program.{name}' is not text"
    if not all(isinstance(e, str) for e in rec["errors_before"] + rec["errors_after"]):
        return "'errors_before' or 'errors_after' holds something other than check names"
    verdict = rec["verdict"]
    if verdict is not None:
        for name, types in (("diagnostics", (dict,)), ("errors", (list,)), ("checks", (list,)), ("invalid", (str,))):
            if name in verdict and not isinstance(verdict[name], types):
                return f"'verdict.{name}' is a {type(verdict[name]).__name__}"
    failure = rec["harness_error"]
    if failure is not None and not all(isinstance(failure.get(k), str) for k in ("stage", "type", "message")):
        return "'harness_error' lacks its stage, type or message"
    return ""


def _identity_problem(rec: dict[str, Any]) -> str:
    """Task and level name an episode (its key joins them with "/") and are printed as they are."""
    for name in ("task", "level"):
        value = rec[name]
        if not value or "/" in value or not value.isprintable():  # surrogates and control characters are not
            return f"{name!r} {_short(value)} is not a name"
    return ""


def _no_shape(rec: dict[str, Any]) -> str:
    return ""


_SHAPES: dict[str, Callable[[dict[str, Any]], str]] = {"round": _round_shape}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "..."


def line_ranges(lines: list[int]) -> str:
    """[1, 2, 3, 7] -> "1-3, 7"."""
    out: list[str] = []
    for n in sorted(lines):
        if out and out[-1].split("-")[-1] == str(n - 1):
            out[-1] = out[-1].split("-")[0] + f"-{n}"
        else:
            out.append(str(n))
    return ", ".join(out)
