"""``battleline-companion ui-demo``: the touchscreen in a window, on the demonstration
game, with a real tracker behind it: claims are ruled, corrections and undo act."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import pygame

from companion.ui.pygame_view import LANDSCAPE, PORTRAIT, PygameView
from companion.ui.shots import demo_companion, unread_card


def run_window(view: PygameView, *, seconds: float | None = None, fps: int = 30) -> None:
    """Read touches until the window is closed (or ``seconds`` pass); redraws after each."""
    clock = pygame.time.Clock()
    shown_ms = 0
    while not view.closed:
        view.pump()
        clock.tick(fps)
        shown_ms += clock.get_time()
        if seconds is not None and shown_ms >= seconds * 1000:
            break


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="battleline-companion ui-demo", description=__doc__)
    parser.add_argument("--portrait", action="store_true", help="the 720x1280 layout")
    parser.add_argument("--fullscreen", action="store_true")
    parser.add_argument("--seconds", type=float, default=None, help="close after this long")
    ns = parser.parse_args(argv)
    size = PORTRAIT if ns.portrait else LANDSCAPE
    view = PygameView(size, window=not ns.fullscreen, fullscreen=ns.fullscreen)
    with tempfile.TemporaryDirectory() as tmp:
        companion = demo_companion(Path(tmp), view)
        unread_card(companion, "flag3.south")
        try:
            run_window(view, seconds=ns.seconds)
        finally:
            companion.journal.close()
            pygame.quit()
    return 0
