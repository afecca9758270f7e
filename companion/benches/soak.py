"""``battleline-companion bench soak``: a long session through the real vision path.

One session, as at the camera table: the same camera (the simulated table,
rendered in its own process and paced like a camera), the same vision path
and the same lights for every game; each game gets a new tracker, journal
and companion, as ``play`` gives it. After each game the app's resident
memory is taken (after a garbage collection, and after the C allocator gave
back what it held free, so what is measured is what is kept). ``rss_mb_start`` is taken once the first game has ended: the first
game loads the templates, fills the one-off caches and warms the allocator,
none of which is growth; ``rss_mb_cold`` is before it. ``errors`` counts
games that raised and games whose journal is not the script's game.
``--trace N`` also lists the N places whose allocations grew most from the
first game's end to the last (tracemalloc: slow, for finding a leak).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import json
import os
import resource
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import cast

from companion.app import Companion, Options
from companion.benches.loop import TimedLights, Timing, opening, percentile, time_changes, watched
from companion.records.journal import Journal, read_journal
from companion.rules.position import Variant
from companion.sim.simtable import script_game
from companion.sim.simulate import Driver
from companion.tracker import Tracker
from companion.ui.terminal import NoView
from hardware.config import LightsConfig
from hardware.factory import open_lights
from hardware.lights import FlagLights


def kept_rss_mb() -> float:
    """Resident memory after a garbage collection and after the C allocator gave
    back what it holds free (glibc keeps freed memory for reuse: tens of MB that
    come and go from game to game, and would hide or fake a growth)."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    return rss_mb()


def rss_mb() -> float:
    """This process's resident memory now (Linux); elsewhere its peak so far."""
    try:
        with open("/proc/self/statm") as statm:
            pages = int(statm.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="battleline-companion bench soak")
    ap.add_argument("--games", type=int, default=50, help="games in the session (default 50)")
    ap.add_argument("--seed", type=int, default=1, help="the first game's seed")
    ap.add_argument("--fps", type=float, default=10.0, help="the simulated camera's frame rate")
    ap.add_argument("--changes", type=int, default=None,
                    help="play each game only up to its N-th table change (a short check)")
    ap.add_argument("--trace", type=int, default=0, metavar="N",
                    help="list the N places whose allocations grew most (slow)")
    ns = ap.parse_args(argv)
    if ns.trace:
        import tracemalloc

        tracemalloc.start(8)
    timing = Timing()
    table = watched(ns.seed, ns.fps, timing)
    lights = TimedLights(open_lights(LightsConfig(board="mock")))
    latencies = timing.latencies
    errors, mismatches, wrong_events = 0, 0, 0
    rss_cold = kept_rss_mb()
    rss: list[float] = []
    loose: list[float] = []  # before giving back what the allocator holds free
    first_snapshot = None
    start = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for k in range(ns.games):
                script = opening(script_game(ns.seed + k), ns.changes)
                journal = Journal.create(Path(tmp), {
                    "mode": "simulated", "first": script.first.value, "variant": {},
                    "seed": script.seed})
                companion = Companion(Tracker(Variant(), script.first), journal,
                                      cast(FlagLights, lights), NoView(), Options())
                driver = Driver(companion, script, table)
                time_changes(driver, companion, table, lights)
                problem = ""
                try:
                    report = driver.run()
                    wrong_events += report.wrong_events
                except Exception as error:  # a soak counts what breaks, and goes on
                    problem = f"{type(error).__name__}: {error}"
                    traceback.print_exc(file=sys.stderr)
                finally:
                    journal.close()
                record = read_journal(journal.path)
                same = [(e.player, e.action) for e in record.events] == [
                    (s.player, s.action) for s in script.steps]
                journal.path.unlink()  # a long session's journals are not what is measured
                errors += bool(problem) or not same
                mismatches += not same
                del companion, driver, journal, record
                loose.append(rss_mb())
                rss.append(kept_rss_mb())
                if k == 0 and ns.trace:
                    first_snapshot = tracemalloc.take_snapshot()
                print(json.dumps({"game": k + 1, "seed": script.seed, "rss_mb": round(rss[-1], 1),
                                  "rss_mb_untrimmed": round(loose[-1], 1),
                                  "journal_equals_script": same, "error": problem or None}),
                      file=sys.stderr, flush=True)
    finally:
        table.close()
        lights.lights.close()
    figures = {
        "games": ns.games,
        "rss_mb_cold": round(rss_cold, 1),
        "rss_mb_start": round(rss[0], 1) if rss else None,
        "rss_mb_end": round(rss[-1], 1) if rss else None,
        "rss_mb_max": round(max(rss), 1) if rss else None,
        "latency_ms_median": round(percentile(latencies, 0.5), 1) if latencies else None,
        "latency_ms_p99": round(percentile(latencies, 0.99), 1) if latencies else None,
        "timed_changes": len(latencies),
        "stages_ms_p99": {name: round(percentile(v, 0.99), 1)
                          for name, v in timing.stages.items() if v},
        "errors": errors,
        "journal_mismatches": mismatches,
        "wrong_events": wrong_events,
        "false_updates": timing.false_updates,
        "minutes": round((time.perf_counter() - start) / 60, 1),
        "fps": ns.fps,
        "seed": ns.seed,
    }
    print(json.dumps(figures))
    if first_snapshot is not None:
        import tracemalloc

        grown = tracemalloc.take_snapshot().compare_to(first_snapshot, "traceback")
        for stat in grown[:ns.trace]:
            print(f"{stat.size_diff / 1024:+.1f} KiB in {stat.count_diff:+d} blocks",
                  file=sys.stderr)
            for line in stat.traceback.format()[-6:]:
                print("   " + line, file=sys.stderr)
    return 0
