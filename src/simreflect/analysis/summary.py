"""The summary tables of a run: per evidence level, and solved-within-budget by subset.

Per level: solved in 1 round, solved within the budget (both with 95% bootstrap intervals over
episodes), average rounds of the solved, scripts that crashed, tokens per episode. Unfinished
episodes (infrastructure errors) are listed apart and enter no denominator.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simreflect.analysis.bootstrap import bootstrap_interval


def summarize(rows: list[dict[str, Any]], levels: list[str], budget: int,
              subset_order: tuple[str, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {"budget": budget, "levels": {}, "subsets": {}, "unfinished": []}
    seen = {s for r in rows for s in r["subsets"]}
    subset_names = [s for s in subset_order if s in seen] + sorted(seen - set(subset_order))
    for level in levels:
        done = [r for r in rows if r["level"] == level and r["finished"]]
        out["unfinished"] += [f"{r['task']}/{level}" for r in rows if r["level"] == level and not r["finished"]]
        n = len(done)
        first = [1.0 if r["solved_round"] == 1 else 0.0 for r in done]
        within = [1.0 if r["solved"] else 0.0 for r in done]
        solved_rounds = [r["solved_round"] for r in done if r["solved"]]
        scripts = sum(r["scripts"] for r in done)
        out["levels"][level] = {
            "n": n,
            "solved_1": int(sum(first)),
            "solved_1_ci": bootstrap_interval(first),
            "solved_within": int(sum(within)),
            "solved_within_ci": bootstrap_interval(within),
            "avg_rounds_solved": float(np.mean(solved_rounds)) if solved_rounds else None,
            "crashes": sum(r["crashes"] for r in done),
            "scripts": scripts,
            "tokens_per_episode": float(np.mean([r["tokens"] for r in done])) if done else 0.0,
            "aux_calls": sum(r.get("aux_calls", 0) for r in done),
            "harness_errors": sum(r.get("harness_errors", 0) for r in done),
            "flags": _flag_counts(done),
        }
        sessions = [r["interactive"] for r in done if r.get("interactive")]
        if sessions:
            out["levels"][level]["interactive"] = _sessions(sessions)
        for s in subset_names:
            members = [r for r in done if s in r["subsets"]]
            out["subsets"].setdefault(s, {})[level] = {"solved": sum(r["solved"] for r in members), "n": len(members)}
    return out


def _sessions(ends: list[dict[str, Any]]) -> dict[str, Any]:
    """The seed's columns for interactive sessions: means per session, and how they ended."""
    def mean(key: str, scale: float = 1.0) -> float:
        return float(np.mean([float(e.get(key, 0)) * scale for e in ends]))

    ended: dict[str, int] = {}
    for e in ends:
        ended[str(e.get("budget"))] = ended.get(str(e.get("budget")), 0) + 1
    return {"sessions": len(ends), "commands": mean("commands"), "turns": mean("turns"),
            "wall_minutes": mean("wall_s", 1 / 60), "sim_seconds": mean("sim_time"),
            "tokens": float(np.mean([e.get("prompt_tokens", 0) + e.get("completion_tokens", 0) for e in ends])),
            "ended": dict(sorted(ended.items()))}


def _flag_counts(rows: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in rows:
        for f in r.get("flags", []):
            counts[f] = counts.get(f, 0) + 1
    return dict(sorted(counts.items()))


def _pct_ci(ci: tuple[float, float]) -> str:
    lo, hi = ci
    if np.isnan(lo):
        return ""
    return f" [{lo * 100:.0f}-{hi * 100:.0f}%]"


def summary_markdown(summary: dict[str, Any], title: str) -> str:
    n_budget = summary["budget"]
    lines = [f"# {title}", "", f"Evidence level | Solved in 1 round | Solved within {n_budget} | Avg rounds (solved) | "
             "Scripts that crashed | Tokens / episode", "---|---|---|---|---|---"]
    for level, s in summary["levels"].items():
        avg = "-" if s["avg_rounds_solved"] is None else f"{s['avg_rounds_solved']:.2f}"
        lines.append(f"{level} | {s['solved_1']}/{s['n']}{_pct_ci(s['solved_1_ci'])} | "
                     f"{s['solved_within']}/{s['n']}{_pct_ci(s['solved_within_ci'])} | {avg} | "
                     f"{s['crashes']}/{s['scripts']} | {s['tokens_per_episode']:,.0f}")
    flags = {lv: s["flags"] for lv, s in summary["levels"].items() if s.get("flags")}
    aux = {lv: s["aux_calls"] for lv, s in summary["levels"].items() if s.get("aux_calls")}
    if flags:
        lines += ["", "Flags: " + "; ".join(f"{lv}: " + ", ".join(f"{k} {v}" for k, v in f.items())
                                         for lv, f in flags.items())]
    if aux:
        lines += ["", "Auxiliary model calls (not attempts): " + ", ".join(f"{lv} {n}" for lv, n in aux.items())]
    harness = {lv: s["harness_errors"] for lv, s in summary["levels"].items() if s.get("harness_errors")}
    if harness:
        lines += ["", "Rounds the harness failed on (an exception on the program or artefact; each cost its round): "
                  + ", ".join(f"{lv} {n}" for lv, n in harness.items())]
    sessions = {lv: s["interactive"] for lv, s in summary["levels"].items() if s.get("interactive")}
    if sessions:
        lines += ["", "Interactive sessions (means per session) | Commands | Model turns | Wall minutes | Simulated s | "
                  "Tokens | How they ended", "---|---|---|---|---|---|---"]
        for lv, x in sessions.items():
            ended = ", ".join(f"{k} {v}" for k, v in x["ended"].items())
            lines.append(f"{lv} ({x['sessions']}) | {x['commands']:.0f} | {x['turns']:.0f} | {x['wall_minutes']:.1f} | "
                         f"{x['sim_seconds']:.1f} | {x['tokens']:,.0f} | {ended}")
    if summary["subsets"]:
        levels = list(summary["levels"])
        lines += ["", f"Solved within {n_budget} rounds:", "", "Subset | " + " | ".join(levels),
                  "---|" + "|".join("---" for _ in levels)]
        for name, by_level in summary["subsets"].items():
            lines.append(f"{name} | " + " | ".join(f"{by_level[lv]['solved']}/{by_level[lv]['n']}" for lv in levels))
    lines += ["", "Intervals are 95% percentile bootstrap intervals over episodes (2,000 resamples, seed 0)."]
    if summary["unfinished"]:
        lines += ["", f"Unfinished because of infrastructure errors (in no denominator; run again to retry): "
                      f"{', '.join(summary['unfinished'])}"]
    return "\n".join(lines) + "\n"
