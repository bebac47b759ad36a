"""self-refine (Madaan et al. 2023): before each verification the draft goes through `cycles`
(default 2) unverified critique-and-refine cycles, then only the refined program is verified.

Per round: the generator answers the loop's chat (the attempt's own call); then per cycle one
critique call (a critic, shown the task, the latest report and the current draft, lists its likely
defects; no simulator is run) and one refine call (the generator's chat, its current draft as the
assistant turn, then the critique: "revise"), both auxiliary: 2 x cycles auxiliary calls a round.
A refine answer without a program, or an empty critique, leaves the draft as it was (recorded as an
error; the cycle still counts its calls); a round whose first draft has no program skips the
cycles. Recorded: `notes["cycles"]` (per cycle the critique, whether the program changed, any error)
and `notes["drafts"]` (the unverified programs before the verified one). No state crosses rounds
beyond the loop's own history.
"""

from __future__ import annotations

from typing import Any

from simreflect.agents.base import Action, Observation
from simreflect.agents.methods.base import Method, Proposal, Step, aux_text, int_option, last_user, program_block, task_text
from simreflect.agents.parse import parse_answer

CRITIC_SYSTEM = """\
You critique a candidate program for a design task before it is run. You are shown the task, the
simulator's report on the latest verified attempt, and the candidate. List, in at most 150 words,
the concrete defects most likely to make the candidate fail (violated constraints, physics it gets
wrong, API misuse), most serious first. Do not write the program.
"""


def refine_request(critique: str, cycle: int, cycles: int) -> str:
    return (f"A critic reviewed your answer before it was run (refinement {cycle} of {cycles}; the critic may be "
            f"wrong):\n{critique}\n\nRevise your program to address what is right in the critique. Answer in the "
            "same format, with the complete program.")


class SelfRefineMethod(Method):
    method = "self-refine"

    def __init__(self, inner: Any, cycles: int = 2) -> None:
        super().__init__(inner, cycles=int_option(cycles, "cycles", low=0))
        self.cycles = self.options["cycles"]
        if not hasattr(inner, "complete"):
            raise ValueError("method 'self-refine' needs a model agent (--agent llm)")

    def revise(self, obs: Observation, proposal: Proposal, action: Action, step: Step) -> Action:
        chat = list(proposal.chat)
        current = action
        log: list[dict[str, Any]] = []
        drafts: list[str] = []
        for cycle in range(1, self.cycles + 1):
            if current.program is None:
                log.append({"cycle": cycle, "skipped": "the draft has no program"})
                break
            critic = [{"role": "system", "content": CRITIC_SYSTEM},
                      {"role": "user", "content": f"## The task\n{task_text(obs)}\n\n## The latest report\n"
                                                  f"{last_user(obs.messages)}\n\n## The candidate\n"
                                                  f"{program_block(current.program)}"}]
            critique = aux_text(step.ask("critique", critic))
            entry: dict[str, Any] = {"cycle": cycle, "critique": critique}
            if not critique:
                step.fail("empty critique")
                entry["error"] = "empty critique"
                log.append(entry)
                continue
            refine = chat + [{"role": "assistant", "content": current.raw},
                             {"role": "user", "content": refine_request(critique, cycle, self.cycles)}]
            text = step.ask("refine", refine, model=self.inner)
            parsed = parse_answer(text)
            if parsed.program is None:
                step.fail(f"refined answer without a program: {parsed.error}")
                entry.update(changed=False, error=parsed.error or "no program")
            else:
                entry["changed"] = parsed.program != current.program
                drafts.append(current.program)
                current = Action(program=parsed.program, diagnosis=parsed.diagnosis, raw=text, usage=current.usage,
                                 error="")
            log.append(entry)
        step.notes.update(cycles=log, drafts=drafts)
        return current
