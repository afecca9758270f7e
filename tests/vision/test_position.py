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


def _card(zone: str, token: str, confidence: float, order: int = 0):
    from vision.reading.result import CardRead

    return CardRead(zone, order, token, confidence, 0.9, [(0.0, 0.0)] * 4)


def _frame_read(cards):
    import numpy as np

    from vision.calibrate import Calibration
    from vision.reading.result import FrameRead

    return FrameRead(cards, Calibration(np.eye(3), [], [], True),
                     np.zeros((4, 4), bool), np.ones((1, 1, 3), np.float32))


def test_a_card_read_at_two_places_stands_at_the_clearly_surer_one():
    from vision.position import unique_tokens

    cards = [_card("flag1.north", "R7", 1.0), _card("flag1.north", "B3", 0.9, 1),
             _card("flag4.south", "R7", 0.6), _card("flag5.south", "unknown", 0.0),
             _card("flag6.south", "unknown", 0.0)]
    got = unique_tokens(cards)
    assert [c.token for c in got] == ["R7", "B3", "unknown", "unknown", "unknown"]
    assert got[2].confidence == 0.0 and got[2].zone == "flag4.south"
    assert cards[2].token == "R7"  # the input is left as it was


def test_a_card_read_twice_about_as_surely_is_asked_about():
    from vision.position import unique_tokens

    got = unique_tokens([_card("flag1.north", "R7", 0.95), _card("flag2.north", "R7", 0.8),
                         _card("flag3.north", "R7", 0.5)])
    assert [(c.token, c.confidence) for c in got] == [("unknown", 0.0)] * 3


def test_a_frame_read_holds_each_card_once():
    read = _frame_read([_card("flag1.north", "R7", 1.0), _card("flag2.south", "R7", 1.0),
                        _card("flag2.south", "G2", 1.0, 1)])
    assert read.zones() == {"flag1.north": ["unknown"], "flag2.south": ["unknown", "G2"]}
    assert read.confidences()["flag1.north"] == [0.0]
    out = read.to_json()
    assert out["unknown"] == 2
    assert out["position"]["flags"][1]["south"] == ["G2"]
    assert out["position"]["flags"][0]["north"] == []


def test_zones_read_again_cannot_put_a_card_where_the_last_read_has_it():
    from vision.changes import merge

    last = _frame_read([_card("flag1.north", "R7", 1.0), _card("flag2.north", "unknown", 0.0)])
    fresh = _frame_read([_card("flag2.north", "R7", 0.55)])  # a look-alike misread
    merged = merge(last, fresh, {"flag2.north"})
    assert merged.zones() == {"flag1.north": ["R7"], "flag2.north": ["unknown"]}
