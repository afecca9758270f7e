"""A deck's shared layout squares a card whose outline was fitted off."""

import cv2
import numpy as np
import pytest

from companion.rules.cards import parse_token
from vision.deck_art import ALL_FACES
from vision.designs import design
from vision.enrolment.consensus import (
    MARGIN_MM,
    _by_index,
    _cut,
    _small,
    astray,
    deck_sides,
    square_deck,
)
from vision.enrolment.enroll import OutlinesOff, profile_from_photos
from vision.enrolment.outline import WARP_PX

TOKENS = [f"{c}{v}" for c in "RBGYOP" for v in (1, 4, 7, 10)] + ["AL", "FOG"]


def _shift_mm(a: np.ndarray, b: np.ndarray) -> float:
    ga, gb = (cv2.cvtColor(x, cv2.COLOR_BGR2GRAY).astype(np.float32) for x in (a, b))
    (dx, dy), _ = cv2.phaseCorrelate(gb, ga)
    return float(np.hypot(dx, dy)) / WARP_PX


def _mismatch(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a.astype(int) - b).mean())


def test_a_side_fitted_off_the_cards_edge_or_turned_is_moved_onto_it():
    art = design("tune", 3)  # a coloured border and a frame line inside it
    w, h = art.card_mm
    m = round(MARGIN_MM * WARP_PX)
    true = {t: cv2.resize(art.render(parse_token(t), 8.0), (round(w * WARP_PX), round(h * WARP_PX)),
                          interpolation=cv2.INTER_AREA) for t in TOKENS}
    # As enrolment flattens them: the table around each, and some outlines off by
    # up to 2.5 mm on a side (inside the card, or out on the table), or turned.
    rng = np.random.default_rng(3)
    off = {t: np.zeros((4, 2), np.float32) for t in TOKENS}
    sides = (((0, 1), 1), ((1, 2), 0), ((3, 2), 1), ((0, 3), 0))  # corners, axis
    for k, t in enumerate(TOKENS[::3]):
        (a, b), axis = sides[int(rng.integers(4))]
        e = float(rng.choice([-2.5, -1.5, 1.5, 2.0]))
        off[t][a, axis], off[t][b, axis] = (e, e) if k % 2 else (e, -e)
    shot = {t: _cut(cv2.copyMakeBorder(c, m, m, m, m, cv2.BORDER_CONSTANT, value=(70, 90, 110)),
                    off[t], WARP_PX, w, h, margin=True) for t, c in true.items()}
    before = [_shift_mm(_cut(shot[t], np.zeros((4, 2)), WARP_PX, w, h), true[t])
              for t in TOKENS]
    squared = square_deck(shot, WARP_PX, w, h)
    after = [_shift_mm(squared[t], true[t]) for t in TOKENS]
    assert max(before) > 0.5  # the test's misfits are real
    assert max(after) < 0.3, after
    # Turned ones too: each card's print lies where the true card's does.
    unsquared = [_mismatch(_cut(shot[t], np.zeros((4, 2)), WARP_PX, w, h), true[t])
                 for t in TOKENS]
    squared_off = [_mismatch(squared[t], true[t]) for t in TOKENS]
    assert max(unsquared) > 20, unsquared
    assert max(squared_off) < 8, squared_off
    # Cards fitted right stay where they were.
    for t in TOKENS:
        if not off[t].any():
            assert np.abs(squared[t].astype(int) - true[t]).mean() < 6, t


def _exact_cuts(index: int, table: tuple[int, int, int] = (70, 90, 110),
                ) -> tuple[dict[str, np.ndarray], float, float]:
    """Every card of tune design ``index`` cut out exactly, flattened as enrolment
    flattens it (MARGIN_MM of plain ``table`` around it), and the card's size (mm)."""
    art = design("tune", index)
    w, h = art.card_mm
    m = round(MARGIN_MM * WARP_PX)
    return {f.token: cv2.copyMakeBorder(
        cv2.resize(art.render(f, 8.0), (round(w * WARP_PX), round(h * WARP_PX)),
                   interpolation=cv2.INTER_AREA), m, m, m, m, cv2.BORDER_CONSTANT,
        value=table) for f in ALL_FACES}, w, h


