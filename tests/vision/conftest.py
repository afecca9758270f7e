"""Shared synthetic scenes: rendering one costs about a second, so they are made once."""

from __future__ import annotations

import numpy as np
import pytest

from vision.simulated.camera_model import Camera
from vision.simulated.synth import Conditions, Frame, Table, lay_table, photograph, random_deal


def calm_scene(seed: int, style: str = "companion", hands: int = 0,
               k1: float = 0.0) -> tuple[Table, Frame]:
    """A table under ordinary light, the camera slightly off-centre."""
    rng = np.random.default_rng(seed)
    table = lay_table(random_deal(rng, 0.6), style, rng)  # type: ignore[arg-type]
    cam = Camera(yaw_deg=1.5, tilt_x_deg=4.0, tilt_y_deg=-3.0, fill=0.92, k1=k1)
    cond = Conditions(gain=(1.05, 1.0, 0.92), gradient=(0.15, -0.1), blur=0.6, noise=2.0,
                      jpeg=90, hands=hands)
    return table, photograph(table, cam, cond, rng)


@pytest.fixture(scope="session")
def calm() -> tuple[Table, Frame]:
    return calm_scene(11)


@pytest.fixture(scope="session")
def empty_table() -> tuple[Table, Frame]:
    rng = np.random.default_rng(3)
    table = lay_table({}, "companion", rng)
    return table, photograph(table, Camera(tilt_x_deg=3.0), Conditions(noise=2.0), rng)
