"""Generated deck designs: deterministic, split apart, varied, and every card tellable."""

from __future__ import annotations

import dataclasses
from collections import Counter

import cv2
import numpy as np
import pytest

from companion.rules.cards import COLOURS, Tactic, Terrain, Troop
from vision.deck_art import ALL_FACES
from vision.designs import HELD_DESIGNS, TUNE_DESIGNS, DeckDesign, design, design_sheet, designs
from vision.designs.paint import index_block, index_top
from vision.designs.spec import INDEX_LIMIT_MM, OPTIONS, SUIT_FLOOR, lab, suit_distance

ALL = designs("tune") + designs("held")
R3, R8, Y10 = (Troop(COLOURS[0], 3), Troop(COLOURS[0], 8), Troop(COLOURS[2], 10))


def _params(d: DeckDesign) -> tuple[object, ...]:
    return dataclasses.astuple(dataclasses.replace(d, name="", seed=0))


def test_counts_and_names() -> None:
    assert len(designs("tune")) == TUNE_DESIGNS and len(designs("held")) == HELD_DESIGNS
    assert designs("held", 3) == [design("held", i) for i in range(3)]
    assert len({d.name for d in ALL}) == len(ALL)
    with pytest.raises(ValueError):
        design("tune", -1)


def test_rendering_is_deterministic() -> None:
    d = design("held", 5)
    d.render(Y10, 5.0)[:] = 0  # a caller scribbling on its copy must not reach the cache
    fresh = dataclasses.replace(d, seed=d.seed)  # an equal design, built anew
    assert fresh is not d
    for face in (Y10, Tactic.TRAITOR, Terrain.RIVER):
        assert np.array_equal(d.render(face, 5.0), fresh.render(face, 5.0))
        assert d.render(face, 5.0).any()


def test_splits_share_no_design() -> None:
    tune, held = designs("tune"), designs("held")
    assert not {d.seed for d in tune} & {d.seed for d in held}
    assert not {_params(d) for d in tune} & {_params(d) for d in held}
    tops = {d.render(Y10, 2.0)[: 32].tobytes() for d in tune}
    assert not tops & {d.render(Y10, 2.0)[: 32].tobytes() for d in held}


@pytest.mark.parametrize("px", [2.0, 3.3, 8.0, 10.0])
def test_sizes_match_card_mm(px: float) -> None:
    for d in (design("tune", 0), design("tune", 7), design("held", 11)):
        w, h = d.card_mm
        img = d.render(Tactic.ALEXANDER, px)
        assert img.shape == (round(h * px), round(w * px), 3) and img.dtype == np.uint8


def test_every_option_occurs_several_times() -> None:
    seen = Counter((k, d.opt(k)) for d in ALL for k in OPTIONS)
    rare = {(k, v): seen[k, v] for k, vs in OPTIONS.items() for v in vs if seen[k, v] < 3}
    assert not rare
    shapes = Counter(sym for d in ALL for sym in set(d.symbols))
    assert min(shapes.values()) >= 3 and len(shapes) == 6
    caps = [d.cap_mm for d in ALL]
    assert min(caps) >= 6.0 and max(caps) <= 14.0 and max(caps) - min(caps) > 4
    assert sum(d.corner_radius_mm > 0 for d in ALL) >= 5
    assert {d.card_mm for d in ALL} == {(63.0, 88.0), (57.0, 89.0), (59.0, 91.0)}


def test_index_stays_in_the_top_band() -> None:
    for d in ALL:
        assert index_top(d) + index_block(d)[1] <= INDEX_LIMIT_MM, d.name
    # Drawn, with nothing else that varies by value: a 3 and an 8 differ only up there.
    for d in ALL[::3]:
        bare = dataclasses.replace(d, opts=tuple(
            (k, {"body": "blank", "top_art": "none", "bottom_index": "no",
                 "unit_name": "none"}.get(k, v)) for k, v in d.opts))
        px = 4.0
        diff = np.abs(bare.render(R3, px).astype(int) - bare.render(R8, px).astype(int)).max(2)
        rows = np.nonzero(diff.max(1) > 30)[0]
        assert rows.size and rows.max() < 15.0 * px, d.name


def test_suits_are_distinguishable() -> None:
    for d in ALL:
        assert suit_distance(d.suits) >= SUIT_FLOOR, d.name
        if d.opt("face") == "dark":  # light enough to read on the dark face
            assert min(lab(c)[0] for c in d.suits) - lab(d.dark)[0] > 25, d.name


def _band_lab(d: DeckDesign, px: float) -> np.ndarray:
    """Every face's top 16 mm in Lab, drawn without per-card art (which would
    otherwise tell two cards apart even if their indices were the same)."""
    bare = dataclasses.replace(d, opts=tuple(
        (k, "none" if k == "top_art" and v == "illustration" else v) for k, v in d.opts))
    bands = [bare.render(f, px)[: round(16 * px)] for f in ALL_FACES]
    return np.stack([cv2.cvtColor(b.astype(np.float32) / 255, cv2.COLOR_BGR2Lab) for b in bands])


@pytest.mark.parametrize("d", ALL[::4], ids=lambda d: d.name)  # a sample: 3,500 faces take 30 s
def test_every_face_has_its_own_top_band(d: DeckDesign) -> None:
    labs = _band_lab(d, 2.0).reshape(len(ALL_FACES), -1, 3)
    for i in range(len(ALL_FACES) - 1):
        de = np.linalg.norm(labs[i + 1:] - labs[i], axis=2)  # per pixel, vs every later face
        differing = (de > 12).sum(1)  # pixels clearly different, at 0.25 mm² each
        worst = int(differing.argmin())  # a thin 5 and 8 at 6 mm differ in about 3.5 mm²
        assert differing[worst] >= 10, (d.name, ALL_FACES[i], ALL_FACES[i + 1 + worst])


def test_sheet() -> None:
    d = design("tune", 1)
    sheet = design_sheet(d, 1.0)
    assert sheet.shape[0] > 8 * 88 and sheet.shape[2] == 3
