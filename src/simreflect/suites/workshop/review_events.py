"""What the review video says at each moment: the command, the event and the active hand, derived
from a record's commands.jsonl (the requests, the engine's results and notes, and the snapshots'
holds).

Per command it keeps the simulated time at its end, a short label of what it did ("move right",
"wait", "engage screw0", "drive screw0", "note: A and B placed", "finish") and the event it is
remembered by until the next one ("grasp board A", "pick screw0", "take drill0", "engage screw0",
"drive screw0", "screw0 now joins B to A", "release A", "finish"); the hand that moved last (the
one the close camera follows) and what that hand holds.

A record may come from elsewhere: commands.jsonl is read line by line, a line longer than
MAX_LINE_BYTES or not a JSON object within LINE_LIMITS is skipped, at most MAX_COMMANDS commands are kept and every
label is cut to MAX_LABEL_CHARS. Nothing in it raises past `load_timeline` but OSError.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from simreflect.core.untrusted import JsonLimits, Refusal, load_json
from simreflect.suites.workshop.recording import COMMANDS_FILE

MAX_LINE_BYTES = 4 << 20
MAX_COMMANDS = 200_000
MAX_LABEL_CHARS = 60
HANDS = ("left", "right")
LINE_LIMITS = JsonLimits(max_bytes=MAX_LINE_BYTES, max_depth=32, max_items=1_000_000, max_string_chars=100_000,
                         surrogates="replace")
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,40}")


@dataclass(frozen=True)
class Moment:
    """What the overlay shows and the close camera follows at one time."""

    command: int  # 1-based number of the command under way (0: before the first)
    commands: int  # how many the record has
    label: str  # what that command does
    event: str  # the latest event up to it
    hand: str  # the hand that moved last
    held: str  # what that hand holds ("" nothing)


@dataclass
class Timeline:
    """Per command, the simulated time at its end and what it did (see the module doc)."""

    ends: list[float] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    hands: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)

    def at(self, t: float) -> Moment:
        """The moment at simulated time t: the first command that ends at or after t."""
        n = len(self.ends)
        if n == 0:
            return Moment(0, 0, "", "", "right", "")
        k = bisect.bisect_left(self.ends, t - 1e-9)
        if k >= n:
            return Moment(n, n, self.labels[-1], self.events[-1], self.hands[-1], self.held[-1])
        before = k - 1
        return Moment(k + 1, n, self.labels[k], self.events[before] if before >= 0 else "",
                      self.hands[before] if before >= 0 else self.hands[k],
                      self.held[before] if before >= 0 else "")


def _short(text: Any) -> str:
    s = text if isinstance(text, str) else ""
    s = "".join(c if c.isprintable() else " " for c in s[: MAX_LABEL_CHARS * 2])
    return s[:MAX_LABEL_CHARS]


def _name(value: Any) -> Optional[str]:
    return value if isinstance(value, str) and _NAME.fullmatch(value) else None


def _object_noun(obj: str) -> str:
    if obj.startswith("screw"):
        return f"screw {obj[5:]}" if obj[5:].isdigit() else obj
    if obj.startswith("drill"):
        return "drill"
    return f"board {obj}"


def _holds(snapshot: Any) -> Optional[dict[str, str]]:
    """hand -> object held, from a snapshot's hold_refs (None: no readable snapshot)."""
    if not isinstance(snapshot, dict) or not isinstance(snapshot.get("hold_refs"), list):
        return None
    out: dict[str, str] = {}
    for ref in snapshot["hold_refs"][:16]:
        if isinstance(ref, list) and len(ref) >= 2 and ref[0] in HANDS and _name(ref[1]):
            out.setdefault(ref[0], ref[1])
    return out


def _driving(snapshot: Any) -> Optional[str]:
    drills = snapshot.get("drills") if isinstance(snapshot, dict) else None
    if isinstance(drills, list):
        for d in drills[:8]:
            if isinstance(d, dict) and d.get("driving") and isinstance(d.get("screw"), int):
                return f"screw{d['screw']}"
    return None


def _segments(line: dict) -> list[dict]:
    req = line.get("request")
    segs = req.get("segments") if isinstance(req, dict) else None
    return [s for s in segs[:100] if isinstance(s, dict)] if isinstance(segs, list) else []


