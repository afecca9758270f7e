"""An enrolled card laid on its own drawing: where it was cut, and how true its colours are."""

import numpy as np
import pytest

from vision.bench.enrol_truth import card_truth, summary
from vision.deck_art import ALL_FACES
from vision.designs import designs
from vision.profile import TOP_MM, TPL_PX


def _drawn(token: str = "R7") -> np.ndarray:
    face = next(f for f in ALL_FACES if f.token == token)
    return designs("tune")[2].render(face, TPL_PX)


def test_a_card_cut_exactly_and_balanced_true_lies_on_its_drawing() -> None:
    drawn = _drawn()
    got = card_truth("R7", drawn[:round(TOP_MM * TPL_PX)].copy(), drawn)
    assert got.off < 0.1 and got.colour_error < 0.5 and got.match > 0.99


@pytest.mark.parametrize(("dx", "dy"), [(0, 2), (2, 0), (-1, -3)])
def test_a_card_cut_off_its_place_says_by_how_much(dx: int, dy: int) -> None:
    # The cut starts dx, dy px (TPL_PX px/mm) right of and below the card's corner.
    drawn = _drawn()
    pad = np.pad(drawn, ((4, 4), (4, 4), (0, 0)), mode="edge")
    h, w = round(TOP_MM * TPL_PX), drawn.shape[1]
    top = pad[4 + dy:4 + dy + h, 4 + dx:4 + dx + w].copy()
    got = card_truth("R7", top, drawn)
    assert got.off_mm == pytest.approx((dx / TPL_PX, dy / TPL_PX), abs=0.15)


def test_a_cast_left_on_a_card_is_its_colour_error() -> None:
    drawn = _drawn()
    top = drawn[:round(TOP_MM * TPL_PX)].astype(np.float32)
    warm = np.clip(top * np.array([0.85, 1.0, 1.15]), 0, 255).astype(np.uint8)
    assert card_truth("R7", warm, drawn).colour_error > 6.0
    cards = [card_truth("R7", warm, drawn), card_truth("R7", top.astype(np.uint8), drawn)]
    figures = summary(cards)
    assert figures["colour_worst"][0][0] == "R7" and figures["colour_error_lab"]["max"] > 6.0
