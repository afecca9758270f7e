"""``battleline-companion [play]``: the companion, with whatever this machine has.

With a camera it follows the game on the table. With none it plays seeded
bot-vs-bot games on the simulated table — rendered frames through vision,
tracker, rules, lights and view — and ends with the result and the match
score. Either way every event is journaled, and an unfinished game resumes
when the command is run again (``--new`` closes it and starts afresh).
"""

from __future__ import annotations

import argparse
import select
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.app import Companion, Options, ViewClosed, result_line, run_live, waiting
from companion.config import Choices, Config, ConfigError, config_path, detect, load_config
from companion.i18n import _, ngettext, set_language, translation
from companion.messages import N_, Message
from companion.records.journal import (
    Journal,
    JournalError,
    JournalRecord,
    find_unfinished,
    outcome_from,
    outcome_json,
    set_aside,
    variant_json,
)
from companion.records.salvage import resumable
from companion.rules.battlefield import Setup
from companion.rules.game import Outcome
from companion.rules.match import Match
from companion.rules.position import ClaimTiming, Edition, Player, Variant
from companion.run_options import parser, with_arguments
from companion.sim.botgame import match_line
from companion.sim.simtable import TruthSnapshots, script_game
from companion.sim.simulate import Driver, SimulatedTable
from companion.snapshot import SourceError
from companion.tracker import Tracker, who
from companion.ui.live_settings import LiveSettings
from companion.ui.terminal import NoView, TerminalView
from hardware.factory import LightsUnavailable, open_lights, resolve_board
from hardware.lights import FlagLights, NoLights

if TYPE_CHECKING:
    from companion.ui.pygame_view import PygameView
    from vision.profile import DeckProfile


def _open_lights(config: Config, board: str) -> FlagLights:
    try:
        return open_lights(replace(config.lights, board=board))
    except LightsUnavailable as error:
        print(_("lights: {error} — going on without lights").format(error=error),
              file=sys.stderr)
        return NoLights(config.lights)


def _board_of(config: Config) -> FlagLights:
    """The lights board a setting names (``auto`` looked for again)."""
    try:
        board = resolve_board(config.lights)
    except Exception as error:  # a serial port scan failing must not stop the game
        print(_("lights: cannot look for a board ({error}); no lights").format(error=error),
              file=sys.stderr)
        board = "none"
    return _open_lights(config, board)


def _open_view(config: Config, choices: Choices, quiet: bool,
               ) -> tuple[TerminalView, PygameView | None]:
    """The view chosen (and it again if it is the touchscreen); a touchscreen that
    cannot open is the terminal view instead, unless it was asked for by name."""
    if choices.view == "touchscreen":
        try:
            from companion.ui.pygame_view import open_touchscreen

            names = {Player(side): name for side, name in (
                ("north", config.north_name), ("south", config.south_name)) if name}
            screen = open_touchscreen(
                config.orientation, fullscreen=choices.fullscreen, names=names or None,
                settings={"claim_timing": config.claim_timing, "lights": config.lights.board,
                          "language": config.language, "edition": config.edition})
            return screen, screen
        except Exception as error:  # pygame.error: no video device, no such driver
            if config.view == "touchscreen":
                raise ViewUnavailable(_("cannot open the touchscreen: {error}").format(
                    error=error)) from None
            print(_("view: cannot open the touchscreen ({error}); terminal view").format(
                error=error))
    if quiet or choices.view == "none":
        return NoView(), None
    return TerminalView(), None


class ViewUnavailable(RuntimeError):
    pass


class ShownFrames:
    """A camera (``FrameSource``) whose every frame the view is also shown."""

    def __init__(self, frames: Any, show: Callable[[Any], None]) -> None:
        self.frames = frames
        self.name = frames.name
        self.show = show

    def read(self) -> Any:
        try:
            pair = self.frames.read()
        except Exception:
            self.show(None)  # no picture
            raise
        self.show(pair.main)
        return pair

    def close(self) -> None:
        self.frames.close()


