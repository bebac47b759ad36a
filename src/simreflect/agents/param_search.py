"""A non-model baseline: search over the numeric literals of the source design, nothing else.

It answers one question: how many (source, target) pairs yield to parameter tuning alone, and how
many need a new mechanism (a new part, joint, material or control law). Every attempt is the
source program with some of its numeric literals rescaled; the text is otherwise kept byte for byte.

Which literals are searched (`find_literals`): int and float constants, written plainly or negated
(`-5.0` is the constant 5.0 under a unary minus; only the magnitude changes, the sign is kept),
except those that encode structure rather than a quantity:

* zero (a multiplicative search cannot move it, and zeros are origins and ground levels);
* booleans;
* anything inside a subscript (`beams[-1]`, `nodes[i + 1]`): indices;
* arguments of `range(...)`: loop bounds;
* an int that is an operand of arithmetic (`i + 1`, `w / 2`, `2 * x`): offsets and halvings.

Float operands (`0.25 * dx`), ints that are values in their own right (`n = 6`, a call argument)
and numbers in keyword arguments, defaults and comparisons are all searched. Strings (materials)
are not: choosing another material is not a numeric change.

The search (`propose`) works in log space: literal i takes the value v_i * exp(z_i), so positive
magnitudes are scaled multiplicatively and never change sign. A fresh step changes one, two or
three literals (50/30/20%; taken in a seeded cyclic order, so every literal is tried before any is
tried twice), each up or down by a factor exp(sigma x U(0.6, 1.4)): about 1.3-1.8 at first (sigma
= log 1.5), never more than 2 in one step, and the total change stays within 1/4..4 of the
source's value. Ints stay ints (rounded, at least 1, and moved by at least one when their
coordinate moved). It is a (1+1) strategy with mirrored and extended steps, one verified attempt
per round:

* a step strictly better than the parent (by verified score) becomes the parent, the step size
  grows, and the next attempt repeats the same step from there;
* an equal score also becomes the parent (neutral drift across the score's plateaus, which are
  wide: a violation scores -100 x the share of constraints violated) and widens the step a little;
* a worse step (or a program that failed or was not accepted) shrinks the step size; a fresh step
  is then tried in the opposite direction (its mirror) before a new one is drawn.

The source itself is never re-evaluated (it is known to fail the target); its verified score is
the first parent's.

Statelessness: the agent keeps nothing between rounds. Its candidate for round r is a pure
function of (seed, r, the verified scores of the source and of rounds 1..r-1): `act` replays the
whole search from round 1, drawing round k's randomness from SeedSequence([sha256(task id), seed,
k]) (plus the run index, should the observation carry one), so a killed run resumes with exactly
the candidate it would have made. Scores come from `observation.history` (a round that was not
accepted counts as failed; a score recorded for a script other than the replayed candidate is not
used); the source's score is the round-1 verdict, which round 1's diagnosis states ("source score
X;") so that later rounds read it back from the history. Without a history on round > 1 every
score is unknown, an unknown score moves nothing, and the search degrades to seeded sampling
around the source. The evidence level does not matter: only scores are read, so L1, L2 and L3
give the same attempts.
"""

from __future__ import annotations

import ast
import hashlib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from simreflect.agents.base import Action, Observation
from simreflect.core.records import RoundRecord
from simreflect.core.contract import SourcePrograms

SIGMA0 = math.log(1.5)  # first steps: a factor of about 1.5 (1.28-1.76 with the jitter)
SIGMA_MIN = math.log(1.1)
SIGMA_MAX = math.log(2.0)
STEP_MAX = math.log(2.0)  # one step changes a literal by at most a factor of 2
Z_MAX = math.log(4.0)  # and the search stays within 1/4..4 of the source's values
GROW, SHRINK, TIE = 1.25, 0.85, 1.1  # a tie (a plateau of the score) widens the search a little
K_ONE, K_TWO = 0.5, 0.3  # a fresh step changes one literal (50%), two (30%) or three (20%)
FAILED = float("-inf")  # a program that failed or left nothing the verifier could accept
MAX_DRAWS = 12  # fresh draws tried to avoid proposing a program already evaluated

