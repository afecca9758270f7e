"""Synthetic touches drive the claim, correction, undo, teach and settings flows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest

from companion import i18n
from companion.app import Companion
from companion.rules.position import Player
from companion.ui.layout import MIN_TARGET
from companion.ui.pygame_view import LANDSCAPE, PORTRAIT, Display, PygameView, open_touchscreen
from companion.ui.scene import Intent
from companion.ui.shots import demo_companion, unread_card
from hardware.states import FlagState


@pytest.fixture(params=[LANDSCAPE, PORTRAIT], ids=["landscape", "portrait"])
def table(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[PygameView, Companion]]:
    view = PygameView(request.param)
    companion = demo_companion(tmp_path, view)
    yield view, companion
    companion.journal.close()


def target_of(view: PygameView, match: Intent) -> pygame.Rect:
    rects = [rect for rect, intent in view.targets if intent == match]
    assert rects, f"no target for {match} on {view.scene and view.scene.screen}"
    return rects[-1]


def touch(view: PygameView, rect: pygame.Rect) -> Intent | None:
    """A finger on the centre of ``rect``: SDL's FINGERDOWN plus the mouse press it synthesises."""
    w, h = view.display.physical_size
    x, y = rect.center
    pygame.event.post(pygame.event.Event(pygame.FINGERDOWN, x=x / w, y=y / h, finger_id=0,
                                         touch_id=0, dx=0, dy=0, pressure=1.0))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(x, y), button=1, touch=True))
    done = view.pump()
    assert len(done) <= 1  # each touch acts once
    return done[0] if done else None


def test_a_tap_on_a_flag_then_on_claim_rules_and_a_refusal_shows_the_counterexample(
    table: tuple[PygameView, Companion],
) -> None:
    view, companion = table
    assert touch(view, view.layout.flag_slot(4).token) == Intent("flag", flag=4)
    assert view.scene is not None and view.scene.screen == "flag"
    touch(view, target_of(view, Intent("claim", flag=4, player=Player.NORTH)))
    ruling = view.scene.ruling
    assert view.scene.screen == "ruling" and ruling is not None and ruling.ruling is not None
    assert not ruling.ruling.granted
    assert [t.token for t in ruling.ruling.counterexample or ()] == ["P5"]
    assert companion.tracker.position.flags[4].claimed_by is None
    touch(view, view.display.surface.get_rect())  # OK closes
    assert view.scene.screen == "play"
    touch(view, view.layout.flag_slot(1).token)
    touch(view, target_of(view, Intent("claim", flag=1, player=Player.SOUTH)))
    assert view.scene.ruling is not None and view.scene.ruling.ruling is not None
    assert view.scene.ruling.ruling.granted
    assert companion.tracker.position.flags[1].claimed_by is Player.SOUTH
    touch(view, view.display.surface.get_rect())
    touch(view, target_of(view, Intent("undo")))
    assert companion.tracker.position.flags[1].claimed_by is None


def test_a_card_the_camera_could_not_read_is_chosen_by_touch(
    table: tuple[PygameView, Companion],
) -> None:
    view, companion = table
    unread_card(companion, "flag3.south")
    assert companion.statuses()[2].light is FlagState.UNCERTAIN
    touch(view, view.layout.flag_slot(2).token)
    touch(view, target_of(view, Intent("pick", zone="flag3.south", value="0")))
    assert view.scene is not None and view.scene.screen == "pick"
    touch(view, target_of(view, Intent("choose", zone="flag3.south", value="Y5")))
    assert [c.token for c in companion.tracker.position.flags[2].south] == ["Y5"]
    assert view.scene.toast == "South played Yellow 5 at flag 3."
    assert companion.statuses()[2].light is FlagState.OFF and not companion.messages()
    assert view.scene.screen == "flag"
    picks = {i.value for _r, i in view.targets if i.kind == "pick" and i.zone == "flag3.south"}
    assert picks == {"0", "1"}  # the Y5, and "+ card": no unread card left on the panel
    touch(view, target_of(view, Intent("go", value="play")))
    touch(view, target_of(view, Intent("undo")))
    assert companion.tracker.position.flags[2].south == ()


def _marked(view: PygameView, zone: str, token: str) -> int:
    """Pixels of the picker's cell for ``token`` in the colour that marks the camera's guess."""
    from companion.ui import theme

    cell = target_of(view, Intent("choose", zone=zone, value=token))
    pixels = pygame.surfarray.pixels3d(view.display.surface)[cell.left:cell.right,
                                                             cell.top:cell.bottom]
    return int((pixels == theme.ACCENT).all(axis=2).sum())


