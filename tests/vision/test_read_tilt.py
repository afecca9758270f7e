import numpy as np

from vision import read
from vision.calibrate import Calibrator
from vision.profile import TPL_PX, builtin_profile
from vision.read import Reader
from vision.reading.tilt import TopEdges
from vision.simulated.camera_model import Camera
from vision.simulated.synth import Conditions, lay_table, photograph

_FOUND = TopEdges.find  # as found, however often a test moves it


def _read_with_tilts_off(monkeypatch, off: float) -> dict[str, tuple[str, float]]:
    """A table read with every band's top edge found ``off`` its card's tilt (the runner-up
    as far off), every read taken as doubtful: zone -> (token, confidence)."""
    zones = {"flag3.south": ["G8"], "flag5.north": ["R6"], "flag7.south": ["B9"]}
    rng = np.random.default_rng(5)
    table = lay_table(zones, "companion", rng, zone_seed=77)
    cam = Camera(tilt_x_deg=3.0, tilt_y_deg=-2.0, yaw_deg=1.0, fill=0.92)
    image = photograph(table, cam, Conditions(noise=3.0, blur=1.2, jpeg=85), rng).image

    def off_tilt(self, crops):
        return [e._replace(slope=e.slope + off, runner_up=e.slope + off)
                for e in _FOUND(self, crops)]

    monkeypatch.setattr(TopEdges, "find", off_tilt)
    monkeypatch.setattr(read, "SURE", 1.01)
    res = Reader(builtin_profile()).read(image, Calibrator().update(image))
    return {c.zone: (c.token, c.confidence) for c in res.cards}


def test_a_doubtful_read_is_tried_a_little_either_way_of_its_found_tilt(monkeypatch):
    # B9's top edge found two hundredths off its tilt reads less surely there; tried a
    # hundredth back, the card fits better and is read surely.
    assert _read_with_tilts_off(monkeypatch, 0.0)["flag7.south"] == ("B9", 1.0)
    assert _read_with_tilts_off(monkeypatch, 0.02)["flag7.south"] == ("B9", 1.0)
    monkeypatch.setattr(read, "FINE_TILTS", ())
    token, confidence = _read_with_tilts_off(monkeypatch, 0.02)["flag7.south"]
    assert token == "B9" and confidence < 0.99


def test_a_doubtful_read_steps_on_while_the_fit_rises(monkeypatch):
    # Found four hundredths off, one step back is not enough for B9 (nor G8 the other
    # way); stepping on while the card fits better reaches each card's own tilt.
    assert _read_with_tilts_off(monkeypatch, 0.04)["flag7.south"] == ("B9", 1.0)
    assert _read_with_tilts_off(monkeypatch, -0.04)["flag3.south"] == ("G8", 1.0)
    monkeypatch.setattr(read, "FINE_STEPS", 1)
    assert _read_with_tilts_off(monkeypatch, 0.04)["flag7.south"][1] < 0.9
    assert _read_with_tilts_off(monkeypatch, -0.04)["flag3.south"][1] < 0.9


def test_the_index_found_at_one_tilt_is_looked_for_where_it_lies_at_another():
    # A band turned about its top edge's middle: the index near its left end moves down
    # as the tilt rises, by the tilt times its distance from the middle.
    from vision.reading.placement import Band, Placed, Placer
    from vision.reading.templates import Templates

    profile = builtin_profile()
    placer = Placer(Templates(profile), profile.card_w)
    band = Band(None, 10.0, 20.0, np.eye(3), 20, np.ones(3))  # type: ignore[arg-type]
    pl = Placed(0.0, None, None, None, 12, 14, None, None)  # type: ignore[arg-type]
    assert placer.turned(band, pl, 0.0) == (12, 14)
    x, y = placer.turned(band, pl, 0.04)
    mid = placer.band_matrix(10.0, 20.0, 0.0) @ np.array([12.0, 14.0, 1.0])
    back = placer.band_matrix(10.0, 20.0, 0.04) @ np.array([x, y, 1.0])
    assert np.hypot(*(back - mid)[:2]) <= 1 / TPL_PX  # the same place, to a template pixel
    assert 2 <= y - 14 <= 3  # some 60 px left of the middle: 0.04 of that
