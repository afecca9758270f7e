"""Runs the firmware's tests (tests/firmware/mp/mp_*.py) under the real
MicroPython unix port, one pytest item per MicroPython test function."""

from __future__ import annotations

import ast
import subprocess
from functools import cache

import pytest

from tests.firmware.mp_binary import FIRMWARE, MP_TESTS, environment, micropython


def _cases() -> list[tuple[str, str]]:
    cases = []
    for path in sorted(MP_TESTS.glob("mp_*.py")):
        tree = ast.parse(path.read_text())
        cases += [(path.stem, node.name) for node in tree.body
                  if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")]
    return cases


@cache
def _run(module: str) -> str:
    done = subprocess.run(
        [micropython(), str(MP_TESTS / "mp_run.py"), module],
        env=environment(FIRMWARE, MP_TESTS), capture_output=True, text=True, timeout=60,
    )
    return done.stdout + done.stderr


def test_the_cases_were_found() -> None:
    modules = {module for module, _ in _cases()}
    assert {"mp_controller", "mp_buttons", "mp_looks", "mp_framing", "mp_linereader"} <= modules


@pytest.mark.parametrize(("module", "name"), _cases())
def test_under_micropython(module: str, name: str) -> None:
    output = _run(module)
    if f"ok {name}\n" in output:
        return
    start = output.find(f"FAIL {name}\n")
    end = output.find(f"END {name}\n")
    detail = output[start:end] if start >= 0 else output
    pytest.fail(f"{module}.{name} under MicroPython:\n{detail}", pytrace=False)
