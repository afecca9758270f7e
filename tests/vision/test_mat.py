import json

from vision.mat import CARD_H, CARD_W, FAN_STEP, MAX_FAN, layout_json, standard_mat


def _overlap(a, b) -> bool:
    return a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h


def test_every_flag_has_both_formations_environments_and_a_flag_slot():
    lay = standard_mat()
    names = {z.name for z in lay.zones}
    for n in range(1, 10):
        for side in ("north", "south"):
            assert f"flag{n}.{side}" in names
            assert f"flag{n}.{side}.env" in names
        assert f"flag{n}" in names
    for side in ("north", "south"):
        assert {f"{side}.guile", f"{side}.discard"} <= names


def test_zones_hold_four_fanned_cards_and_never_overlap():
    lay = standard_mat()
    for z in lay.zones:
        assert z.rect.x >= 0 and z.rect.x + z.rect.w <= lay.width
        assert z.rect.y >= 0 and z.rect.y + z.rect.h <= lay.height
        if z.kind == "formation":
            assert z.rect.w >= CARD_W + 4
            assert z.rect.h >= CARD_H + (MAX_FAN - 1) * FAN_STEP
    for i, a in enumerate(lay.zones):
        for b in lay.zones[i + 1:]:
            assert not _overlap(a.rect, b.rect), (a.name, b.name)


def test_markers_are_unique_and_clear_of_every_zone():
    lay = standard_mat()
    assert len({m.id for m in lay.markers}) == len(lay.markers) >= 4
    for m in lay.markers:
        for z in lay.zones:
            for x, y in m.corners():
                assert not z.rect.contains(x, y), (m.id, z.name)


def test_cards_point_at_the_flag_line():
    lay = standard_mat()
    assert all(z.up == "down" for z in lay.zones if z.side == "north")
    assert all(z.up == "up" for z in lay.zones if z.side == "south")
    # Flag 1 is at south's left.
    assert lay.zone("flag1.south").rect.x < lay.zone("flag9.south").rect.x


def test_layout_json_lists_every_zone_in_millimetres():
    data = json.loads(layout_json())
    assert data["units"] == "mm"
    assert len(data["zones"]) == len(standard_mat().zones)
    z = next(z for z in data["zones"] if z["name"] == "flag5.north")
    assert {"x", "y", "w", "h", "kind", "side", "flag"} <= set(z)
    assert z["flag"] == 5 and z["side"] == "north"


def test_each_zone_holds_only_the_cards_the_rules_lay_there():
    from vision.mat import holds

    assert holds("formation", "R1") and holds("formation", "AL") and holds("formation", "SB")
    assert not any(holds("formation", t) for t in ("FOG", "SCOUT", "HILLS"))
    assert holds("environment", "FOG") and holds("environment", "MUD")
    assert not any(holds("environment", t) for t in ("DA", "B2", "TRAITOR", "RIVER"))
    assert holds("flag", "HILLS") and not holds("flag", "MUD") and not holds("flag", "G7")
    assert holds("guile", "TRAITOR") and not holds("guile", "CC") and not holds("guile", "P3")
    assert all(holds("discard", t) for t in ("P3", "CC", "REDEPLOY", "FOG"))
    # A deck's own extra card (no token of the rules) is not ruled out anywhere.
    assert holds("environment", "JOKER") and holds("formation", "JOKER")