def main(argv: list[str]) -> int:
    # The system's language until the settings say which (their own problems, --help).
    set_language("auto")
    ns = parser().parse_args(argv)
    if ns.games < 1:
        parser().error(_("--games must be at least 1"))
    unreadable: Message | None = None
    try:
        loaded, path, found = load_config(ns.config)
    except ConfigError as error:  # the defaults stand; the file is left as it is
        unreadable = Message(N_("{problem}; the file is left as it is"), problem=str(error))
        loaded, path, found = Config(), ns.config or config_path(), False
        print(_("battleline-companion: settings: {problem}, using the defaults").format(
            problem=_localized(unreadable)), file=sys.stderr)
    try:
        config = with_arguments(loaded, ns)
    except ConfigError as error:
        print(f"battleline-companion: {error}", file=sys.stderr)
        return 2
    if config.auto_claim and "random" in (ns.north, ns.south):
        print(_("battleline-companion: auto-claim takes every provable flag at once, so the "
                "simulated players must too: use the greedy bots with --auto-claim"),
              file=sys.stderr)
        return 2
    set_language(config.language)
    choices = detect(config)
    say = (lambda _text: None) if ns.quiet else print
    if unreadable is None:
        say(_("settings: {path}").format(path=path) if found else
            _("settings: none at {path}, using the defaults").format(path=path))
    for note in choices.notes:
        say(note)
    directory = config.journal_path()
    mode = "simulated" if choices.camera == "simulated" else "camera"
    try:
        record = _unfinished(directory, ns.new, say)
    except JournalError as error:
        print(f"battleline-companion: {error}", file=sys.stderr)
        return 1
    if record is not None and record.header.get("mode") != mode:
        unfinished = (_("battleline-companion: an unfinished simulated game is in {path}; "
                        "run with --new to close it and start this one")
                      if record.header.get("mode") == "simulated" else
                      _("battleline-companion: an unfinished camera game is in {path}; "
                        "run with --new to close it and start this one"))
        print(unfinished.format(path=record.path), file=sys.stderr)
        return 2
    try:
        view, touchscreen = _open_view(config, choices, ns.quiet)
    except ViewUnavailable as error:
        print(f"battleline-companion: {error}", file=sys.stderr)
        return 2
    settings = LiveSettings(config, path, _open_lights(config, choices.board), _board_of,
                            view.say, unreadable)
    if unreadable is not None:
        _on_screen(view, Message(N_("settings: {problem}, using the defaults"),
                                 problem=unreadable))
    if touchscreen is not None:
        touchscreen.on_setting = settings
    try:
        settings.lights.self_test()
        if mode == "simulated":
            return _simulated_match(settings, ns, directory, record, view, touchscreen)
        return _camera_game(settings, choices, directory, record, view, touchscreen)
    except KeyboardInterrupt:
        print("\n" + _("stopped; the game is journaled and resumes on the next start"))
        return 130
    except JournalError as error:  # a journal folder that cannot be written at all
        print(_("battleline-companion: journal {problem}").format(problem=error),
              file=sys.stderr)
        return 1
    except ViewClosed:
        print(_("the touchscreen was closed; an unfinished game is journaled and resumes on "
                "the next start"))
        return 0
    finally:
        settings.lights.close()
        if touchscreen is not None:
            touchscreen.close()


def _unfinished(directory: Path, new: bool, say: Any) -> JournalRecord | None:
    """The unfinished game to resume, if any. A damaged journal is never dropped in
    silence: its bad line is named, the game resumes from the last good event before it
    (in a new journal), and the damaged file is kept as it was."""
    path = find_unfinished(directory)
    if path is None:
        return None
    try:
        record = resumable(path)
    except JournalError as error:
        set_aside(path, str(error))
        print(_("battleline-companion: journal {problem}: the unfinished game in it cannot "
                "be resumed; the file is kept as it was and a new game starts").format(
                    problem=error), file=sys.stderr)
        return None
    if record.torn:
        say(_("journal {path}: the last line was cut short (power cut?) and is left "
              "out").format(path=path))
    if record.damage is not None:
        count = len(record.events)
        print(ngettext(
            "battleline-companion: journal {problem}; resuming from the last good event "
            "before it ({n} event); the damaged file is kept as it was beside the new journal",
            "battleline-companion: journal {problem}; resuming from the last good event "
            "before it ({n} events); the damaged file is kept as it was beside the new "
            "journal", count).format(problem=record.damage, n=count), file=sys.stderr)
    if new:
        journal = Journal.reopen(record)
        journal.end(None, "abandoned: a new game was started")
        journal.close()
        say(_("closed the unfinished game in {path}").format(path=path))
        return None
    return record


