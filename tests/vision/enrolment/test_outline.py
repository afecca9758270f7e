"""A card's outline in a phone photo: its corners where the card's edge is, not on
a frame printed inside it nor on the table's grain beyond it."""

import numpy as np
import pytest

from companion.rules.cards import parse_token
from vision.designs import design
from vision.enrolment import locate, outline
from vision.enrolment.outline import find_outline
from vision.profile import ProfileError
from vision.simulated.photos import TABLES, photo_pixels

# A plain-faced card whose thick frame steps far more than its edge, a framed
# face, a full-bleed face, and a dark one.
DESIGNS = (0, 3, 5, 4)


def _corner_errors(art, tokens, table: str, seed: int) -> list[float]:
    """Per token, the farthest of the outline's corners from the card's (mm), in
    phone photos of it on ``table``."""
    w, h = art.card_mm
    rng = np.random.default_rng(seed)
    out = []
    for token in tokens:
        photo, truth = photo_pixels(art.render(parse_token(token), 8.0), rng, table,
                                    (1600, 1200))
        found, _ = find_outline(photo, w, h, token)
        px_mm = float(np.linalg.norm(truth[3] - truth[0])) / h
        out.append(float(np.linalg.norm(found - truth, axis=1).max()) / px_mm)
    return out


def test_the_corners_lie_on_the_cards_edge():
    rng = np.random.default_rng(40)
    errors, refused = [], 0
    for table in TABLES:
        for i in DESIGNS:
            art = design("tune", i)
            w, h = art.card_mm
            photo, truth = photo_pixels(art.render(parse_token("B8"), 8.0), rng, table,
                                        (1600, 1200))
            try:
                found, _ = find_outline(photo, w, h, f"B8 of {art.name} on {table}")
            except ProfileError:
                refused += 1
                continue
            px_mm = float(np.linalg.norm(truth[3] - truth[0])) / h
            errors.append(float(np.linalg.norm(found - truth, axis=1).max()) / px_mm)
    # Most cards flatten to a fraction of a millimetre; known misses (a frame taken
    # for the edge, a checked cloth's line beyond it) are in vision/ROUNDS.md. Of the
    # 36 photos 4 are refused: one of them tune-05's card on checks, outlined 8 mm off
    # and narrower than any card, which flattened it stretched before.
    assert refused <= 4, refused
    assert float(np.median(errors)) < 0.3, errors
    assert np.mean(np.array(errors) < 1.0) >= 0.8, errors


def test_a_card_located_by_a_frame_well_inside_it_is_outlined_at_its_edge(monkeypatch):
    # tune-00: a thick frame of three lines whose innermost, some 3 mm inside the
    # card's edge, is what the photo's outline first finds on a floral cloth.
    def errors() -> list[float]:
        return _corner_errors(design("tune", 0), ("O5", "B3", "R10", "Y1", "P6", "G7"),
                              "florals", 7)

    ours = errors()
    # On the card's edge, not the frame 3 mm in: within 0.3 mm, but for R10,
    # one of whose sides a lamp's shadow beside it moves 0.6 mm out.
    assert np.median(ours) < 0.3 and max(ours) < 1.0, ours
    monkeypatch.setattr(outline, "SEARCHES", 1)  # the edge then lies beyond the search
    assert np.mean(np.array(errors()) > 1.0) >= 0.5


def test_a_card_with_a_wide_hatched_border_is_outlined_at_its_edge():
    # tune-11: a border hatched some 3.5 mm wide inside a thin edge, on a plain
    # cloth. The hatching steps more than the card's edge does; the cloth beyond
    # steps far less, and only it tells what the table's grain is.
    errors = _corner_errors(design("tune", 11), ("R1", "P10", "G7", "O4", "B9", "Y2"),
                            "cloth", 11)
    assert max(errors) < 0.5, errors


