"""One white balance for a deck shot one photo per card, each photo under its own
cast and exposure."""

import cv2
import numpy as np
import pytest

from vision.deck_art import ALL_FACES
from vision.designs import designs
from vision.enrolment import balance
from vision.types import Image


def _deck(index: int) -> dict[str, Image]:
    art = designs("tune")[index]
    return {f.token: art.render(f, 4.0) for f in ALL_FACES}


def _shot(cards: dict[str, Image], seed: int) -> tuple[dict[str, Image], np.ndarray]:
    """Each card under its own lamp, a warm bulb to cool daylight, and its own
    exposure, as phones take them; and the photos' mean cast (log BGR)."""
    rng = np.random.default_rng(seed)
    out, casts = {}, []
    for t, img in cards.items():
        warmth = rng.uniform(-1, 1)
        cast = np.array([1 - 0.14 * warmth, 1 + rng.uniform(-0.03, 0.03), 1 + 0.14 * warmth])
        casts.append(np.log(cast))
        out[t] = np.clip(img * cast * rng.uniform(0.8, 1.1), 0, 255).astype(np.uint8)
    return out, np.mean(casts, axis=0)


def _offset(got: Image, truth: Image) -> np.ndarray:
    """A card's median Lab offset (L, a, b) from its true colours, where it is lit
    well enough to tell (the saturated and the black say nothing)."""
    a = cv2.cvtColor(got, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32)
    b = cv2.cvtColor(truth, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32)
    ok = (truth.reshape(-1, 3).max(axis=1) < 240) & (truth.reshape(-1, 3).max(axis=1) > 40)
    return np.asarray(np.median((a - b)[ok], axis=0))


def _spread(balanced: dict[str, Image], truth: dict[str, Image]) -> np.ndarray:
    """Each card's offset from the deck's median offset (L, a, b): one offset over
    the whole deck is a lamp the reader's mat takes off; offsets that differ from
    card to card read as other colours, or another exposure."""
    offsets = np.array([_offset(balanced[t], truth[t]) for t in truth])
    return np.abs(offsets - np.median(offsets, axis=0))


def _brightest_neutral(cards: dict[str, Image]) -> dict[str, Image]:
    """The naive rule: each card's brightest print taken for its white."""
    out = {}
    for t, c in cards.items():
        px = c.reshape(-1, 3).astype(np.float32)
        lum = px @ np.array([0.114, 0.587, 0.299], np.float32)
        white = px[lum >= np.percentile(lum, 97)].mean(axis=0)
        gain = white.mean() / np.maximum(white, 1.0)
        out[t] = np.clip(c * gain, 0, 255).astype(np.uint8)
    return out


def test_each_photo_is_brought_to_the_deck_where_no_card_shows_white() -> None:
    # Dark faces with a pale picture tinted in the suit's colour: each card's
    # lightest print is that tint, not a paper.
    assert dict(designs("tune")[1].opts)["face"] == "dark"
    truth = _deck(1)
    shots, _ = _shot(truth, 5)
    ours = _spread(balance.balance_deck(shots, px_per_mm=4.0), truth)
    assert np.median(ours[:, 1:]) <= 3.0 and np.percentile(ours[:, 1:], 90) <= 6.0, ours.round(1)
    assert np.percentile(ours[:, 0], 90) <= 13.0, ours[:, 0].round(1)  # exposure, in L
    # Taking each card's brightest print for white makes its tint neutral instead.
    naive = _spread(_brightest_neutral(shots), truth)
    assert np.median(naive[:, 1:]) > 4.0, naive.round(1)


