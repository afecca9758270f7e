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

from companion.i18n import _, translation
from companion.messages import localized
from companion.rules.position import Flag, Player
from companion.status import LIGHT_WORDS, FlagStatus, formation_label
from companion.words import terrain_line


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


def _pad(text: str, width: int) -> str:
    return text + " " * max(1, width - len(text))


def render(model: ViewModel) -> str:
    """The board as text in the language shown (``companion.i18n``); a flag with a
    terrain card gets a line saying what the terrain does there."""
    tr = translation()
    rows = [[_("flag"), _("north"), _("formation"), _("south"), _("formation"),
             _("status / light")]]
    notes: list[list[str]] = []
    for i, flag in enumerate(model.flags):
        status = model.statuses[i]
        env = " ".join(t.token for t in flag.environment)
        rows.append([
            f"{i + 1}{' ' + env if env else ''}",
            " ".join(c.token for c in flag.north) or "-",
            formation_label(flag, Player.NORTH, medieval=model.medieval),
            " ".join(c.token for c in flag.south) or "-",
            formation_label(flag, Player.SOUTH, medieval=model.medieval),
            f"{localized(status.text, tr)} / {_(LIGHT_WORDS[status.light])}",
        ])
        notes.append([f"  {terrain_line(flag)}"] if flag.terrain is not None else [])
    widths = [max(len(row[k]) for row in rows) + 2 for k in range(5)]
    lines = [localized(model.title, tr)] + ([localized(model.game, tr)] if model.game else [])
    for k, row in enumerate(rows):
        lines.append("".join(_pad(cell, w) for cell, w in zip(row, widths, strict=False))
                     + row[5])
        lines += notes[k - 1] if k else []
    ruling = localized(model.last_ruling, tr) if model.last_ruling else "-"
    lines.append(_("last ruling: {ruling}").format(ruling=ruling))
    for message in model.messages:
        lines.append(f"! {localized(message, tr)}")
    lines.append(_("score: north {north}, south {south}").format(
        north=model.score[0], south=model.score[1]))
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
            self.out.write(localized(line, translation()) + "\n")
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
