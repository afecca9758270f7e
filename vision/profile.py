"""Deck profiles: what each card's index band looks like, saved as one ``.npz`` file.

A profile holds, per token, a blurred grey image of the card's top band (the
part a fanned card leaves visible) and its colour signature. The built-in
profile is drawn from our own deck's art; ``enroll`` builds one for any deck
from one photo per card.
"""

from __future__ import annotations

import json
import zipfile
import zlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

import cv2
import numpy as np

from companion.i18n import _, ngettext
from companion.records.safe_write import replacing
from companion.rules.cards import parse_token
from companion.rules.errors import NotationError
from vision.deck_art import ALL_FACES, BAND_MM, Style, render_card
from vision.mat import CARD_H, CARD_W
from vision.types import FloatImage, Image

TPL_PX: Final = 2.0  # template pixels per millimetre
INSET_X: Final = 2.0  # mm kept off the band's sides and top: edges and shadows
INSET_Y: Final = 1.0
BLUR: Final = 1.0  # px, applied to templates and to what is read alike
TOP_MM: Final = 24.0  # of each card's top kept in colour: the band and what a shift shows
FORMAT: Final = "battleline-deck-profile/1"
MODEL_PREFIX: Final = "model_"  # arrays of the deck's learnt classifier in the file


class ProfileError(ValueError):
    """A profile file or an enrolment photo that cannot be used; says which and why."""


def band_px(card_w: float = CARD_W, band_mm: float = BAND_MM) -> tuple[int, int]:
    """(width, height) of a band image at template resolution."""
    return round(card_w * TPL_PX), round(band_mm * TPL_PX)


def band_features(band: FloatImage) -> tuple[FloatImage, FloatImage]:
    """Blurred grey and colour signature of a band (BGR float 0..1, true colours).

    The signature is the mean Lab chroma of the whole band and of its most
    saturated quarter: the card's colour whatever the art around the index.
    """
    gray = cv2.cvtColor(band, cv2.COLOR_BGR2GRAY)
    gray = cv2.GaussianBlur(gray, (0, 0), BLUR)
    return gray.astype(np.float32), colour_signature(band)


def colour_signature(band: FloatImage) -> FloatImage:
    """Mean Lab chroma of a band (BGR float 0..1) and of its most saturated quarter."""
    ix, iy = round(INSET_X * TPL_PX), round(INSET_Y * TPL_PX)
    return sample_signatures(band[None, iy:, ix:band.shape[1] - ix])[0]


def sample_signatures(inner: FloatImage) -> FloatImage:
    """``colour_signature`` of the samples taken of each band (stacked, BGR 0..1).

    The 8-bit conversion (table driven, many times faster than the float one) is
    exact to a Lab unit, far below the colour noise floor.
    """
    n, h, w = inner.shape[:3]
    # All bands as one image: the conversions work pixel by pixel.
    px = cv2.convertScaleAbs(np.ascontiguousarray(inner).reshape(n * h, w, 3), alpha=255.0)
    ab = cv2.cvtColor(px, cv2.COLOR_BGR2Lab).reshape(n, h * w, 3)[:, :, 1:].astype(
        np.float32) - 128.0
    sat = np.einsum("bij,bij->bi", ab, ab)
    k = (h * w * 3) // 4
    keep = (sat >= np.partition(sat, k, axis=1)[:, k:k + 1]).astype(np.float32)
    # Both means as one small product: numpy's column means are slow on (n, 2).
    sums = np.stack([np.ones_like(keep), keep], axis=1) @ ab
    counts = np.stack([np.full(n, h * w, np.float32), keep.sum(axis=1)], axis=1)
    return np.asarray((sums / counts[:, :, None]).reshape(n, 4), np.float32)


