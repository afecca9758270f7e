"""One surface's cases, run in a process of their own (``python -m companion.fuzz.worker``).

The bench sends case numbers, one a line (or ``@FILE``, a case kept in a file);
the worker makes each case (the same for the same seed), feeds it to the surface
and answers one JSON line. In its
own process a case that hangs can be cut short, and one that eats memory (a
small image claiming to be huge) meets a limit instead of the machine's end.
"""

from __future__ import annotations

import json
import os
import random
import resource
import sys
import tempfile
import traceback
from pathlib import Path

from companion.fuzz.lines import LINE_SURFACES
from companion.fuzz.surfaces import FILE_SURFACES, Surface

SURFACES: dict[str, Surface] = {s.name: s for s in (*FILE_SURFACES, *LINE_SURFACES)}
MEMORY_LIMIT = 3 << 30  # bytes of address space for a worker


def make_case(surface: Surface, seeds: list[bytes], seed: int, index: int) -> bytes:
    """Case ``index``: the good inputs first, then spoilt ones, drawn from ``seed``."""
    if index < len(seeds):
        return seeds[index]
    rng = random.Random(f"{seed}/{surface.name}/{index}")
    return surface.mutate(rng.choice(seeds), rng, seeds)


def run_case(surface: Surface, data: bytes, folder: Path) -> dict[str, object]:
    try:
        problem = surface.check(data, folder)
    except BaseException as error:  # whatever escapes is what we count
        if isinstance(error, KeyboardInterrupt):
            raise
        return {"result": "traceback", "detail": traceback.format_exc()[-1500:]}
    if problem is not None:
        return {"result": "unclear", "detail": problem}
    return {"result": "clean"}


def main(argv: list[str]) -> int:
    name, seed, save = argv[0], int(argv[1]), (Path(argv[2]) if len(argv) > 2 else None)
    surface = SURFACES[name]
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # what the code under test prints
    folder = Path(tempfile.mkdtemp(prefix=f"fuzz-{name}-"))
    seeds = surface.seeds(folder)
    for line in sys.stdin:
        if line.startswith("@"):  # a case kept in a file (the corpus)
            index, data = -1, Path(line[1:].strip()).read_bytes()
        else:
            index = int(line)
            data = make_case(surface, seeds, seed, index)
        answer = run_case(surface, data, folder / "case")
        if answer["result"] != "clean" and save is not None:
            save.mkdir(parents=True, exist_ok=True)
            (save / f"{name}-{seed}-{index}.bin").write_bytes(data)
        answers.write(json.dumps(answer) + "\n")
        answers.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
