"""One white balance for a deck shot one photo per card, each photo under its own cast."""

import cv2
import numpy as np
import pytest

from vision import balance
from vision.deck_art import ALL_FACES
from vision.designs import designs
from vision.types import Image


def _deck() -> dict[str, Image]:
    # A tuning design whose cards are dark faces with a pale picture tinted in the
    # suit's colour: each card's lightest print is that tint, not its paper.
    art = designs("tune")[1]
    assert dict(art.opts)["face"] == "dark" and dict(art.opts)["body"] == "picture"
    return {f.token: art.render(f, 4.0) for f in ALL_FACES if len(f.token) <= 3}


def _shot(cards: dict[str, Image], seed: int) -> dict[str, Image]:
    """Each card under its own lamp: a warm bulb to cool daylight, as phones balance."""
    rng = np.random.default_rng(seed)
    out = {}
    for t, img in cards.items():
        warmth = rng.uniform(-1, 1)
        cast = np.array([1 - 0.14 * warmth, 1 + rng.uniform(-0.03, 0.03), 1 + 0.14 * warmth])
        out[t] = np.clip(img * cast * rng.uniform(0.85, 1.05), 0, 255).astype(np.uint8)
    return out


def _cast(got: Image, truth: Image) -> np.ndarray:
    """A card's median colour cast (Lab a, b) against its true colours."""
    a = cv2.cvtColor(got, cv2.COLOR_BGR2Lab).astype(np.float32)
    b = cv2.cvtColor(truth, cv2.COLOR_BGR2Lab).astype(np.float32)
    return np.median((a - b).reshape(-1, 3)[:, 1:], axis=0)


def _spread(balanced: dict[str, Image], truth: dict[str, Image]) -> np.ndarray:
    """Each card's cast off the deck's: one cast over the whole deck is a lamp the
    reader's mat takes off; casts that differ from card to card read as colours."""
    casts = np.array([_cast(balanced[t], truth[t]) for t in truth])
    return np.linalg.norm(casts - np.median(casts, axis=0), axis=1)


def test_a_suit_tinted_picture_keeps_its_tint(monkeypatch: pytest.MonkeyPatch) -> None:
    truth = _deck()
    shots = _shot(truth, 5)
    ours = _spread(balance.balance_deck(shots, px_per_mm=4.0), truth)
    assert np.median(ours) < 6.0, ours.round(1)
    # Without the suit rule each card's tinted picture is made neutral instead.
    monkeypatch.setattr(balance, "SUIT_APART", (9.0, 10.0))
    plain = _spread(balance.balance_deck(shots, px_per_mm=4.0), truth)
    assert np.median(plain) > 15.0, plain.round(1)


def test_a_white_deck_keeps_each_photos_own_balance(monkeypatch: pytest.MonkeyPatch) -> None:
    # The classic-like designs: a white paper every card shares. The suit rule must
    # leave alone what each card's own paper already says.
    art = designs("tune")[0]
    truth = {f.token: art.render(f, 4.0) for f in ALL_FACES if len(f.token) <= 3}
    shots = _shot(truth, 6)
    ours = _spread(balance.balance_deck(shots, px_per_mm=4.0), truth)
    monkeypatch.setattr(balance, "SUIT_APART", (9.0, 10.0))
    plain = _spread(balance.balance_deck(shots, px_per_mm=4.0), truth)
    assert np.median(ours) <= np.median(plain) + 1.0, (ours.round(1), plain.round(1))
    assert np.percentile(ours, 90) <= np.percentile(plain, 90) + 1.0, (ours.round(1), plain.round(1))
