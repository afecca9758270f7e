"""The kiosk unit and the windowed loop."""

from __future__ import annotations

from pathlib import Path

import pygame

from companion import run
from companion.ui.demo import run_window
from companion.ui.kiosk import unit_text
from companion.ui.pygame_view import LANDSCAPE, PygameView
from companion.ui.shots import demo_companion


def test_the_kiosk_unit_runs_the_touchscreen_through_kmsdrm_at_boot() -> None:
    text = unit_text("/opt/venv/bin/battleline-companion", "pi", "/home/pi", "portrait")
    assert "Environment=SDL_VIDEODRIVER=kmsdrm" in text
    assert ("ExecStart=/opt/venv/bin/battleline-companion play --view touchscreen "
            "--orientation portrait --fullscreen") in text
    assert "User=pi" in text
    start = next(line for line in text.splitlines() if line.startswith("ExecStart="))
    ns = run.parser().parse_args(start.split(" play ", 1)[1].split())  # the run command takes it
    assert (ns.view, ns.orientation, ns.screen) == ("touchscreen", "portrait", "fullscreen")
    assert "WantedBy=multi-user.target" in text


def test_the_window_loop_acts_on_a_tap_and_ends_when_the_window_closes(tmp_path: Path) -> None:
    view = PygameView(LANDSCAPE, window=True)
    companion = demo_companion(tmp_path, view)
    try:
        x, y = view.layout.flag_slot(4).token.center
        (w, h), (pw, ph) = view.display.size, view.display.physical_size
        pos = (int(x * pw / w), int(y * ph / h))  # the window may be larger than asked
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1,
                                             touch=False))
        pygame.event.post(pygame.event.Event(pygame.QUIT))
        run_window(view, seconds=5)
        assert view.closed
        assert view.scene is not None and view.scene.screen == "flag" and view.scene.flag == 4
    finally:
        companion.journal.close()
