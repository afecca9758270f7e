"""A card's printed border that its outline left outside is taken by its colour; a
shadow or a checked cloth beside a card is not."""

import numpy as np
import pytest

from companion.rules.cards import parse_token
from vision.border import _moved, take_border
from vision.designs import design
from vision.outline import find_outline
from vision.photos import photo_pixels

# tune-213 prints a hatched band some 2.3 mm wide round every card; on an olive floral
# cloth its outer edge barely steps, and the outline is found on its inner edge.
HATCHED = design("tune", 213)


def _photo(token: str, table: str, seed: int) -> tuple[np.ndarray, np.ndarray, float]:
    """A photo of ``token`` of the hatched deck on ``table``, its card's true corners,
    and its px per mm."""
    photo, truth = photo_pixels(HATCHED.render(parse_token(token), 8.0),
                                np.random.default_rng(seed), table, (1600, 1200))
    return photo, truth, float(np.linalg.norm(truth[3] - truth[0])) / HATCHED.card_mm[1]


def _error_mm(found: np.ndarray, truth: np.ndarray, px_mm: float) -> float:
    return float(np.linalg.norm(found - truth, axis=1).max()) / px_mm


@pytest.mark.parametrize(("token", "seed"), [("CASTLE", 0), ("CASTLE", 5), ("B8", 3),
                                             ("R3", 5)])
def test_a_hatched_border_on_a_floral_cloth_is_outlined_at_the_cards_edge(token, seed):
    # Without the border taken these were outlined 1.9 to 3.6 mm inside the card.
    photo, truth, px_mm = _photo(token, "florals", seed)
    found, _ = find_outline(photo, *HATCHED.card_mm)
    assert _error_mm(found, truth, px_mm) < 1.0


def test_a_border_outside_two_sides_is_taken_where_the_other_sides_show_it():
    photo, truth, px_mm = _photo("CASTLE", "grey", 1)
    short = _moved(truth, np.array([0.0, -2.25, -2.25, 0.0], np.float32) * px_mm)
    assert _error_mm(short, truth, px_mm) > 2.0
    assert _error_mm(take_border(photo, short, HATCHED.card_mm[1]), truth, px_mm) < 0.6


def test_a_card_cut_short_all_round_is_widened_to_its_edge():
    photo, truth, px_mm = _photo("B8", "cloth", 2)
    short = _moved(truth, np.full(4, -2.25 * px_mm, np.float32))
    assert _error_mm(take_border(photo, short, HATCHED.card_mm[1]), truth, px_mm) < 0.6


def test_a_shadow_beside_a_card_is_not_taken_for_its_border():
    # A lamp off to one side: the table beside the right and bottom sides darkened,
    # 2.5 mm wide, and nothing printed there.
    import cv2

    photo, truth, px_mm = _photo("B8", "grey", 4)
    beyond = _moved(truth, np.array([0.0, 2.5, 2.5, 0.0], np.float32) * px_mm)
    shade = np.zeros(photo.shape[:2], np.uint8)
    cv2.fillConvexPoly(shade, np.round(beyond).astype(np.int32), 1)
    cv2.fillConvexPoly(shade, np.round(truth).astype(np.int32), 0)
    photo = photo.copy()
    photo[shade > 0] = (photo[shade > 0] * 0.55).astype(np.uint8)
    assert _error_mm(take_border(photo, truth, HATCHED.card_mm[1]), truth, px_mm) < 0.1


@pytest.mark.parametrize("seed", range(4))
def test_a_checked_cloth_beside_a_card_moves_no_side(seed):
    photo, truth, px_mm = _photo("TRAITOR", "checks", seed)
    assert _error_mm(take_border(photo, truth, HATCHED.card_mm[1]), truth, px_mm) < 0.1
