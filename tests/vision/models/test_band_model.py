"""A deck's own learnt model: names its cards from bands as a camera shows them,
and says it is unsure of a card the deck does not hold."""

import dataclasses

import cv2
import numpy as np
import pytest

from companion.rules.cards import parse_token
from vision.designs import design
from vision.models.band_model import (
    SEARCH_PX,
    SOFT_AS_TRAINED_MM,
    BandModel,
    as_camera_shows,
    as_trained,
    features,
)
from vision.models.learnt import with_model
from vision.profile import TPL_PX, ProfileError, profile_from_cards
from vision.simulated.room import motion_blur

TOKENS = [f"{c}{v}" for c in "RBGY" for v in (1, 3, 6, 8, 9)] + ["AL", "FOG"]


@pytest.fixture(scope="module")
def deck():
    art = design("tune", 0)  # thin script numerals under a thick shared frame
    w, h = art.card_mm
    cards = {t: art.render(parse_token(t), 8.0) for t in TOKENS}
    return art, profile_from_cards("test", cards, w, h)


def _bands(profile, tokens, seed):
    rng = np.random.default_rng(seed)
    rows = round(profile.band_mm * TPL_PX)
    out = []
    for t in tokens:
        band = as_camera_shows(profile.tops[profile.tokens.index(t)], rng, 16.0,
                     profile.tops[0], rows + 2 * SEARCH_PX)
        out.append(np.pad(band, ((0, 0), (SEARCH_PX, SEARCH_PX), (0, 0)), mode="edge"))
    return np.stack(out)


def test_the_model_names_the_cards_whose_shared_frame_fools_the_templates(deck):
    _, profile = deck
    # As many draws as enrolment takes: the features' lightness blocks need them.
    model = BandModel.train(profile, seed=1)
    best, sure = model.judge(_bands(profile, TOKENS, 2), 16.0)
    named = [model.tokens[b] for b in best]
    assert named == TOKENS
    # Drawn as blurred as a card a metre off shows (BLUR_PX): most are sure.
    assert (sure >= 0.5).mean() >= 0.75


def test_a_sharp_cameras_band_is_weighed_as_soft_as_the_model_learnt_its_cards(deck):
    """A sharp frame's band of the right card lay far from its centre and near the
    others' (the trust then named few): blurred to SOFT_AS_TRAINED_MM it lies near
    its own card again, further from the runner-up; a softer one is left as it is."""
    _, profile = deck
    model = BandModel.train(profile, seed=1, samples=20)
    rows, s = round(profile.band_mm * TPL_PX), SEARCH_PX
    sharp = np.stack([np.pad(top[:rows].astype(np.float32) / 255, ((s, s), (s, s), (0, 0)),
                             mode="edge") for top in profile.tops])
    shown, soft = as_trained(sharp, 0.2)
    assert soft == SOFT_AS_TRAINED_MM
    before, after = model.look(sharp, 16.0), model.look(shown, 16.0)
    right = np.arange(len(profile.tokens))
    assert (after.best == right).all()
    assert np.median(after.nearest) < 0.6 * np.median(before.nearest)
    assert (np.median(np.log(after.runner_up / after.nearest))
            > np.median(np.log(before.runner_up / before.nearest)) + 0.3)
    for told in (1.2, float("nan")):  # softer than trained, or not known
        same, kept = as_trained(sharp, told)
        assert same is sharp and kept is told