def _options(config: Config) -> Options:
    return Options(auto_claim=config.auto_claim, hints=config.hints)


def _variant(config: Config) -> Variant:
    timing: ClaimTiming = "advanced" if config.claim_timing == "advanced" else "standard"
    edition: Edition = "medieval" if config.edition == "medieval" else "gmt"
    return Variant(tactics=config.tactics, claim_timing=timing,
                   terrain=config.battlefield != "none", edition=edition)


def _setup(config: Config) -> Setup:
    """How the battlefield cards are laid: the shuffled layout, or placed in turn."""
    if config.battlefield == "hundred-years-war":
        return Setup.HUNDRED_YEARS_WAR
    return Setup.STANDARD


def _between_games(companion: Companion, touchscreen: PygameView | None, more: bool) -> bool:
    """With a touchscreen, the game-over screen stays until a player starts the next
    game there (``more``), or, after the last game, until the window is closed.
    Whether to go on."""
    if touchscreen is None:
        return more
    touchscreen.next_game = more
    companion.refresh()
    wait = waiting(companion)
    try:
        while not touchscreen.next_requested:
            wait(0.1)
    except ViewClosed:
        print(_("the touchscreen was closed"))
        return False
    except KeyboardInterrupt:  # the game is over and journaled: nothing to resume
        print("\n" + _("stopped"))
        return False
    touchscreen.next_game = False
    return True


