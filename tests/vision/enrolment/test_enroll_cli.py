import json
from collections import Counter
from pathlib import Path
from unittest import mock

import cv2
import numpy as np
import pytest

from tests.vision.conftest import calm_scene
from vision.calibrate import Calibrator
from vision.cli import main
from vision.deck_art import ALL_FACES
from vision.enrolment.enroll import enroll_from_dir, find_card, live_enroll
from vision.profile import DeckProfile, ProfileError, builtin_profile
from vision.read import Reader
from vision.simulated.camera_model import Camera
from vision.simulated.synth import Conditions, card_photo, lay_table, photograph, random_deal
from vision.sources.base import FramePair, low_from_main


@pytest.fixture(scope="module")
def photo_dir(tmp_path_factory) -> Path:
    """One rendered phone photo per card of the classic deck, named by token."""
    folder = tmp_path_factory.mktemp("classic-deck")
    rng = np.random.default_rng(5)
    for face in ALL_FACES:
        cv2.imwrite(str(folder / f"{face.token}.jpg"),
                    card_photo(face.token, "classic", rng, size=(600, 800)))
    return folder


def test_find_card_flattens_a_photo_to_an_upright_card():
    rng = np.random.default_rng(1)
    photo = card_photo("R7", "classic", rng, size=(600, 800))
    card = find_card(photo)
    assert card.shape[0] > card.shape[1]  # portrait
    # Top band holds the frame's red; the middle holds the picture.
    b, g, r = card[5, card.shape[1] // 2].astype(int)
    assert r > g + 40 and r > b + 40


@pytest.mark.slow
def test_enrol_command_writes_a_profile_that_reads_its_own_cards(photo_dir, tmp_path, capsys):
    out = tmp_path / "classic.npz"
    assert main(["enroll", "--from-dir", str(photo_dir), "--out", str(out)]) == 0
    assert "79 cards" in capsys.readouterr().out
    profile = DeckProfile.load(out)
    assert len(profile.tokens) == 79
    # A table laid with that deck, photographed by the table camera, reads back.
    table, frame = calm_scene(21, "classic")
    res = Reader(profile).read(frame.image, Calibrator().update(frame.image))
    truth = Counter(t for toks in table.zones.values() for t in toks)
    got = Counter(t for toks in res.zones().values() for t in toks if t != "unknown")
    assert not got - truth  # no card given a token it does not have
    # The rest ask: the deck's model names a card only where the trust reaches
    # NAME_AT (some of this deck's cards read at 0.993, the templates agreeing).
    assert sum((got & truth).values()) >= 0.8 * sum(truth.values())


def test_enrolment_names_bad_files_and_missing_cards(tmp_path):
    rng = np.random.default_rng(2)
    cv2.imwrite(str(tmp_path / "R7.jpg"), card_photo("R7", "classic", rng, size=(600, 800)))
    (tmp_path / "B3.png").write_bytes(b"\x89PNG\r\n\x1a\nthis is not really a png")
    (tmp_path / "Q9.jpg").write_bytes((tmp_path / "R7.jpg").read_bytes())
    with pytest.raises(ProfileError) as err:
        enroll_from_dir(tmp_path)
    msg = str(err.value)
    assert "B3.png: not a readable image" in msg
    assert "'Q9' is not a card token" in msg
    (tmp_path / "B3.png").unlink()
    (tmp_path / "Q9.jpg").unlink()
    with pytest.raises(ProfileError, match=r"no photo of 69 cards: "):
        enroll_from_dir(tmp_path)
    assert enroll_from_dir(tmp_path, partial=True).tokens == ["R7"]


def test_photos_looked_at_by_workers_are_each_judged_and_told_in_the_players_language(
        tmp_path):
    # Workers look at the photos at once (every core of a Pi): each one's problem is
    # still named, in the language the player chose, as one process names them.
    from companion.i18n import language, set_language

    rng = np.random.default_rng(2)
    cv2.imwrite(str(tmp_path / "R7.jpg"), card_photo("R7", "classic", rng, size=(600, 800)))
    for name in ("B3.png", "G5.jpg"):
        (tmp_path / name).write_bytes(b"\x89PNG\r\n\x1a\nthis is not really a png")
    was = language()
    try:
        set_language("cs")
        told = []
        for jobs in (1, 2):
            with pytest.raises(ProfileError) as err:
                enroll_from_dir(tmp_path, partial=True, jobs=jobs)
            told.append(str(err.value))
        set_language("en")
        with pytest.raises(ProfileError) as err:
            enroll_from_dir(tmp_path, partial=True, jobs=2)
    finally:
        set_language(was)
    assert told[0] == told[1] != str(err.value)
    assert "B3.png" in told[1] and "G5.jpg" in told[1]


def test_profile_round_trips_and_rejects_junk(tmp_path):
    p = builtin_profile()
    path = tmp_path / "ours.npz"
    p.save(path)
    q = DeckProfile.load(path)
    assert q.tokens == p.tokens and np.allclose(q.gray, p.gray)
    junk = tmp_path / "junk.npz"
    junk.write_text("not a profile")
    with pytest.raises(ProfileError, match=r"junk\.npz: not a deck profile"):
        DeckProfile.load(junk)


def test_read_command_prints_the_position(calm, tmp_path, capsys):
    _, frame = calm
    img = tmp_path / "table.png"
    cv2.imwrite(str(img), frame.image)
    assert main(["read", str(img)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["position"]["format"] == "battleline-position/1"
    assert len(out["position"]["flags"]) == 9
    assert out["cards"] and all({"zone", "token", "confidence"} <= set(c) for c in out["cards"])


def test_read_command_rejects_a_corrupt_image(tmp_path, capsys):
    bad = tmp_path / "table.jpg"
    bad.write_bytes(b"\xff\xd8\xff\xe0 truncated")
    assert main(["read", str(bad)]) == 1
    assert "table.jpg: not a readable image" in capsys.readouterr().err
    assert main(["read", str(tmp_path / "missing.jpg")]) == 1
    assert "no such file" in capsys.readouterr().err


def test_read_command_names_missing_markers(tmp_path, capsys):
    blank = tmp_path / "wall.png"
    cv2.imwrite(str(blank), np.full((400, 600, 3), 120, np.uint8))
    assert main(["read", str(blank)]) == 1
    assert "markers 0, 1, 2, 3, 4, 5 not found" in capsys.readouterr().err


def test_mat_layout_json_and_print_files(tmp_path, capsys):
    assert main(["mat", "--layout-json"]) == 0
    layout = json.loads(capsys.readouterr().out)
    assert layout["width"] > 800 and len(layout["markers"]) == 6
    assert main(["mat", "--out", str(tmp_path), "--dpi", "40"]) == 0
    names = {p.name for p in tmp_path.iterdir()}
    assert {"mat.png", "mat.pdf", "mat-tiles-a4.pdf", "mat-tiles-letter.pdf"} <= names
    png = cv2.imread(str(tmp_path / "mat.png"))
    assert abs(png.shape[1] - layout["width"] * 40 / 25.4) <= 1
    a4 = (tmp_path / "mat-tiles-a4.pdf").read_bytes()
    assert a4.startswith(b"%PDF-1.4") and a4.rstrip().endswith(b"%%EOF")
    # 868 x 632 mm on landscape A4 printable 277 x 190 mm: 4 x 4 sheets.
    assert a4.count(b"/Type /Page ") == 16


def test_deck_pdf_has_every_card(tmp_path, capsys):
    out = tmp_path / "deck.pdf"
    assert main(["deck", "--out", str(out), "--dpi", "60"]) == 0
    data = out.read_bytes()
    assert data.count(b"/Type /Page ") == 9  # 79 cards, nine a sheet


class _TableWithOneCard:
    """The table camera over the mat while a player enrols: only the asked card lies there."""

    def __init__(self) -> None:
        from vision.enrolment.enroll import ENROL_ZONE

        self.zone = ENROL_ZONE
        self.rng = np.random.default_rng(8)
        self.table = lay_table({}, "classic", self.rng)
        self.name = "table"
        self.prompts: list[str] = []

    def prompt(self, token: str) -> None:
        self.prompts.append(token)
        self.table = lay_table({self.zone: [token]}, "classic", self.rng)

    def read(self) -> FramePair:
        frame = photograph(self.table, Camera(tilt_x_deg=3.0, fill=0.92),
                           Conditions(gain=(1.05, 1.0, 0.93), noise=2.0, blur=0.5), self.rng)
        return FramePair(frame.image, low_from_main(frame.image))

    def close(self) -> None:
        pass


@pytest.mark.slow
def test_guided_live_enrolment_captures_each_card_from_the_table_camera():
    cam = _TableWithOneCard()
    tokens = ["R7", "B3", "MUD"]
    profile = live_enroll(cam, tokens, cam.prompt, still_frames=1)
    assert cam.prompts == tokens
    assert profile.tokens == sorted(tokens)
    ref = builtin_profile("classic")
    for t in tokens:
        a = profile.gray[profile.tokens.index(t)].ravel()
        b = ref.gray[ref.tokens.index(t)].ravel()
        a, b = a - a.mean(), b - b.mean()
        assert a @ b / np.linalg.norm(a) / np.linalg.norm(b) > 0.9, t


def test_live_enrolment_gives_up_clearly_when_no_card_comes():
    cam = _TableWithOneCard()
    with pytest.raises(ProfileError, match=r"R7: no card seen in the enrolment zone"):
        live_enroll(cam, ["R7"], lambda token: None, max_frames=3)


def test_enrolment_from_a_folder_names_a_card_cut_out_off_its_card(tmp_path):
    # The deck's layout (``consensus.astray``) says where a photo's card was cut off
    # it; the player is told which card to shoot again, as with any refused photo.
    rng = np.random.default_rng(2)
    cv2.imwrite(str(tmp_path / "R7.jpg"), card_photo("R7", "classic", rng, size=(600, 800)))
    with mock.patch("vision.enrolment.enroll.astray", return_value={"R7": "top"}), \
            pytest.raises(ProfileError) as err:
        enroll_from_dir(tmp_path, partial=True)
    assert str(err.value).startswith("cannot enrol:\n  R7: the card's outline was found off "
                                     "its top edge")
    assert "--keep-outline TOKEN" in str(err.value)  # how to keep a photo that is right


def test_a_photo_the_player_keeps_is_enrolled_as_found(tmp_path, capsys):
    # A card printed unlike its layout on one side would be named at every retake:
    # once the player has looked, ``--keep-outline`` takes its photo as it is.
    rng = np.random.default_rng(2)
    for token in ("R7", "G3"):
        cv2.imwrite(str(tmp_path / f"{token}.jpg"),
                    card_photo(token, "classic", rng, size=(600, 800)))
    with mock.patch("vision.enrolment.enroll.astray", return_value={"R7": "top"}):
        profile = enroll_from_dir(tmp_path, partial=True, keep_outlines=["r7"])
        assert sorted(profile.tokens) == ["G3", "R7"]
        out = tmp_path / "deck.npz"
        assert main(["enroll", "--from-dir", str(tmp_path), "--partial", "--out", str(out),
                     "--keep-outline", "R7"]) == 0
        assert sorted(DeckProfile.load(out).tokens) == ["G3", "R7"]
        # Kept or not, another card named off still asks to be shot again.
        assert main(["enroll", "--from-dir", str(tmp_path), "--partial", "--out", str(out),
                     "--keep-outline", "G3"]) == 1
    assert "R7: the card's outline was found off its top edge" in capsys.readouterr().err
    with pytest.raises(ProfileError, match="--keep-outline 'X7': not a card token"):
        enroll_from_dir(tmp_path, partial=True, keep_outlines=["X7"])


def test_read_command_votes_several_photos_of_one_table(tmp_path, capsys):
    # Three photos of one table from three places, and one that is no photo: the
    # three are read together (a card once), the bad one named and left out.
    rng = np.random.default_rng(21)
    table = lay_table(random_deal(rng, 0.6), "companion", rng)
    paths = []
    for k, (yaw, tilt) in enumerate([(1.5, 4.0), (-2.0, -3.0), (0.5, 6.0)]):
        cond = Conditions(gain=(1.05, 1.0, 0.92), blur=0.6, noise=2.0, jpeg=90)
        frame = photograph(table, Camera(yaw_deg=yaw, tilt_x_deg=tilt, fill=0.92), cond, rng)
        paths.append(tmp_path / f"table-{k}.jpg")
        cv2.imwrite(str(paths[-1]), frame.image)
    bad = tmp_path / "pocket.jpg"
    bad.write_bytes(b"\xff\xd8\xff\xe0 truncated")
    assert main(["read", *map(str, paths[:2]), str(bad), str(paths[2])]) == 0
    captured = capsys.readouterr()
    assert "pocket.jpg: not a readable image" in captured.err
    out = json.loads(captured.out)
    assert [p["image"] for p in out["photos"]] == [str(p) for p in paths]
    assert out["skipped"] == [str(bad)]
    assert out["position"]["format"] == "battleline-position/1"
    named = [(c["zone"], c["token"]) for c in out["cards"] if c["token"] != "unknown"]
    assert len(named) >= 0.9 * sum(len(v) for v in table.zones.values())
    assert all(t in table.zones[z] for z, t in named)
    assert len({t for _, t in named}) == len(named)
    assert out["unknown"] == len(out["cards"]) - len(named)
    # None readable: nothing to vote.
    assert main(["read", str(bad), str(tmp_path / "missing.jpg")]) == 1