def test_a_band_smeared_by_a_shaken_camera_is_held_near_its_own_card(deck, monkeypatch):
    """A knocked table or a shaken camera smears a frame along a line (3 mm here): a
    model that learnt such smears holds a smeared band nearer its own card, and names
    more of them, than one that learnt only round blur from the same other draws."""
    _, profile = deck
    learnt = BandModel.train(profile, seed=1, samples=20)
    monkeypatch.setattr("vision.models.band_model.SHAKE", 0.0)
    unshaken = BandModel.train(profile, seed=1, samples=20)
    rng = np.random.default_rng(7)
    tokens = TOKENS * 4
    smeared = np.stack([motion_blur(b, 6.0, float(rng.uniform(0, 180)))
                        for b in _bands(profile, tokens, 3)])
    right = np.array([profile.tokens.index(t) for t in tokens])
    shaken, plain = learnt.look(smeared, 16.0), unshaken.look(smeared, 16.0)
    assert (shaken.best == right).sum() > (plain.best == right).sum()
    own = np.arange(len(tokens))
    near = [np.median(m.per_dimension(m.distances(smeared, 16.0), 16.0)[own, right])
            for m in (learnt, unshaken)]
    assert near[0] < 0.9 * near[1]


def test_every_shift_is_judged_as_the_band_cut_there(deck):
    """The shift search samples block means taken once: the same features as the
    view cut at that shift and taken on its own."""
    _, profile = deck
    bands = _bands(profile, ["R3", "AL"], 4)
    s = SEARCH_PX
    rows, width = bands.shape[1] - 2 * s, bands.shape[2] - 2 * s
    at_once = features(bands, 16.0, profile.card_w, margin=s)
    k = 0
    for dy in range(2 * s + 1):
        for dx in range(2 * s + 1):
            alone = features(np.ascontiguousarray(bands[:, dy:dy + rows, dx:dx + width]),
                             16.0, profile.card_w)
            assert np.allclose(at_once[:, k, :], alone, atol=0.05)
            k += 1


def test_a_card_the_deck_lacks_is_not_named_with_confidence(deck):
    _, profile = deck
    keep = [i for i, t in enumerate(profile.tokens) if t not in ("R6", "B6")]
    lacking = type(profile)("lacking", [profile.tokens[i] for i in keep], profile.gray[keep],
                            profile.chroma[keep], profile.card_w, profile.card_h,
                            profile.band_mm, profile.tops[keep])
    model = BandModel.train(lacking, seed=1, samples=20)
    _, sure = model.judge(_bands(profile, ["R6", "B6"], 3), 16.0)
    assert (sure < 0.5).all()


def test_a_saved_profile_keeps_the_card_tops_the_model_learns_from(deck, tmp_path):
    _, profile = deck
    profile.save(tmp_path / "deck.npz")
    again = type(profile).load(tmp_path / "deck.npz")
    assert again.tops is not None and np.array_equal(again.tops, profile.tops)


def test_an_enrolled_profile_carries_its_model_and_the_reader_uses_it(deck, tmp_path):
    from vision.read import Reader

    _, profile = deck
    assert BandModel.of(profile) is None  # a profile made before models: templates read it
    profile.save(tmp_path / "deck.npz")
    trained = with_model(type(profile).load(tmp_path / "deck.npz"))
    trained.save(tmp_path / "deck.npz")
    again = type(profile).load(tmp_path / "deck.npz")
    model = Reader(again).model
    assert model is not None and model.tokens == profile.tokens
    best, _ = model.judge(_bands(profile, ["R3", "Y9", "AL"], 5), 16.0)
    assert [model.tokens[b] for b in best] == ["R3", "Y9", "AL"]


def test_workers_learn_the_same_models_as_one_process(deck):
    # Workers fit the faces and each height's discriminant while this process draws
    # the bands: the same draws however many workers (BLAS sums in its own order).
    from vision.models.face_model import FaceModel

    _, profile = deck
    one, two = (with_model(profile, seed=4, jobs=jobs) for jobs in (1, 2))
    bands = _bands(profile, TOKENS, 9)
    a, b = BandModel.of(one), BandModel.of(two)
    assert a is not None and b is not None
    for h in (8.0, 16.0):
        assert np.allclose(a.distances(bands, h), b.distances(bands, h), rtol=1e-3)
    assert a.typical_gap == pytest.approx(b.typical_gap, rel=1e-3)
    fa, fb = FaceModel.of(one), FaceModel.of(two)
    assert fa is not None and fb is not None
    assert np.allclose(fa.centres @ fa.projection.T, fb.centres @ fb.projection.T, rtol=1e-3,
                       atol=1e-4)


