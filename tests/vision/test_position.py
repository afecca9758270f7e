from vision.position import build_position


def test_zones_become_a_notation_position():
    pos = build_position({
        "flag1.north": ["R7", "R8", "unknown"],
        "flag1.south": ["B2", "AL"],
        "flag1.south.env": ["MUD"],
        "flag3": ["CASTLE"],
        "north.discard": ["G4"],
        "south.guile": ["SCOUT"],
    }, to_move="north")
    assert pos["format"] == "battleline-position/1"
    assert pos["to_move"] == "north"
    assert len(pos["flags"]) == 9
    f1 = pos["flags"][0]
    assert f1 == {"north": ["R7", "R8"], "south": ["B2", "AL"], "environment": ["MUD"],
                  "claimed_by": None, "completed_first": None}
    assert pos["flags"][2]["terrain"] == "CASTLE"
    assert "terrain" not in pos["flags"][1]
    assert sorted(pos["discards"]) == ["G4", "SCOUT"]


def test_a_read_table_with_terrain_parses_in_the_rules_library():
    from companion.rules.notation import parse_position

    pos = build_position({"flag2": ["HILLS"], "flag2.north": ["R1", "R2", "R3"]})
    assert pos["variant"]["terrain"] is True
    assert parse_position(pos).flags[1].terrain is not None
    assert build_position({"flag2.north": ["R1"]})["variant"]["terrain"] is False
