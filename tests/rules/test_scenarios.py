"""Golden scenarios: hand-worked rulings for every rule of RULES.md, via the library and the CLI.

Each file in ``scenarios/`` holds a ``battleline-position/1`` position, the rule
it shows, why the expected rulings follow from RULES.md, and the expected
``battleline-rulings/1`` output: the flags that matter in full, every other
flag unclaimed with both sides ruled as ``others``. ``reasons`` names the
library's ``Reason`` for each listed side (granted rulings print no reason).
``scenarios/malformed/`` holds files the parser must reject, naming the field.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion.rules.claims import adjudicate, rule_claim
from companion.rules.errors import NotationError
from companion.rules.notation import dump_rulings, parse_position
from companion.rules.position import Player
from tests.rules import oracle

HERE = Path(__file__).parent
SCENARIOS = sorted((HERE / "scenarios").glob("*.json"))
MALFORMED = sorted((HERE / "scenarios" / "malformed").glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


def cases(paths: list[Path]) -> list[Any]:
    """One pytest param per file; a known engine discrepancy is a strict xfail."""
    params = []
    for path in paths:
        doc = load(path)
        marks = [pytest.mark.xfail(strict=True, reason=doc["xfail"])] if "xfail" in doc else []
        params.append(pytest.param(path, id=path.stem, marks=marks))
    return params


def cli() -> list[str]:
    """The installed console script beside this interpreter, else the module."""
    script = Path(sys.executable).with_name("battleline-companion")
    return [str(script)] if script.exists() else [sys.executable, "-m", "companion.cli"]


def normalised(rulings: dict[str, Any]) -> dict[str, Any]:
    """Rulings with each counterexample in deck order: the order of added troops carries no meaning."""
    rulings = json.loads(json.dumps(rulings))
    for flag in rulings["flags"]:
        for side in ("north", "south"):
            if "counterexample" in flag[side]:
                flag[side]["counterexample"].sort(key=oracle.TROOP_TOKENS.index)
    return rulings


def expected_rulings(doc: dict[str, Any]) -> dict[str, Any]:
    expected = doc["expected"]
    flags = []
    for number in range(1, 10):
        placed = doc["position"]["flags"][number - 1]
        entry = expected["flags"].get(str(number))
        if entry is None:
            assert placed["claimed_by"] is None, "a claimed flag must be listed in expected"
            entry = {"north": expected["others"], "south": expected["others"]}
        flags.append(
            {
                "flag": number,
                "claimed_by": placed["claimed_by"],
                "north": entry["north"],
                "south": entry["south"],
            }
        )
    return normalised(
        {"format": "battleline-rulings/1", "flags": flags, "winner": expected["winner"]}
    )


def test_scenarios_exist() -> None:
    assert len(SCENARIOS) >= 35
    assert len(MALFORMED) >= 9


@pytest.mark.parametrize("path", cases(SCENARIOS))
def test_scenario_rulings(path: Path) -> None:
    doc = load(path)
    assert doc["rule"] and doc["why"]
    position = parse_position(json.dumps(doc["position"]))
    assert normalised(dump_rulings(adjudicate(position))) == expected_rulings(doc)
    for number, entry in doc["expected"]["flags"].items():
        for player in Player:
            ruling = rule_claim(position, int(number) - 1, player)
            assert ruling.reason.name == entry["reasons"][player.value], (number, player)


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario_expectations_agree_with_the_oracle(path: Path) -> None:
    """Double entry: every hand-worked ruling also follows from the brute-force oracle.

    A counterexample must be the only strongest completion, so the golden file
    can name it exactly.
    """
    doc = load(path)
    position = doc["position"]
    on_table = {t.upper() for f in position["flags"] for k in ("north", "south") for t in f[k]}
    unseen = sorted(set(oracle.TROOP_TOKENS) - on_table - {t.upper() for t in position["discards"]})
    towns = [i for i, f in enumerate(position["flags"]) if f.get("terrain") == "TOWN"]
    winner = oracle.winner([f["claimed_by"] for f in position["flags"]], towns)
    assert winner == doc["expected"]["winner"]
    for number, entry in doc["expected"]["flags"].items():
        flag = position["flags"][int(number) - 1]
        terrain = flag.get("terrain")
        fog = "FOG" in flag["environment"] or terrain == "WOODLAND"
        size = 4 if "MUD" in flag["environment"] or terrain == "RIVER" else 3
        hills = terrain == "HILLS"
        for me, them in (("north", "south"), ("south", "north")):
            defender = flag.get("defender")
            role = None if defender is None else "mine" if defender == me else "theirs"
            reason, _, threat = oracle.rule_claim(
                flag[me],
                flag[them],
                fog=fog,
                size=size,
                unseen=unseen,
                claimed=flag["claimed_by"] is not None,
                game_over=winner is not None,
                i_completed_first=flag["completed_first"] == me,
                hills=hills,
                defender=role,
            )
            assert reason == entry["reasons"][me], (number, me)
            side = entry[me]
            if side["complete"]:
                rank, total = oracle.strength(flag[me], fog, hills=hills, defended=role == "mine")
                assert (oracle.RANK_NAMES[rank], total) == (side["formation"], side["sum"])
            if reason == "BEATABLE":
                completions = oracle.completions(
                    flag[them],
                    size + (role == "theirs"),
                    unseen,
                    fog,
                    hills=hills,
                    defended=role == "theirs",
                )
                strongest = [sorted(added) for s, added in completions if s == threat]
                assert strongest == [sorted(side["counterexample"])], (number, me)


def test_scenarios_through_the_cli(tmp_path: Path) -> None:
    """One shell runs ``adjudicate`` on every scenario (4 at a time); each prints the library's rulings."""
    files = []
    for path in SCENARIOS:
        target = tmp_path / path.name
        target.write_text(json.dumps(load(path)["position"]), encoding="utf-8")
        files.append(target)
    each = '$CLI adjudicate "$1" > "$1.out" 2> "$1.err"; echo $? > "$1.rc"'
    subprocess.run(
        ["xargs", "-0", "-P", "4", "-n", "1", "sh", "-c", each, "sh"],
        input="\0".join(map(str, files)),
        text=True,
        env={**os.environ, "CLI": " ".join(cli())},
        check=True,
    )
    for path, target in zip(SCENARIOS, files, strict=True):
        doc = load(path)
        err = Path(f"{target}.err").read_text()
        assert Path(f"{target}.rc").read_text().strip() == "0", (path.name, err)
        printed = json.loads(Path(f"{target}.out").read_text())
        library = dump_rulings(adjudicate(parse_position(json.dumps(doc["position"]))))
        assert printed == library, path.name
        if "xfail" not in doc:
            assert normalised(printed) == expected_rulings(doc), path.name


def malformed_text(doc: dict[str, Any]) -> str:
    return doc["text"] if "text" in doc else json.dumps(doc["position"], indent=2)


def assert_names_field(field: str, doc: dict[str, Any]) -> None:
    if doc.get("field_is_prefix"):
        assert field.startswith(doc["field"]), field
    else:
        assert field == doc["field"]


@pytest.mark.parametrize("path", cases(MALFORMED))
def test_malformed_file_rejected_naming_the_field(path: Path, tmp_path: Path) -> None:
    doc = load(path)
    with pytest.raises(NotationError) as raised:
        parse_position(malformed_text(doc))
    assert_names_field(raised.value.field, doc)
    target = tmp_path / "position.json"
    target.write_text(malformed_text(doc), encoding="utf-8")
    done = subprocess.run([*cli(), "adjudicate", str(target)], capture_output=True, text=True)
    assert done.returncode != 0
    assert done.stdout == ""
    assert raised.value.field in done.stderr and raised.value.problem in done.stderr
