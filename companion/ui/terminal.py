"""The terminal view: the nine flags with both sides' cards, formation names,
each flag's status and light colour, the last ruling, messages and the score.

``render`` returns the whole screen as text (tests read it); ``TerminalView``
prints it: redrawn in place on a terminal, or as plain appended lines (the
events as they happen, the board after each game) when output is a file.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from companion.rules.position import Flag, Player
from companion.status import LIGHT_WORDS, FlagStatus, formation_label


@dataclass
class ViewModel:
    """Everything the view shows; the app fills it in."""

    title: str
    flags: Sequence[Flag]
    statuses: Sequence[FlagStatus]
    last_ruling: str = ""
    messages: Sequence[str] = ()
    score: tuple[int, int] = (0, 0)
    game: str = ""
    medieval: bool = False
    log: list[str] = field(default_factory=list)


def render(model: ViewModel) -> str:
    lines = [model.title]
    if model.game:
        lines.append(model.game)
    lines.append(
        f"{'flag':<6}{'north':<18}{'formation':<20}{'south':<18}{'formation':<20}status / light"
    )
    for i, flag in enumerate(model.flags):
        status = model.statuses[i]
        env = " ".join(t.token for t in flag.environment)
        north = " ".join(c.token for c in flag.north) or "-"
        south = " ".join(c.token for c in flag.south) or "-"
        label = f"{i + 1}{' ' + env if env else ''}"
        lines.append(
            f"{label:<6}{north:<18}{formation_label(flag, Player.NORTH, medieval=model.medieval):<20}"
            f"{south:<18}{formation_label(flag, Player.SOUTH, medieval=model.medieval):<20}"
            f"{status.text} / {LIGHT_WORDS[status.light]}"
        )
    lines.append(f"last ruling: {model.last_ruling or '-'}")
    for message in model.messages:
        lines.append(f"! {message}")
    lines.append(f"score: north {model.score[0]}, south {model.score[1]}")
    return "\n".join(lines)


class TerminalView:
    """Prints the view: redrawn in place on a terminal, appended lines otherwise.

    The app's loops also call ``attach``, ``pump`` and ``camera_frame`` on every
    view; here they do nothing (typed commands are read by the run command), and
    ``closed`` stays False: only a window can be closed. ``holds_table`` is True
    while the view uses the table itself (the touchscreen enrolling a deck on it), so
    the cards laid then are not taken as plays.
    """

    closed = False

    @property
    def holds_table(self) -> bool:
        return False

    def __init__(self, out: TextIO | None = None, live: bool | None = None) -> None:
        self.out = out or sys.stdout
        self.live = self.out.isatty() if live is None else live
        self.screens = 0

    def attach(self, companion: Any) -> None:
        """The companion whose game this view shows (the touchscreen acts on it)."""

    def pump(self) -> list[Any]:
        """Read waiting input (the touchscreen's taps); the actions taken."""
        return []

    def camera_frame(self, image: Any) -> None:
        """The camera's latest frame, for a view that shows it."""

    def show(self, model: ViewModel) -> None:
        if self.live:
            self.out.write("\x1b[H\x1b[2J" + render(model) + "\n")
            self.out.flush()
            self.screens += 1

    def say(self, line: str) -> None:
        """An event, ruling or message as it happens (kept on screen below the board when live)."""
        if not self.live:
            self.out.write(line + "\n")
            self.out.flush()

    def board(self, model: ViewModel) -> None:
        """The whole board once, whatever the output (end of a game)."""
        if not self.live:
            self.out.write(render(model) + "\n")
            self.out.flush()
        else:
            self.show(model)


class NoView(TerminalView):
    def show(self, model: ViewModel) -> None:
        pass

    def say(self, line: str) -> None:
        pass

    def board(self, model: ViewModel) -> None:
        pass
