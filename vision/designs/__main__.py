"""``python -m vision.designs --sheet OUT_DIR [--split tune|held] [--n N]``: contact sheets."""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2

from vision.designs import design_sheet, designs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.designs", description=__doc__)
    ap.add_argument("--sheet", type=Path, required=True, help="folder for one PNG per design")
    ap.add_argument("--split", choices=("tune", "held"), default="tune")
    ap.add_argument("--n", type=int, default=None, help="how many designs (default: all)")
    ap.add_argument("--px-per-mm", type=float, default=4.0)
    args = ap.parse_args(argv)
    args.sheet.mkdir(parents=True, exist_ok=True)
    for d in designs(args.split, args.n):
        out = args.sheet / f"{d.name}.png"
        cv2.imwrite(str(out), design_sheet(d, args.px_per_mm))
        print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
