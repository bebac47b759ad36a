"""beam: beam search over programs (PACE-Bench's adaptation: keep the top b states, n candidates each).

The beam is the `width` (default 3) best-scoring programs verified so far, the starting design
included (elitist: a parent stays in the beam while its children score lower). A generation takes
a snapshot of the beam and generates `children` (default 2) candidates from each member in turn,
best first, one verified attempt each; after width x children attempts (fewer while the beam holds
fewer designs, e.g. the first generation, from the starting design alone) the next snapshot is
taken. A candidate that did not run or was not accepted never enters the beam.

A candidate's chat: the task (system prompt), the beam member (its program, or the starting design
the task gives), its report, and the candidates already generated from it, asking for an improved
program. No auxiliary call. Recorded per round: `notes["parent"]`, `notes["beam"]` (the snapshot),
`notes["generation"]`, and the report shown (`notes["feedback"]`). The beam is rebuilt from them.
"""

from __future__ import annotations

from typing import Any

from simreflect.agents.base import Observation
from simreflect.agents.methods.base import Attempt, Method, Proposal, Step, design_chat, int_option, rank

ASK = ("Write an improved complete program from this design: fix what the report shows failing, and do not repeat "
       "a candidate already generated from it. Explain the change in the diagnosis.")


class BeamSearchMethod(Method):
    method = "beam"
    records_feedback = True

    def __init__(self, inner: Any, width: int = 3, children: int = 2) -> None:
        super().__init__(inner, width=int_option(width, "width"), children=int_option(children, "children"))
        self.width, self.n_children = self.options["width"], self.options["children"]

    def setup(self, obs: Observation) -> None:
        self.nodes: dict[int, Attempt] = {0: self.root}
        self.children: dict[int, list[int]] = {0: []}
        self.snapshot: list[int] = [0]
        self.generation = 1
        self.pos = 0

    def _scheduled_parent(self) -> int:
        return self.snapshot[min(self.pos // self.n_children, len(self.snapshot) - 1)]

    def observe(self, attempt: Attempt) -> None:
        parent = attempt.notes.get("parent")
        if parent not in self.nodes:
            parent = self._scheduled_parent()
        self.nodes[attempt.round] = attempt
        self.children.setdefault(parent, []).append(attempt.round)
        self.children[attempt.round] = []
        self.pos += 1
        if self.pos >= len(self.snapshot) * self.n_children:
            best = rank(list(self.nodes.values()))[:self.width]
            self.snapshot = [b.round for b in best] or [0]
            self.generation += 1
            self.pos = 0

    def propose(self, obs: Observation, step: Step) -> Proposal:
        parent = self._scheduled_parent()
        made = [self.nodes[c] for c in self.children.get(parent, [])]
        lines = [f"- attempt {c.round} ({c.score_text()}): {c.diagnosis.strip()[:400] or '(no diagnosis)'}"
                 for c in made]
        chat = design_chat(obs, self.nodes[parent], [("Candidates already generated from this design",
                                                      "\n".join(lines))], ASK)
        return Proposal(chat, {"parent": parent, "beam": list(self.snapshot), "generation": self.generation})