def test_the_card_is_told_apart_from_the_colours_of_the_table_around_it():
    # A light card on wood: the parts of the photo whose colours the border never
    # shows are the card's, and the table's grain is not among them.
    import cv2

    from vision.enrolment.locate import unlike_border

    rng = np.random.default_rng(3)
    art = design("tune", 0)
    photo, truth = photo_pixels(art.render(parse_token("R5"), 8.0), rng, "wood", (800, 600))
    card = cv2.fillConvexPoly(np.zeros(photo.shape[:2], np.uint8),
                              np.round(truth).astype(np.int32), 255) > 0
    inside = cv2.erode(card.astype(np.uint8), np.ones((25, 25), np.uint8)) > 0
    outside = cv2.dilate(card.astype(np.uint8), np.ones((25, 25), np.uint8)) == 0
    mask = unlike_border(photo) > 0
    assert mask[inside].mean() > 0.5, mask[inside].mean()
    assert mask[outside].mean() < 0.05, mask[outside].mean()


def test_a_header_strip_printed_like_the_table_is_not_cut_off(monkeypatch):
    # tune-08: a navy strip across the card's top holds its index; on a dark red and
    # mint check the strip passes for the table, and the outline found first is the
    # white body's, some 15 mm short. No tilt makes a card that squat: the end that
    # adds card, not table, is found.
    art = design("tune", 8)
    w, h = art.card_mm
    seeds = (8, 18, 35, 38, 58)

    def found(seed: int) -> tuple[float, float]:
        photo, truth = photo_pixels(art.render(parse_token("B9"), 8.0),
                                    np.random.default_rng(seed), "checks", (1008, 756))
        corners, _ = find_outline(photo, w, h, "B9")
        px_mm = float(np.linalg.norm(truth[3] - truth[0])) / h
        return (float(np.linalg.norm(corners - truth, axis=1).max()) / px_mm,
                outline.proportion(corners) / (w / h))

    for seed in seeds:
        error, squat = found(seed)
        assert error < 1.0 and abs(squat - 1) < outline.SQUARE, (seed, error, squat)
    # Taken as first found, each would be flattened stretched, its index gone.
    monkeypatch.setattr(outline, "SQUARE", 1.0)
    assert all(found(seed)[0] > 10.0 for seed in seeds)


def test_a_card_of_other_proportions_than_given_is_refused_saying_so():
    # A 59 x 91 mm card enrolled as 59 x 80 (the wrong --card-mm): its true outline
    # looks narrower than such a card can, and no side of it is found further out.
    import pytest

    art = design("tune", 8)
    w, h = art.card_mm
    photo, _ = photo_pixels(art.render(parse_token("R5"), 8.0), np.random.default_rng(2),
                            "grey", (1008, 756))
    find_outline(photo, w, h, "R5")  # as given, it is taken
    with pytest.raises(ProfileError, match=r"R5: the card's outline is narrower than a card "
                       r"of 59 x 80 mm.*card size"):
        find_outline(photo, w, 80.0, "R5")


def test_a_dark_card_on_a_black_cloth_is_outlined(monkeypatch):
    """A dark card on a plain black cloth steps some 15 levels at its edge: a plain
    table's own steps are far smaller, so that is edge enough (a busy table's grain
    steps as much, and there a card's edge must step more)."""
    art = design("tune", 4)  # a dark face
    w, h = art.card_mm
    card = art.render(parse_token("B7"), 8.0)
    photos = [photo_pixels(card, np.random.default_rng(seed), "black", (1008, 756))
              for seed in (2, 8, 11)]
    for photo, truth in photos:
        found, _ = find_outline(photo, w, h, "B7")
        px_mm = float(np.linalg.norm(truth[3] - truth[0])) / h
        assert float(np.linalg.norm(found - truth, axis=1).max()) / px_mm < 0.5
    # Held to the busy table's bar, each was refused.
    monkeypatch.setattr(locate, "_edge_bar", lambda small: locate.SUPPORT_CONTRAST)
    for photo, _ in photos:
        with pytest.raises(ProfileError):
            find_outline(photo, w, h, "B7")


