"""``battleline-companion mat | deck | enroll | read``: the vision sub-commands.

The dispatcher passes the command name as ``argv[0]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from vision.profile import DeckProfile, ProfileError, builtin_profile

if TYPE_CHECKING:
    from vision.sources.base import FrameSource, RetryingSource


def _mat(args: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="battleline-companion mat",
                                 description="Export the printable play mat.")
    ap.add_argument("--layout-json", action="store_true",
                    help="print every zone's and marker's geometry in mat millimetres")
    ap.add_argument("--out", type=Path, default=Path("mat-print"), help="output folder")
    ap.add_argument("--dpi", type=float, default=300.0)
    ap.add_argument("--paper", choices=["a4", "letter", "both"], default="both")
    ns = ap.parse_args(args)
    if ns.layout_json:
        from vision.mat import layout_json

        print(layout_json())
        return 0
    from vision.export import export_mat

    papers = ("a4", "letter") if ns.paper == "both" else (ns.paper,)
    for path in export_mat(ns.out, ns.dpi, papers):
        print(path)
    return 0


def _deck(args: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="battleline-companion deck",
                                 description="Export our recognition-friendly deck as a PDF.")
    ap.add_argument("--out", type=Path, default=Path("battleline-deck.pdf"))
    ap.add_argument("--dpi", type=float, default=300.0)
    ap.add_argument("--paper", choices=["a4", "letter"], default="a4")
    ap.add_argument("--style", choices=["companion", "classic"], default="companion",
                    help=argparse.SUPPRESS)
    ns = ap.parse_args(args)
    from vision.export import export_deck

    pages = export_deck(ns.out, ns.style, ns.dpi, ns.paper)
    print(f"{ns.out}: {pages} pages")
    return 0


def _enroll(args: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="battleline-companion enroll",
                                 description="Enrol a physical deck from one photo per card.")
    how = ap.add_mutually_exclusive_group(required=True)
    how.add_argument("--from-dir", type=Path,
                     help="folder of photos named by token: R7.jpg, AL.png, ...")
    how.add_argument("--camera", metavar="SPEC",
                     help="guided enrolment with the table camera: 'pi' (picamera2), "
                          "a device number, or a video file")
    ap.add_argument("--terrain", action="store_true",
                    help="also enrol the nine terrain cards (medieval edition)")
    ap.add_argument("--out", type=Path, default=None,
                    help="profile file to write (default: DIR.deck.npz beside the folder)")
    ap.add_argument("--name", default=None)
    ap.add_argument("--card-mm", default="63x88", help="card width x height in mm")
    ap.add_argument("--partial", action="store_true",
                    help="accept a deck with cards missing (they could be misread)")
    ns = ap.parse_args(args)
    from vision.enroll import enroll_from_dir

    try:
        w, h = (float(v) for v in ns.card_mm.lower().split("x"))
    except ValueError:
        print(f"enroll: --card-mm {ns.card_mm!r}: expected WIDTHxHEIGHT, e.g. 63x88",
              file=sys.stderr)
        return 2
    from vision.sources.base import SourceError

    try:
        if ns.from_dir is not None:
            profile = enroll_from_dir(ns.from_dir, ns.name, w, h, ns.partial)
        else:
            profile = _live_enroll(ns.camera, ns.name or "live", ns.terrain)
    except (ProfileError, SourceError) as exc:
        print(f"enroll: {exc}", file=sys.stderr)
        return 1
    if ns.out is None and ns.from_dir is None:
        ns.out = Path(f"{profile.name}.deck.npz")
    out = ns.out or ns.from_dir.with_name(ns.from_dir.name + ".deck.npz")
    profile.save(out)
    print(f"{out}: profile {profile.name!r} with {len(profile.tokens)} cards")
    from vision.enroll import distinctness

    # Each pair once, hardest first: what the reader will find hardest to tell apart.
    pairs = {tuple(sorted((a, b))): d for a, b, d in distinctness(profile)}
    hardest = sorted(pairs.items(), key=lambda kv: kv[1])[:8]
    if hardest:
        print("hardest pairs to tell apart (distinctness; below 0.1 is hard):")
        for (a, b), d in hardest:
            print(f"  {a:>8} ~ {b:<8} {d:.2f}")
    return 0


def open_camera(spec: str) -> RetryingSource:
    """A retrying frame source from a command-line camera spec."""
    from vision.sources.base import RetryingSource

    def opener() -> FrameSource:
        if spec == "pi":
            from vision.sources.picamera2_source import Picamera2Source

            return Picamera2Source()
        from vision.sources.opencv_capture import OpenCVSource

        return OpenCVSource(int(spec) if spec.isdigit() else spec)

    return RetryingSource(opener, log=lambda m: print(m, file=sys.stderr))


def _live_enroll(spec: str, name: str, terrain: bool) -> DeckProfile:
    from companion.rules.cards import ALL_CARDS, Terrain, card_name, parse_token
    from vision.enroll import ENROL_ZONE, live_enroll

    tokens = [c.token for c in ALL_CARDS] + ([t.token for t in Terrain] if terrain else [])
    source = open_camera(spec)

    def prompt(token: str) -> None:
        print(f"Put {card_name(parse_token(token))} ({token}) face up, upright, in the "
              f"{ENROL_ZONE} zone (replacing the previous card).", flush=True)

    return live_enroll(source, tokens, prompt, name)


def _read(args: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="battleline-companion read",
                                 description="Read the cards in an image of the mat.")
    ap.add_argument("image", type=Path)
    ap.add_argument("--deck", type=Path, default=None,
                    help="deck profile from 'enroll' (default: our printed deck)")
    ap.add_argument("--to-move", choices=["north", "south"], default="south")
    ns = ap.parse_args(args)
    from vision.calibrate import CalibrationError, Calibrator
    from vision.read import Reader
    from vision.sources.base import SourceError
    from vision.sources.folder import load_frame

    try:
        profile = DeckProfile.load(ns.deck) if ns.deck else builtin_profile()
        image = load_frame(ns.image)
        calib = Calibrator().update(image)
    except (ProfileError, SourceError) as exc:
        print(f"read: {exc}", file=sys.stderr)
        return 1
    except CalibrationError as exc:
        print(f"read: {ns.image}: {exc}", file=sys.stderr)
        return 1
    result = Reader(profile).read(image, calib)
    print(json.dumps(result.to_json(ns.to_move), indent=1))
    return 0


COMMANDS = {"mat": _mat, "deck": _deck, "enroll": _enroll, "read": _read}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in COMMANDS:
        print(f"usage: battleline-companion {{{','.join(COMMANDS)}}} ...", file=sys.stderr)
        return 2
    return COMMANDS[argv[0]](argv[1:])
