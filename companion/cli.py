"""The ``battleline-companion`` command (placeholder until the foundation lands)."""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    print("battleline-companion: under construction")
    return 0
