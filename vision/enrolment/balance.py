"""The white balance of a deck enrolled from photos, one photo per card.

Each photo has its own exposure and its own cast (the phone balances every shot
its own way, the lamp moves), and nothing on an unknown table is known to be
grey. What is known is that the cards of one deck print much of their face
alike: the paper, a frame, a dark body, the border. So each card is brought to
the deck's level by the gain that makes the print it shares with the others
match theirs (``shared_gains``), and the deck as a whole keeps the photos'
own average balance, unless its shared print shows a near-neutral white (the
paper or a border), which is then made neutral, each suit's own (a suit's
photos keep their median photo's cast, and the suits print one paper). Only
where every photo shows the table around the card as the same near-grey is the
table taken as the reference instead: a cream deck then keeps its cream, as the
reader, which balances frames by the printed mat, sees it. A coloured cloth or
wood is never taken for grey, and no card's coloured print is ever taken for
white.
"""

from __future__ import annotations

from typing import Final

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.enrolment.consensus import printed_alike
from vision.types import GREY_BGR, FloatImage, Image

TABLE_GREY: Final = 12.0  # Lab chroma of a balanced table under which it may be grey
TABLE_AGREE: Final = 4.0  # Lab units every photo's table lies within of their median
TABLE_LEAST: Final = 40.0  # a table darker than this (0..255 grey) says little of colour

BALANCE_MM: Final = 2.0  # px/mm of the cards compared when balancing a deck
SHARED: Final = 0.3  # share of the card taken as the print all cards share: its least varied
ROUNDS: Final = 5  # the deck's median card and each card's gain, made again in turn
# Log-level spread (median over the shared print, after the gains) under which a
# group's cards share print (a paper, a frame, a face): the photos' scatter taken
# off, the same print differs by noise only.
DECK_SHARES: Final = 0.05
CAST_MOST: Final = 0.35  # log-gain per channel a lamp's or a phone's cast stays within
LAMP_APART: Final = CAST_MOST  # a card's own white this far off the deck's is no white
BRIGHTEST: Final = 97.0  # percentile of a card's grey from which its print is its brightest
GROUP_LEAST: Final = 4  # cards printed alike from which their shared print says anything
WHITE_CHROMA: Final = 15.0  # Lab chroma of the shared bright print that is taken as white
PAPER_SHARE: Final = 0.95  # of the card's brightest print, the least a white's grey is
SUIT_CHROMA: Final = 25.0  # Lab chroma of a suit's own paper under its photos' cast
WHITE_ONE: Final = 4.0  # Lab chroma within which a paper's pixels lie of its least coloured
WHITE_LEAST: Final = 120.0  # 0..255 grey from which shared print is bright enough for white
LEVELS: Final = (12.0, 245.0)  # 0..255: print outside these tells no gain (black, clipped)


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


def _small(cards: dict[str, Image], tokens: list[str], px_per_mm: float) -> FloatImage:
    """The cards at BALANCE_MM, a millimetre off every side (the outline's edge may
    show some table), as (cards, h, w, 3) levels."""
    h, w = cards[tokens[0]].shape[:2]
    size = (max(8, round(w / px_per_mm * BALANCE_MM)), max(8, round(h / px_per_mm * BALANCE_MM)))
    m = max(1, round(BALANCE_MM))
    return np.stack([cv2.resize(cards[t], size, interpolation=cv2.INTER_AREA)[m:-m, m:-m]
                     for t in tokens]).astype(np.float32)


