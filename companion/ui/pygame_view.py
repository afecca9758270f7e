"""The touchscreen view: stands where ``TerminalView`` stands, and sends taps back.

``PygameView.show`` draws the app's ``ViewModel``; ``pump`` reads touches and
turns each into one action: a claim, a correction or an undo on the attached
``Companion``, or a move between screens. Each touch acts once: a finger
gives FINGERDOWN and SDL also synthesises a mouse press from it, so mouse
events marked ``touch`` are ignored and a desktop mouse still works.

The screens are drawn at the configured size (800×480 landscape or 720×1280
portrait) and turned a quarter when the display's orientation differs.
"""

from __future__ import annotations

import io
import os
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pygame

from companion import i18n
from companion.i18n import EDITIONS
from companion.rules.position import Player
from companion.snapshot import UNKNOWN
from companion.ui import theme
from companion.ui.layout import Layout
from companion.ui.scene import Intent, Scene, Target, event_words
from companion.ui.screens import SCREENS
from companion.ui.settings_screen import SCREENS as SETTINGS_SCREENS
from companion.ui.teach_screen import SCREENS as TEACH_SCREENS
from companion.ui.terminal import TerminalView, ViewModel
from hardware import looks

if TYPE_CHECKING:
    from companion.app import Companion

# A side's name until the players give one.
SIDES = {Player.NORTH: i18n.N_("North"), Player.SOUTH: i18n.N_("South")}
CAMERA_EVERY_S = 0.25  # the camera view calibrates and redraws a frame this often at most
LANDSCAPE = (800, 480)
PORTRAIT = (720, 1280)


class Display:
    """The logical screen, and how it maps onto the physical one (rotated if needed)."""

    def __init__(self, size: tuple[int, int], physical: pygame.Surface | None = None) -> None:
        self.size = size
        self.physical = physical
        self.surface = pygame.Surface(size)
        phys = physical.get_size() if physical is not None else size
        self.rotated = (phys[0] > phys[1]) != (size[0] > size[1])
        self.physical_size = phys

    def present(self) -> None:
        if self.physical is None:
            return
        image = pygame.transform.rotate(self.surface, 90) if self.rotated else self.surface
        if image.get_size() != self.physical_size:
            image = pygame.transform.smoothscale(image, self.physical_size)
        self.physical.blit(image, (0, 0))
        pygame.display.flip()

    def to_logical(self, x: float, y: float) -> tuple[int, int]:
        """A physical pixel to a logical one (the inverse of ``present``)."""
        w, h = self.size
        pw, ph = self.physical_size
        if self.rotated:
            # rotate(90) turns the surface counter-clockwise: logical (x, y) lands
            # at physical (y, w-1-x), scaled to the physical size.
            sx, sy = x * h / pw, y * w / ph
            return int(w - 1 - sy), int(sx)
        return int(x * w / pw), int(y * h / ph)


def open_touchscreen(orientation: str = "landscape", *, fullscreen: bool = True,
                     names: dict[Player, str] | None = None,
                     settings: dict[str, str] | None = None) -> PygameView:
    """The view as the app should open it: full screen (kiosk, kmsdrm) or in a window,
    laid out for ``orientation`` and turned if the display's own orientation differs."""
    if orientation not in ("landscape", "portrait"):
        raise ValueError(f"orientation must be landscape or portrait, not {orientation!r}")
    size = PORTRAIT if orientation == "portrait" else LANDSCAPE
    return PygameView(size, window=not fullscreen, fullscreen=fullscreen, names=names,
                      settings=settings)


