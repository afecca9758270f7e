"""``battleline-companion bench TARGET``: each target prints one JSON object of figures."""

from __future__ import annotations

import importlib
import sys

# target -> module with ``main(argv: list[str]) -> int``
TARGETS: dict[str, str] = {
    "rules": "companion.benches.rules",
    "vision": "vision.bench.classic",
    "enrol": "vision.bench.enrolment",
    "lights": "hardware.bench",
    "loop": "companion.benches.loop",
    "ui": "companion.ui.bench",
    "fuzz": "companion.fuzz.bench",
    "soak": "companion.benches.soak",
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in TARGETS:
        print(
            f"usage: battleline-companion bench {{{','.join(TARGETS)}}} [OPTIONS]", file=sys.stderr
        )
        return 2
    result: int = importlib.import_module(TARGETS[argv[0]]).main(argv[1:])
    return result