def _moved_exact_cuts(index: int) -> dict[str, float]:
    """How far (mm, the worst corner) squaring moves each card of tune design ``index``
    cut out exactly (none of which is taken for one cut off its card)."""
    shot, w, h = _exact_cuts(index)
    sides = deck_sides(shot, WARP_PX, w, h)
    assert astray(shot, sides, WARP_PX, w, h) == {}
    return {t: float(np.abs(s).max()) for t, s in sides.items()}


def test_tactics_printed_to_their_own_layout_are_not_squared_to_the_troops():
    # tune-01: the tactics and terrain cards frame their face unlike the troops.
    # Cut out exactly, every card stays where it is.
    moved = _moved_exact_cuts(1)
    assert max(moved.values()) < 0.3, {t: round(v, 1) for t, v in moved.items() if v >= 0.3}


@pytest.mark.parametrize("index", [2, 5, 6])
def test_a_cards_own_print_does_not_move_an_exact_cut(index):
    # tune-02: long tactic titles line up with the border 2 mm off; tune-05 and -06:
    # a troop's picture strokes run along its frame.
    moved = _moved_exact_cuts(index)
    assert max(moved.values()) < 0.3, {t: round(v, 1) for t, v in moved.items() if v >= 0.3}


@pytest.mark.parametrize(("table", "soft_px"), [((60, 60, 60), 0.0), ((70, 90, 110), 1.5)])
def test_a_tactic_outlined_inside_its_edge_is_squared_onto_its_edge_not_its_title(table, soft_px):
    # tune-168: each tactic prints its title in a dark header just under its top edge.
    # A photo's outline 1 mm inside the top (the edge faint against the table) once
    # lined the layout's edge up with Support Troops' title and cut the title off.
    cut, w, h = _exact_cuts(168, table)
    shot = {t: cv2.GaussianBlur(c, (0, 0), soft_px) if soft_px else c for t, c in cut.items()}
    inside = np.zeros((4, 2), np.float32)
    inside[0, 1] = inside[1, 1] = 1.0  # the top-left and top-right corners 1 mm down
    shot["SB"] = _cut(shot["SB"], inside, WARP_PX, w, h, margin=True)
    top = deck_sides(shot, WARP_PX, w, h)["SB"][:2, 1]
    assert np.abs(top + 1.0).max() < 0.3, top  # moved 1 mm up, onto its edge


def test_a_card_cut_out_off_its_corner_is_named_for_a_retake():
    # tune-04: a dark card with a thin frame. Every card cut out exactly but two, each
    # with one corner taken 8 mm out on the table (as an outline misled by the table's
    # pattern; squaring moves a side back 6 mm at most): only those two are named,
    # each by a side its corner lies on, and enrolment refuses them by token.
    shot, w, h = _exact_cuts(4)
    off = {"R4": (1, (8.0, -8.0)), "SCOUT": (3, (-8.0, 8.0))}  # TR up and out; BL down and out
    for t, (corner, move) in off.items():
        corners = np.zeros((4, 2), np.float32)
        corners[corner] = move
        shot[t] = _cut(shot[t], corners, WARP_PX, w, h, margin=True)
    named = astray(shot, deck_sides(shot, WARP_PX, w, h), WARP_PX, w, h)
    assert set(named) == set(off), named
    assert named["R4"] in ("top", "right") and named["SCOUT"] in ("bottom", "left"), named
    with pytest.raises(OutlinesOff, match="SCOUT: the card's outline was found off") as err:
        profile_from_photos(shot, {t: np.zeros(3) for t in shot}, "deck", w, h)
    assert set(err.value.sides) == set(off)


