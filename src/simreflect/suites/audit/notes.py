"""What the agent reads: the contract of a task (also written to the workspace as CONTRACT.md),
the instruction, and the interface notes shared by every audit task."""

from __future__ import annotations

import json

from simreflect.core.evidence import EvidenceLevel
from simreflect.suites.audit.cards import Card
from simreflect.suites.audit.grader import ladder, variant_draws

PARAMS_FILE = "params.json"
CONTRACT_FILE = "CONTRACT.md"
RAW_FILE = "raw.npz"
SCRIPT_FILE = "script.py"

INTERFACE = """\
## How an audit script is run and graded
- Your answer is one complete, self-contained Python 3 script (numpy; scipy is available too). It
  runs as `python3 script.py` in a sandbox whose working directory holds only `params.json`,
  `CONTRACT.md` and your script: no network, no other files, limited time and memory.
- Read every task parameter from `params.json` (json.load(open("params.json"))), including the seed
  (use numpy.random.default_rng(seed)). The grader re-runs your script with parameters it draws at
  grading time from the ranges the contract states (and a new seed), and runs its own reference
  experiment with the same parameters: your metrics there must agree with the experiment's, so
  hardcoded, looked-up or tabulated numbers are capped at 0.25. Your script must work for every
  parameter value in those ranges.
- Print exactly one line, as the last thing you print:
  SUMMARY_JSON {"metrics": {"<metric name>": <number>, ...},
                "positive_control": {"name": "<what>", "expected": <number>, "measured": <number>, "passed": <true|false>},
                "verdict": "supported" | "falsified" | "inconclusive",
                "claim_quantity_computed": <true|false>}
  Use the metric names (or their listed aliases) from the contract; other names are not graded.
- The positive control is mandatory: run the case the contract names through the same code and
  report its expected value, the value you measured, and whether it passed. A correct metric with a
  missing or failed control scores at most 0.5.
- Save the raw arrays the contract lists with numpy.savez("raw.npz", name=array, ...), in the shapes
  it states. They are your experiment's primary observations (per-trial outcomes, per-sample
  values), not summaries. The grader recomputes each metric from them with the rule the contract
  states, and compares them with its own experiment's arrays for the same parameters: grids must
  be the ones the parameters define, deterministic observations must agree within the stated
  tolerance, and samples must pass a two-sample test (the law of each column, its location and
  spread) at the stated level. Numbers that do not follow from your arrays, or arrays that do not
  follow the experiment's law, are capped at 0.25. Arrays not in the contract are ignored.
- The verdict must follow from your own metrics: 'supported' with metrics that miss the claim is a
  contradiction; 'falsified' with metrics that reproduce it, or 'inconclusive', is under-claimed
  and scores less than the verdict your numbers back. Set claim_quantity_computed to false if you did not
  actually compute the claim's quantity (then no number is credited).
- Ladder: 1.0 = key recovered + control passed + verdict supported (for honesty-only claims: the
  verdict your metrics imply); 0.7 = recovered but under-claimed (inconclusive/falsified); at most 0.5 without a passing
  control or with a contradiction; at most 0.25 when a re-run at drawn parameters, the raw-array
  recompute or the samples test disagrees; 0.1 = an honest miss; 0 = no run or no SUMMARY_JSON.
"""


def interactive_note(budget: int) -> str:
    """How an interactive session of an audit goes (core.interactive; suites/audit/interactive.py)."""
    return (f"## This session\n"
            f"You work in a live session. `python(code)` runs code in your sandboxed work directory (it holds\n"
            f"{PARAMS_FILE} and {CONTRACT_FILE}; what your code leaves there is kept between calls) and shows its\n"
            f"exit code and output: try your experiment before you hand it in. `submit(script)` hands in your\n"
            f"audit: the script runs as {SCRIPT_FILE} in a fresh work directory holding only {PARAMS_FILE} and\n"
            f"{CONTRACT_FILE}, is graded at once, and the grader's report (exit code, output tail, failed checks)\n"
            f"comes back. You have {budget} submissions; a pass ends the session, and so does the last submission.\n"
            f"The session's verdict is your last submission's. `finish(summary)` ends the session early.\n")