@dataclass
class DeckProfile:
    name: str
    tokens: list[str]
    gray: FloatImage  # (T, h, w) blurred grey bands, full band with no inset
    chroma: FloatImage  # (T, 4)
    card_w: float = CARD_W
    card_h: float = CARD_H
    band_mm: float = BAND_MM
    # (T, h, w, 3) uint8: each card's top TOP_MM, upright, balanced, at TPL_PX; what a
    # per-deck classifier learns from (``vision.models.band_model``). Older files lack it.
    tops: Image | None = None
    # The deck's learnt classifier (``vision.models.band_model``), as named arrays; trained
    # when the deck is enrolled. Older files lack it.
    model: dict[str, FloatImage] | None = None
    # (T, H, W, 3) uint8: each card's whole face, upright, balanced, at TPL_PX; what
    # the face model learns from (``vision.models.face_model``). Older files lack it.
    faces: Image | None = None

    def save(self, path: Path) -> None:
        meta = {"format": FORMAT, "name": self.name, "tokens": self.tokens,
                "card_w": self.card_w, "card_h": self.card_h, "band_mm": self.band_mm,
                "px_per_mm": TPL_PX}
        arrays: dict[str, Image] = {"meta": np.array(json.dumps(meta)), "gray": self.gray,
                                    "chroma": self.chroma}
        if self.tops is not None:
            arrays["tops"] = self.tops
        if self.faces is not None:
            arrays["faces"] = self.faces
        for key, value in (self.model or {}).items():
            arrays[MODEL_PREFIX + key] = value
        with replacing(path) as fh:  # the old file or the new, whole, whatever happens
            np.savez_compressed(fh, **arrays)  # type: ignore[arg-type]

    @staticmethod
    def load(path: Path) -> DeckProfile:
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                gray, chroma = data["gray"].astype(np.float32), data["chroma"].astype(np.float32)
                tops = data["tops"].astype(np.uint8) if "tops" in data.files else None
                faces = data["faces"].astype(np.uint8) if "faces" in data.files else None
                model = {k[len(MODEL_PREFIX):]: data[k].astype(np.float32)
                         for k in data.files if k.startswith(MODEL_PREFIX)} or None
        # A damaged zip or array raises any of these; none may stop the companion.
        except (OSError, ValueError, KeyError, TypeError, EOFError, RecursionError,
                zipfile.BadZipFile, zlib.error) as exc:
            raise ProfileError(_("{path}: not a deck profile ({error})").format(
                path=path, error=exc)) from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            found = meta.get("format") if isinstance(meta, dict) else None
            raise ProfileError(_("{path}: format {found}, expected {format}").format(
                path=path, found=repr(found), format=repr(FORMAT)))
        try:
            profile = DeckProfile(str(meta["name"]), [str(t) for t in meta["tokens"]], gray,
                                  chroma, float(meta["card_w"]), float(meta["card_h"]),
                                  float(meta["band_mm"]), tops, model, faces)
        except (KeyError, TypeError, ValueError) as exc:
            raise ProfileError(_("{path}: not a deck profile ({error})").format(
                path=path, error=f"meta: {exc!r}")) from None
        problem = _inconsistency(profile, meta.get("px_per_mm"))
        if problem:
            raise ProfileError(_("{path}: inconsistent profile ({problem})").format(
                path=path, problem=problem))
        return profile


def _inconsistency(p: DeckProfile, px_per_mm: object) -> str | None:
    """What in a loaded profile does not fit together, if anything."""
    if px_per_mm != TPL_PX:
        return _("resolution {found} px/mm, expected {expected}").format(
            found=repr(px_per_mm), expected=TPL_PX)
    if not (20 <= p.card_w <= 200 and 20 <= p.card_h <= 200 and 2 <= p.band_mm <= p.card_h):
        return _("card or band size out of range")
    n = len(p.tokens)
    w, h = band_px(p.card_w, p.band_mm)
    if n < 2:  # choosing a card means preferring it to another (``Reader``)
        return ngettext("{n} card; enrol at least two", "{n} cards; enrol at least two",
                        n).format(n=n)
    if p.gray.shape != (n, h, w) or p.chroma.shape != (n, 4):
        return _("token count or band size")
    if p.tops is not None and p.tops.shape != (n, round(TOP_MM * TPL_PX), w, 3):
        return _("card tops")
    if p.faces is not None and p.faces.shape != (n, round(p.card_h * TPL_PX), w, 3):
        return _("card faces")
    if not (np.isfinite(p.gray).all() and np.isfinite(p.chroma).all()):
        return _("not finite")
    for token in p.tokens:
        try:
            parse_token(token)
        except NotationError:
            return _("{token} is not a card").format(token=repr(token))
    return None


def upright_band(card: Image, card_w: float, band_mm: float) -> FloatImage:
    """The top band of an upright card image (any size), resampled to template scale."""
    w, h = band_px(card_w, band_mm)
    full_h = round(card.shape[0] * w / card.shape[1])
    resized = cv2.resize(card, (w, full_h), interpolation=cv2.INTER_AREA)
    return (resized[:h].astype(np.float32) / 255.0)


def profile_from_cards(name: str, cards: dict[str, Image],
                       card_w: float = CARD_W, card_h: float = CARD_H,
                       band_mm: float = BAND_MM) -> DeckProfile:
    """A profile from upright, white-balanced card images keyed by token."""
    if not cards:
        raise ProfileError(_("{name}: no card to make a profile of").format(name=name))
    tokens = sorted(cards)
    grays, sigs, tops, faces = [], [], [], []
    w, h = round(card_w * TPL_PX), round(card_h * TPL_PX)
    for t in tokens:
        g, s = band_features(upright_band(cards[t], card_w, band_mm))
        grays.append(g)
        sigs.append(s)
        tops.append(np.clip(upright_band(cards[t], card_w, TOP_MM) * 255.0 + 0.5, 0,
                            255).astype(np.uint8))
        faces.append(cv2.resize(cards[t], (w, h), interpolation=cv2.INTER_AREA))
    return DeckProfile(name, tokens, np.stack(grays), np.stack(sigs), card_w, card_h, band_mm,
                       np.stack(tops), faces=np.stack(faces))


@cache
def builtin_profile(style: Style = "companion") -> DeckProfile:
    """Our printed deck, from its art: no photos needed."""
    cards = {f.token: render_card(f, style, 8.0) for f in ALL_FACES}
    return profile_from_cards(f"built-in {style}", cards)
