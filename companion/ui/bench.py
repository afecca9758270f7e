"""``battleline-companion bench ui``: how long the play view takes to draw a frame.

Draws the demonstration game's play view (every flag's cards, labels and
status) at 800×480 and 720×1280 into a window of that size (SDL's dummy
driver when there is no display), as the app does on each event, and prints
the frame times as JSON: drawing, copying to the display and the flip.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from companion.ui.pygame_view import LANDSCAPE, PORTRAIT
from companion.ui.shots import demo


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="battleline-companion bench ui")
    parser.add_argument("--frames", type=int, default=200)
    ns = parser.parse_args(argv)
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    result: dict[str, object] = {"frames": ns.frames}
    all_ms: list[float] = []
    for size in (LANDSCAPE, PORTRAIT):
        with demo(size, window=True) as (view, companion):
            times = []
            for _ in range(ns.frames):
                start = time.perf_counter()
                view.show(companion.model())
                times.append((time.perf_counter() - start) * 1000)
        times.sort()
        key = f"{size[0]}x{size[1]}"
        result[key] = {
            "frame_ms_median": round(statistics.median(times), 3),
            "frame_ms_p95": round(times[int(0.95 * (len(times) - 1))], 3),
        }
        all_ms += times
    all_ms.sort()
    result["frame_ms_median"] = round(statistics.median(all_ms), 3)
    result["frame_ms_p95"] = round(all_ms[int(0.95 * (len(all_ms) - 1))], 3)
    print(json.dumps(result))
    return 0
