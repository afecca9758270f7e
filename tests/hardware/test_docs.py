"""The documents a builder follows agree with the code they describe."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from hardware import framing
from hardware.config import DEFAULT_BUTTON_PINS, DEFAULT_FLAG_PINS

ROOT = Path(__file__).resolve().parents[2]
WIRING = (ROOT / "hardware" / "WIRING.md").read_text()
PROTOCOL = (ROOT / "firmware" / "PROTOCOL.md").read_text()


def _constants(path: Path) -> dict[str, object]:
    tree = ast.parse(path.read_text())
    out: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue
    return out


def test_direct_pin_table_is_the_default_pin_map() -> None:
    rows = re.findall(r"^\| (\d) \| GPIO(\d+) \((\d+)\) \| GPIO(\d+) \((\d+)\) \|$", WIRING, re.M)
    assert [(int(n), int(s)) for _, n, _, s, _ in rows] == list(DEFAULT_FLAG_PINS)
    for player, pin in DEFAULT_BUTTON_PINS.items():
        assert re.search(rf"^\| {player} button \| GPIO{pin} \(\d+\) \|", WIRING, re.M)
    # The header drawing says the same as the table.
    for _, north, north_phys, south, south_phys in rows:
        for bcm, phys in ((north, north_phys), (south, south_phys)):
            assert re.search(rf"GPIO{bcm} +\({phys}\)|\({phys}\) GPIO{bcm}\b", WIRING), bcm


def test_pico_pin_table_is_main_py() -> None:
    main = _constants(ROOT / "firmware" / "main.py")
    row = {m[0]: m[1] for m in re.findall(r"^\| (north|south) buttons, flags 1\.\.9 \| ([^|]+)\|",
                                          WIRING, re.M)}
    for player, constant in (("north", "NORTH_BUTTON_PINS"), ("south", "SOUTH_BUTTON_PINS")):
        assert [int(g) for g in re.findall(r"GP(\d+)", row[player])] == list(main[constant])
    assert re.search(rf"^\| strip data \(via 74AHCT125\) \| GP{main['STRIP_PIN']} \|", WIRING, re.M)


def test_protocol_commands_are_the_firmware_commands() -> None:
    tree = ast.parse((ROOT / "firmware" / "controller.py").read_text())
    commands = next(
        {k.value for k in node.value.keys if isinstance(k, ast.Constant)}
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "COMMANDS"
        and isinstance(node.value, ast.Dict)
    )
    section = PROTOCOL[PROTOCOL.index("## Commands"):PROTOCOL.index("## Events")]
    documented = set(re.findall(r"^\| `([A-Z]+)[ `]", section, re.M))
    assert documented == commands


def test_protocol_examples_carry_right_checksums() -> None:
    examples = re.findall(r"`(\d+ [A-Z]+[^`*]*)\*([0-9A-F]{2})`", PROTOCOL)
    assert examples
    for body, cc in examples:
        assert framing.frame(body) == f"{body}*{cc}\n".encode()