def test_the_cameras_guess_is_offered_first_and_taken_with_one_tap(
    table: tuple[PygameView, Companion],
) -> None:
    view, companion = table
    unread_card(companion, "flag3.south", guess="Y5")
    touch(view, view.layout.flag_slot(2).token)
    touch(view, target_of(view, Intent("pick", zone="flag3.south", value="0")))
    assert view.scene is not None and view.scene.screen == "pick"
    assert _marked(view, "flag3.south", "Y5") > 20 and _marked(view, "flag3.south", "Y6") == 0
    touch(view, target_of(view, Intent("choose", zone="flag3.south", value="Y5")))
    assert [c.token for c in companion.tracker.position.flags[2].south] == ["Y5"]
    # A guess of a card the record holds at another flag is not offered.
    unread_card(companion, "flag6.south", guess="R8")  # R8 lies at flag 2
    touch(view, target_of(view, Intent("go", value="play")))
    touch(view, view.layout.flag_slot(5).token)
    touch(view, target_of(view, Intent("pick", zone="flag6.south", value="0")))
    assert view.scene.screen == "pick" and view.scene.guess("flag6.south", 0) is None
    assert _marked(view, "flag6.south", "R8") == 0


def test_a_flag_whose_unread_card_the_camera_guessed_confirms_with_one_tap(
    table: tuple[PygameView, Companion],
) -> None:
    view, companion = table
    # Unguessed, the flag offers no confirm: the card must be picked.
    unread_card(companion, "flag3.south")
    touch(view, view.layout.flag_slot(2).token)
    assert not [i for _r, i in view.targets if i.kind == "confirm"]
    touch(view, target_of(view, Intent("go", value="play")))
    unread_card(companion, "flag3.south", guess="Y5")
    assert "the camera guesses Y5" in companion.messages()[0]
    touch(view, view.layout.flag_slot(2).token)
    touch(view, target_of(view, Intent("confirm", flag=2)))
    assert [c.token for c in companion.tracker.position.flags[2].south] == ["Y5"]
    assert companion.statuses()[2].light is FlagState.OFF


def _panel_words(view: PygameView, monkeypatch: pytest.MonkeyPatch) -> str:
    """The texts drawn inside the open flag panel on the next frame, joined by spaces (a
    wrapped line's parts read as one)."""
    from companion.ui import theme

    panel = view.layout.dialog(0.9, 0.5)
    texts: list[str] = []
    draw_text = theme.draw_text

    def recording(surface: pygame.Surface, text: str, pos: tuple[int, int], *args: Any,
                  **kwargs: Any) -> pygame.Rect:
        if panel.collidepoint(pos):
            texts.append(text)
        return draw_text(surface, text, pos, *args, **kwargs)

    monkeypatch.setattr(theme, "draw_text", recording)
    view.draw()
    monkeypatch.setattr(theme, "draw_text", draw_text)
    return " ".join(texts)


@pytest.mark.parametrize(("language", "words"), [
    ("en", "the camera guesses Yellow 5;"), ("nl", "de camera gokt Geel 5;")])
def test_the_flag_panel_names_the_cameras_guess_in_the_players_words_and_confirm_takes_it(
    table: tuple[PygameView, Companion], monkeypatch: pytest.MonkeyPatch, language: str,
    words: str,
) -> None:
    view, companion = table
    view.act(Intent("option", zone="language", value=language))
    try:
        unread_card(companion, "flag3.south", guess="Y5")
        touch(view, view.layout.flag_slot(2).token)
        shown = _panel_words(view, monkeypatch)
        assert words in shown and "Y5" not in shown
        # The terminal keeps the tokens, which its correct command takes.
        assert "the camera guesses Y5;" in companion.messages()[0]
        touch(view, target_of(view, Intent("confirm", flag=2)))
        assert [c.token for c in companion.tracker.position.flags[2].south] == ["Y5"]
    finally:
        i18n.set_language("en")


def test_a_guessed_tactic_is_named_as_the_edition_in_use_names_it(
    table: tuple[PygameView, Companion], monkeypatch: pytest.MonkeyPatch,
) -> None:
    view, companion = table
    view.act(Intent("option", zone="edition", value="medieval"))
    unread_card(companion, "flag3.south", guess="DA")
    touch(view, view.layout.flag_slot(2).token)
    assert "the camera guesses King of France;" in _panel_words(view, monkeypatch)


