"""``battleline-companion bench fuzz [--cases N]``: every input surface fuzzed, a JSON line each.

    {"surface": "position", "cases": 200, "clean": 200, "tracebacks": 0, "hangs": 0,
     "unclear": 0, "seconds": 3.1}

``clean``: taken, or refused with a one-line message naming the file (exit
status 1); ``tracebacks``: an exception escaped (or the firmware died);
``hangs``: no answer within ``--timeout`` seconds; ``unclear``: an answer, but
not a clear one-line message (or the serial link stopped answering). Each
surface runs in a worker process of its own (``companion.fuzz.worker``), the
firmware under the MicroPython unix port. ``--save DIR`` keeps every case that
was not clean, to look at or add to the corpus in tests/fuzz/corpus/.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from companion.fuzz.lines import LINE_SURFACES, FirmwareSession
from companion.fuzz.surfaces import FILE_SURFACES, Surface

NAMES = [s.name for s in (*FILE_SURFACES, *LINE_SURFACES)]


class Worker:
    """A worker process for one surface, started again after a hang or a crash."""

    def __init__(self, surface: Surface, seed: int, save: Path | None) -> None:
        self.argv = [sys.executable, "-m", "companion.fuzz.worker", surface.name, str(seed)]
        self.argv += [str(save)] if save is not None else []
        self.proc: subprocess.Popen[bytes] | None = None
        # Whatever the worker and what it starts write lands in one folder (their
        # TMPDIR), removed with the worker (``close``).
        self.folder = tempfile.TemporaryDirectory(prefix="fuzz-worker-",
                                                  ignore_cleanup_errors=True)
        # A file, not a pipe: libjpeg's warnings alone would fill one and stall the worker.
        self.stderr = Path(self.folder.name) / "stderr.txt"
        self.first = True  # the first case also pays for the worker's start and seeds

    def ask(self, case: int | Path, timeout: float) -> dict[str, str]:
        """What case number ``case`` (or the case kept in file ``case``) did."""
        if self.proc is None:
            with open(self.stderr, "wb") as err:
                # A group of its own: stopping it stops what it started too (the
                # serial-host surface runs the firmware beside it).
                self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE,
                                             stdout=subprocess.PIPE, stderr=err,
                                             env={**os.environ, "TMPDIR": self.folder.name},
                                             start_new_session=True)
            self.first = True
        assert self.proc.stdin is not None and self.proc.stdout is not None
        request = f"@{case}" if isinstance(case, Path) else str(case)
        self.proc.stdin.write(request.encode() + b"\n")
        self.proc.stdin.flush()
        wait = timeout + (120.0 if self.first else 0.0)
        self.first = False
        ready, _, _ = select.select([self.proc.stdout], [], [], wait)
        if not ready:
            self.stop()
            return {"result": "hang"}
        line = self.proc.stdout.readline()
        if not line:  # the worker died: a crash no exception handler saw
            self.proc.wait()
            detail = self.stderr.read_text(errors="replace")[-1500:]
            self.stop()
            return {"result": "traceback", "detail": detail}
        answer: dict[str, str] = json.loads(line)
        return answer

    def stop(self) -> None:
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):  # the group is gone already
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.communicate()
            self.proc = None

    def close(self) -> None:
        """Stopped for good, its folder removed."""
        self.stop()
        self.folder.cleanup()


def _firmware_cases(surface: Surface, cases: int, seed: int, timeout: float,
                    say: list[str]) -> Counter[str]:
    from companion.fuzz.worker import make_case

    counts: Counter[str] = Counter()
    with tempfile.TemporaryDirectory(prefix="fuzz-firmware-") as scratch:
        folder = Path(scratch)
        seeds = surface.seeds(folder)
        session = FirmwareSession(folder)
        try:
            for index in range(cases):
                data = make_case(surface, seeds, seed, index)
                result = session.feed(data, timeout)
                if result == "crash" and b"SAFE" in data.upper():
                    result = "clean"  # SAFE ends the firmware on purpose (to the REPL)
                counts["traceback" if result == "crash" else result] += 1
                if result != "clean":
                    say.append(f"{surface.name} case {index} {data[:80]!r}: {result}: "
                               f"{session.stderr()[-300:]}")
                    session.close()
                    session = FirmwareSession(folder)
        finally:
            session.close()
    return counts


def run_surface(surface: Surface, cases: int, seed: int, timeout: float,
                save: Path | None, say: list[str]) -> dict[str, object]:
    started = time.monotonic()
    if surface.extra.get("firmware"):
        counts = _firmware_cases(surface, cases, seed, timeout, say)
    else:
        counts = Counter()
        worker = Worker(surface, seed, save)
        try:
            for index in range(cases):
                answer = worker.ask(index, timeout)
                counts[answer["result"]] += 1
                if answer["result"] != "clean":
                    say.append(f"{surface.name} case {index}: {answer['result']}: "
                               f"{answer.get('detail', '')}")
        finally:
            worker.close()
    return {"surface": surface.name, "cases": cases, "clean": counts["clean"],
            "tracebacks": counts["traceback"], "hangs": counts["hang"],
            "unclear": counts["unclear"], "seconds": round(time.monotonic() - started, 1)}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="battleline-companion bench fuzz",
                                 description="Fuzz every input surface; a JSON line each.")
    ap.add_argument("--cases", type=int, default=200, help="cases per surface (default 200)")
    ap.add_argument("--seed", type=int, default=random.SystemRandom().randrange(1 << 30),
                    help="the cases' seed (default: a new one, printed)")
    ap.add_argument("--surface", action="append", choices=NAMES,
                    help="only this surface (repeatable; default: all)")
    ap.add_argument("--timeout", type=float, default=10.0,
                    help="seconds a case may take before it counts as a hang")
    ap.add_argument("--save", type=Path, default=None, help="keep every case not clean here")
    ap.add_argument("--verbose", action="store_true", help="say what each case not clean did")
    ns = ap.parse_args(argv)
    if ns.cases < 1:
        ap.error("--cases must be at least 1")
    print(json.dumps({"seed": ns.seed}), flush=True)
    failed = False
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    for surface in (*FILE_SURFACES, *LINE_SURFACES):
        if ns.surface and surface.name not in ns.surface:
            continue
        say: list[str] = []
        figures = run_surface(surface, ns.cases, ns.seed, ns.timeout, ns.save, say)
        print(json.dumps(figures), flush=True)
        if ns.verbose:
            for line in say:
                print(line, file=sys.stderr)
        failed = failed or figures["clean"] != ns.cases
    return 1 if failed else 0
