"""The terminal view and the typed commands of the view."""

from __future__ import annotations

import io
from pathlib import Path

from companion.app import Companion
from companion.commands import run_command
from companion.records.journal import Journal
from companion.rules.position import Player, Variant
from companion.snapshot import Snapshot, snapshot_of
from companion.tracker import Tracker
from companion.ui.terminal import TerminalView, render
from hardware.config import LightsConfig
from hardware.lights import NoLights


def test_the_view_shows_flags_formations_statuses_ruling_and_score(tmp_path: Path) -> None:
    journal = Journal.create(tmp_path, {"first": "south", "variant": {}})
    out = io.StringIO()
    companion = Companion(Tracker(Variant(), Player.SOUTH), journal,
                          NoLights(LightsConfig(board="none")), TerminalView(out, live=False))
    for zones in ({"flag2.south": ["R8"]}, {"flag2.south": ["R8"], "flag2.north": ["B1"]},
                  {"flag2.south": ["R8", "R9"], "flag2.north": ["B1"]},
                  {"flag2.south": ["R8", "R9"], "flag2.north": ["B1", "G1"]},
                  {"flag2.south": ["R8", "R9", "R10"], "flag2.north": ["B1", "G1"]}):
        companion.on_snapshot(snapshot_of(zones))
    screen = render(companion.model())
    row = next(line for line in screen.splitlines() if line.startswith("2 "))
    assert "B1 G1" in row and "R8 R9 R10" in row and "Wedge 27" in row and "1 card to go" in row
    assert "claimable by south / south colour, dim" in row
    assert "claim 2 north" not in screen
    told = run_command(companion, "claim 2 north")
    assert "refused" in told and "formation incomplete" in told
    told = run_command(companion, "claim 2 south")
    assert "granted" in told
    screen = render(companion.model())
    assert "claimed by south / south colour" in screen
    assert "last ruling: south claims flag 2: granted" in screen
    assert "score: north 0, south 0" in screen
    assert "south R8@2" in out.getvalue()  # events as they happen, when not a terminal
    assert run_command(companion, "undo").startswith("undone: south claim 2")
    assert run_command(companion, "hints") == "flag 2: south"
    assert "unknown command" in run_command(companion, "dance")
    assert "not a flag" in run_command(companion, "claim 12 north")


def test_a_players_button_on_the_direct_board_claims_and_held_passes(tmp_path: Path) -> None:
    """gpiozero mock pins: a press claims every flag the player can prove; held, it passes."""
    import time

    from hardware.factory import open_lights

    lights = open_lights(LightsConfig(board="mock", hold_s=0.2))
    journal = Journal.create(tmp_path, {"first": "south", "variant": {}})
    companion = Companion(Tracker(Variant(), Player.SOUTH), journal, lights, TerminalView(
        io.StringIO(), live=False))
    try:
        for zones in ({"flag2.south": ["R8"]}, {"flag2.south": ["R8"], "flag2.north": ["B1"]},
                      {"flag2.south": ["R8", "R9"], "flag2.north": ["B1"]},
                      {"flag2.south": ["R8", "R9"], "flag2.north": ["B1", "G1"]},
                      {"flag2.south": ["R8", "R9", "R10"], "flag2.north": ["B1", "G1"]}):
            companion.on_snapshot(snapshot_of(zones))
        pin = lights.buttons["south"].pin  # type: ignore[attr-defined]

        def press(seconds: float) -> None:
            pin.drive_low()
            time.sleep(seconds)
            pin.drive_high()
            time.sleep(0.05)
            companion.pump_buttons()

        press(0.05)
        assert companion.tracker.position.flags[1].claimed_by is Player.SOUTH
        assert [e.describe() for e in companion.tracker.events][-1] == "south claim 2"
        press(0.4)  # held: north is to move, so south cannot pass now
        assert companion.tracker.events[-1].notation() == "claim 2"
        pin = lights.buttons["north"].pin  # type: ignore[attr-defined]
        press(0.4)
        assert companion.tracker.events[-1].describe() == "north pass"
    finally:
        lights.close()
        journal.close()


class _Enrolling(TerminalView):
    """A view that, like the touchscreen enrolling a deck, uses the table for a while."""

    holding = False

    @property
    def holds_table(self) -> bool:
        return self.holding


class _Stills:
    """Stable snapshots in turn, then nothing new: what vision gives a still table."""

    name = "stills"

    def __init__(self, *tables: dict[str, list[str]]) -> None:
        self.tables = list(tables)

    def poll(self) -> Snapshot | None:
        return snapshot_of(self.tables.pop(0)) if self.tables else None

    def close(self) -> None:
        pass


def test_cards_laid_while_a_deck_is_enrolled_are_not_plays(tmp_path: Path) -> None:
    view = _Enrolling(io.StringIO(), live=False)
    journal = Journal.create(tmp_path, {"first": "south", "variant": {}})
    companion = Companion(Tracker(Variant(), Player.SOUTH), journal,
                          NoLights(LightsConfig(board="none")), view)
    view.holding = True
    # The deck's cards go one by one through the enrolment zone, then it is empty again.
    source = _Stills({"flag5.south": ["R1"]}, {"flag5.south": ["R2"]}, {})
    for _ in range(3):
        assert companion.pump(source) == []
    assert companion.tracker.events == []
    assert any("enrolled" in m for m in companion.messages())
    view.holding = False
    assert companion.pump(source) == []  # the table as last seen: as before enrolment
    assert companion.tracker.events == [] and companion.tracker.issues == []
    # A card left in the zone when enrolment ends is on the table: the tracker sees it.
    view.holding = True
    assert companion.pump(_Stills({"flag5.south": ["B3"]})) == []
    view.holding = False
    [event] = companion.pump(_Stills())
    assert event.describe().startswith("south") and "B3" in event.describe()
    journal.close()