def test_a_deck_without_white_keeps_its_photos_average_balance() -> None:
    # Dark faces, a numeral and a gradient in the suit's colour: nothing is white,
    # so the deck is left as the phone balanced it on average (within the photos'
    # own scatter), and no suit's colour is taken off.
    assert dict(designs("tune")[4].opts)["face"] == "dark"
    truth = _deck(4)
    shots, _mean_cast = _shot(truth, 8)
    got = balance.balance_deck(shots, px_per_mm=4.0)
    gains = balance.deck_gains(shots, px_per_mm=4.0)
    # The deck's median card keeps its photo's balance: the gains centre on one.
    assert np.abs(np.median(np.log(np.stack(list(gains.values()))), axis=0)).max() < 0.02
    offsets = np.array([_offset(got[t], truth[t]) for t in truth])
    assert np.abs(np.median(offsets[:, 1:], axis=0)).max() <= 3.0, np.median(offsets, axis=0)
    assert np.percentile(np.abs(offsets[:, 1:] - np.median(offsets[:, 1:], axis=0)), 90) <= 5.0
    # A red card stays red.
    b, g, r = got["R5"][40, got["R5"].shape[1] // 2].astype(int)
    assert r > g + 40 and r > b + 40


def test_a_white_deck_is_made_white() -> None:
    # Plain white faces: the paper every card shares is the deck's white.
    assert dict(designs("tune")[0].opts)["face"] == "plain"
    truth = _deck(0)
    shots, _ = _shot(truth, 6)
    got = balance.balance_deck(shots, px_per_mm=4.0)
    _, white, _ = balance.shared_gains(shots, px_per_mm=4.0)
    assert white is not None
    offsets = np.array([_offset(got[t], truth[t]) for t in truth])
    assert np.abs(np.median(offsets[:, 1:], axis=0)).max() <= 3.0, np.median(offsets, axis=0)
    assert np.percentile(np.abs(offsets[:, 1:] - np.median(offsets[:, 1:], axis=0)), 90) <= 5.0


def test_full_bleed_suits_are_balanced_within_each_suit() -> None:
    # Full-bleed suit colours: the deck shares no print, so each suit's cards are
    # brought to each other and the suits keep their colours.
    art = designs("tune")[5]
    assert dict(art.opts)["face"] == "bleed"
    truth = _deck(5)
    shots, _ = _shot(truth, 9)
    ours = _spread(balance.balance_deck(shots, px_per_mm=4.0), truth)
    troops = [i for i, t in enumerate(truth) if t[0] in "ROYGBP" and t[1:].isdigit()]
    assert np.percentile(ours[troops, 1:], 90) <= 5.0, ours[troops].round(1)
    assert np.percentile(ours[troops, 0], 90) <= 8.0, ours[troops].round(1)  # exposure


@pytest.mark.parametrize("index", [0, 3, 11])
def test_each_suit_printed_on_one_paper_is_brought_to_one_white(index: int) -> None:
    # A suit's photos are balanced to their own median photo, and a handful of
    # photos may lean warm or cool together (here each suit's lamp leans its own
    # way): the paper every suit prints on is made white suit by suit, so a suit's
    # colours carry no cast of their own. (White and cream papers; a plain face, a
    # coloured frame with a ringed index.)
    truth = _deck(index)
    rng = np.random.default_rng(12)
    lean = {s: rng.uniform(-0.8, 0.8) for s in "ROYGBP"}
    shots, _ = _shot(truth, 6)
    for t, img in shots.items():
        if t[0] in lean and t[1:].isdigit():
            w = lean[t[0]]
            cast = np.array([1 - 0.14 * w, 1.0, 1 + 0.14 * w])
            shots[t] = np.clip(img * cast, 0, 255).astype(np.uint8)
    got = balance.balance_deck(shots, px_per_mm=4.0)
    per_suit = np.array([np.median([_paper(got[t], truth[t]) for t in truth
                                    if t[0] == s and t[1:].isdigit()], axis=0)
                         for s in "ROYGBP"])
    # Within a few Lab of each other (the rule before left them some 22 apart).
    apart = np.linalg.norm(per_suit[:, None] - per_suit[None], axis=-1).max()
    assert apart <= 7.0, per_suit.round(1)


def _paper(card: Image, truth: Image) -> np.ndarray:
    """The (a, b) of a card's paper: where its true colours are its lightest, neutral."""
    lab = cv2.cvtColor(card, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32) - [0, 128, 128]
    true = cv2.cvtColor(truth, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32) - [0, 128, 128]
    paper = (true[:, 0] >= np.percentile(true[:, 0], 80)) & (np.abs(true[:, 1:]).max(axis=1) < 8)
    return np.asarray(lab[paper, 1:].mean(axis=0))
