"""The companion: snapshots and button presses in; journal, lights and view out.

``Companion`` holds one game: a ``Tracker`` rules on what the table shows,
every event goes to the journal (fsynced) before the lights and the view
follow, and auto-claim takes provable flags when that option is on. It knows
nothing of where snapshots come from (camera through vision, or the
simulated table) — ``pump`` asks any ``SnapshotSource`` once — and a source
that fails puts the unclaimed flags in attention until it gives again.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from companion.messages import N_, Message
from companion.records.journal import Journal
from companion.rules.errors import RulesError
from companion.rules.game import Ending, Outcome
from companion.rules.position import PLAYERS, Player, Variant
from companion.sim.botgame import result_line
from companion.snapshot import Snapshot, SnapshotSource, SourceError
from companion.status import FlagStatus, flag_statuses, lights_of
from companion.tracker import ClaimResult, IssueKind, TrackedEvent, Tracker
from companion.tracker import who as side_words
from companion.ui.terminal import TerminalView, ViewModel
from hardware.lights import FlagLights
from hardware.states import ButtonEvent, FlagState


def _message(text: str) -> Message:
    """``text`` as a message parameter: itself if it is one, else as it is."""
    return text if isinstance(text, Message) else Message("{text}", text=text)


class ViewClosed(Exception):
    """The touchscreen's window was closed: the run ends, the game stays journaled."""


@dataclass(frozen=True)
class Options:
    auto_claim: bool = False
    hints: bool = True