def _simulated_match(
    settings: LiveSettings,
    ns: argparse.Namespace,
    directory: Path,
    record: JournalRecord | None,
    view: TerminalView,
    touchscreen: PygameView | None,
) -> int:
    config = settings.config
    base, games, north, south = ns.seed, ns.games, ns.north, ns.south
    snapshots = config.snapshots
    outcomes: tuple[Outcome, ...] = ()
    start = 0
    resumed: Variant | None = None
    if record is not None:
        try:
            match = record.header.get("match", {})
            base, games = int(match.get("seed", base)), int(match.get("games", games))
            start = int(match.get("game", 0))
            outcomes = tuple(outcome_from(o) for o in match.get("outcomes", []))
            north, south = record.header.get("north", north), record.header.get("south", south)
            snapshots = record.header.get("snapshots", snapshots)
            resumed = record.variant
            if {north, south} - {"greedy", "random"} or snapshots not in ("vision", "truth"):
                raise ValueError("unknown bots or snapshots")
        except (AttributeError, TypeError, ValueError, OverflowError) as error:
            print(_("battleline-companion: {path}: line 1: not a simulated match "
                    "({problem})").format(path=record.path, problem=error), file=sys.stderr)
            return 1
        print(_("Resuming game {k} of {n} (seed {seed}) from {path}").format(
            k=start + 1, n=games, seed=base + start, path=record.path))
    think = 0.0 if ns.speed == 0 else config.think_s / ns.speed
    score = Match(outcomes=outcomes)
    for game in range(start, games):
        config = settings.config  # as the touchscreen's settings left it
        resuming = resumed is not None and game == start
        variant = resumed if resumed is not None and resuming else _variant(config)
        setup = record.setup if record is not None and resuming else _setup(config)
        if setup is Setup.HUNDRED_YEARS_WAR:
            # Its text-down placements are entered on the view by people at a real table.
            print(_("The simulated table lays the battlefield shuffled: the Hundred Years' "
                    "War is played at the camera table"))
            setup = Setup.STANDARD
        seed, first = base + game, score.next_first
        print(_("Game {k} (seed {seed}, {side} plays first)").format(
            k=game + 1, seed=seed, side=_localized(who(first))))
        script = script_game(seed, first, variant, north, south, setup)
        if game > start:
            settings.lights.clear_effect()  # the last game's winner's effect
        tracker = Tracker(variant, first, config.min_confidence, setup=setup)
        if record is not None and game == start:
            for event in record.events:
                tracker.apply(event)
            journal = Journal.reopen(record)
        else:
            journal = Journal.create(directory, {
                "mode": "simulated", "first": first.value, "variant": variant_json(variant),
                "setup": setup.value,
                "options": {"auto_claim": config.auto_claim, "hints": config.hints},
                "seed": seed, "north": north, "south": south, "snapshots": snapshots,
                "match": {"seed": base, "games": games, "game": game,
                          "outcomes": [outcome_json(o) for o in score.outcomes]},
            })
        companion = Companion(
            tracker, journal, settings.lights, view, _options(config),
            title=Message(N_("Battle Line companion — simulated table")),
            game=Message(N_("Game {k} of {n}, seed {seed}, {side} plays first"), k=game + 1,
                         n=games, seed=seed, side=who(first)),
            score_before=score.score,
        )
        settings.companion = companion
        if touchscreen is not None:  # its game-over screen offers the next game, if any
            touchscreen.next_game, touchscreen.next_requested = game + 1 < games, False
        view.attach(companion)
        if record is not None and game == start and record.damage is not None:
            _on_screen(view, _resumed(record.damage))
        table = _table(config, snapshots, seed, view)
        try:
            report = Driver(companion, script, table, think_s=think,
                            sleep=waiting(companion)).run()
        except ValueError as error:
            print(f"battleline-companion: {journal.path}: {error}", file=sys.stderr)
            return 1
        finally:
            table.close()
            journal.close()
        outcome = companion.outcome
        view.board(companion.model())
        if outcome is None:
            print(_("The game did not finish: {problems}").format(
                problems="; ".join(report.problems[:5])), file=sys.stderr)
            return 1
        print(result_line(outcome))
        if report.corrections or report.wrong_events:
            print(ngettext("(the simulated players straightened cards {times} times and "
                           "corrected {n} reading)",
                           "(the simulated players straightened cards {times} times and "
                           "corrected {n} readings)", report.corrections).format(
                               times=report.nudges, n=report.corrections))
        score = score.record(outcome)
        print(match_line(*score.score))
        if not _between_games(companion, touchscreen, more=game + 1 < games):
            return 0
    return 0


def _table(config: Config, snapshots: str, seed: int, view: TerminalView) -> SimulatedTable:
    if snapshots == "truth":
        return TruthSnapshots(seed=seed)
    from companion.vision_path import WorkerFrames, vision_table

    # The simulated camera renders in its own process, the next table while this one is read.
    frames = WorkerFrames(seed)
    table = vision_table(seed, _deck(config.deck, view), still_frames=config.still_frames,
                         vote_frames=config.vote_frames, frames=frames)
    table.vision.frames = ShownFrames(frames, view.camera_frame)  # the camera view shows them
    return table


