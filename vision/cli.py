"""``battleline-companion mat | deck | enroll | read``: the vision sub-commands.

The dispatcher passes the command name as ``argv[0]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from companion.i18n import ArgumentParser, _, ngettext, set_language
from vision.profile import DeckProfile, ProfileError, builtin_profile

if TYPE_CHECKING:
    from companion.rules.cards import Card, Terrain
    from vision.read import Reader
    from vision.reading.result import FrameRead
    from vision.sources.base import FrameSource, RetryingSource


def _mat(args: list[str]) -> int:
    ap = ArgumentParser(prog="battleline-companion mat",
                                 description=_("Export the printable play mat."))
    ap.add_argument("--layout-json", action="store_true",
                    help=_("print every zone's and marker's geometry in mat millimetres"))
    ap.add_argument("--out", type=Path, default=Path("mat-print"), help=_("output folder"))
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
    ap = ArgumentParser(prog="battleline-companion deck",
                                 description=_("Export our recognition-friendly deck as a "
                                               "PDF."))
    ap.add_argument("--out", type=Path, default=Path("battleline-deck.pdf"))
    ap.add_argument("--dpi", type=float, default=300.0)
    ap.add_argument("--paper", choices=["a4", "letter"], default="a4")
    ap.add_argument("--style", choices=["companion", "classic"], default="companion",
                    help=argparse.SUPPRESS)
    ns = ap.parse_args(args)
    from vision.export import export_deck

    pages = export_deck(ns.out, ns.style, ns.dpi, ns.paper)
    print(ngettext("{path}: {n} page", "{path}: {n} pages", pages).format(path=ns.out, n=pages))
    return 0


def _enroll(args: list[str]) -> int:
    ap = ArgumentParser(prog="battleline-companion enroll",
                                 description=_("Enrol a physical deck from one photo per "
                                               "card."))
    how = ap.add_mutually_exclusive_group(required=True)
    how.add_argument("--from-dir", type=Path,
                     help=_("folder of photos named by token: R7.jpg, AL.png, ..."))
    how.add_argument("--camera", metavar="SPEC",
                     help=_("guided enrolment with the table camera: 'pi' (picamera2), "
                            "a device number, or a video file"))
    ap.add_argument("--terrain", action="store_true",
                    help=_("also enrol the nine terrain cards (medieval edition)"))
    ap.add_argument("--out", type=Path, default=None,
                    help=_("profile file to write (default: DIR.deck.npz beside the folder)"))
    ap.add_argument("--name", default=None)
    ap.add_argument("--card-mm", default="63x88", help=_("card width x height in mm"))
    ap.add_argument("--partial", action="store_true",
                    help=_("accept a deck with cards missing (they could be misread)"))
    ap.add_argument("--jobs", type=int, default=None, metavar="N",
                    help=_("photos and models worked on at once (default: one per core)"))
    ap.add_argument("--keep-outline", action="append", default=[], metavar="TOKEN",
                    help=_("take this card's photo as it is where enrolment says its "
                           "outline lies off the card (repeatable)"))
    ns = ap.parse_args(args)
    from vision.enrolment.enroll import enroll_from_dir

    try:
        w, h = (float(v) for v in ns.card_mm.lower().split("x"))
    except ValueError:
        print(_("enroll: --card-mm {value}: expected WIDTHxHEIGHT, e.g. 63x88").format(
            value=repr(ns.card_mm)), file=sys.stderr)
        return 2
    from vision.enrolment.workers import jobs as jobs_for
    from vision.sources.base import SourceError

    jobs = jobs_for(ns.jobs)
    try:
        if ns.from_dir is not None:
            profile = enroll_from_dir(ns.from_dir, ns.name, w, h, ns.partial,
                                      ns.keep_outline, jobs)
        else:
            profile = _live_enroll(ns.camera, ns.name or "live", ns.terrain)
    except (ProfileError, SourceError) as exc:
        print(_("enroll: {problem}").format(problem=exc), file=sys.stderr)
        return 1
    from vision.models.learnt import with_model

    # The deck's own classifiers (its bands, its whole faces), learnt now from its
    # cards: what reads it (``read``, the companion).
    profile = with_model(profile, jobs=jobs)
    if ns.out is None and ns.from_dir is None:
        ns.out = Path(f"{profile.name}.deck.npz")
    out = ns.out or ns.from_dir.with_name(ns.from_dir.name + ".deck.npz")
    profile.save(out)
    count = len(profile.tokens)
    print(ngettext("{path}: profile {name} with {n} card", "{path}: profile {name} with {n} cards",
                   count).format(path=out, name=repr(profile.name), n=count))
    from vision.models.band_model import TYPICAL_GAPS, BandModel

    # The self-test (``BandModel.self_test``): how readable the deck is before a game.
    model = BandModel.of(profile)
    if model is not None and model.typical_gap is not None:
        low, hard, high = TYPICAL_GAPS
        print(_("self-test: the deck's cards lie {gap:.2f} apart as a camera above the table "
                "sees them (the decks we measured: {low:.2f} to {high:.2f})").format(
                    gap=model.typical_gap, low=low, high=high))
        if model.reads_poorly():
            print(_("below {hard:.2f} the companion will ask about many cards: light the table "
                    "evenly and bring the camera nearer").format(hard=hard))
    # Each pair once, hardest first: what the reader will find hardest to tell apart,
    # as the model that names the cards holds them (the templates' view without one).
    if model is not None:
        from vision.reading.trust import NEAR_PAIR

        rows, digits = model.nearest_pairs(), 3
        heading = _("hardest pairs to tell apart (how near the deck's model holds them where "
                    "a card is most covered; below {near} it asks which of the two, never "
                    "names one):").format(near=NEAR_PAIR)
    else:
        from vision.enrolment.enroll import distinctness

        rows, digits = distinctness(profile), 2
        heading = _("hardest pairs to tell apart (distinctness; below 0.1 is hard):")
    pairs = {tuple(sorted((a, b))): d for a, b, d in rows}
    hardest = sorted(pairs.items(), key=lambda kv: kv[1])[:8]
    if hardest:
        print(heading)
        for (a, b), d in hardest:
            print(f"  {a:>8} ~ {b:<8} {d:.{digits}f}")
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
    from companion.rules.cards import ALL_CARDS, Terrain, parse_token
    from vision.enrolment.enroll import ENROL_ZONE, live_enroll

    tokens = [c.token for c in ALL_CARDS] + ([t.token for t in Terrain] if terrain else [])
    source = open_camera(spec)

    def prompt(token: str) -> None:
        print(_("Put {card} ({token}) face up, upright, in the {zone} zone (replacing the "
                "previous card).").format(card=_card_words(parse_token(token)), token=token,
                                          zone=ENROL_ZONE), flush=True)

    return live_enroll(source, tokens, prompt, name)


def _card_words(card: Card | Terrain) -> str:
    """A card as the players call it, in the language shown: "Red 7", "Alexander"."""
    from companion.rules.cards import Troop
    from companion.words import colour_name, tactic_name, terrain_name

    if isinstance(card, Troop):
        return _("{colour} {value}").format(colour=colour_name(card.colour), value=card.value)
    return terrain_name(card) if isinstance(card, Terrain) else tactic_name(card)


def _read(args: list[str]) -> int:
    ap = ArgumentParser(prog="battleline-companion read",
                                 description=_("Read the cards in an image of the mat."))
    ap.add_argument("image", type=Path, nargs="+",
                    help=_("a photo of the mat; several photos of one table are read "
                           "together"))
    ap.add_argument("--deck", type=Path, default=None,
                    help=_("deck profile from 'enroll' (default: our printed deck)"))
    ap.add_argument("--to-move", choices=["north", "south"], default="south")
    ns = ap.parse_args(args)
    from vision.read import Reader

    try:
        profile = DeckProfile.load(ns.deck) if ns.deck else builtin_profile()
    except ProfileError as exc:
        print(f"read: {exc}", file=sys.stderr)
        return 1
    reader = Reader(profile)
    reads = {path: read for path in ns.image if (read := _read_photo(reader, path))}
    if not reads:
        return 1
    if len(ns.image) == 1:
        print(json.dumps(reads[ns.image[0]].to_json(ns.to_move), indent=1))
        return 0
    from vision.position import UNKNOWN
    from vision.vote import vote_photos

    snap = vote_photos(list(reads.values()))
    cards = snap.cards_json()
    print(json.dumps({
        "format": "battleline-read/1",
        "position": snap.position(ns.to_move),
        "cards": cards,
        "unknown": sum(c["token"] == UNKNOWN for c in cards),
        "photos": [{"image": str(path), "unknown": r.unknown(),
                    "calibration": r.calibration_json()} for path, r in reads.items()],
        "skipped": [str(path) for path in ns.image if path not in reads],
    }, indent=1))
    return 0


def _read_photo(reader: Reader, path: Path) -> FrameRead | None:
    """One photo read, or ``None`` with why on stderr (unreadable, or no mat found)."""
    from vision.calibrate import CalibrationError, Calibrator
    from vision.sources.base import SourceError
    from vision.sources.folder import load_frame

    try:
        image = load_frame(path)
        calib = Calibrator().update(image)
    except SourceError as exc:
        print(f"read: {exc}", file=sys.stderr)
        return None
    except CalibrationError as exc:
        print(f"read: {path}: {exc}", file=sys.stderr)
        return None
    return reader.read(image, calib)


COMMANDS = {"mat": _mat, "deck": _deck, "enroll": _enroll, "read": _read}


def main(argv: list[str]) -> int:
    set_language("auto")  # the system's: these commands read no settings
    if not argv or argv[0] not in COMMANDS:
        print(_("usage: ") + f"battleline-companion {{{','.join(COMMANDS)}}} ...", file=sys.stderr)
        return 2
    return COMMANDS[argv[0]](argv[1:])