def _fit(logs: FloatImage) -> tuple[FloatImage, FloatImage, NDArray[np.bool_], float]:
    """Per card of ``logs`` ((cards, h, w, 3) log levels), the log-gain that brings it
    to the others where they print alike; and the median card, the shared print and
    how far the cards still differ there (the median absolute difference).

    The median card and the gains are made in turn: the cards' least varied
    SHARED part is their shared print (what one card prints alone, its index or
    picture, varies across them), and each gain is the median difference there.
    Print near black or at the sensor's limit tells no gain, and is left out."""
    gains = np.zeros((len(logs), 3), np.float32)
    mid = np.median(logs, axis=0)
    telling = ((mid.max(axis=-1) < np.log(LEVELS[1] + 4.0))
               & (mid.min(axis=-1) > np.log(LEVELS[0] + 4.0)))
    shared = telling
    spread = np.zeros(mid.shape[:2], np.float32)
    if telling.sum() < 20:
        return gains, mid, shared, float("inf")
    for _ in range(ROUNDS):
        mid = np.median(logs - gains[:, None, None, :], axis=0)
        off = logs - gains[:, None, None, :] - mid
        spread = np.median(np.abs(off), axis=0).max(axis=-1)
        shared = telling & (spread <= np.quantile(spread[telling], SHARED))
        gains += np.median(off[:, shared], axis=1)
        gains -= np.median(gains, axis=0)  # the deck's median card keeps its level
    return gains, mid, shared, float(np.median(spread[shared]))


def shared_gains(cards: dict[str, Image], px_per_mm: float = 6.0,
                 ) -> tuple[dict[str, FloatImage], FloatImage | None, dict[str, FloatImage]]:
    """Per card, the BGR gain that makes the print it shares with the cards printed
    alike down to their colours (a suit's troops, the tactics, the terrain cards)
    match theirs: each photo's own exposure and cast taken off, each group keeping
    the average of its own photos' balance (a gain cannot tell a suit's colour from
    a lamp's). And the deck's white: the suits' shared near-neutral bright print
    (a paper, a border), where most suits show one, else ``None``; and, where it
    is, per troop each suit's own white (its paper under its photos' cast, where
    that is the deck's white under a lamp). A card whose group is too small to
    tell its shared print (or is not printed alike) is left out."""
    tokens = sorted(cards)
    fitted: dict[str, FloatImage] = {}
    whites: list[FloatImage | None] = []
    own: dict[str, FloatImage] = {}
    if len(tokens) < 2:
        return fitted, None, own
    logs = np.log(_small(cards, tokens, px_per_mm) + 4.0)
    for group, idx in _groups(tokens).items():
        if len(idx) < GROUP_LEAST:
            continue
        got, mid, shared, spread = _fit(logs[idx])
        # Print shared only loosely, or gains beyond any lamp's: not one layout's
        # print under many lamps, but cards that differ (tactics of several colours).
        if spread > DECK_SHARES or np.abs(got).max() > CAST_MOST:
            continue
        fitted.update((tokens[i], np.exp(-g).astype(np.float32))
                      for i, g in zip(idx, got, strict=True))
        if group.startswith("troop "):
            # A suit whose shared print shows no paper (a frame and a numeral as
            # alike as the paper) may still show it as its median card's lightest.
            papers = [p for p in (_paper(mid, shared), _paper(mid, np.ones(mid.shape[:2], bool)))
                      if p is not None]
            whites.append(next((p for p in papers if _is_white(p)), None))
            # Its own cast may colour it beyond a white's chroma: it stands if it is
            # the deck's white under a lamp (below).
            own_white = next((p for p in papers if _is_white(p, SUIT_CHROMA)), None)
            if own_white is not None:
                own.update((tokens[i], own_white) for i in idx)
    white = None
    found = [w for w in whites if w is not None]
    if len(found) > len(whites) // 2:
        white = np.median(np.stack(found), axis=0).astype(np.float32)
    if white is None:
        return fitted, None, {}
    # A suit's own white is one paper under another cast, not another print.
    deck = np.log(_neutral(white))
    return fitted, white, {t: w for t, w in own.items()
                           if float(np.abs(np.log(_neutral(w)) - deck).max()) <= LAMP_APART}


def _groups(tokens: list[str]) -> dict[str, list[int]]:
    """The indices of ``tokens`` per group of cards printed alike down to their
    colours: each suit's troops, the tactics, the terrain cards."""
    out: dict[str, list[int]] = {}
    for i, t in enumerate(tokens):
        group = printed_alike(t, suits=True)
        out.setdefault(group if group.startswith("troop ") else printed_alike(t), []).append(i)
    return out