def test_a_troop_cut_off_its_footer_or_round_its_picture_is_named_for_a_retake():
    # tune-05: a frame round the picture, a title in the footer. As enrolment outlined
    # tuning decks on busy tables: one troop's outline took the picture's lower edge for
    # the card's (its footer cut off, the card stretched 9 mm), another's ran round the
    # picture panel on every side (no side of it like its layout's). Its other sides
    # match, or none do: a troop prints its layout all round, so both are named; a
    # tactic cut exactly that prints its own art at a side is not.
    shot, w, h = _exact_cuts(5)
    footer = np.zeros((4, 2), np.float32)
    footer[2:, 1] = -9.0  # BR and BL up onto the picture
    panel = np.array([[6, 9], [-6, 9], [-6, -9], [6, -9]], np.float32)  # every side in
    shot["G7"] = _cut(shot["G7"], footer, WARP_PX, w, h, margin=True)
    shot["P3"] = _cut(shot["P3"], panel, WARP_PX, w, h, margin=True)
    named = astray(shot, deck_sides(shot, WARP_PX, w, h), WARP_PX, w, h)
    assert set(named) == {"G7", "P3"}, named
    assert named["G7"] in ("top", "bottom")  # stretched top to bottom


def test_troops_cut_out_onto_either_line_of_a_double_frame_are_squared_back():
    # tune-213: each troop prints a double frame, its lines about 1.5 mm apart; a
    # photo's outline may lie on either. Squared, the troops must lie alike again.
    # (Exact renders square alike within 1.25 mm too: what NEAR_TROOPS mends, on
    # photos whose outlines lean the deck's median, is measured in vision/ROUNDS.md.)
    cut, w, h = _exact_cuts(213)
    troops = [t for t in cut if t[1:].isdigit()]
    rng = np.random.default_rng(213)
    shot = dict(cut)
    for t in troops:
        off = np.zeros((4, 2), np.float32)
        off[:, 0] = float(rng.choice([-1.5, 0.0, 1.5]))  # across, onto either line
        off[:, 1] = float(rng.choice([-1.5, 0.0, 1.5]))  # and down
        shot[t] = _cut(cut[t], off, WARP_PX, w, h, margin=True)
    squared = square_deck(shot, WARP_PX, w, h)
    exact = square_deck(cut, WARP_PX, w, h)
    moved = {t: _shift_mm(squared[t], exact[t]) for t in troops}
    assert max(moved.values()) < 0.5, {t: round(v, 1) for t, v in moved.items() if v >= 0.5}


def test_a_troops_corner_left_off_by_squaring_is_put_back_by_its_index():
    # tune-136 prints dark full-bleed faces with an index at each corner. On a photo
    # a corner may be taken further out on the table than squaring reaches (tune-136's
    # Y3 enrolled with its top left corner 2.8 mm off): what the troop prints by that
    # corner, lined up with its value's other troops, puts it back.
    cut, w, h = _exact_cuts(136)
    sides = {t: np.zeros((4, 2), np.float32) for t in cut}
    off = {"Y3": {0: (2.8, 0.0)}, "P10": {0: (0.0, 2.5), 1: (0.0, 2.5)},
           "G7": {1: (-2.0, 1.0)}, "R1": {2: (1.0, -1.5), 3: (1.0, -1.5)}}
    for t, corners in off.items():
        for k, xy in corners.items():
            sides[t][k] = xy
    placed = _by_index(_small(cut, WARP_PX), sides, w, h)
    # (sides say where each corner lies from the outline: 0 for an exact cut)
    assert max(float(np.abs(placed[t]).max()) for t in off) < 0.3, \
        {t: placed[t].round(2).tolist() for t in off}
    # The troops cut exactly, and the other cards, stay where they were.
    assert all(not placed[t].any() for t in cut if t not in off)