_SOURCE_RE = re.compile(r"source score (\S+?);")


# ----- literals ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Literal:
    """One searched numeric literal of a program: its magnitude as written, and where it is."""

    index: int
    value: int | float  # the magnitude (> 0); a unary minus in front of it stays in the text
    negative: bool
    is_int: bool
    line: int  # 1-based
    col: int  # byte offsets in the line (as ast gives them)
    end_line: int
    end_col: int
    text: str
    label: str  # what it is called in the program: a name, a keyword, or the call it is in

    def describe(self) -> str:
        return f"{self.label}={'-' if self.negative else ''}{self.text} (line {self.line})"


def _label(parents: list[ast.AST], node: ast.AST) -> str:
    """The nearest name a reader would use for a literal (a keyword, an assigned name, a parameter)."""
    child: ast.AST = node
    for p in reversed(parents):
        if isinstance(p, ast.keyword) and p.arg:
            return p.arg
        if isinstance(p, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = p.targets if isinstance(p, ast.Assign) else [p.target]
            names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            if len(names) == 1:
                return names[0]
            if isinstance(targets[0], ast.Tuple) and isinstance(p.value, ast.Tuple):
                for target, value in zip(targets[0].elts, p.value.elts):
                    if isinstance(target, ast.Name) and any(n is node for n in ast.walk(value)):
                        return target.id
            return names[0] if names else "value"
        if isinstance(p, ast.For) and p.iter is child and isinstance(p.target, ast.Name):
            return p.target.id
        if isinstance(p, ast.arguments):
            pos = p.posonlyargs + p.args
            for arg, default in zip(pos[len(pos) - len(p.defaults):], p.defaults):
                if default is child:
                    return arg.arg
            for arg, default in zip(p.kwonlyargs, p.kw_defaults):
                if default is child:
                    return arg.arg
        if isinstance(p, ast.Call):
            f = p.func
            return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else "call"
        if isinstance(p, (ast.stmt,)):
            break
        child = p
    return "literal"


def find_literals(source: str) -> list[Literal]:
    """The searched numeric literals of `source`, in text order (see the module docstring)."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    found: list[Literal] = []

    def text_of(node: ast.AST) -> str:
        if node.lineno != node.end_lineno:
            return ""
        return lines[node.lineno - 1].encode()[node.col_offset:node.end_col_offset].decode()

    def visit(node: ast.AST, parents: list[ast.AST], skip: bool) -> None:
        if isinstance(node, ast.JoinedStr):
            return
        if isinstance(node, ast.Constant):
            v = node.value
            if skip or isinstance(v, bool) or not isinstance(v, (int, float)) or v == 0 or not math.isfinite(v):
                return
            parent = parents[-1] if parents else None
            negative = isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.USub)
            operand_of = parents[-2] if negative and len(parents) > 1 else parent
            if isinstance(v, int) and isinstance(operand_of, ast.BinOp):
                return  # i + 1, w / 2: structure, not a quantity
            text = text_of(node)
            if not text:
                return
            found.append(Literal(len(found), v, negative, isinstance(v, int), node.lineno, node.col_offset,
                                 node.end_lineno, node.end_col_offset, text, _label(parents, node)))
            return
        for name, value in ast.iter_fields(node):
            kids = value if isinstance(value, list) else [value]
            for kid in kids:
                if not isinstance(kid, ast.AST):
                    continue
                kid_skip = skip
                if isinstance(node, ast.Subscript) and name == "slice":
                    kid_skip = True  # indices
                if (isinstance(node, ast.Call) and name == "args" and isinstance(node.func, ast.Name)
                        and node.func.id == "range"):
                    kid_skip = True  # loop bounds
                visit(kid, parents + [node], kid_skip)

    visit(tree, [], False)
    found.sort(key=lambda lit: (lit.line, lit.col))
    return [replace(lit, index=i) for i, lit in enumerate(found)]


def format_value(value: int | float, is_int: bool) -> str:
    """A literal's new text: ints as ints, floats to 4 significant digits and always a float literal."""
    if is_int:
        return str(int(value))
    text = f"{float(value):.4g}"
    if not any(c in text for c in ".eEn"):
        text += ".0"
    return text


def scaled(lit: Literal, z: float) -> int | float:
    """The literal's magnitude after scaling by exp(z) (as its new text would read back)."""
    if z == 0.0:
        return lit.value
    raw = lit.value * math.exp(z)
    if lit.is_int:
        v = max(1, int(round(raw)))
        if v == lit.value:  # a moved coordinate moves an int by at least one
            v = max(1, lit.value + (1 if z > 0 else -1))
        return v
    return float(format_value(raw, False))


def values_for(literals: Sequence[Literal], z: Sequence[float]) -> list[int | float]:
    return [scaled(lit, float(zi)) for lit, zi in zip(literals, z)]


def rewrite(source: str, literals: Sequence[Literal], values: Sequence[int | float]) -> str:
    """`source` with each literal's magnitude replaced by its value (unchanged ones keep their text)."""
    if len(values) != len(literals):
        raise ValueError(f"{len(values)} values for {len(literals)} literals")
    lines = [ln.encode() for ln in source.splitlines(keepends=True)]
    for lit, v in sorted(zip(literals, values), key=lambda p: (p[0].line, p[0].col), reverse=True):
        if v == lit.value and type(v) is type(lit.value):
            continue
        if v <= 0:
            raise ValueError(f"literal {lit.describe()}: magnitudes stay positive, got {v}")
        b = lines[lit.line - 1]
        lines[lit.line - 1] = b[:lit.col] + format_value(v, lit.is_int).encode() + b[lit.end_col:]
    return b"".join(lines).decode()


# ----- the search -----------------------------------------------------------------------------------

def task_seed(task_id: str, seed: int = 0) -> list[int]:
    h = int.from_bytes(hashlib.sha256(task_id.encode()).digest()[:8], "big")
    return [h, int(seed)]


@dataclass
class SearchState:
    """Everything the search knows before a round (rebuilt by replay, never stored)."""

    n: int
    parent: np.ndarray
    parent_score: float  # -inf when unknown
    source_score: float | None = None
    sigma: float = SIGMA0
    best_score: float = float("-inf")
    best_round: int = 0  # 0: the source
    queue: list[int] = field(default_factory=list)  # literals still to be tried in this cycle
    next_kind: str = "fresh"  # fresh | mirror | extend
    last_step: np.ndarray | None = None
    last_kind: str = ""
    seen: set[tuple] = field(default_factory=set)  # literal values already evaluated (the source included)


@dataclass(frozen=True)
class Proposal:
    round: int
    z: np.ndarray
    step: np.ndarray
    kind: str
    changed: tuple[int, ...]


def _fresh_step(state: SearchState, rng: np.random.Generator) -> np.ndarray:
    u = rng.random()
    k = min(state.n, 1 if u < K_ONE else 2 if u < K_ONE + K_TWO else 3)
    coords: list[int] = []
    while len(coords) < k:
        if not state.queue:
            state.queue = [int(i) for i in rng.permutation(state.n)]
        i = state.queue.pop(0)
        if i not in coords:
            coords.append(i)
    step = np.zeros(state.n)
    for i in coords:
        sign = 1.0 if rng.random() < 0.5 else -1.0
        step[i] = sign * min(STEP_MAX, state.sigma * rng.uniform(0.6, 1.4))
    return step


def propose(state: SearchState, literals: Sequence[Literal], rng: np.random.Generator, round_no: int) -> Proposal:
    """The next candidate from the state (advances the cyclic queue; the rest of the state is untouched)."""
    kind = state.next_kind if state.last_step is not None else "fresh"
    for draw in range(MAX_DRAWS):
        if kind == "mirror":
            step = -state.last_step
        elif kind == "extend":
            step = state.last_step.copy()
        else:
            step = _fresh_step(state, rng)
        z = np.clip(state.parent + step, -Z_MAX, Z_MAX)
        key = tuple(values_for(literals, z))
        if key not in state.seen or draw == MAX_DRAWS - 1:
            break
        kind = "fresh"  # that program was already evaluated: draw a new step
    changed = tuple(int(i) for i in np.flatnonzero(np.array(key) != np.array([lit.value for lit in literals])))
    return Proposal(round_no, z, z - state.parent, kind, changed)


def update(state: SearchState, prop: Proposal, score: float | None, literals: Sequence[Literal]) -> None:
    """Learn from the verified score of a proposal (None: unknown, FAILED: failed or not accepted)."""
    state.seen.add(tuple(values_for(literals, prop.z)))
    state.last_step, state.last_kind = prop.step, prop.kind
    if score is None:
        state.next_kind = "fresh"
        return
    if score == FAILED:  # never a parent, even while the source's score is unknown
        state.sigma = max(SIGMA_MIN, state.sigma * SHRINK)
        state.next_kind = "mirror" if prop.kind == "fresh" else "fresh"
        return
    if score > state.best_score:
        state.best_score, state.best_round = score, prop.round
    if score > state.parent_score:
        state.parent, state.parent_score = prop.z.copy(), score
        state.sigma = min(SIGMA_MAX, state.sigma * GROW)
        state.next_kind = "extend"
    elif score == state.parent_score:
        state.parent = prop.z.copy()
        state.sigma = min(SIGMA_MAX, state.sigma * TIE)
        state.next_kind = "fresh"
    else:
        state.sigma = max(SIGMA_MIN, state.sigma * SHRINK)
        state.next_kind = "mirror" if prop.kind == "fresh" else "fresh"


def replay(literals: Sequence[Literal], source: str, seed: list[int], round_no: int, source_score: float | None,
           scores: dict[int, float | None], scripts: dict[int, str] | None = None) -> tuple[Proposal, SearchState]:
    """Round `round_no`'s candidate: the search replayed from round 1 with the known scores.

    `scores[k]` is round k's verified score (FAILED, or None when unknown); `scripts[k]`, when given,
    is the program round k actually ran: a score recorded for another program is not used."""
    n = len(literals)
    s0 = FAILED if source_score is None else float(source_score)
    state = SearchState(n=n, parent=np.zeros(n), parent_score=s0, source_score=source_score, best_score=s0)
    state.seen.add(tuple(lit.value for lit in literals))
    for k in range(1, round_no + 1):
        rng = np.random.default_rng(np.random.SeedSequence([*seed, k]))
        prop = propose(state, literals, rng, k)
        if k == round_no:
            return prop, state
        score = scores.get(k)
        if score is not None and scripts and k in scripts:
            if scripts[k] != rewrite(source, literals, values_for(literals, prop.z)):
                score = None
        update(state, prop, score, literals)
    raise ValueError("round numbers start at 1")


# ----- what the loop gives ---------------------------------------------------------------------------

def scores_from_history(history: Sequence[RoundRecord]) -> tuple[dict[int, float | None], dict[int, str]]:
    scores: dict[int, float | None] = {}
    scripts: dict[int, str] = {}
    for h in history:
        k = h.round
        if not h.accepted:
            scores[k] = FAILED
        else:
            s = h.score
            scores[k] = float(s) if isinstance(s, (int, float)) and not isinstance(s, bool) else None
        if isinstance(h.script, str):
            scripts[k] = h.script
    return scores, scripts


def source_score_from(history: Sequence[RoundRecord]) -> float | None:
    """The source's verified score, as round 1's diagnosis stated it (the agent wrote it there)."""
    for h in history:
        if h.round == 1:
            m = _SOURCE_RE.search(h.diagnosis or "")
            if m:
                try:
                    return float(m.group(1))
                except ValueError:
                    return None
    return None


class ParamSearchAgent:
    """Seeded search over the source design's numeric literals (see the module docstring)."""

    name = "param-search"
    summary = "seeded search over the source design's numbers (suites with source programs: pace)"

    def __init__(self, suite: Any = None, seed: int = 0) -> None:
        if suite is not None and not isinstance(suite, SourcePrograms):
            raise ValueError(f"param-search needs a suite whose tasks start from a source program (pace); "
                             f"{getattr(suite, 'name', suite)!r} has none")
        self.suite = suite
        self.seed = int(seed)
        self._sources: dict[str, tuple[str, list[Literal]]] = {}  # a cache of parsed sources, not state

    def source(self, task) -> tuple[str, list[Literal]]:
        if task.id not in self._sources:
            suite = self.suite
            if suite is None:
                from simreflect.core.registry import get_suite

                suite = get_suite(task.suite)
            if not isinstance(suite, SourcePrograms):
                raise ValueError(f"param-search needs a suite whose tasks start from a source program "
                                 f"(pace); {getattr(suite, 'name', suite)!r} has none")
            text = suite.source_program(task)  # what the workspace's program.py starts as
            self._sources[task.id] = (text, find_literals(text))
        return self._sources[task.id]

    def known_scores(self, observation: Observation) -> tuple[float | None, dict[int, float | None],
                                                              dict[int, str]]:
        """(the source's score, round -> score, round -> script) from what the loop gives this round."""
        history = tuple(getattr(observation, "history", ()) or ())
        scores, scripts = scores_from_history(history)
        source_score = float(observation.verdict.score) if observation.round == 1 else source_score_from(history)
        return source_score, scores, scripts

    def seed_for(self, observation: Observation) -> list[int]:
        run = getattr(observation, "run", None)  # independent runs differ only when the loop says which
        return task_seed(observation.task.id, self.seed) + ([int(run)] if run else [])

    def candidate(self, observation: Observation) -> tuple[str, Proposal, SearchState, list[Literal]]:
        source, literals = self.source(observation.task)
        source_score, scores, scripts = self.known_scores(observation)
        prop, state = replay(literals, source, self.seed_for(observation), observation.round, source_score,
                             scores, scripts)
        return rewrite(source, literals, values_for(literals, prop.z)), prop, state, literals

    def act(self, observation: Observation) -> Action:
        source, literals = self.source(observation.task)
        if not literals:
            return Action(program=None, diagnosis="the source has no numeric literal to search",
                          error="param-search: the source design has no searchable numeric literal")
        program, prop, state, literals = self.candidate(observation)
        new = values_for(literals, prop.z)
        parts = [f"{literals[i].label} {'-' if literals[i].negative else ''}{literals[i].text}->"
                 f"{'-' if literals[i].negative else ''}{format_value(new[i], literals[i].is_int)}"
                 for i in prop.changed]
        s0 = state.source_score
        best = "unknown" if not math.isfinite(state.best_score) else (
            f"{state.best_score:g} ({'the source' if state.best_round == 0 else f'round {state.best_round}'})")
        diagnosis = (f"param-search ({prop.kind} step, {len(prop.changed)} of {len(literals)} literals differ from "
                     f"the source): {', '.join(parts) or 'none'}; source score {s0!r}; best score so far {best}")
        notes = {"kind": prop.kind, "changed": [literals[i].describe() for i in prop.changed],
                 "values": [new[i] for i in range(len(literals))], "sigma": round(state.sigma, 4),
                 "best_score": None if not math.isfinite(state.best_score) else state.best_score,
                 "best_round": state.best_round}
        return Action(program=program, diagnosis=diagnosis, raw=program, notes=notes)


__all__ = ["FAILED", "Literal", "ParamSearchAgent", "find_literals", "format_value", "propose", "replay",
           "rewrite", "scaled", "scores_from_history", "source_score_from", "task_seed", "update", "values_for"]
