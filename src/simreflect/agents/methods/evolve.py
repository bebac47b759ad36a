"""evolve: evolutionary code search with islands (in the manner of AlphaEvolve / OpenEvolve / CodeEvolve).

The population is split into `islands` (default 2) islands, each seeded with the starting design
and holding at most `population` (default 6) programs; a new program joins the island it was made
for only if it ran and was scored, and the island then drops its lowest-scoring member (ties: the
oldest) when it is over size. The islands take turns: round r works on island (r - 1) mod islands.
A round draws `tournament` (default 2) members of that island at random and takes the best-scoring
one as the parent (tournament selection), and shows with it up to `inspirations` (default 2) other
high scorers from the whole archive (the best programs other than the parent, any island). Every
`migrate_every` (default 4) verified attempts each island's best member is copied to the next island
(a ring). Randomness is seeded with the task, the run and the round, so a resumed run draws the same.

A round's chat: the task (system prompt), the parent (its program, or the starting design the task
gives) and its report, then the inspirations (programs and scores), asking for an improved program.
No auxiliary call. Recorded per round: `notes["island"]`, `notes["parent"]`, `notes["contestants"]`,
`notes["inspirations"]`, `notes["islands"]` (the membership before this attempt) and the report
shown (`notes["feedback"]`). The population is rebuilt from them.
"""

from __future__ import annotations

from typing import Any

from simreflect.agents.base import Observation
from simreflect.agents.methods.base import (
    Method,
    Proposal,
    Step,
    design_chat,
    int_option,
    program_block,
    rank,
    score_text,
    seeded_rng,
)
from simreflect.core.records import Attempt

ASK = ("Write an improved complete program: keep what works in the parent, borrow what helps from the inspirations, "
       "and fix what the report shows failing. Explain the change in the diagnosis.")


class EvolutionMethod(Method):
    method = "evolve"
    records_feedback = True

    def __init__(self, inner: Any, islands: int = 2, population: int = 6, tournament: int = 2,
                 inspirations: int = 2, migrate_every: int = 4) -> None:
        super().__init__(inner, islands=int_option(islands, "islands"),
                         population=int_option(population, "population", low=2),
                         tournament=int_option(tournament, "tournament"),
                         inspirations=int_option(inspirations, "inspirations", low=0),
                         migrate_every=int_option(migrate_every, "migrate_every"))
        o = self.options
        self.n_islands, self.population, self.tournament = o["islands"], o["population"], o["tournament"]
        self.n_inspirations, self.migrate_every = o["inspirations"], o["migrate_every"]

    def setup(self, obs: Observation) -> None:
        self.nodes: dict[int, Attempt] = {0: self.root}
        self.islands: list[list[int]] = [[0] for _ in range(self.n_islands)]
        self.count = 0
        self.migrations: list[dict[str, int]] = []

    def _key(self, i: int) -> tuple[float, int]:
        return (self.nodes[i].value, -i)  # higher is better; ties: the earlier

    def _trim(self, island: int) -> None:
        members = self.islands[island]
        while len(members) > self.population:
            worst = min(members, key=lambda i: (self.nodes[i].value, i))  # ties: the oldest goes
            members.remove(worst)

    def observe(self, attempt: Attempt) -> None:
        island = attempt.notes.get("island")
        if not isinstance(island, int) or not 0 <= island < self.n_islands:
            island = (attempt.index - 1) % self.n_islands
        self.nodes[attempt.index] = attempt
        if attempt.valid and attempt.program is not None:
            self.islands[island].append(attempt.index)
            self._trim(island)
        self.count += 1
        if self.n_islands > 1 and self.count % self.migrate_every == 0:
            bests = [max(m, key=self._key) if m else None for m in self.islands]
            for src, best in enumerate(bests):
                dest = (src + 1) % self.n_islands
                if best is not None and best not in self.islands[dest]:
                    self.islands[dest].append(best)
                    self._trim(dest)
                    self.migrations.append({"after": attempt.index, "node": best, "from": src, "to": dest})

    def propose(self, obs: Observation, step: Step) -> Proposal:
        island = (obs.round - 1) % self.n_islands
        members = self.islands[island] or [0]
        rng = seeded_rng(obs, "evolve")
        contestants = rng.sample(members, min(self.tournament, len(members)))
        parent = max(contestants, key=self._key)
        pool = [a for a in rank(list(self.nodes.values()))
                if a.index != parent and a.program is not None and a.program != self.nodes[parent].program]
        inspirations = pool[:self.n_inspirations]
        body = "\n\n".join(f"### Attempt {a.index} ({score_text(a)})\n{program_block(a.program)}" for a in inspirations)
        chat = design_chat(obs, self.nodes[parent],
                           [("Inspirations: other high-scoring designs (for ideas; do not copy them blindly)", body)], ASK)
        return Proposal(chat, {"island": island, "parent": parent, "contestants": contestants,
                               "inspirations": [a.index for a in inspirations],
                               "islands": [list(m) for m in self.islands],
                               "migrations": len(self.migrations)})
