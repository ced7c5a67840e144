"""Progress of a long stage as lines for a run log (the Dagster run log, a CLI log).

A terminal shows a live bar (rich); a run log needs plain lines, and not one per item:
:class:`StageProgress` turns "one more item done" into a line such as
``OCR: 120/612 pages (19.6%), 4.1 pages/min, about 2 h 0 min left`` at most every
``every_s`` seconds, plus the first and the last item, through any ``emit`` function
(``context.log.info`` in an asset). It has no Dagster import.
"""

from __future__ import annotations

import time
from collections.abc import Callable


def _duration(seconds: float) -> str:
    minutes = int(round(seconds / 60))
    if minutes < 1:
        return f"{int(seconds)} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"


class StageProgress:
    """Counts done items of a stage and emits a throttled progress line."""

    def __init__(
        self,
        stage: str,
        total: int,
        emit: Callable[[str], None],
        unit: str = "items",
        every_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.stage, self.total, self.emit, self.unit = stage, total, emit, unit
        self.every_s, self.clock = every_s, clock
        self.done = 0
        self.started = clock()
        self._last: float | None = None

    def advance(self, n: int = 1) -> None:
        self.done += n
        now = self.clock()
        last = self.done >= self.total
        if self._last is None or last or now - self._last >= self.every_s:
            self._last = now
            self.emit(self.line(now))

    def line(self, now: float | None = None) -> str:
        now = self.clock() if now is None else now
        elapsed = max(now - self.started, 1e-9)
        share = self.done / self.total if self.total else 1.0
        text = f"{self.stage}: {self.done}/{self.total} {self.unit} ({share:.1%})"
        if self.done and elapsed >= 1:
            rate = self.done / elapsed * 60
            text += f", {rate:.1f} {self.unit}/min"
            if self.done < self.total:
                text += f", about {_duration((self.total - self.done) / self.done * elapsed)} left"
            else:
                text += f", done in {_duration(elapsed)}"
        return text