def _camera_game(
    settings: LiveSettings,
    choices: Choices,
    directory: Path,
    record: JournalRecord | None,
    view: TerminalView,
    touchscreen: PygameView | None,
) -> int:
    """Games at the camera table: one, or with a touchscreen one after another, each
    started from its game-over screen, until the window is closed."""
    from companion.commands import run_command
    from companion.vision_path import ReopeningFrames, VisionSnapshots, load_profile

    config = settings.config
    profile = _deck(config.deck, view)
    frames = ReopeningFrames(_camera_opener(config, choices.camera), choices.camera)
    source = VisionSnapshots(ShownFrames(frames, view.camera_frame), profile,
                             still_frames=config.still_frames, vote_frames=config.vote_frames)
    interactive = sys.stdin.isatty()
    score = Match()
    deck = config.deck
    damage: str | None = None
    try:
        while True:
            config = settings.config
            if config.deck != deck:  # a deck enrolled on the touchscreen: read with it now
                try:
                    source.use_profile(load_profile(config.deck))
                    deck = config.deck
                except SourceError as error:
                    print(_("deck profile: {problem}; still reading with {deck}").format(
                        problem=error, deck=deck), file=sys.stderr)
            variant, setup = _variant(config), _setup(config)
            first: Player | None = None  # at the table, whoever lays the first card starts
            if record is not None:
                variant, first, setup = record.variant, record.first, record.setup
            tracker = Tracker(variant, first or Player.SOUTH, config.min_confidence,
                              first_known=first is not None, setup=setup)
            if record is not None:
                for event in record.events:
                    tracker.apply(event)
                journal = Journal.reopen(record)
                count = len(record.events)
                print(ngettext("Resuming the game in {path} ({n} event)",
                               "Resuming the game in {path} ({n} events)", count).format(
                                   path=record.path, n=count))
                damage, record = record.damage, None
            else:
                journal = Journal.create(directory, {
                    "mode": "camera", "first": None, "variant": variant_json(variant),
                    "setup": setup.value,
                    "options": {"auto_claim": config.auto_claim, "hints": config.hints},
                    "camera": choices.camera,
                })
            companion = Companion(tracker, journal, settings.lights, view, _options(config),
                                  title=Message(N_("Battle Line companion — {camera}"),
                                                camera=choices.camera),
                                  score_before=score.score)
            settings.companion = companion
            if touchscreen is not None:  # at the table, a match goes on game after game
                touchscreen.next_game, touchscreen.next_requested = True, False
            view.attach(companion)
            if damage is not None:
                _on_screen(view, _resumed(damage))
                damage = None
            ended = False

            def typed(companion: Companion = companion) -> bool:
                """Commands typed on the terminal (claim 3 north, confirm 3, undo, ...); a
                folder of images ends when it is read through."""
                nonlocal ended
                if companion.source_ended:
                    print(_("the folder of images is read through"))
                    ended = True
                    return True
                if interactive and select.select([sys.stdin], [], [], 0)[0]:
                    line = sys.stdin.readline()
                    if line.strip() in ("quit", "exit"):
                        ended = True
                        return True
                    print(run_command(companion, line))
                return False

            try:
                run_live(companion, source, stop=typed)
            finally:
                journal.close()
            if companion.outcome is not None:
                print(result_line(companion.outcome))
                score = score.record(companion.outcome)
                print(match_line(*score.score))
            if ended or companion.outcome is None or not _between_games(
                    companion, touchscreen, more=touchscreen is not None):
                return 0
    except KeyboardInterrupt:
        print("\n" + _("stopped; the game is journaled and resumes on the next start"))
        return 0
    finally:
        source.close()


def _localized(message: Message) -> str:
    """A message for the command line, in the language set."""
    return message.localized(translation())


def _resumed(damage: str) -> Message:
    return Message(N_("journal {problem}: resumed from the last good event before it"),
                   problem=damage)


def _on_screen(view: TerminalView, message: Message) -> None:
    """A start-up warning (already on stderr) also on the touchscreen, for the players."""
    if type(view) not in (TerminalView, NoView):
        view.say(message)


def _deck(deck: str, view: TerminalView) -> DeckProfile:
    """The deck profile the settings name; one that cannot be read is named, and the
    built-in deck is read instead (the file is left as it is)."""
    from companion.vision_path import load_profile
    from vision.profile import builtin_profile

    try:
        return load_profile(deck)
    except SourceError as error:
        message = Message(N_("deck profile: {problem}; reading the built-in deck instead"),
                          problem=str(error))
        print(f"battleline-companion: {_localized(message)}", file=sys.stderr)
        _on_screen(view, message)
        return builtin_profile()


def _camera_opener(config: Config, camera: str) -> Any:
    def opener() -> Any:
        if camera == "picamera2":
            from vision.sources.picamera2_source import Picamera2Source

            return Picamera2Source()
        if camera == "folder":
            from vision.sources.folder import FolderSource

            return FolderSource(Path(config.folder).expanduser())
        from vision.sources.opencv_capture import OpenCVSource

        return OpenCVSource(config.device)

    return opener
