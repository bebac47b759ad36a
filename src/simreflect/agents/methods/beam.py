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
`notes["generation"]`, and the report shown (`notes["feedback"]`). The beam is rebuilt from them
(the scheduler is expansion.py's, shared with tree of thoughts).
"""

from __future__ import annotations

from typing import Any

from simreflect.agents.base import Observation
from simreflect.agents.methods.base import int_option, rank
from simreflect.agents.methods.expansion import ExpansionSearch
from simreflect.core.records import Attempt


class BeamSearchMethod(ExpansionSearch):
    method = "beam"
    tried_heading = "Candidates already generated from this design"
    ask = ("Write an improved complete program from this design: fix what the report shows failing, and do not repeat "
           "a candidate already generated from it. Explain the change in the diagnosis.")

    def __init__(self, inner: Any, width: int = 3, children: int = 2) -> None:
        super().__init__(inner, width=int_option(width, "width"), children=int_option(children, "children"))
        self.width, self.n_children = self.options["width"], self.options["children"]
        self.per_parent = self.n_children

    def setup(self, obs: Observation) -> None:
        super().setup(obs)
        self.generation = 1

    def next_parents(self, batch: list[Attempt]) -> list[int]:
        self.generation += 1
        return [b.index for b in rank(list(self.nodes.values()))[:self.width]] or [0]

    def proposal_notes(self, parent: int, tried: list[Attempt]) -> dict[str, Any]:
        return {"beam": list(self.parents), "generation": self.generation}