class PygameView(TerminalView):
    def __init__(
        self,
        size: tuple[int, int] = LANDSCAPE,
        *,
        window: bool = False,
        fullscreen: bool = False,
        names: dict[Player, str] | None = None,
        colours: dict[str, theme.RGB] | None = None,
        settings: dict[str, str] | None = None,
    ) -> None:
        super().__init__(io.StringIO(), live=False)
        pygame.display.init()  # display, touch and fonts only: no sound device wanted
        pygame.font.init()
        physical = None
        if window or fullscreen:
            flags = pygame.FULLSCREEN if fullscreen else 0
            physical = pygame.display.set_mode((0, 0) if fullscreen else size, flags)
            pygame.display.set_caption("Battle Line companion")
            pygame.mouse.set_visible(not fullscreen)
        self.display = Display(size, physical)
        self.layout = Layout(*size)
        self.companion: Companion | None = None
        self.scene: Scene | None = None
        self.names = names
        self.colours = colours
        self.targets: list[Target] = []
        self.said: list[str] = []
        self.frames = 0
        self.closed = False  # the window was closed
        # Told of every setting the app must keep (names, colours, claim timing):
        # called with a key such as "name.north" or "colour.south" and the new value.
        self.on_setting: Callable[[str, str], None] | None = None
        self.camera: Any = None  # camera_screen.CameraState, made on the first frame
        self.calibrator: Any = None
        self.settings = dict(settings or {})  # the app's settings shown (claim timing, lights)
        # The game-over screen offers the next game when the app has one to start;
        # a tap on it sets next_requested, which the app reads.
        self.next_game = False
        self.next_requested = False
        self._frame: Any = None
        self._frame_new = False
        self._looked_at = 0.0  # perf_counter of the last calibration of a shown frame
        self.look_every_s = CAMERA_EVERY_S
        # Guided enrolment of a deck (vision.enrolment.enroll.Enrolment) while it lives: its
        # captured cards stay until it is saved or cancelled.
        self.enrolment: Any = None
        self.enrol_step: Any = None  # what the last frame did
        self.enrol_waits = 0  # looks in a row at an empty zone
        self.enrol_tokens: list[str] | None = None  # None: every card of the deck
        self.decks_dir: Path | None = None  # None: the platform's data directory
        # A deck's model being learnt: the thread, where it puts the profile, the session.
        self.learning: tuple[threading.Thread, list[Any], Any] | None = None

    @property
    def holds_table(self) -> bool:
        """While a deck is being enrolled (its session lives, paused or not) the cards
        laid on the mat are the deck's, not plays."""
        return self.enrolment is not None

    def camera_frame(self, image: Any) -> None:
        """The camera's latest frame (BGR, as vision reads it; None: no picture) for the
        camera view. Only kept here: it is calibrated, with the reader's own calibrator,
        when the camera view shows it, a few times a second at most."""
        self._frame, self._frame_new = image, True

    def _look(self) -> Any:
        """The camera state to draw: the newest frame calibrated, if it is time to."""
        from companion.ui.camera_screen import CameraState, look_at
        from vision.calibrate import Calibrator

        self.calibrator = self.calibrator or Calibrator()
        now = time.perf_counter()
        if self._frame_new and (self.camera is None or now - self._looked_at >= self.look_every_s):
            self.camera = look_at(self._frame, self.calibrator)
            self._frame_new, self._looked_at = False, now
            if self.enrolment is not None and self.scene is not None \
                    and self.scene.screen == "enrol" and self.camera.image is not None:
                self._enrol_frame(self.camera)
        return self.camera or CameraState(problem="")

    # ------------------------------------------------------------ enrolment
    def _enrol_frame(self, camera: Any) -> None:
        """The enrolment session sees the newest frame; the last card taken ends it."""
        from vision.sources.base import FramePair, low_from_main

        step = self.enrolment.feed(FramePair(camera.image, low_from_main(camera.image)),
                                   camera.calibration)
        self.enrol_waits = self.enrol_waits + 1 if step.kind == "waiting" else 0
        self.enrol_step = step
        if self.enrolment.done:
            self._enrol_finish()

    def _enrol(self, scene: Scene, what: str) -> None:
        from companion.rules.cards import ALL_CARDS
        from vision.enrolment.enroll import Enrolment

        if what == "start":
            if self.enrolment is None:
                tokens = self.enrol_tokens or [c.token for c in ALL_CARDS]
                self.enrolment = Enrolment(tokens, time.strftime("deck-%Y%m%d-%H%M%S"))
                self.enrol_step, self.enrol_waits = None, 0
            scene.screen = "enrol"
            return
        session = self.enrolment
        if session is None:
            return
        if what == "cancel":  # nothing is saved, no setting changes
            self.enrolment = self.enrol_step = None
            scene.screen = "camera"
            scene.toast = _enrol_cancelled()
            return
        session.skip() if what == "skip" else session.back()
        self.enrol_step, self.enrol_waits = None, 0
        if session.done:
            self._enrol_finish()

    def _enrol_finish(self) -> None:
        """The profile of the cards captured: its own model is learnt off the screen's
        thread (a minute or so on a Pi), then it is saved and the settings switch to it."""
        from vision.enrolment.workers import cores
        from vision.models.learnt import with_model
        from vision.profile import ProfileError

        session, self.enrolment = self.enrolment, None  # the last step stays: what ended it
        assert self.scene is not None
        self.scene.screen = "camera"
        try:
            profile = session.profile()
        except ProfileError:
            self.scene.toast = _enrol_nothing()
            return
        result: list[Any] = []

        def learn() -> None:
            try:
                result.append(with_model(profile, jobs=cores()))
            except Exception as error:
                result.append(error)

        self.learning = (threading.Thread(target=learn, name="learn-deck", daemon=True),
                         result, session)
        self.learning[0].start()
        self.scene.toast = _enrol_learning(len(profile.tokens))

    def _learnt(self) -> None:
        """A deck's model learnt: the deck saved with it (or, if it could not be
        learnt, without it: the templates read it) and chosen in the settings."""
        from companion.config import decks_dir

        if self.learning is None or self.learning[0].is_alive():
            return
        _, result, session = self.learning
        self.learning = None
        assert self.scene is not None
        profile = result[0] if result and not isinstance(result[0], Exception) else \
            session.profile()
        try:
            folder = self.decks_dir or decks_dir()
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{session.name}.npz"
            profile.save(path)
        except OSError as error:
            self.scene.toast = _enrol_not_saved(str(error))
            return
        self._changed("deck", str(path))
        self.settings["deck"] = str(path)
        self.scene.toast = _enrol_saved(len(profile.tokens), len(session.tokens))
        from vision.models.band_model import BandModel

        model = BandModel.of(profile)
        if model is not None and model.reads_poorly():
            # The self-test's warning, as ``enroll`` prints it: said before a game.
            self.scene.toast += " " + _enrol_reads_poorly()

    # ------------------------------------------------------------ TerminalView
    def attach(self, companion: Companion) -> None:
        """Taps now act on ``companion``; its options show in the settings."""
        self.companion = companion
        self.show(companion.model())
        if self.said:
            self.say(self.said.pop())  # said before attaching: in words now

    def show(self, model: ViewModel) -> None:
        if self.scene is None:
            self.scene = Scene(model)
            if self.names:  # a side the settings do not name keeps its default name
                self.scene.names.update(self.names)
            self.scene.colours = self.colours
            self.scene.options.update(self.settings)
        edition = self.scene.options.get("edition")
        if edition in EDITIONS:  # the names chosen on the screen, at once
            model = replace(model, medieval=edition == "medieval")
        self.scene.model = model
        if self.companion is not None:
            tracker = self.companion.tracker
            self.scene.position = tracker.position
            snap = tracker.last_snapshot
            self.scene.readings, self.scene.guesses = {}, {}
            for zone, readings in ({} if snap is None else snap.zones).items():
                corrected = tracker.corrections.get(zone)
                if corrected is not None and corrected[1] == tuple(r.token for r in readings):
                    continue  # a person said what lies there: the record shows it
                self.scene.readings[zone] = tuple(
                    (r.token, r.certain(tracker.threshold)) for r in readings
                )
                self.scene.guesses[zone] = tracker.guesses(zone)
            self.scene.why = {}
            for issue in tracker.issues:
                if issue.flag is not None:
                    self.scene.why.setdefault(issue.flag, issue.message)
            self.scene.outcome = self.companion.outcome
            self.scene.can_undo = bool(self.companion.tracker.history)
            options = self.companion.options
            self.scene.options["auto_claim"] = "on" if options.auto_claim else "off"
            self.scene.options["hints"] = "on" if options.hints else "off"
            # Claim timing is the next game's (this game's rules stay as they began).
            self.scene.options.setdefault("claim_timing", self.companion.variant.claim_timing)
            config = getattr(self.companion.lights, "config", None)
            self.scene.options["lights_now"] = str(getattr(config, "board", ""))
            self.scene.options.setdefault("lights", str(getattr(config, "board", "")))
            if self.colours is None and config is not None:
                self.scene.colours = dict(config.colours)  # the lights' own colours
            self.scene.next_game = self.next_game
            if self.scene.outcome is not None and self.scene.screen in ("play", "flag", "pick"):
                # The game is decided: its result replaces the board and any open panel
                # (a ruling stays up until read: it closes onto the result).
                self.scene.screen = "over"
            elif self.scene.outcome is None and self.scene.screen in ("over", "board"):
                self.scene.screen = "play"  # the next game, or the last claim undone
        self.draw()
        self.display.present()

    def say(self, line: str) -> None:
        self.said.append(line)
        if self.scene is None:
            return
        events = self.companion.tracker.events if self.companion is not None else []
        if events and line == events[-1].describe():
            line = event_words(self.scene, events[-1])  # the event, in words
        self.scene.toast = self.scene.said(line)

    def board(self, model: ViewModel) -> None:
        self.show(model)

    # ------------------------------------------------------------ drawing
    def draw(self) -> pygame.Surface:
        surface = self.display.surface
        self._learnt()
        if self.scene is None:
            surface.fill(theme.BACKGROUND)
            self.targets = []
            return surface
        if self.scene.screen in ("camera", "enrol"):
            from companion.ui.camera_screen import draw_camera, draw_enrol

            camera = self._look()  # may take the last card: the enrolment is then saved
            if self.scene.screen == "enrol" and self.enrolment is not None:
                self.targets = draw_enrol(surface, self.layout, self.scene, camera,
                                          self.calibrator, self.enrolment, self.enrol_step,
                                          self.enrol_waits)
            else:
                self.scene.screen = "camera"
                self.targets = draw_camera(surface, self.layout, self.scene, camera,
                                           self.calibrator, self.enrolment)
        else:
            screens = {**SCREENS, **SETTINGS_SCREENS, **TEACH_SCREENS}
            draw = screens[self.scene.screen]
            self.targets = draw(surface, self.layout, self.scene)
        self.frames += 1
        return surface

    def close(self) -> None:
        """Let go of the display."""
        pygame.display.quit()

    def screenshot(self, path: str | os.PathLike[str]) -> None:
        pygame.image.save(self.draw(), str(path))

    # ------------------------------------------------------------ input
    def pump(self) -> list[Intent]:
        """Handle every waiting pygame event; returns the intents acted on."""
        done = []
        for event in pygame.event.get():
            intent = self.handle_event(event)
            if intent is not None:
                done.append(intent)
        if self.learning is not None and not self.learning[0].is_alive():
            self.draw()  # the deck is learnt: saved, and said
            self.display.present()
        if (not done and self.scene is not None and self.scene.screen in ("camera", "enrol")
                and self._frame_new
                and time.perf_counter() - self._looked_at >= self.look_every_s):
            self.draw()  # the live picture
            self.display.present()
        return done

    def handle_event(self, event: Any) -> Intent | None:
        if event.type == pygame.QUIT:
            self.closed = True
            return None
        if event.type == pygame.FINGERDOWN:
            pw, ph = self.display.physical_size
            return self.tap(*self.display.to_logical(event.x * pw, event.y * ph))
        if (event.type == pygame.MOUSEBUTTONDOWN and not getattr(event, "touch", False)
                and event.button == 1):
            return self.tap(*self.display.to_logical(*event.pos))
        return None

    def tap(self, x: int, y: int) -> Intent | None:
        """A tap at logical (x, y): the topmost target under it acts."""
        for rect, intent in reversed(self.targets):
            if rect.collidepoint(x, y):
                self.act(intent)
                return intent
        return None

    def _key(self, scene: Scene, key: str) -> None:
        if key == "\b":
            scene.edit_text = scene.edit_text[:-1]
        elif key == "\n":
            name = scene.edit_text.strip()
            if name and scene.editing is not None:
                scene.names[scene.editing] = name
                self._changed(f"name.{scene.editing.value}", name)
            scene.screen = "settings"
        elif len(scene.edit_text) < 16:
            # Typed names read as names: a capital first, then small letters.
            scene.edit_text += key if not scene.edit_text or scene.edit_text.endswith(" ") \
                else key.lower()

    def _language(self, scene: Scene, language: str) -> None:
        """Everything in ``language`` from now on; a side not named by the players is
        called North or South in it."""
        defaults = {player: i18n._(word) for player, word in SIDES.items()}
        i18n.set_language(language)
        for player, word in SIDES.items():
            if scene.names.get(player) == defaults[player]:
                scene.names[player] = i18n._(word)

    def _changed(self, key: str, value: str) -> None:
        if self.on_setting is not None:
            self.on_setting(key, value)

    def _choose(self, scene: Scene, token: str) -> None:
        """A card chosen in the picker (``""``: remove the card). While another card of
        the zone is still unread the picker moves on to it; then the zone is corrected."""
        tokens = scene.pick_tokens
        if scene.pick_slot >= len(tokens):
            tokens.append(token)
        else:
            tokens[scene.pick_slot] = token
        tokens[:] = [t for t in tokens if t]
        if UNKNOWN in tokens:
            scene.pick_slot = tokens.index(UNKNOWN)
            return
        if self.companion is not None:
            self.companion.correct(scene.pick_zone, tokens)
        scene.screen = "flag"

    def act(self, intent: Intent) -> None:
        scene = self.scene
        if scene is None or intent.kind == "none":
            return
        companion = self.companion
        scene.toast = ""
        if intent.kind == "go" and intent.value == "keyboard" and intent.player is not None:
            scene.editing, scene.edit_text = intent.player, scene.names[intent.player]
            scene.screen = "keyboard"
        elif intent.kind == "key":
            self._key(scene, intent.value)
        elif intent.kind == "enrol":
            self._enrol(scene, intent.value)
        elif intent.kind == "details":
            scene.camera_details = not scene.camera_details
        elif intent.kind == "colour" and intent.player is not None:
            rgb = tuple(int(v) for v in intent.value.split(","))
            colours = dict(scene.colours or looks.DEFAULT_COLOURS)
            colours[intent.player.value] = (rgb[0], rgb[1], rgb[2])
            scene.colours = self.colours = colours
            self._changed(f"colour.{intent.player.value}", intent.value)
        elif intent.kind == "go":
            scene.screen, scene.camera_details = intent.value, False
            if intent.flag is not None:
                scene.flag = intent.flag
            elif intent.value == "teach_flags" and scene.flag is None:
                scene.flag = 0
        elif intent.kind == "flag":
            scene.flag, scene.screen = intent.flag, "flag"
        elif intent.kind == "pick":
            scene.pick_zone, scene.pick_slot, scene.screen = intent.zone, int(intent.value), "pick"
            scene.pick_tokens = scene.zone_tokens(intent.zone)
        elif intent.kind == "choose":
            self._choose(scene, intent.value)
        elif intent.kind == "claim" and companion is not None:
            assert intent.flag is not None and intent.player is not None
            scene.ruling = companion.claim(intent.flag, intent.player)
            scene.screen = "ruling"
        elif intent.kind == "confirm" and companion is not None:
            companion.confirm(intent.flag)
            scene.screen = "play"
        elif intent.kind == "next":
            self.next_requested = True  # once: the button goes until the next game is over
            self.next_game = scene.next_game = False
            scene.toast = _next_game_words()
        elif intent.kind == "undo" and companion is not None:
            event = companion.undo()
            if event is None:
                scene.toast = _nothing_to_undo()
            scene.screen = "play"
        elif intent.kind == "option":
            scene.options[intent.zone] = intent.value
            if intent.zone == "language":
                self._language(scene, intent.value)
            elif intent.zone == "edition":
                scene.model = replace(scene.model, medieval=intent.value == "medieval")
            self._changed(intent.zone, intent.value)
            if companion is not None and intent.zone in ("auto_claim", "hints"):
                companion.options = replace(companion.options, **{intent.zone: intent.value == "on"})
                companion.refresh()
        if companion is not None and intent.kind in ("go", "flag", "pick", "option", "choose"):
            self.show(companion.model())
        else:
            self.draw()
            self.display.present()


