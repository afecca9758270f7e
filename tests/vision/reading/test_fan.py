"""Which of a stack's candidate tops are cards: ``read_fan`` driven with the reads a
zone's bands would give, card by card (tops in zone-local px, a millimetre each)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.mat import standard_mat
from vision.position import UNKNOWN
from vision.profile import builtin_profile
from vision.reading.fan import READ_SLACK_MM, RETRY_MM, read_fan
from vision.reading.result import CardRead
from vision.reading.stack import MIN_GAP_MM, Ask, Stack

PROFILE = builtin_profile("classic")
ZONE = next(z for z in standard_mat().zones if z.name == "flag4.south")


def _stack(tops: list[tuple[float, bool]], bottom: float) -> Stack:
    fg = np.zeros((200, 80), np.uint8)
    fg[int(tops[0][0]):int(bottom), 8:72] = 1
    cols = fg.any(axis=0)
    return Stack(ZONE, fg, tops[0][0], bottom, cols, 8, 71, np.zeros(199, np.float32),
                 tops, PROFILE, 32)


def _run(st: Stack, bands) -> tuple[list[CardRead], list[Ask]]:
    """``read_fan`` on ``st``, each ask answered by ``bands(ask)``; the cards and every
    ask."""
    gen, asked = read_fan(st, -np.inf, PROFILE.band_mm), []
    sent = None
    try:
        while True:
            asks = gen.send(sent)
            asked += asks
            sent = [bands(a) for a in asks]
    except StopIteration as end:
        return end.value, asked


def _card(token: str, top: float, score: float, rank: float | None = None) -> CardRead:
    cands = [(token if token != UNKNOWN else "R3", score if rank is None else rank)]
    return CardRead(ZONE.name, 0, token, 0.99 if token != UNKNOWN else 0.0, score,
                    [(0.0, 0.0)] * 4, cands, top_local=top)


def _lying(cards: list[tuple[str, float]], weak: dict[str, float]):
    """Bands read as the card whose top lies within the ask's reach (its warp's slack),
    nearest first; a band read with more showing than its card shows (the next card's
    top in it) reads weakly as ``weak`` says."""
    tops = [t for _, t in cards]

    def read(ask: Ask) -> CardRead | None:
        near = [(abs(t - ask.t), tok, t) for tok, t in cards if abs(t - ask.t) <= 5.0]
        if not near:
            return None
        _, tok, t = min(near)
        shows = min([u - t for u in tops if u > t] + [1e9])
        if tok in weak and ask.visible > shows - 1.0:
            return _card(UNKNOWN, t, weak[tok], rank=weak[tok] - 0.03)
        return _card(tok, t, 0.95)

    return read


def test_a_card_a_fans_width_under_a_weak_first_read_stands_beside_it():
    # The middle card's top is no candidate; the first card's band, read with the
    # middle card's top in it, reads weakly, and looking further along finds the middle
    # card. Both stand, each asked again as far as it shows.
    cards = [("R5", 10.0), ("B7", 10.0 + MIN_GAP_MM - READ_SLACK_MM / 2), ("Y1", 36.0)]
    st = _stack([(10.0, True), (36.0, True)], 36.0 + PROFILE.card_h)
    got, asked = _run(st, _lying(cards, {"R5": 0.78}))
    assert [c.token for c in got] == ["R5", "B7", "Y1"]
    again = [a for a in asked if a.t == 10.0]
    assert again[-1].visible < again[0].visible


def test_a_read_further_along_replaces_a_first_read_beyond_the_zones_view():
    # A band found above the zone's view (the mat beyond it, another zone's card) is
    # no card of this stack however it ranks: the card further along is the first.
    cards = [("R5", -3.0), ("B7", 10.0), ("Y1", 36.0)]
    st = _stack([(0.0, True), (36.0, True)], 36.0 + PROFILE.card_h)
    got, _ = _run(st, _lying(cards, {"R5": 0.7}))
    assert [c.token for c in got] == ["B7", "Y1"]


@pytest.mark.parametrize("rank", [0.5, 0.3])
def test_a_weak_first_read_unlike_an_index_gives_way_to_the_card_further_along(rank):
    # The outline started at glare or a shadow above the card: that band ranks low as
    # an index, and the card further along stands in its place.
    cards = [("R5", 10.0), ("B7", 10.0 + RETRY_MM[0] + 4.0), ("Y1", 36.0)]
    st = _stack([(10.0, True), (36.0, True)], 36.0 + PROFILE.card_h)
    got, _ = _run(st, _lying(cards, {"R5": rank + 0.03}))
    assert [c.token for c in got] == ["B7", "Y1"]


def test_a_weak_read_that_names_its_card_keeps_it_against_an_unknown_band_further_along():
    # A lone card's band names it with a weak grey fit, so the band is looked for
    # further along too; a line above the card (the mat beyond it) fits better in grey
    # but names nothing: the card stands (tune-216's lone Y5 was lost to such a band).
    top = 11.0

    def read(ask: Ask) -> CardRead | None:
        if ask.t == top:
            return _card("Y5", top + 1.5, 0.80)
        if ask.t == top + RETRY_MM[1]:
            return _card(UNKNOWN, top + RETRY_MM[1] + 1.1, 0.84)
        return None

    got, asked = _run(_stack([(top, True)], top + PROFILE.card_h), read)
    assert any(a.t == top + RETRY_MM[1] for a in asked)  # it was looked for there
    assert [c.token for c in got] == ["Y5"]


def test_a_gap_reaching_past_the_zones_view_is_searched_only_within_it():
    # The last card placed by its index below the end of the zone's view (200 rows):
    # the card hidden in the gap above it is looked for where the view shows, and the
    # zone still reads (the search once ran past the view and failed the whole read).
    st = _stack([(10.0, True), (190.0, True)], 190.0 + PROFILE.card_h)

    def bands(ask: Ask) -> CardRead | None:
        if abs(ask.t - 10.0) <= 5.0:
            return _card("R5", 10.0, 0.95)
        if abs(ask.t - 190.0) <= 5.0:
            return _card("Y1", 230.0, 0.95)
        return None

    got, asked = _run(st, bands)
    assert [c.token for c in got] == ["R5", "Y1"]
    searched = [a.t for a in asked if a.t not in (10.0, 190.0)]
    assert searched and all(10.0 + MIN_GAP_MM <= t < len(st.grad) + 1 for t in searched)


def test_the_edges_searched_above_the_zones_view_are_none():
    # Rows above the view (a card read above the zone) hold no edge: the search
    # does not wrap round to the view's last rows.
    st = _stack([(10.0, True)], 10.0 + PROFILE.card_h)
    st.grad[-1] = 5.0  # the view's last row steps most
    assert st.strongest_edges(-40, 30, 3) and all(
        1.0 <= t <= 31.0 for t in st.strongest_edges(-40, 30, 3))
    assert st.strongest_edges(-40, -5, 3) == []
