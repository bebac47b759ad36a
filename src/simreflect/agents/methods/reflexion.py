"""reflexion (Shinn et al. 2023, as PACE-Bench adapts it): after each failed attempt an auxiliary
call writes a short verbal reflection on it (what went wrong physically, what to change next); the
last `keep` (default 3) reflections, oldest first, are appended to the loop's chat as a section of
the round's last message. The generator's chat is otherwise the loop's own (history truncation
applies as usual).

Per round from round 2: one auxiliary call ("reflection"). Recorded: `notes["learned"]` =
{"round": k, "reflection": text} (or an "error" when the reflector answered nothing usable; the
memory is then unchanged). The memory is rebuilt from those records, so a resumed run shows the
same reflections.
"""

from __future__ import annotations

from typing import Any

from simreflect.agents.base import Observation
from simreflect.agents.methods.base import (
    Method,
    Proposal,
    Step,
    aux_text,
    int_option,
    last_user,
    program_block,
    task_text,
    with_section,
)
from simreflect.core.records import Attempt

REFLECTOR_SYSTEM = """\
You write a short reflection on a failed attempt at a design task, for your own next attempt. You
are shown the task, the program that was tried, and what the simulator reported. In at most 120
words: the most likely physical cause of the failure, what the earlier reflections got wrong if
anything, and the one or two concrete changes the next program should make. Plain text, no code.
"""

SECTION = "Your reflections on earlier attempts (oldest first)"


class ReflexionMethod(Method):
    method = "reflexion"

    def __init__(self, inner: Any, keep: int = 3) -> None:
        super().__init__(inner, keep=int_option(keep, "keep"))
        self.keep = self.options["keep"]

    def setup(self, obs: Observation) -> None:
        self.reflections: list[tuple[int, str]] = []

    def learn(self, obs: Observation, latest: Attempt, step: Step) -> dict[str, Any] | None:
        if latest.passed:
            return None
        earlier = "\n".join(f"- after attempt {r}: {t}" for r, t in self.reflections) or "(none)"
        what = last_user(obs.messages).strip() or "(no report)"  # the loop's message on the latest attempt
        chat = [{"role": "system", "content": REFLECTOR_SYSTEM},
                {"role": "user", "content": f"## The task\n{task_text(obs)}\n\n## Attempt {latest.index}: the program\n"
                                            f"{program_block(latest.program)}\n\n## What happened\n{what}\n\n"
                                            f"## Your earlier reflections\n{earlier}"}]
        text = aux_text(step.ask("reflection", chat), limit=1500)
        if not text:
            step.fail("empty reflection")
            return {"round": latest.index, "reflection": "", "error": "empty reflection"}
        return {"round": latest.index, "reflection": text}

    def absorb(self, learned: dict[str, Any]) -> None:
        text = str(learned.get("reflection") or "")
        if text:
            self.reflections = (self.reflections + [(int(learned.get("round", 0)), text)])[-self.keep:]

    def propose(self, obs: Observation, step: Step) -> Proposal:
        if not self.reflections:
            return Proposal(tuple(obs.messages))
        body = "\n".join(f"- after attempt {r}: {t}" for r, t in self.reflections)
        return Proposal(with_section(tuple(obs.messages), SECTION, body),
                        {"reflections_shown": [r for r, _ in self.reflections]})