def test_no_confirm_is_offered_for_a_guess_the_tracker_would_not_take(
    table: tuple[PygameView, Companion],
) -> None:
    view, companion = table
    # A card the record holds at another flag: R8 lies at flag 2.
    unread_card(companion, "flag6.south", guess="R8")
    touch(view, view.layout.flag_slot(5).token)
    assert not [i for _r, i in view.targets if i.kind == "confirm"]
    touch(view, target_of(view, Intent("go", value="play")))
    # One card guessed for two unread cards: it lies in one place, so neither is taken.
    unread_card(companion, "flag3.south", count=2, guess=("Y5", "Y5"))
    touch(view, view.layout.flag_slot(2).token)
    assert not [i for _r, i in view.targets if i.kind == "confirm"]
    assert companion.tracker.confirm(2) == []  # what the panel spares a tap on
    touch(view, target_of(view, Intent("pick", zone="flag3.south", value="0")))
    assert view.scene is not None and view.scene.guess("flag3.south", 0) is None


def test_two_unread_cards_are_chosen_one_after_the_other(
    table: tuple[PygameView, Companion],
) -> None:
    view, companion = table
    unread_card(companion, "flag3.south", count=2)
    touch(view, view.layout.flag_slot(2).token)
    touch(view, target_of(view, Intent("pick", zone="flag3.south", value="1")))
    touch(view, target_of(view, Intent("choose", zone="flag3.south", value="Y6")))
    assert view.scene is not None and view.scene.screen == "pick" and view.scene.pick_slot == 0
    assert companion.tracker.position.flags[2].south == ()  # nothing recorded half-done
    touch(view, target_of(view, Intent("choose", zone="flag3.south", value="Y5")))
    assert view.scene.screen == "flag"
    assert companion.tracker.corrections["flag3.south"][0] == ("Y5", "Y6")


def test_teach_shows_provable_flags_and_walks_flag_by_flag(
    table: tuple[PygameView, Companion],
) -> None:
    view, _ = table
    touch(view, target_of(view, Intent("go", value="teach")))
    assert view.scene is not None and view.scene.screen == "teach"
    touch(view, target_of(view, Intent("go", value="teach_flags")))
    assert view.scene.screen == "teach_flags" and view.scene.flag == 0
    touch(view, target_of(view, Intent("go", value="teach_flags", flag=4)))
    assert view.scene.flag == 4


def test_settings_toggle_the_companions_options(table: tuple[PygameView, Companion]) -> None:
    view, companion = table
    touch(view, target_of(view, Intent("go", value="settings")))
    assert not companion.options.auto_claim
    touch(view, target_of(view, Intent("option", zone="auto_claim", value="on")))
    assert companion.options.auto_claim
    touch(view, target_of(view, Intent("option", zone="hints", value="off")))
    assert not companion.options.hints
    assert all(s.light.name in ("OFF", "ATTENTION", "UNCERTAIN") or s.light.name.startswith(
        "CLAIMED") for s in companion.statuses())


def test_a_name_is_typed_on_screen_and_a_colour_chosen_and_the_app_is_told(
    table: tuple[PygameView, Companion],
) -> None:
    view, _ = table
    told: list[tuple[str, str]] = []
    view.on_setting = lambda key, value: told.append((key, value))
    touch(view, target_of(view, Intent("go", value="settings")))
    touch(view, target_of(view, Intent("go", value="keyboard", player=Player.SOUTH)))
    assert view.scene is not None and view.scene.screen == "keyboard"
    for _k in range(5):
        touch(view, target_of(view, Intent("key", value="\b")))
    for key in "ZOE":
        touch(view, target_of(view, Intent("key", value=key)))
    touch(view, target_of(view, Intent("key", value="\n")))
    assert view.scene.names[Player.SOUTH] == "Zoe" and view.scene.screen == "settings"
    colour = next(i for _r, i in view.targets if i.kind == "colour" and i.player is Player.NORTH)
    touch(view, target_of(view, colour))
    assert view.scene.colour(Player.NORTH) == tuple(int(v) for v in colour.value.split(","))
    assert view.scene.colour(Player.NORTH) != view.scene.colour(Player.SOUTH)
    assert told == [("name.south", "Zoe"), ("colour.north", colour.value)]
    touch(view, target_of(view, Intent("go", value="play")))
    bar = view.layout.top_bar
    pixels = pygame.surfarray.array3d(view.display.surface.subsurface(bar))
    north = view.scene.colour(Player.NORTH)
    assert ((pixels == north).all(axis=2)).sum() > 30  # the name in the top bar, new colour


def test_every_target_is_big_enough_on_every_screen(table: tuple[PygameView, Companion]) -> None:
    from companion.ui.shots import scenes

    view, companion = table
    for name in scenes(view, companion):
        view.draw()
        small = [(intent, rect) for rect, intent in view.targets
                 if intent.kind != "none" and min(rect.width, rect.height) < MIN_TARGET]
        assert not small, (name, small)


