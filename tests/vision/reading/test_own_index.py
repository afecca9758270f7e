"""A card between two numerals of one suit named by its own index against the enrolled
ones, blurred as the frame is soft, and left to ask wherever that is not clear."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.band_model import BandModel, telling_window
from vision.position import UNKNOWN
from vision.profile import TPL_PX, DeckProfile, builtin_profile
from vision.reading.classify import Judged
from vision.reading.own_index import (
    MARGIN,
    SEARCH_PX,
    TRUST,
    TRUST_FROM,
    by_own_index,
    grey_tops,
    projection,
)
from vision.reading.placement import Placed
from vision.reading.result import CardRead
from vision.reading.trust import FAR_AGREED
from vision.sharpness import TOO_SOFT_MM

H = 16.0
SOFT_MM = 0.6
PAD = SEARCH_PX + 3  # the crop reaches this far beyond the band, as the placer's does


@pytest.fixture(scope="module")
def deck() -> tuple[DeckProfile, BandModel, np.ndarray]:
    profile = builtin_profile("classic")
    tokens = list(profile.tokens)
    # The model's space of one dimension: a band's squared distances are as given.
    model = BandModel(tokens, profile.card_w, {}, {H: np.zeros((len(tokens), 1))},
                      {H: telling_window(profile.tops, tokens, H)})
    return profile, model, grey_tops(profile.tops)


def _placed(profile: DeckProfile, token: str, seed: int = 0) -> Placed:
    """The token's top as a frame SOFT_MM soft shows it: blurred, dimmer, noisy, a
    pixel off its place, with the table around it."""
    top = profile.tops[profile.tokens.index(token)].astype(np.float32) / 255.0
    crop = cv2.copyMakeBorder(top, PAD, PAD, PAD, PAD, cv2.BORDER_REPLICATE)
    crop = cv2.GaussianBlur(crop, (0, 0), SOFT_MM * TPL_PX) * 0.8
    crop += np.random.default_rng(seed).normal(0, 0.02, crop.shape).astype(np.float32)
    crop8 = np.clip(crop * 255, 0, 255).astype(np.uint8)
    return Placed(0.0, crop8, np.full(3, 1 / 255, np.float32), crop[..., 1], PAD + 1, PAD - 1,
                  np.zeros(0), np.zeros(0))


def _card(profile: DeckProfile, model: BandModel, token: str, near: dict[str, float],
          trust: float = 0.9, read: str = UNKNOWN) -> CardRead:
    """A card of ``token`` read as ``read``, its band at squared distances ``near`` from
    those cards (every other card far), the model's trust in its nearest ``trust``."""
    d2 = np.full(len(model.tokens), 50.0)
    for t, d in near.items():
        d2[model.tokens.index(t)] = d
    told = (read, trust, 0.9, [])
    judged = Judged(_placed(profile, token), profile.tops.shape[1], told, np.zeros(0), None, H,
                    d2, told)
    return CardRead("north.flag1", 0, read, trust, 0.9, [], judged=judged)


def test_a_numeral_the_model_hesitated_over_is_named_by_its_own_index(deck):
    profile, model, tops = deck
    five = _card(profile, model, "R5", {"R5": 1.0, "R8": 1.1})
    named = _card(profile, model, "G2", {"G2": 0.5}, trust=0.999, read="G2")
    by_own_index([named, five], model, tops, SOFT_MM)
    assert (five.token, five.confidence) == ("R5", TRUST)
    assert (named.token, named.confidence) == ("G2", 0.999)


def test_the_index_overrules_no_wrong_nearest_card(deck):
    # The model put the 5 first, but the band shows an 8: it asks rather than name either.
    profile, model, tops = deck
    eight = _card(profile, model, "R8", {"R5": 1.0, "R8": 1.1})
    by_own_index([eight], model, tops, SOFT_MM)
    assert eight.token == UNKNOWN


@pytest.mark.parametrize(("why", "near", "trust", "soft", "elsewhere"), [
    ("the model trusts its nearest too little", {"R5": 1.0, "R8": 1.1}, TRUST_FROM - 0.01,
     SOFT_MM, ()),
    ("how soft the frame is is not known", {"R5": 1.0, "R8": 1.1}, 0.9, None, ()),
    ("the player is told to focus", {"R5": 1.0, "R8": 1.1}, 0.9, TOO_SOFT_MM, ()),
    ("the card is named elsewhere", {"R5": 1.0, "R8": 1.1}, 0.9, SOFT_MM, ("R5",)),
    ("one value in two suits", {"R5": 1.0, "O5": 1.1}, 0.9, SOFT_MM, ()),
    ("the band lies far from every card", {"R5": FAR_AGREED + 1, "R8": FAR_AGREED + 1.1}, 0.9,
     SOFT_MM, ()),
])
def test_it_asks_where_the_index_cannot_say(deck, why, near, trust, soft, elsewhere):
    profile, model, tops = deck
    card = _card(profile, model, "R5", near, trust)
    by_own_index([card], model, tops, soft, elsewhere)
    assert card.token == UNKNOWN, why


def test_a_deck_enrolled_without_a_numeral_of_the_suit_names_none_of_it(deck):
    # A band of the R3 the deck lacks would be told against the numerals it holds only.
    profile, model, tops = deck
    keep = [i for i, t in enumerate(profile.tokens) if t != "R3"]
    lacking = BandModel([profile.tokens[i] for i in keep], profile.card_w, {},
                        {H: np.zeros((len(keep), 1))}, {H: model.window(H)})
    five = _card(profile, lacking, "R5", {"R5": 1.0, "R8": 1.1})
    by_own_index([five], lacking, tops[keep], SOFT_MM)
    assert five.token == UNKNOWN


def test_a_card_two_bands_would_be_is_named_at_neither(deck):
    profile, model, tops = deck
    twins = [_card(profile, model, "R5", {"R5": 1.0, "R8": 1.1}) for _ in range(2)]
    by_own_index(twins, model, tops, SOFT_MM)
    assert [c.token for c in twins] == [UNKNOWN, UNKNOWN]


def test_the_projection_says_which_index_a_window_shows(deck):
    profile, model, tops = deck
    wx, wy, side = model.window(H)

    def index(token: str) -> np.ndarray:
        w = cv2.GaussianBlur(tops[profile.tokens.index(token)], (0, 0), SOFT_MM * TPL_PX)
        w = w[wy:wy + side, wx:wx + side]
        return (w - w.mean()) / w.std()

    seen = _placed(profile, "R3")
    window = cv2.cvtColor(seen.crop.astype(np.float32) / 255, cv2.COLOR_BGR2GRAY)
    y0, x0 = seen.ty + wy - SEARCH_PX, seen.tx + wx - SEARCH_PX
    window = window[y0:y0 + side + 2 * SEARCH_PX, x0:x0 + side + 2 * SEARCH_PX]
    assert projection(window, index("R3"), index("R9")) > MARGIN
    assert projection(window, index("R9"), index("R3")) < -MARGIN
    assert projection(window, index("R3"), index("R9")) == pytest.approx(
        -projection(window, index("R9"), index("R3")))
