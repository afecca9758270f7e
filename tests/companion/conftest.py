"""Options for the companion tests."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--vision-games", action="store_true", default=False,
        help="play the 20 seeded games through the real vision path (minutes per game "
             "with today's renderer and reader; see test_vision_games.py)",
    )