def _paper(mid: FloatImage, shared: NDArray[np.bool_]) -> FloatImage | None:
    """The paper of the median card's ``shared`` print: the brightest quarter of its
    least coloured bright print, where that is as bright as the card's paper, else
    ``None``. (A white where it is near-neutral: ``_is_white``.)"""
    level = np.exp(mid[shared]) - 4.0
    bright = level[level @ GREY_BGR >= WHITE_LEAST]
    if len(bright) < 20:
        return None
    # A paper under a lamp's cast is one colour: the least coloured of the bright print
    # (a yellow frame is as bright as the paper).
    chroma = np.linalg.norm(_lab(bright)[:, 1:], axis=1)
    bright = bright[chroma <= np.percentile(chroma, 10) + WHITE_ONE]
    if len(bright) < 20:
        return None
    colour = bright[bright @ GREY_BGR >= np.percentile(bright @ GREY_BGR, 75)].mean(axis=0)
    # The paper is the card's brightest print: a pale ink shared by a suit's cards
    # (tune-00's orange frame) is no white when the paper is brighter still.
    whole = np.exp(mid.reshape(-1, 3)) - 4.0
    if float(colour @ GREY_BGR) < PAPER_SHARE * float(np.percentile(whole @ GREY_BGR, BRIGHTEST)):
        return None
    return np.asarray(colour, np.float32)


def _is_white(colour: FloatImage, chroma_most: float = WHITE_CHROMA) -> bool:
    """Whether a print's colour may be a white under some lamp: bright, near-neutral."""
    return (float(colour @ GREY_BGR) >= WHITE_LEAST
            and float(np.linalg.norm(_lab(colour)[0, 1:])) <= chroma_most)


def _brightest(card: Image, px_per_mm: float) -> FloatImage:
    """A card's brightest print (its paper, border or white print, if it has one)."""
    px = _small({"": card}, [""], px_per_mm).reshape(-1, 3)
    lum = px @ GREY_BGR
    return np.asarray(px[lum >= np.percentile(lum, BRIGHTEST)].mean(axis=0), np.float32)


def deck_gains(cards: dict[str, Image], px_per_mm: float = 6.0) -> dict[str, FloatImage]:
    """Per card, its gain (``shared_gains``) and the deck's: the shared white made
    neutral where there is one (a suit's troops by their own white, where it has
    one), else the photos' own average balance kept (a phone
    balances each shot near enough on average; no coloured print is taken for white).

    A card no group balanced (a handful of cards, a suit of one) makes its own
    brightest print neutral where that is the deck's white under another lamp;
    a handful of cards that no group balanced take the white their brightest prints
    agree on, if it is near-neutral."""
    gains, white, whites = shared_gains(cards, px_per_mm)
    own = {t: _brightest(c, px_per_mm) for t, c in cards.items() if t not in gains}
    if white is None and not gains and len(own) >= 2:
        mid = np.median(np.stack(list(own.values())), axis=0)
        if _is_white(mid):
            white = mid.astype(np.float32)
    deck = _neutral(white) if white is not None else np.ones(3, np.float32)
    # Each suit's own white made neutral: the suits print one paper, and each keeps
    # the cast of its own photos' median (a phone balances every shot its own way).
    out = {t: (g * (_neutral(whites[t]) if t in whites else deck)).astype(np.float32)
           for t, g in gains.items()}
    for t, colour in own.items():
        near = white is not None and float(np.abs(
            np.log(_neutral(colour)) - np.log(deck)).max()) <= LAMP_APART
        out[t] = _neutral(colour) if near else deck
    return out


def balance_deck(cards: dict[str, Image], tables: dict[str, FloatImage] | None = None,
                 px_per_mm: float = 6.0) -> dict[str, Image]:
    """The flattened cards of one deck white-balanced alike (see ``deck_gains``);
    ``tables``: each photo's table colour (``table_colour``), the reference where
    it is a grey one."""
    gains = deck_gains(cards, px_per_mm)
    if tables and table_reference(gains, tables) is not None:
        # A grey table under every card: each photo's own table balances its colour,
        # which also holds where the deck's shared parts mislead (a few cards of one
        # suit); the shared print still sets each photo's exposure.
        gains = {t: _neutral(tables[t]) * np.exp(np.log(g).mean()) if t in tables else g
                 for t, g in gains.items()}
    return {t: np.clip(cards[t].astype(np.float32) * gains[t], 0, 255).astype(np.uint8)
            for t in cards}
