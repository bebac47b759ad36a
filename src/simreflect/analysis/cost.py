"""What a run's model calls cost: tokens per episode and per run, priced by a table the user can edit
(analysis/prices.toml is the shipped default; `--price-table FILE` replaces it)."""

from __future__ import annotations

import fnmatch
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

DEFAULT_TABLE = Path(__file__).with_name("prices.toml")
#: A price table is a small hand-edited file; anything larger is not one.
MAX_TABLE_BYTES = 1 << 20


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""
    input: float
    output: float

    def of(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input + completion_tokens * self.output) / 1e6


@dataclass(frozen=True)
class PriceTable:
    #: model name or fnmatch pattern -> price, in the file's order
    prices: dict[str, Price]
    source: str

    def price(self, model: str | None) -> Price | None:
        """The price of `model`: its exact entry, else the first pattern that matches it."""
        if not model:
            return None
        if model in self.prices:
            return self.prices[model]
        return next((p for key, p in self.prices.items() if fnmatch.fnmatchcase(model, key)), None)


def load_price_table(path: Path | None = None) -> PriceTable:
    """A price table file ([models."NAME"] with input and output prices); ValueError says what is wrong."""
    path = Path(path) if path is not None else DEFAULT_TABLE
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise ValueError(f"cannot read the price table {path}: {e.strerror or e}") from None
    if len(raw) > MAX_TABLE_BYTES:
        raise ValueError(f"the price table {path} is larger than {MAX_TABLE_BYTES} bytes")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ValueError(f"the price table {path} is not TOML: {e}") from None
    models = data.get("models", {})
    if not isinstance(models, dict):
        raise ValueError(f"the price table {path}: [models] must be a table of models")
    prices = {}
    for name, entry in models.items():
        if not isinstance(entry, dict):
            raise ValueError(f"the price table {path}: models.{name!r} must be a table with input and output")
        prices[name] = Price(*(_price(entry, key, f"{path}: models.{name!r}") for key in ("input", "output")))
    return PriceTable(prices, str(path))


def _price(entry: dict[str, Any], key: str, where: str) -> float:
    value = entry.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValueError(f"the price table {where}.{key} must be a finite number >= 0 (USD per million tokens), "
                         f"not {value!r}")
    return float(value)


@dataclass(frozen=True)
class EpisodeCost:
    task: str
    level: str
    run: int
    prompt_tokens: int
    completion_tokens: int
    #: tokens of answers served from the response cache (no request, no cost)
    cached_tokens: int
    cost: float | None


@dataclass(frozen=True)
class RunCost:
    model: str | None
    price: Price | None
    table: str
    episodes: tuple[EpisodeCost, ...]

    @property
    def prompt_tokens(self) -> int:
        return sum(e.prompt_tokens for e in self.episodes)

    @property
    def completion_tokens(self) -> int:
        return sum(e.completion_tokens for e in self.episodes)

    @property
    def cost(self) -> float | None:
        return None if self.price is None else sum(e.cost or 0.0 for e in self.episodes)

    def to_dict(self) -> dict[str, Any]:
        n = max(len(self.episodes), 1)
        return {"model": self.model, "table": self.table,
                "price_per_mtok": None if self.price is None else {"input": self.price.input, "output": self.price.output},
                "episodes": len(self.episodes), "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "cached_tokens": sum(e.cached_tokens for e in self.episodes),
                "cost_usd": _round(self.cost), "cost_usd_per_episode": _round(None if self.cost is None else self.cost / n),
                "per_episode": [{"task": e.task, "level": e.level, "run": e.run, "prompt_tokens": e.prompt_tokens,
                                 "completion_tokens": e.completion_tokens, "cached_tokens": e.cached_tokens,
                                 "cost_usd": _round(e.cost)} for e in self.episodes]}

    def markdown(self) -> str:
        d = self.to_dict()
        n = max(d["episodes"], 1)
        tokens = d["prompt_tokens"] + d["completion_tokens"]
        lines = ["", f"## Tokens and cost ({d['model'] or 'no model'})", "",
                 "| | prompt tokens | completion tokens | cached tokens | cost (USD) |", "|---|---|---|---|---|",
                 f"| run ({d['episodes']} episodes) | {d['prompt_tokens']:,} | {d['completion_tokens']:,} | "
                 f"{d['cached_tokens']:,} | {_usd(d['cost_usd'])} |",
                 f"| per episode | {d['prompt_tokens'] / n:,.0f} | {d['completion_tokens'] / n:,.0f} | "
                 f"{d['cached_tokens'] / n:,.0f} | {_usd(d['cost_usd_per_episode'])} |", ""]
        if self.price is None:
            lines.append(f"No price for {d['model']!r} in {self.table} ({tokens:,} tokens): add it there, or pass "
                         "--price-table FILE.")
        else:
            lines.append(f"Priced at {self.price.input:g} / {self.price.output:g} USD per million prompt / completion "
                         f"tokens ({self.table}).")
        return "\n".join(lines) + "\n"


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 6)


def _usd(x: float | None) -> str:
    return "-" if x is None else f"{x:.4f}"


def run_cost(rows: Iterable[dict[str, Any]], model: str | None, table: PriceTable) -> RunCost:
    """The cost of each episode row (runs.jsonl rows: their rounds' usage) at the table's price of `model`."""
    price = table.price(model)
    episodes = []
    for row in rows:
        prompt = completion = cached = 0
        for r in row["rounds"]:
            usage = r.get("usage") or {}
            p, c = int(usage.get("prompt_tokens", 0) or 0), int(usage.get("completion_tokens", 0) or 0)
            if usage.get("cached"):
                cached += p + c
            else:
                prompt, completion = prompt + p, completion + c
        episodes.append(EpisodeCost(row["task"], row["level"], row.get("run", 0), prompt, completion, cached,
                                    None if price is None else price.of(prompt, completion)))
    return RunCost(model, price, table.source, tuple(episodes))
