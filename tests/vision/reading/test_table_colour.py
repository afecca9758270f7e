"""A card between one value in two suits named by the colours of the cards of those
suits already named on the same table, and left to ask wherever that is not clear."""

from __future__ import annotations

import numpy as np
import pytest

from vision.models.band_model import BandModel
from vision.position import UNKNOWN
from vision.profile import DeckProfile, builtin_profile
from vision.reading.classify import Judged
from vision.reading.placement import Placed
from vision.reading.result import CardRead
from vision.reading.table_colour import (
    MIN_NAMED,
    TRUST,
    band_colour,
    by_table_colours,
    pair_of_suits,
    suit_by_colour,
    value_sure,
)
from vision.reading.trust import OUTSIDE_TRUST

H = 16.0
LAMP = np.array([0.8, 1.0, 1.25], np.float32)  # BGR: a warm lamp, reds pulled toward orange


@pytest.fixture(scope="module")
def deck() -> tuple[DeckProfile, BandModel]:
    profile = builtin_profile("classic")
    # The model's space of one dimension: a band's squared distances are as given.
    model = BandModel(profile.tokens, profile.card_w, {}, {H: np.zeros((len(profile.tokens), 1))})
    return profile, model


def _placed(profile: DeckProfile, token: str, mix: str | None = None) -> Placed:
    """The token's top under LAMP as the frame shows it (half ``mix``'s where given)."""
    top = profile.tops[profile.tokens.index(token)].astype(np.float32) / 255.0
    if mix is not None:
        top = (top + profile.tops[profile.tokens.index(mix)].astype(np.float32) / 255.0) / 2
    crop = np.clip(top * LAMP, 0, 1)
    return Placed(0.0, crop, np.ones(3, np.float32), crop[..., 1], 0, 0, np.zeros(0),
                  np.zeros(0))


def _card(profile: DeckProfile, model: BandModel, token: str, read: str = UNKNOWN,
          near: dict[str, float] | None = None, mix: str | None = None,
          trust: float = 0.99) -> CardRead:
    """A card of ``token`` read as ``read``, its band at squared distances ``near``
    from those cards (every other card far), an unknown one trusted ``trust``."""
    d2 = np.full(len(model.tokens), 50.0)
    for t, d in (near or {}).items():
        d2[model.tokens.index(t)] = d
    told = (read, trust if read == UNKNOWN else 0.999, 0.9, [])
    rows = profile.tops.shape[1]
    judged = Judged(_placed(profile, token, mix), rows, told, np.zeros(0), None, H, d2, told)
    return CardRead("north.flag1", 0, read, told[1], 0.9, [], judged=judged)


def _table(profile: DeckProfile, model: BandModel, reds: int = 2, oranges: int = 2
           ) -> list[CardRead]:
    named = [f"R{v}" for v in (1, 5, 9)[:reds]] + [f"O{v}" for v in (1, 5, 9)[:oranges]]
    return [_card(profile, model, t, read=t) for t in named]


def test_the_tables_own_reds_name_a_red_the_model_took_for_orange_or_red(deck):
    profile, model = deck
    card = _card(profile, model, "R3", near={"O3": 1.0, "R3": 1.1})
    cards = [*_table(profile, model), card]
    by_table_colours(cards, model, profile.tops.shape[2])
    assert (card.token, card.confidence) == ("R3", TRUST)
    # The cards it was told by are as they were.
    assert [c.token for c in cards[:-1]] == ["R1", "R5", "O1", "O5"]


@pytest.mark.parametrize(("why", "reds", "near", "elsewhere"), [
    ("too few reds named to compare with", MIN_NAMED - 1, {"O3": 1.0, "R3": 1.1}, ()),
    ("another numeral is near too", 2, {"O3": 1.0, "R3": 1.1, "O8": 1.3}, ()),
    ("two numerals of one suit", 2, {"R3": 1.0, "R8": 1.1}, ()),
    ("the card is named elsewhere", 2, {"O3": 1.0, "R3": 1.1}, ("R3",)),
])
def test_a_card_the_tables_colours_cannot_settle_asks(deck, why, reds, near, elsewhere):
    profile, model = deck
    card = _card(profile, model, "R3", near=near)
    by_table_colours([*_table(profile, model, reds=reds), card], model, profile.tops.shape[2],
                     elsewhere)
    assert card.token == UNKNOWN, why


