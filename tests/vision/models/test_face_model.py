"""The whole-face model: the last card at a flag shows all of itself."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.rules.cards import parse_token
from vision.designs import design
from vision.models.band_model import as_camera_shows, two_nearest
from vision.models.face_model import FACE_PX, FACE_SEARCH_PX, FaceModel
from vision.models.learnt import with_model
from vision.profile import TPL_PX, DeckProfile, ProfileError, profile_from_cards
from vision.reading.trust import face_speaks

TOKENS = [f"{c}{v}" for c in "RBG" for v in (2, 5, 7, 10)] + ["AL", "FOG"]


@pytest.fixture(scope="module")
def deck() -> DeckProfile:
    art = design("tune", 0)  # each rank its own picture, thin script numerals
    cards = {t: art.render(parse_token(t), 8.0) for t in TOKENS}
    return profile_from_cards("faces", cards, *art.card_mm)


def _faces(profile: DeckProfile, tokens: list[str], seed: int) -> np.ndarray:
    """Faces of ``tokens`` as a camera shows them, at FACE_PX with the model's slack."""
    assert profile.faces is not None
    rng = np.random.default_rng(seed)
    m, f = FACE_SEARCH_PX, FACE_PX / TPL_PX
    drawn = [as_camera_shows(profile.faces[profile.tokens.index(t)], rng, profile.card_h + 2.0,
                             profile.faces[0], profile.faces.shape[1]) for t in tokens]
    return np.stack([np.pad(cv2.resize(d, None, fx=f, fy=f, interpolation=cv2.INTER_AREA),
                            ((m, m), (m, m), (0, 0)), mode="edge") for d in drawn])


def test_a_face_lies_near_its_own_card_and_far_from_every_other(deck):
    model = FaceModel.train(deck, seed=1, samples=12)
    assert model is not None
    shown = ["R2", "R10", "G7", "B5", "AL"]
    look = two_nearest(model.distances(_faces(deck, shown, 2)))
    assert [model.tokens[b] for b in look.best] == shown
    # A whole face tells its card surely: the runner-up lies many times further.
    assert (np.log(look.runner_up / look.nearest) > 1.0).all()


def test_the_faces_and_their_model_survive_the_profile_file(deck, tmp_path):
    trained = with_model(deck)
    trained.save(tmp_path / "deck.npz")
    again = DeckProfile.load(tmp_path / "deck.npz")
    assert again.faces is not None and np.array_equal(again.faces, deck.faces)
    model = FaceModel.of(again)
    assert model is not None and model.tokens == deck.tokens
    look = two_nearest(model.distances(_faces(deck, ["B7", "FOG"], 3)))
    assert [model.tokens[b] for b in look.best] == ["B7", "FOG"]


def test_a_profile_file_whose_faces_do_not_fit_its_cards_is_refused_saying_so(deck, tmp_path):
    assert deck.faces is not None
    replace(deck, faces=deck.faces[:, :-4]).save(tmp_path / "cut.npz")
    with pytest.raises(ProfileError, match=r"cut\.npz: inconsistent profile \(card faces\)"):
        DeckProfile.load(tmp_path / "cut.npz")


def test_a_profile_without_faces_has_no_face_model_and_a_damaged_one_reads_none(deck):
    bare = replace(deck, faces=None)
    assert FaceModel.train(bare) is None
    assert FaceModel.of(with_model(bare)) is None  # the band model alone
    arrays = dict(with_model(deck).model or {})
    arrays["face_proj"] = arrays["face_proj"][:-3]  # cut short: fits no face's features
    assert FaceModel.of(replace(deck, model=arrays)) is None


def test_a_face_speaks_only_near_one_card_and_far_from_the_rest():
    near = np.array([0.3, 0.3, 5.0, 0.3])  # the third lies near no card
    runner = np.array([9.0, 0.5, 90.0, 0.3 * np.e ** 1.02])  # the second's runner-up as near
    assert face_speaks(near, runner).tolist() == [True, False, False, True]


