"""What a run's episodes ended in, as they end: counts, the infrastructure failures' causes, and a
plain progress line (for a log file, a pipe or a batch scheduler, where no progress bar draws)."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from simreflect.run.episode import EpisodeOutcome


@dataclass
class RunTally:
    solved: int = 0
    failed: int = 0
    infra: int = 0
    #: each infrastructure failure's message -> how many episodes it ended
    causes: Counter = field(default_factory=Counter)

    def record(self, outcome: EpisodeOutcome) -> None:
        if outcome.status != "finished":
            self.infra += 1
            self.causes[outcome.error or "(no message)"] += 1
        elif outcome.solved:
            self.solved += 1
        else:
            self.failed += 1

    def stats(self) -> str:
        return f"solved {self.solved}  failed {self.failed}  infra errors {self.infra}"

    def causes_text(self) -> list[str]:
        """One line per distinct cause, the most frequent first: "3 x HTTP 401 from ...: ..."."""
        return [f"{n} x {cause}" for cause, n in self.causes.most_common()]


class ProgressLog:
    """Writes a plain line every `every_s` seconds (and at the last episode): done/total, the counts,
    the rate of this invocation and the time left at that rate."""

    def __init__(self, tally: RunTally, every_s: float = 60.0, write: Callable[[str], None] = print,
                 clock: Callable[[], float] = time.monotonic):
        self.tally, self.every_s, self.write, self.clock = tally, every_s, write, clock
        self._start = clock()
        self._last: float | None = None
        self._first_done: int | None = None

    def update(self, done: int, total: int) -> None:
        now = self.clock()
        if self._first_done is None:
            self._first_done = done - 1  # episodes finished before this invocation are not its rate
        if self._last is not None and now - self._last < self.every_s and done < total:
            return
        self._last = now
        self.write(self.line(done, total, now))

    def line(self, done: int, total: int, now: float) -> str:
        elapsed = max(now - self._start, 1e-9)
        here = done - (self._first_done or 0)
        rate = here / elapsed * 60.0
        left = total - done
        eta = "done" if left == 0 else (f"ETA {_duration(left / rate * 60.0)}" if rate > 0 else "ETA unknown")
        return (f"progress: {done}/{total} episodes ({100.0 * done / max(total, 1):.0f}%), {self.tally.stats()}, "
                f"{rate:.2f} episodes/min, {eta}")


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"