def test_a_navy_card_whose_edge_barely_steps_from_a_black_cloth_is_outlined(monkeypatch):
    """A navy card on a black cloth steps a few levels at its edge, less than the
    usual edge maps see: on a plain table a fainter one is looked at where they found
    no card, and the card is taken near its edge instead of refused."""
    art = design("tune", 1)  # navy borders round a light picture
    w, h = art.card_mm
    photos = {token: photo_pixels(art.render(parse_token(token), 8.0),
                                  np.random.default_rng(5), "black", (1600, 1200))
              for token in ("B8", "G3")}
    for token, (photo, truth) in photos.items():
        found, _ = find_outline(photo, w, h, token)
        px_mm = float(np.linalg.norm(truth[3] - truth[0])) / h
        assert float(np.linalg.norm(found - truth, axis=1).max()) / px_mm < 2.0
    # Without the fainter map each is refused, saying no card was found. (Refined from
    # further out, each would be outlined round its picture, 10 mm inside its edge: the
    # fainter map is looked at first.)
    monkeypatch.setattr(locate, "WIDE_REACHES", locate.REACHES)
    usual = locate._regions
    monkeypatch.setattr(locate, "_regions", lambda small, steps=locate.CANNY, colours=True:
                        usual(small) if steps == locate.CANNY else [])
    for token, (photo, _) in photos.items():
        with pytest.raises(ProfileError, match=f"{token}: no card found"):
            find_outline(photo, w, h, token)


def _outlined_then_refused(monkeypatch, design_index: int,
                           shots: list[tuple[str, str, int]], without: dict[str, object]) -> None:
    """Phone photos of ``shots`` (token, table, seed) of a tuning design: each card is
    outlined within 0.5 mm of its corners, and with ``locate``'s names set as
    ``without`` says each is refused, saying no card was found."""
    art = design("tune", design_index)
    w, h = art.card_mm
    photos = [(token, photo_pixels(art.render(parse_token(token), 8.0),
                                   np.random.default_rng(seed), table, (1008, 756)))
              for token, table, seed in shots]
    for token, (photo, truth) in photos:
        found, _ = find_outline(photo, w, h, token)
        px_mm = float(np.linalg.norm(truth[3] - truth[0])) / h
        assert float(np.linalg.norm(found - truth, axis=1).max()) / px_mm < 0.5, token
    for name, value in without.items():
        monkeypatch.setattr(locate, name, value)
    for token, (photo, _) in photos:
        with pytest.raises(ProfileError, match=f"{token}: no card found"):
            find_outline(photo, w, h, token)


def test_a_card_split_by_its_print_into_a_header_and_a_body_like_the_table_is_outlined(
        monkeypatch):
    """tune-216: a red or orange header over a cream body. On a light check or a floral
    cloth the body's edge fades into the cloth's light patches and the header alone is
    no card's shape: no single region is the card, and the photo was refused. The two
    neighbouring parts are joined, and the card is outlined at its edge. Without
    joining them (nor refining from further out) each is refused."""
    _outlined_then_refused(
        monkeypatch, 216,
        [("R2", "checks", 2), ("O9", "checks", 4), ("R2", "florals", 1), ("O9", "florals", 3)],
        {"_joined": lambda contours, shape: [], "WIDE_REACHES": locate.REACHES})


def test_an_outline_a_few_pixels_short_at_one_corner_is_refined_from_further_out(
        monkeypatch):
    """tune-218: a cream card with a gradient header on a green floral or a checked
    cloth. The body's region is found, but a corner of it (a rounded corner's hull,
    a flower beside it) lies a few pixels inside the card's edge, beyond the usual
    reach: every side must stand on an edge, so the photo was refused. Where nothing
    else found the card, the outlines are refined from further out; refined only as
    far as usual, each is refused."""
    _outlined_then_refused(
        monkeypatch, 218,
        [("G7", "florals", 0), ("G7", "florals", 2), ("G7", "florals", 7), ("R5", "checks", 0)],
        {"WIDE_REACHES": locate.REACHES})