def test_the_self_test_says_how_far_apart_a_deck_holds_its_cards(deck, tmp_path):
    from vision.profile import builtin_profile

    _, thin = deck
    classic = builtin_profile("classic")
    keep = [classic.tokens.index(t) for t in TOKENS]
    assert classic.tops is not None
    bold = type(classic)("bold", TOKENS, classic.gray[keep], classic.chroma[keep],
                         classic.card_w, classic.card_h, classic.band_mm, classic.tops[keep])
    held = {p.name: BandModel.train(p, seed=1, samples=20) for p in (thin, bold)}
    # Thin script numerals under a thick shared frame lie nearer each other than bold
    # numerals on plain faces, as a camera across the table shows them.
    assert held["test"].typical_gap is not None and held["bold"].typical_gap is not None
    assert 0 < held["test"].typical_gap < held["bold"].typical_gap
    # Kept with the deck; a model saved before self-tests has none (the trust then
    # takes the tuning decks' typical gap).
    saved = dataclasses.replace(thin, model=held["test"].to_arrays())
    saved.save(tmp_path / "deck.npz")
    again = BandModel.of(type(thin).load(tmp_path / "deck.npz"))
    assert again is not None and again.typical_gap == pytest.approx(held["test"].typical_gap)
    older = {k: v for k, v in held["test"].to_arrays().items() if k != "typical_gap"}
    before = BandModel.of(dataclasses.replace(thin, model=older))
    assert before is not None and before.typical_gap is None
    for damaged in (np.array([0.5, 0.7], np.float32), np.array(np.nan, np.float32),
                    np.array(-1.0, np.float32)):
        odd = BandModel.of(dataclasses.replace(thin, model={**older, "typical_gap": damaged}))
        assert odd is not None and odd.typical_gap is None


def test_the_runner_up_is_the_card_the_model_hesitated_over(deck):
    _, profile = deck
    model = BandModel.train(profile, seed=1, samples=20)
    look = model.look(_bands(profile, ["R3", "G8", "FOG"], 5), 16.0)
    assert [model.tokens[b] for b in look.best] == ["R3", "G8", "FOG"]
    assert (look.second != look.best).all() and (look.runner_up >= look.nearest).all()
    # The runner-up's distance is the next one: a band of the runner-up's own card
    # lies nearer to it than to the winner's.
    again = model.look(_bands(profile, [model.tokens[b] for b in look.second], 6), 16.0)
    assert (again.best == look.second).all()


@pytest.mark.parametrize(("index", "where"), [(11, "centre"), (4, "left")])
def test_the_telling_window_lies_on_the_index(index, where):
    """Where a suit's cards differ: a small numeral in a circle at the top's middle
    (tune-11), a numeral in the corner (tune-04)."""
    from vision.models.band_model import telling_window

    art = design("tune", index)
    w, h = art.card_mm
    cards = {f"{s}{v}": art.render(parse_token(f"{s}{v}"), 8.0) for s in "RG" for v in range(1, 11)}
    profile = profile_from_cards("test", cards, w, h)
    x, y, k = telling_window(profile.tops, profile.tokens, 16.0)
    middle = (x + k / 2) / TPL_PX
    if where == "centre":
        assert abs(middle - w / 2) < 4.0, (x, y, k)
    else:
        assert middle < w / 3, (x, y, k)
    assert y + k <= 16.0 * TPL_PX


def test_a_model_whose_arrays_do_not_fit_its_features_is_not_used(deck):
    """A damaged or foreign file: its projection cannot take the features the reader
    makes, so the profile reads with the templates instead of failing mid-read."""
    from dataclasses import replace

    _, profile = deck
    arrays = BandModel.train(profile, seed=1, samples=4).to_arrays()
    assert BandModel.of(replace(profile, model=arrays)) is not None
    broken = {k: v for k, v in arrays.items() if not k.startswith("window_")}
    assert BandModel.of(replace(profile, model=broken)) is None


