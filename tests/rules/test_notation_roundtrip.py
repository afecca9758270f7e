"""Notation round trips (NOTATION.md): input case-insensitive, output canonical upper case.

And the ``adjudicate`` path stays light: no OpenCV or pygame import.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import given, settings

from companion.rules.cards import ALL_CARDS, parse_card
from companion.rules.claims import adjudicate
from companion.rules.notation import dump_position, dump_rulings, parse_position
from tests.rules.strategies import ORACLE_SETTINGS, ClaimCase, claim_cases

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.json"))


def tokens(document: dict[str, Any]) -> list[str]:
    """Every card token of a position document, in file order."""
    found = [t for f in document["flags"] for k in ("north", "south", "environment") for t in f[k]]
    return found + list(document["discards"])


def lowered(document: dict[str, Any]) -> dict[str, Any]:
    """The same position written with lower-case tokens."""
    text = json.dumps(document)
    for token in sorted(set(tokens(document)), key=len, reverse=True):
        text = text.replace(f'"{token}"', f'"{token.lower()}"')
    out: dict[str, Any] = json.loads(text)
    return out


def test_every_card_token_parses_in_any_case_and_prints_upper() -> None:
    for card in ALL_CARDS:
        for spelling in (card.token, card.token.lower(), card.token.capitalize()):
            assert parse_card(spelling) is card
        assert card.token == card.token.upper()


@settings(ORACLE_SETTINGS, max_examples=150)
@given(claim_cases())
def test_positions_round_trip(case: ClaimCase) -> None:
    position = parse_position(case.document)
    dumped = dump_position(position)
    assert parse_position(dumped) == position
    assert parse_position(json.dumps(dumped)) == position
    assert dump_position(parse_position(dumped)) == dumped
    # Canonical upper-case tokens out, whatever case came in, in the same order.
    assert tokens(dumped) == [t.upper() for t in tokens(case.document)]


def test_scenario_positions_round_trip_and_ignore_token_case() -> None:
    for path in SCENARIOS:
        document = json.loads(path.read_text(encoding="utf-8"))["position"]
        position = parse_position(json.dumps(document))
        assert parse_position(dump_position(position)) == position, path.name
        assert parse_position(lowered(document)) == position, path.name
        rulings = dump_rulings(adjudicate(parse_position(lowered(document))))
        assert rulings == dump_rulings(adjudicate(position)), path.name


def test_completed_first_survives_the_round_trip() -> None:
    path = Path(__file__).parent / "scenarios" / "03-tie-complete-goes-to-completed-first.json"
    document = json.loads(path.read_text(encoding="utf-8"))["position"]
    flags = dump_position(parse_position(document))["flags"]
    assert [f["completed_first"] for f in flags] == [  # type: ignore[attr-defined]
        f["completed_first"] for f in document["flags"]
    ]
    assert [f["completed_first"] for f in document["flags"][:3]] == ["south", "north", "south"]


def test_adjudicate_imports_neither_opencv_nor_pygame(tmp_path: Path) -> None:
    position = tmp_path / "position.json"
    document = json.loads(SCENARIOS[0].read_text(encoding="utf-8"))["position"]
    position.write_text(json.dumps(document), encoding="utf-8")
    probe = (
        "import sys\n"
        "from companion.cli import main\n"
        "code = main(['adjudicate', sys.argv[1]])\n"
        "print('HEAVY', sorted(m for m in ('cv2', 'pygame') if m in sys.modules))\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(position)], capture_output=True, text=True, check=True
    )
    rulings, heavy = done.stdout.rsplit("HEAVY", 1)
    assert json.loads(rulings)["format"] == "battleline-rulings/1"
    assert heavy.strip() == "[]"
