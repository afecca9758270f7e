"""A simulated table: photographs of a synthetic game, with hands coming and going."""

from __future__ import annotations

import numpy as np

from vision.deck_art import Style
from vision.simulated.camera_model import Camera
from vision.simulated.synth import Conditions, Table, lay_table, photograph, random_deal
from vision.sources.base import FramePair, low_from_main


class SimulatedSource:
    """One fixed camera over a table; ``script`` says per frame whether a hand is in view."""

    def __init__(self, seed: int = 0, style: Style = "companion",
                 script: list[bool] | None = None) -> None:
        self.name = f"simulated:{seed}"
        self._rng = np.random.default_rng(seed)
        self.table: Table = lay_table(random_deal(self._rng), style, self._rng)
        self.camera = Camera(tilt_x_deg=3.0, tilt_y_deg=-2.0, yaw_deg=1.0, fill=0.92)
        self._script = script or []
        self._i = 0
        self.hand_now = False

    def read(self) -> FramePair:
        hand = self._script[self._i] if self._i < len(self._script) else False
        self._i += 1
        self.hand_now = hand
        cond = Conditions(gain=(1.02, 1.0, 0.95), noise=2.0, blur=0.5, jpeg=92,
                          hands=1 if hand else 0)
        frame = photograph(self.table, self.camera, cond, self._rng)
        return FramePair(frame.image, low_from_main(frame.image))

    def close(self) -> None:
        pass