def test_a_face_that_agrees_with_the_band_speaks_from_a_narrower_gap():
    near = np.array([2.5, 0.5, 0.5, 3.5])  # the last lies too far even agreeing
    runner = near * np.e ** np.array([0.8, 0.8, 0.6, 2.0])
    agreed = np.array([True, True, True, True])
    assert face_speaks(near, runner).tolist() == [False, False, False, False]
    assert face_speaks(near, runner, agreed).tolist() == [True, True, False, False]
    assert face_speaks(near, runner, ~agreed).tolist() == [False, False, False, False]


@pytest.fixture(scope="module")
def table_of_faces():
    """A calm table of a deck whose faces differ by rank (tune-00), the deck as drawn."""
    from vision.deck_art import ALL_FACES
    from vision.simulated.camera_model import Camera
    from vision.simulated.synth import Conditions, lay_table, photograph, random_deal

    art = design("tune", 0)
    profile = profile_from_cards("tune-00", {f.token: art.render(f, 8.0) for f in ALL_FACES},
                                 *art.card_mm)
    rng = np.random.default_rng(11)
    table = lay_table(random_deal(rng, 0.6), art, rng)
    cam = Camera(yaw_deg=1.5, tilt_x_deg=4.0, tilt_y_deg=-3.0, fill=0.92)
    cond = Conditions(gain=(1.05, 1.0, 0.92), gradient=(0.15, -0.1), blur=0.6, noise=2.0,
                      jpeg=90)
    return profile, table, photograph(table, cam, cond, rng)


def test_the_reader_names_each_zones_last_card_by_its_face_and_no_other(table_of_faces):
    """The true faces name most of the zones' last cards the band leaves unknown (or
    names twice), none wrongly, and leave the last cards the band names as it names
    them; a face model holding every card's face for another's (rolled on to the next
    token) names none of them, makes most last cards the band names ask (the face
    surely shows another card), and leaves every other card as the band reads it (or asking)."""
    from vision.calibrate import Calibrator
    from vision.models.band_model import BandModel
    from vision.position import UNKNOWN
    from vision.read import Reader

    profile, table, frame = table_of_faces
    assert profile.faces is not None
    band = BandModel.train(profile, seed=1, samples=12)
    true_faces = FaceModel.train(profile, seed=1, samples=8)
    rolled = FaceModel.train(replace(profile, faces=np.roll(profile.faces, 1, axis=0)),
                             seed=1, samples=8)
    assert true_faces is not None and rolled is not None
    calib = Calibrator().update(frame.image)
    assert Reader(profile, model=band).face is None  # the drawn deck carries no model
    reads = {name: {(c.zone, c.order): c.token for c in
                    Reader(profile, model=band, face=face).read(frame.image, calib).cards}
             for name, face in (("band", None), ("faces", true_faces), ("rolled", rolled))}
    truth = table.zones
    last = {(z, len(toks) - 1) for z, toks in truth.items()}
    alone, faced, moved = reads["band"], reads["faces"], reads["rolled"]
    assert all(truth[z][k] == t for (z, k), t in faced.items() if t != UNKNOWN)  # none wrong
    asked = {key for key in last if alone.get(key) == UNKNOWN}
    assert sum(faced.get(key) != UNKNOWN for key in asked) >= 0.75 * len(asked) > 0
    # A rolled face names the token after its card's, which is none of the band's two
    # nearest for such a card: the face is not heard, and the card still asks.
    assert all(moved.get(key) == UNKNOWN for key in asked)
    # Every other card as the band alone reads it (a card named elsewhere frees an
    # unknown one's rivals, ``Reader._without_taken``: such a card may ask instead).
    assert all(moved.get(key) in (t, UNKNOWN) for key, t in alone.items() if key not in asked)
    # The true faces leave the last cards the band named as it named them; a face that
    # surely shows another card (each rolled face is another card's) makes them ask.
    named = {key for key in last if alone.get(key) not in (None, UNKNOWN)}
    assert named and all(faced[key] == alone[key] for key in named)
    assert sum(moved[key] == UNKNOWN for key in named) >= 0.75 * len(named)