def test_a_band_outside_the_decks_drawings_asks(deck):
    # Where the trust leaves a band outside (a misplaced or half-covered band, far from
    # every card's drawings), its distances do not say the value: on tuning decks such
    # bands named O10 for an O2 and G2 for a B2.
    profile, model = deck
    card = _card(profile, model, "R3", near={"O3": 1.0, "R3": 1.1},
                 trust=OUTSIDE_TRUST)
    by_table_colours([*_table(profile, model), card], model, profile.tops.shape[2])
    assert card.token == UNKNOWN


def test_a_colour_halfway_between_the_suits_asks(deck):
    profile, model = deck
    card = _card(profile, model, "R3", near={"O3": 1.0, "R3": 1.1}, mix="O3")
    by_table_colours([*_table(profile, model), card], model, profile.tops.shape[2])
    assert card.token == UNKNOWN


def test_a_card_two_bands_would_be_is_named_at_neither(deck):
    profile, model = deck
    twins = [_card(profile, model, "R3", near={"O3": 1.0, "R3": 1.1}) for _ in range(2)]
    by_table_colours([*_table(profile, model), *twins], model, profile.tops.shape[2])
    assert [c.token for c in twins] == [UNKNOWN, UNKNOWN]


def test_the_decisions_parts():
    assert pair_of_suits(["R3", "O3", "R8", "AL"], 0, 1) is not None
    assert pair_of_suits(["R3", "O3", "R8", "AL"], 0, 2) is None  # one suit
    assert pair_of_suits(["R3", "O3", "R8", "AL"], 0, 3) is None  # a tactic
    d = np.array([1.0, 1.1, 1.7, 40.0])
    assert value_sure(d, None, 0, 1)
    assert not value_sure(np.array([1.0, 1.1, 1.3, 40.0]), None, 0, 1)
    # A card the zone may not hold does not count; a zone that leaves one card weighs all.
    assert value_sure(np.array([1.0, 1.1, 1.3, 40.0]), np.array([True, True, False, True]), 0, 1)
    assert not value_sure(np.array([1.0, 1.1, 1.3, 40.0]), np.array([True, False, False, False]),
                          0, 1)
    red, orange = np.array([40.0, 30.0]), np.array([25.0, 55.0])
    named = {0: [red, red + 2], 1: [orange, orange - 2]}
    assert suit_by_colour(red + 3, named, (0, 1)) == 0
    assert suit_by_colour(orange, named, (0, 1)) == 1
    assert suit_by_colour((red + orange) / 2, named, (0, 1)) is None
    assert suit_by_colour(red, {0: [red] * (MIN_NAMED - 1), 1: [orange] * MIN_NAMED}, (0, 1)) is None


def test_an_orange_paled_to_a_reds_colour_asks():
    # Colours (Lab a, b) measured on a tuning deck's blurred frame: an orange 1 between
    # a blue and a green card, its colour paled toward grey, lay 5 Lab from the table's
    # reds and 21 from its oranges; paled, the oranges lie as near as the reds.
    reds = [np.array(c) for c in ([35.3, 29.8], [35.3, 30.7], [34.6, 30.1], [29.9, 26.1])]
    oranges = [np.array([43.2, 49.2]), np.array([39.3, 45.5])]
    band = np.array([29.5, 29.8])
    assert suit_by_colour(band, {0: reds, 1: oranges}, (0, 1)) is None
    # A band of the reds' own colour is still named red: no orange paled comes as near.
    assert suit_by_colour(np.mean(reds, axis=0), {0: reds, 1: oranges}, (0, 1)) == 0
    # A yellow band beside the same reds, paled as far as that orange was: no red
    # paled comes near it.
    yellows = [np.array([-5.0, 60.0]), np.array([-3.0, 58.0])]
    assert suit_by_colour(np.array([-3.0, 40.0]), {0: reds, 2: yellows}, (0, 2)) == 2


def test_a_bands_colour_is_its_printed_colour_in_true_colours(deck):
    profile, _ = deck
    red, orange = (band_colour(_placed(profile, t), profile.tops.shape[1],
                               profile.tops.shape[2]) for t in ("R3", "O3"))
    assert np.linalg.norm(red - orange) > 2 * 10.0