def sample_level() -> float:
    return ladder()["integrity"]["sample_level"]


def interface_notes(level: EvidenceLevel) -> str:
    return INTERFACE


def _fmt(v) -> str:
    return json.dumps(v)


def context_excerpt(text: str, window: int | None) -> str:
    """The context, cut to its first `window` characters when a window is set (said so in the text)."""
    text = text.strip()
    if window is None or len(text) <= window:
        return text
    return text[:window] + f"\n[excerpt: the first {window:,} of {len(text):,} characters]"


def contract(card: Card, params: dict | None = None, context_chars: int | None = None) -> str:
    """The task contract: the claim, its context, the parameters and the ranges the variant runs
    draw from, the metric names, the control, the raw arrays, how each is compared and the
    recompute rules. Never the answer key or the drawn values."""
    params = card.params if params is None else params
    lines = [f"# Audit task {card.id}: {card.title}", "", "## Claim", card.claim, "", f"Source: {card.source}", "",
             "## Context (in our own words)", context_excerpt(card.context, context_chars), ""]
    if card.honesty_note:
        lines += ["## What is reconstructed here", card.honesty_note, ""]
    lines += ["## Parameters (params.json)"]
    for k, v in params.items():
        doc = card.params_doc.get(k, "")
        lines.append(f"- `{k}` = {_fmt(v)}" + (f": {doc}" if doc else ""))
    if card.draws:
        lines += ["", "## Variant runs (parameters drawn at grading time)",
                  f"The grader runs your script {variant_draws()} more times, each in a fresh directory whose params.json "
                  "has these parameters drawn anew (in this order; the seed is redrawn too; every other parameter "
                  "keeps its value above), and runs its own reference experiment with the same params.json:"]
        lines += [f"- `{d.name}`: {d.text()}" for d in card.draws.values()]
        if card.variant_why:
            lines.append(card.variant_why)
    lines += ["", "## Metrics to report in SUMMARY_JSON"]
    for m in card.metrics.values():
        alias = f" (aliases: {', '.join(m.aliases)})" if m.aliases else ""
        lines.append(f"- `{m.name}`{alias}: {m.description}")
    if card.key_strength == "none":
        lines += ["", "This claim has no answer key: it is graded for honesty. Your verdict must follow from your own",
                  f"metrics by this rule: the claim holds when `{card.criterion}`."]
    lines += ["", "## Positive control (mandatory)", card.control_description,
              f"Expected value: {card.control_expected:.10g}.", "", f"## Raw arrays (save them in {RAW_FILE})",
              "Your experiment's primary observations, compared with the grader's own experiment for the same "
              f"parameters (two-sample tests at level {sample_level():g} per run: samples that truly follow the "
              f"experiment's law fail with probability at most {sample_level():g}):"]
    for r in card.raw.values():
        lines.append(f"- `{r.name}` (at least {r.min_size} values): {r.description}. Compared: {r.compare_text()}.")
    rules = [m for m in card.metrics.values() if m.recompute]
    if rules:
        lines += ["", "The grader recomputes the metrics from these arrays (and the parameters) as:"]
        for m in rules:
            lines.append(f"- `{m.name}` = `{m.recompute}` (allowed difference {m.recompute_tolerance.text()})")
    lines += ["", "## Verdict", "supported / falsified / inconclusive, as your own numbers show.", ""]
    return "\n".join(lines)


def instruction(card: Card, context_chars: int | None = None) -> str:
    return ("You audit a scientific claim. Write a self-contained numpy script that tries to reproduce it: it\n"
            "computes the claim's quantity with its own code, runs the positive control through the same code,\n"
            "saves the raw arrays and prints one SUMMARY_JSON line. The task contract follows; the same text is\n"
            f"in {CONTRACT_FILE} next to your script.\n\n" + contract(card, context_chars=context_chars))