class Companion:
    """One game at the table."""

    def __init__(
        self,
        tracker: Tracker,
        journal: Journal,
        lights: FlagLights,
        view: TerminalView,
        options: Options = Options(),
        *,
        title: str = "Battle Line companion",
        game: str = "",
        score_before: tuple[int, int] = (0, 0),
    ) -> None:
        self.tracker = tracker
        self.journal = journal
        self.lights = lights
        self.view = view
        self.options = options
        self.title = title
        self.game = game
        self.score_before = score_before
        self.last_ruling = ""
        self.camera_problem: str | None = None
        self.source_ended = False  # the source has nothing more to give (a folder read through)
        self.lights_updated_at = 0.0  # perf_counter of the last lights update
        self.event_lights_at = 0.0  # ... and of the one that showed the last event
        self._noted: tuple[str, ...] = ()
        # While the view holds the table (a deck being enrolled on it), the newest
        # snapshot waits here and is taken once the view lets the table go.
        self._held: Snapshot | None = None
        self._holding = False
        self._ended = tracker.outcome is not None
        self._journal_trouble = False
        self._journal_retry_at = 0.0
        self.refresh()

    # ----------------------------------------------------------------- state
    @property
    def variant(self) -> Variant:
        return self.tracker.variant

    @property
    def outcome(self) -> Outcome | None:
        return self.tracker.outcome

    def statuses(self) -> list[FlagStatus]:
        statuses = flag_statuses(
            self.tracker, hints=self.options.hints, camera_problem=self.camera_problem
        )
        if self.journal.trouble is None:
            return statuses
        # The game goes on; the flags with nothing else to show blink for the journal.
        unwritten = Message(N_("journal not written"))
        return [replace(s, light=FlagState.ATTENTION, text=unwritten)
                if s.light is FlagState.OFF else s for s in statuses]

    def journal_problem(self) -> Message | None:
        """What the view says while the journal is not being written."""
        trouble = self.journal.trouble
        if trouble is None:
            return None
        return Message(N_("journal: not being written ({trouble}); the game goes on, and "
                          "what waits is written once there is room"), trouble=trouble)

    def messages(self) -> list[str]:
        out: list[str] = [] if self.camera_problem is None else [
            Message(N_("camera: {problem}"), problem=self.camera_problem)]
        journal = self.journal_problem()
        if journal is not None:
            out.insert(0, journal)
        if self._holding:
            out.append(Message(N_("a deck is being enrolled: the cards laid now are not "
                                  "taken as plays")))
        seen: set[str] = set()
        for issue in self.tracker.issues:
            if issue.message not in seen:
                seen.add(issue.message)
                out.append(issue.message)
        return out

    def score(self) -> tuple[int, int]:
        north, south = self.score_before
        if self.outcome is not None:
            a, b = self.outcome.score()
            return north + a, south + b
        return north, south

    def model(self) -> ViewModel:
        return ViewModel(
            title=self.title,
            flags=self.tracker.position.flags,
            statuses=self.statuses(),
            last_ruling=self.last_ruling,
            messages=self.messages(),
            score=self.score(),
            game=self.game,
            medieval=self.variant.edition == "medieval",
        )

    # ----------------------------------------------------------------- inputs
    def pump_view(self) -> None:
        """The view's waiting taps act now (each is journaled like a button or a typed
        command); raises ``ViewClosed`` once its window is closed."""
        self.view.pump()
        if self.view.closed:
            raise ViewClosed

    def pump(self, source: SnapshotSource) -> list[TrackedEvent]:
        """The view's taps, then the source asked once; a failure is shown as attention
        and retried by the caller."""
        self.pump_view()
        self.retry_journal()
        try:
            snap = source.poll()
        except SourceError as error:
            self.source_ended = error.ended
            self.camera_failed(str(error))
            return []
        if self.camera_problem is not None:
            self.camera_back()
        if self.view.holds_table:
            self._holding, self._held = True, snap or self._held
            return []
        if self._holding:  # let go: the table as it was last seen still, if it changed
            self._holding, held, self._held = False, self._held, None
            snap = snap or held
        return [] if snap is None else self.on_snapshot(snap)

    def on_snapshot(self, snapshot: Snapshot) -> list[TrackedEvent]:
        return self._record(self.tracker.observe(snapshot))

    def retry_journal(self) -> None:
        """While the journal is not written, try again now and then (space may be back)."""
        if self.journal.trouble is None or time.monotonic() < self._journal_retry_at:
            return
        self._journal_retry_at = time.monotonic() + JOURNAL_RETRY_S
        if self.journal.retry():
            self.refresh()

    def camera_failed(self, message: str) -> None:
        if self.camera_problem != message:
            self.camera_problem = message
            self.journal.note(f"camera: {message}")
            self.view.say(Message(N_("camera: {problem} — retrying"), problem=message))
            self.refresh()

    def camera_back(self) -> None:
        self.camera_problem = None
        self.journal.note("camera: frames again")
        self.view.say(Message(N_("camera: frames again")))
        self.refresh()

    def claim(self, flag: int, player: Player) -> ClaimResult:
        """A claim by button or view: the ruling, journaled and lit if granted."""
        result = self.tracker.claim(flag, player)
        self.last_ruling = result.message
        self.view.say(result.message)
        if result.event is not None:
            self._record([result.event])
        else:
            self.refresh()
        return result

    def pass_(self, player: Player) -> TrackedEvent:
        return self._record([self.tracker.pass_(player)])[0]

    def correct(self, zone: str, tokens: list[str]) -> list[TrackedEvent]:
        self.journal.note(f"correction: {zone} holds {' '.join(tokens) or 'nothing'}")
        return self._record(self.tracker.correct(zone, tokens))

    def confirm(self, flag: int | None = None) -> list[TrackedEvent]:
        where = "every flag" if flag is None else f"flag {flag + 1}"
        self.journal.note(f"confirmed the readings at {where}")
        return self._record(self.tracker.confirm(flag))

    def undo(self) -> TrackedEvent | None:
        event = self.tracker.undo()
        if event is not None:
            self.journal.undo(event, self.tracker.position)
            self.view.say(Message(N_("undone: {event}"), event=event.describe()))
            self._ended = self.tracker.outcome is not None
            self.refresh()
        return event

    def button(self, event: ButtonEvent) -> None:
        """A claim/confirm button: a flag's button claims that flag (held: confirms its
        reading); a player's single button confirms uncertain readings, else claims every
        flag that player can prove now; held, it passes."""
        player = Player(event.player)
        if event.flag is not None:
            if event.held:
                self.confirm(event.flag - 1)
            else:
                self.claim(event.flag - 1, player)
            return
        if event.held:
            try:
                self.pass_(player)
            except Exception as error:  # IllegalAction: not their turn, game over
                why = error.phrase if isinstance(error, RulesError) else str(error)
                self.view.say(Message(N_("{side} cannot pass: {why}"), side=side_words(player),
                                      why=why))
            return
        if any(i.kind is IssueKind.UNCERTAIN for i in self.tracker.issues):
            self.confirm(None)
            return
        for flag, who in sorted(self.tracker.provable().items()):
            if who is player and self.outcome is None:
                self.claim(flag, player)

    def pump_buttons(self) -> int:
        """Handle every button press waiting on the lights' queue."""
        handled = 0
        while True:
            try:
                event = self.lights.events.get_nowait()
            except queue.Empty:
                return handled
            self.button(event)
            handled += 1

    # ----------------------------------------------------------------- outputs
    def _record(self, events: list[TrackedEvent]) -> list[TrackedEvent]:
        for event in events:
            self.journal.event(event, self.tracker.position)
            if event.ruling is None:
                self.view.say(f"{event.describe()}")
        if events:
            events += self._auto_claims()
        self._note_issues()
        self.refresh()
        if events:
            self.event_lights_at = self.lights_updated_at
        self._finish_if_over()
        return events

    def _auto_claims(self) -> list[TrackedEvent]:
        if not self.options.auto_claim:
            return []
        taken: list[TrackedEvent] = []
        state = self.tracker.state
        last = None if not self.tracker.history else self.tracker.history[-1][1].player
        order = [state.to_move] if self.variant.claim_timing == "advanced" else [
            p for p in (last, state.to_move) if p is not None
        ]
        for player in dict.fromkeys(order or list(PLAYERS)):
            for flag, who in sorted(self.tracker.provable().items()):
                if who is player and self.outcome is None:
                    result = self.tracker.claim(flag, player)
                    if result.event is not None:
                        self.last_ruling = result.message
                        self.view.say(Message(N_("auto-claim: {ruling}"),
                                              ruling=_message(result.message)))
                        self.journal.event(result.event, self.tracker.position)
                        taken.append(result.event)
        return taken

    def _note_issues(self) -> None:
        messages = tuple(self.messages())
        if messages != self._noted:
            for message in messages:
                if message not in self._noted:
                    self.journal.note(message)
                    self.view.say(Message(N_("! {message}"), message=_message(message)))
            self._noted = messages

    def refresh(self) -> None:
        trouble = self.journal.trouble is not None
        if trouble != self._journal_trouble:  # its start is said with the other messages
            self._journal_trouble = trouble
            if not trouble:
                self.view.say(Message(N_("journal: written again")))
        self.lights.set_all(lights_of(self.statuses()))
        self.lights_updated_at = time.perf_counter()
        self.view.show(self.model())

    def _finish_if_over(self) -> None:
        outcome = self.outcome
        if outcome is None or self._ended:
            return
        self._ended = True
        self.journal.end(outcome)
        if outcome.winner is not None and outcome.ending in (Ending.BREAKTHROUGH, Ending.ENVELOPMENT):
            if outcome.ending is Ending.BREAKTHROUGH:
                self.lights.won(outcome.winner.value, "breakthrough")
            else:
                self.lights.won(outcome.winner.value, "envelopment")

    @property
    def over(self) -> bool:
        return self.outcome is not None


VIEW_TICK_S = 1 / 30  # while waiting, the view reads taps this often
JOURNAL_RETRY_S = 1.0  # while the journal cannot be written, a new try this often


def waiting(companion: Companion, sleep: Callable[[float], None] = time.sleep,
            ) -> Callable[[float], None]:
    """A sleep during which the view keeps answering taps."""

    def wait(seconds: float) -> None:
        end = time.monotonic() + seconds
        while True:
            companion.pump_view()
            left = end - time.monotonic()
            if left <= 0:
                return
            sleep(min(VIEW_TICK_S, left))

    return wait


def run_live(
    companion: Companion,
    source: SnapshotSource,
    *,
    stop: Callable[[], bool] = lambda: False,
    retry_s: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """The camera loop: buttons, the view's taps, then the next snapshot, until the
    game is over."""
    wait = waiting(companion, sleep)
    while not companion.over and not stop():
        companion.pump_buttons()
        companion.pump(source)
        if companion.camera_problem is not None:
            wait(retry_s)


__all__ = ["Companion", "Options", "ViewClosed", "result_line", "run_live", "waiting"]