def test_a_portrait_screen_on_a_landscape_display_is_turned_and_touches_map_back() -> None:
    pygame.display.init()
    physical = pygame.display.set_mode((1280, 720))
    display = Display(PORTRAIT, physical)
    assert display.rotated
    display.surface.fill((0, 0, 0))
    display.surface.fill((255, 0, 0), pygame.Rect(0, 0, 40, 40))  # top-left corner, logical
    display.present()
    # Turned counter-clockwise: the logical top-left lands bottom-left.
    assert physical.get_at((10, 10))[:3] != (255, 0, 0)
    assert physical.get_at((10, 710))[:3] == (255, 0, 0)
    assert display.to_logical(10, 710) == (9, 10)


def test_a_finger_on_a_turned_portrait_screen_reaches_the_flag_under_it(tmp_path: Path) -> None:
    view = open_touchscreen("portrait", fullscreen=True)  # the dummy display is landscape
    assert view.display.rotated and view.layout.portrait
    companion = demo_companion(tmp_path, view)
    try:
        w, h = view.display.size
        pw, ph = view.display.physical_size
        lx, ly = view.layout.flag_slot(6).token.center
        # Where present() puts that logical point: turned a quarter, then scaled.
        px, py = ly * pw / h, (w - 1 - lx) * ph / w
        pygame.event.post(pygame.event.Event(pygame.FINGERDOWN, x=px / pw, y=py / ph,
                                             finger_id=0, touch_id=0, dx=0, dy=0, pressure=1.0))
        assert view.pump() == [Intent("flag", flag=6)]
    finally:
        companion.journal.close()


def test_a_breakthrough_claimed_by_touch_shows_the_game_over_and_match_score(
    tmp_path: Path,
) -> None:
    from companion.records.journal import Journal
    from companion.rules.position import Variant
    from companion.snapshot import snapshot_of
    from companion.tracker import Tracker
    from hardware.config import LightsConfig
    from hardware.lights import NoLights

    view = PygameView(LANDSCAPE)
    journal = Journal.create(tmp_path, {"first": "south", "variant": {}})
    companion = Companion(Tracker(Variant(), Player.SOUTH), journal,
                          NoLights(LightsConfig(board="none")), view, score_before=(2, 0))
    view.attach(companion)
    south = [("flag1.south", t) for t in ("R8", "R9", "R10")] + [
        ("flag2.south", t) for t in ("O8", "O9", "O10")] + [
        ("flag3.south", t) for t in ("Y8", "Y9", "Y10")]
    north = [("flag9.north", t) for t in ("B1", "B2", "B3")] + [
        ("flag8.north", t) for t in ("G1", "G2", "G3")] + [
        ("flag7.north", t) for t in ("P1", "P2", "P3")]
    zones: dict[str, list[str]] = {}
    try:
        for play in (p for pair in zip(south, north, strict=True) for p in pair):
            zones.setdefault(play[0], []).append(play[1])
            companion.on_snapshot(snapshot_of(zones))
        assert not companion.messages()
        for flag in range(3):
            touch(view, view.layout.flag_slot(flag).token)
            touch(view, target_of(view, Intent("claim", flag=flag, player=Player.SOUTH)))
            assert view.scene is not None and view.scene.ruling is not None
            assert view.scene.ruling.ruling is not None and view.scene.ruling.ruling.granted
            touch(view, view.display.surface.get_rect())  # OK
        assert companion.over
        assert view.scene.screen == "over" and view.scene.outcome is companion.outcome
        assert view.scene.model.score == (2, 5)
        touch(view, target_of(view, Intent("go", value="board")))
        assert view.scene.screen == "board"
    finally:
        journal.close()


def test_a_doubtful_card_says_why_and_is_confirmed_only_if_it_has_a_name(
    table: tuple[PygameView, Companion],
) -> None:
    from companion.snapshot import Reading, Snapshot
    from companion.ui.shots import DEMO_PLAYS

    view, companion = table
    unread_card(companion, "flag3.south")  # read as "unknown": only choosing it helps
    touch(view, view.layout.flag_slot(2).token)
    assert view.scene is not None and view.scene.why[2] == companion.messages()[0]
    assert not [i for _r, i in view.targets if i.kind == "confirm"]
    touch(view, target_of(view, Intent("go", value="play")))
    zones: dict[str, list[Reading]] = {}
    for where, token in DEMO_PLAYS:
        zones.setdefault(where, []).append(Reading(token, 1.0))
    zones["flag3.south"] = [Reading("Y5", 0.5)]  # a name, but not sure of it
    companion.on_snapshot(Snapshot({k: tuple(v) for k, v in zones.items()}))
    touch(view, view.layout.flag_slot(2).token)
    touch(view, target_of(view, Intent("confirm", flag=2)))
    assert [c.token for c in companion.tracker.position.flags[2].south] == ["Y5"]
    assert companion.statuses()[2].light is not FlagState.UNCERTAIN