def _next_game_words() -> str:
    from companion.i18n import _

    return _("Starting the next game…")


def _enrol_cancelled() -> str:
    from companion.i18n import _

    return _("Enrolment cancelled: nothing saved, the deck in use is unchanged.")


def _enrol_nothing() -> str:
    from companion.i18n import _

    return _("No card was captured, so no deck was saved.")


def _enrol_not_saved(error: str) -> str:
    from companion.i18n import _

    return _("The deck could not be saved: {error}").format(error=error)


def _enrol_learning(cards: int) -> str:
    from companion.i18n import ngettext

    return ngettext("Learning the {n} card captured; the deck is saved in a minute or so.",
                    "Learning the {n} cards captured; the deck is saved in a minute or so.",
                    cards).format(n=cards)


def _enrol_saved(got: int, asked: int) -> str:
    from companion.i18n import ngettext

    return ngettext("Deck saved with {got} of {asked} card; the reader uses it from the next "
                    "game.", "Deck saved with {got} of {asked} cards; the reader uses it from "
                    "the next game.", asked).format(got=got, asked=asked)


def _enrol_reads_poorly() -> str:
    from companion.i18n import _

    return _("Its cards look much alike to the camera: the companion will ask about many of "
             "them. Light the table evenly and bring the camera nearer.")


def _nothing_to_undo() -> str:
    from companion.i18n import _

    return _("Nothing to undo.")
