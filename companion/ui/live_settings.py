"""Settings changed on the touchscreen: applied to the game at once and saved.

The view reports each change as a key and a value (``PygameView.on_setting``);
``LiveSettings`` applies it — the companion's options, the lights' colours, a
lights board opened in place of the old one, the claim timing of the next
game — and writes it into the settings file, so the next start keeps it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from companion.config import Config, ConfigError, TomlValue, save_settings
from companion.messages import N_, Message
from hardware.lights import FlagLights

if TYPE_CHECKING:
    from companion.app import Companion


class LiveSettings:
    def __init__(
        self,
        config: Config,
        path: Path,
        lights: FlagLights,
        open_board: Callable[[Config], FlagLights],
        say: Callable[[str], None],
        unreadable: str | None = None,
    ) -> None:
        self.config = config  # as changed so far: the next game starts from it
        self.path = path
        self.lights = lights  # the board in use (another after a board change)
        self.open_board = open_board
        self.say = say
        self.companion: Companion | None = None
        self.saved = 0
        # Why the settings file could not be read at start, if it could not: it is then
        # never written, so nothing in it is lost; the changes hold for this run.
        self.unreadable = unreadable

    def __call__(self, key: str, value: str) -> None:
        changes: dict[str, TomlValue] = {}
        config = self.config
        if key in ("auto_claim", "hints"):
            on = value == "on"
            config = (replace(config, auto_claim=on) if key == "auto_claim"
                      else replace(config, hints=on))
            changes[f"rules.{key}"] = on
        elif key == "claim_timing":
            config = replace(config, claim_timing=value)
            changes["rules.claim_timing"] = value
        elif key.startswith("name."):
            side = key.split(".", 1)[1]
            config = (replace(config, north_name=value) if side == "north"
                      else replace(config, south_name=value))
            changes[f"players.{side}"] = value
        elif key.startswith("colour."):
            side = key.split(".", 1)[1]
            r, g, b = (int(v) for v in value.split(","))
            colours = {**config.lights.colours, side: (r, g, b)}
            config = replace(config, lights=replace(config.lights, colours=colours))
            self.lights.set_colours({side: (r, g, b)})
            changes[f"lights.colours.{side}"] = [r, g, b]
        elif key == "deck":  # a deck profile enrolled on the screen: read from the next game
            config = replace(config, deck=value)
            changes["vision.deck"] = value
        elif key in ("language", "edition"):  # the view shows it at once; saved for the next start
            config = (replace(config, language=value) if key == "language"
                      else replace(config, edition=value))
            changes[f"view.{key}"] = value
        elif key == "lights":
            config = replace(config, lights=replace(config.lights, board=value))
            self._new_board(config)
            changes["lights.board"] = value
        else:
            raise ValueError(f"{key!r} is not a setting the touchscreen changes")
        self.config = config
        if self.unreadable is not None:
            self.say(Message(N_("settings not saved: {problem}"), problem=self.unreadable))
            return
        try:
            save_settings(self.path, changes)
        except (ConfigError, OSError) as error:
            self.say(Message(N_("settings not saved: {problem}"), problem=str(error)))
        else:
            self.saved += 1

    def _new_board(self, config: Config) -> None:
        """The chosen board in place of the old one; the flags shown on it at once."""
        old = self.lights
        flags = old.flags
        old.close()
        self.lights = self.open_board(config)
        self.lights.set_all(flags)
        if self.companion is not None:
            self.companion.lights = self.lights
            self.companion.refresh()
