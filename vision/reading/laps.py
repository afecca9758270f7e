"""Where a frame's time goes: this thread's CPU time per step of the reader.

The bench prints it beside the frame time (``frame_ms_by_step``), so a change that
makes one step dearer, or a search for the frame budget, starts from the figures.
"""

from __future__ import annotations

import time
from collections import defaultdict


class Laps:
    """Milliseconds of this thread's CPU time spent in each named step, summed over
    every read since made: each ``lap`` charges the time since the last one (or
    ``start``) to its step."""

    def __init__(self) -> None:
        self.ms: defaultdict[str, float] = defaultdict(float)
        self._at = time.thread_time()

    def start(self) -> None:
        self._at = time.thread_time()

    def lap(self, step: str) -> None:
        now = time.thread_time()
        self.ms[step] += (now - self._at) * 1000.0
        self._at = now
