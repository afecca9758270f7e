"""The white balance of a deck enrolled from photos, one photo per card.

Nothing in a photo on an unknown table is known to be grey, so the deck
balances itself: one gain per photo makes the card's brightest print (its
paper, border or white print) neutral, unless that lies far from the deck's
median balance (then the face is coloured, and keeps its colour).
Only where every photo shows the table around the card as the same
near-grey is the table taken as the reference instead: a cream deck then
keeps its cream, as the reader, which balances frames by the printed mat,
sees it. A coloured cloth or wood is never taken for grey.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np

from vision.consensus import printed_alike
from vision.types import FloatImage, Image

TABLE_GREY: Final = 12.0  # Lab chroma of a balanced table under which it may be grey
TABLE_AGREE: Final = 4.0  # Lab units every photo's table lies within of their median
TABLE_LEAST: Final = 40.0  # a table darker than this (0..255 grey) says little of colour


def table_colour(photo: Image) -> FloatImage:
    """The table's colour around a card photo: the median of the photo's outer rim."""
    h, w = photo.shape[:2]
    k = max(2, round(0.03 * min(h, w)))
    rim = np.concatenate([photo[:k].reshape(-1, 3), photo[-k:].reshape(-1, 3),
                          photo[:, :k].reshape(-1, 3), photo[:, -k:].reshape(-1, 3)])
    return np.median(rim, axis=0).astype(np.float32)


def _lab(bgr: FloatImage) -> FloatImage:
    """Lab of BGR levels (0..255), one colour per row."""
    px = np.clip(bgr, 0, 255).astype(np.float32).reshape(-1, 1, 3) / 255.0
    return np.asarray(cv2.cvtColor(px, cv2.COLOR_BGR2Lab).reshape(-1, 3))


def _neutral(colour: FloatImage) -> FloatImage:
    """The gain that makes ``colour`` grey, its exposure kept."""
    g = 1.0 / np.maximum(colour.astype(np.float32), 1.0)
    return np.asarray(g * 3.0 / g.sum(), np.float32)


def table_reference(gains: dict[str, FloatImage], tables: dict[str, FloatImage],
                    ) -> FloatImage | None:
    """The gain that makes a grey table grey, where the tables of (nearly) every
    photo, balanced as their cards, are one near-grey; else ``None`` (the paper
    stays neutral)."""
    tokens = [t for t in gains if t in tables]
    if len(tokens) < 2:
        return None
    balanced = np.stack([tables[t] * gains[t] for t in tokens])
    if float(np.median(balanced.mean(axis=1))) < TABLE_LEAST:
        return None
    ab = _lab(balanced)[:, 1:]
    mid = np.median(ab, axis=0)
    if (np.linalg.norm(ab - mid, axis=1) > TABLE_AGREE).mean() > 0.1:
        return None  # not one table, or not one light: nothing to go by
    if float(np.linalg.norm(mid)) > TABLE_GREY:
        return None  # a coloured table
    return _neutral(np.median(balanced, axis=0))


BALANCE_MM: Final = 2.0  # px/mm of the cards compared when balancing a deck
BRIGHTEST: Final = 97.0  # percentile of a card's grey from which its print is its white
# Log-gain (per channel) a card's own balance may lie off the deck's median: phones
# balance each photo their own way (casts of a few tenths apart), while a coloured
# face taken for white lies a whole unit or more off.
LAMP_APART: Final = 0.35
# Log-gain (per channel, colour only) by which a suit's median balance may lie off the
# deck's before it counts as the suit's colour rather than its photos': the median of
# some ten phone casts strays a few hundredths; a tinted paper or picture taken for
# white, a tenth and more. Between the two the suit's offset is taken off in part.
SUIT_APART: Final = (0.05, 0.10)
SUIT_LEAST: Final = 6  # cards of a group from which its median balance says more than casts


def deck_gains(cards: dict[str, Image], px_per_mm: float = 6.0) -> dict[str, FloatImage]:
    """Per card, the BGR gain that makes its white (its brightest print: the paper,
    a white border or white print) neutral.

    A card's own balance stands where it is a lamp's or a phone's (near the deck's
    median one): a card whose brightest part is coloured (a full-bleed yellow face
    with dark print) takes the deck's instead, and its face keeps its yellow. A
    suit whose cards all balance off the deck alike has its offset taken off: a
    tint all its cards share is the suit's, not a lamp's. A paper lit to the
    sensor's limit counts as it shows.
    """
    tokens = sorted(cards)
    if not tokens:
        return {}
    h, w = cards[tokens[0]].shape[:2]
    size = (max(8, round(w / px_per_mm * BALANCE_MM)),
            max(8, round(h / px_per_mm * BALANCE_MM)))
    m = max(1, round(2 * BALANCE_MM))  # the outline's edge may show some table
    own = []
    for t in tokens:
        px = cv2.resize(cards[t], size, interpolation=cv2.INTER_AREA)[m:-m, m:-m].reshape(
            -1, 3).astype(np.float32)
        lum = px @ np.array([0.114, 0.587, 0.299], np.float32)
        white = px[lum >= np.percentile(lum, BRIGHTEST)].mean(axis=0)
        own.append(np.log(_neutral(white)))
    logs = np.array(own)
    deck = np.median(logs, axis=0)
    off = np.abs(logs - deck).max(axis=1) > LAMP_APART
    logs[off] = deck
    # A lamp's or a phone's cast does not care for the suit: where a suit's cards
    # all balance alike off the deck, their brightest print is tinted (a pale
    # picture in the suit's colour) and that tint belongs to the card.
    groups: dict[str, list[int]] = {}
    for i, t in enumerate(tokens):
        groups.setdefault(printed_alike(t, suits=True), []).append(i)
    lo, hi = SUIT_APART
    for idx in groups.values():
        if len(idx) < SUIT_LEAST:
            continue  # too few to tell a suit's colour from its photos' casts
        offset = np.median(logs[idx], axis=0) - deck
        offset -= offset.mean()
        share = np.clip((np.abs(offset).max() - lo) / (hi - lo), 0.0, 1.0)
        logs[idx] -= share * offset
    return {t: np.exp(g).astype(np.float32) for t, g in zip(tokens, logs, strict=True)}


def balance_deck(cards: dict[str, Image], tables: dict[str, FloatImage] | None = None,
                 px_per_mm: float = 6.0) -> dict[str, Image]:
    """The flattened cards of one deck white-balanced alike (see ``deck_gains``);
    ``tables``: each photo's table colour (``table_colour``), the reference where
    it is a grey one."""
    gains = deck_gains(cards, px_per_mm)
    if tables and table_reference(gains, tables) is not None:
        # A grey table under every card: each photo's own table balances it, which
        # also holds where the deck's shared parts mislead (a few cards of one suit).
        gains = {t: _neutral(tables[t]) if t in tables else g for t, g in gains.items()}
    return {t: np.clip(cards[t].astype(np.float32) * gains[t], 0, 255).astype(np.uint8)
            for t in cards}