def _moved_hands(segs: list[dict]) -> list[str]:
    moved: list[str] = []
    for s in segs:
        if s.get("type") == "drill" and s.get("hand") in HANDS:
            moved.append(s["hand"])
        elif s.get("type") == "move":
            sides = [h for h in HANDS if isinstance(s.get(h), dict)]
            if len(sides) == 1:
                moved.append(sides[0])
    return moved


def _engine_events(line: dict) -> list[str]:
    res = line.get("result")
    results = res.get("results") if isinstance(res, dict) else None
    out: list[str] = []
    for r in results[:100] if isinstance(results, list) else []:
        evs = r.get("events") if isinstance(r, dict) else None
        for e in evs[:20] if isinstance(evs, list) else []:
            if isinstance(e, str):
                out.append(e)
        if isinstance(r, dict) and r.get("type") == "drill" and r.get("action") == "engage" and r.get("ok"):
            screw = _name(r.get("screw"))
            if screw:
                out.insert(0, f"engage {screw}")
    return out


def _event_label(text: str) -> str:
    """An engine event in the overlay's words: the screw's fate, cut at its first clause."""
    return _short(text.split(";")[0].split(" (")[0])


class _Builder:
    def __init__(self) -> None:
        self.tl = Timeline()
        self.hand = "right"
        self.holds: dict[str, str] = {}
        self.event = ""

    def add(self, line: dict) -> None:
        kind = line.get("kind")
        t = line.get("time")
        if kind not in ("act", "note", "finish") or not isinstance(t, (int, float)) or t != t:
            return
        if self.tl.ends and t < self.tl.ends[-1]:
            t = self.tl.ends[-1]  # times never go back
        segs = _segments(line)
        label = self._label(kind, line, segs)
        moved = _moved_hands(segs)
        if moved:
            self.hand = moved[-1]
        holds = _holds(line.get("snapshot"))
        events = _engine_events(line)
        if holds is not None:
            for hand in HANDS:
                was, now = self.holds.get(hand), holds.get(hand)
                if now and now != was:
                    verb = "take" if now.startswith("drill") else "pick" if now.startswith("screw") else "grasp"
                    events.append(f"{verb} {_object_noun(now)}")
                    self.hand = hand
                elif was and not now:
                    events.append(f"release {_object_noun(was)}")
            self.holds = holds
        driving = _driving(line.get("snapshot"))
        if driving and not events:
            events.append(f"drive {driving}")
        if kind == "finish":
            events.append("finish")
        elif kind == "note":
            events.append(label)
        if events:
            self.event = _event_label(events[-1])
        self.tl.ends.append(float(t))
        self.tl.labels.append(label)
        self.tl.events.append(self.event)
        self.tl.hands.append(self.hand)
        self.tl.held.append(self.holds.get(self.hand, ""))

    @staticmethod
    def _label(kind: str, line: dict, segs: list[dict]) -> str:
        req = line.get("request") if isinstance(line.get("request"), dict) else {}
        if kind == "finish":
            return "finish"
        if kind == "note":
            return _short("note: " + _short(req.get("text")))
        if _driving(line.get("snapshot")):
            return _short(f"drive {_driving(line.get('snapshot'))}")
        for s in segs:
            if s.get("type") == "drill":
                return _short(f"drill {_short(s.get('action'))} ({_short(s.get('hand'))})")
        sides = sorted({h for s in segs if s.get("type") == "move" for h in HANDS if isinstance(s.get(h), dict)})
        if sides:
            return "move " + (" and ".join(sides) if len(sides) < 2 else "both")
        return "wait" if segs else _short(kind)


def load_timeline(root: Path) -> Timeline:
    """The timeline of a record directory (empty when it has no commands)."""
    b = _Builder()
    path = Path(root) / COMMANDS_FILE
    if not path.is_file():
        return b.tl
    with open(path, "rb") as f:
        while len(b.tl.ends) < MAX_COMMANDS:
            raw = f.readline(MAX_LINE_BYTES + 1)
            if not raw:
                break
            if len(raw) > MAX_LINE_BYTES:
                while raw and not raw.endswith(b"\n"):  # skip the rest of an over-long line
                    raw = f.readline(MAX_LINE_BYTES)
                continue
            try:
                line = load_json(raw, LINE_LIMITS, COMMANDS_FILE)
            except Refusal:
                continue
            if isinstance(line, dict):
                b.add(line)
    return b.tl