def test_a_band_is_only_named_as_a_card_its_zone_may_hold(deck):
    _, profile = deck
    model = BandModel.train(profile, seed=1, samples=20)
    bands = _bands(profile, ["R3", "FOG", "B8"], 7)
    free = model.look(bands, 16.0)
    assert [model.tokens[b] for b in free.best] == ["R3", "FOG", "B8"]
    # A zone that may not hold the band's own card: the nearest card it may hold, and
    # the runner-up among those too (never the band's own card).
    allowed = np.ones((3, len(model.tokens)), bool)
    allowed[0, model.tokens.index("R3")] = False
    allowed[1] = [t in ("AL", "R1") for t in model.tokens]
    held = model.look(bands, 16.0, allowed)
    assert model.tokens[held.best[0]] != "R3" and model.tokens[held.second[0]] != "R3"
    assert {model.tokens[held.best[1]], model.tokens[held.second[1]]} == {"AL", "R1"}
    assert held.nearest[1] > free.nearest[1]
    assert held.best[2] == free.best[2] and held.nearest[2] == free.nearest[2]
    # A zone that leaves one card of the deck (or none) chooses nothing: all are weighed.
    one = np.zeros((3, len(model.tokens)), bool)
    one[:, model.tokens.index("AL")] = True
    assert (model.look(bands, 16.0, one).best == free.best).all()


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_a_deck_of_one_card_learns_no_model(deck):
    # The guided enrolment saves a deck however few cards it took: one card has
    # nothing to tell apart, so it is saved as it is, not with a model of no dimension.
    _, profile = deck
    one = dataclasses.replace(profile, tokens=profile.tokens[:1], gray=profile.gray[:1],
                              chroma=profile.chroma[:1], tops=profile.tops[:1])
    assert with_model(one).model is None
    with pytest.raises(ProfileError, match="two or more"):
        BandModel.train(one, samples=5)


def _header_card(lab: tuple[float, float, float], numeral: str) -> np.ndarray:
    """A plain card at 8 px/mm: a header of Lab colour ``lab`` with a white numeral in
    both corners, on white."""
    px = 8
    img = np.full((88 * px, 63 * px, 3), 245, np.uint8)
    colour = np.uint8([[[lab[0] * 255 / 100, lab[1] + 128, lab[2] + 128]]])
    img[:18 * px] = cv2.cvtColor(colour, cv2.COLOR_Lab2BGR)[0, 0]
    for x in (5, 48):
        cv2.putText(img, numeral, (x * px, 13 * px), cv2.FONT_HERSHEY_SIMPLEX, 3.2,
                    (250, 250, 250), 14)
    return img


def test_a_dark_and_a_light_header_of_one_hue_are_told_apart():
    """A navy and a light blue-violet header with the same white numeral: once each
    band's grey is brought to unit spread and a lamp has washed their hues, only how
    light the header is tells them apart (tune-08's blue and purple troops)."""
    navy, light = (28.0, 12.0, -40.0), (62.0, 12.0, -40.0)
    cards = {"B1": _header_card(navy, "1"), "P1": _header_card(light, "1"),
             "B2": _header_card(navy, "2"), "P2": _header_card(light, "2"),
             "R1": _header_card((50.0, 55.0, 35.0), "1"),
             "G1": _header_card((50.0, -45.0, 35.0), "1")}
    profile = profile_from_cards("headers", cards, 63, 88)
    model = BandModel.train(profile, seed=3)
    tokens = [t for t in profile.tokens for _ in range(30)]
    best, _ = model.judge(_bands(profile, tokens, 5), 16.0)
    wrong = sum(model.tokens[b] != t for b, t in zip(best, tokens, strict=True))
    # Without the lightness 17 of the 180 bands were read as the other header's card.
    assert wrong <= 6
