"""From successive stable snapshots to game events, checked against the rules.

The tracker keeps what it believes lies on the table (``zones``, plus the
rules' ``Table``) and compares each new snapshot with it. A difference the
rules explain as one card play — a troop or tactic laid at a flag, Fog or
Mud, Scout in the guile area, Redeploy/Deserter/Traitor with the card they
move — becomes an event. Anything else (two cards at once, a card vanished,
a card added at a claimed flag, the tactics limit broken, a second leader)
puts the flags it touches in attention with a plain message, and the belief
stays as it was: once the table matches it again, or shows one legal play
away from it, tracking goes on. A reading below the confidence threshold
that matters is never guessed at: its flag is uncertain until the table reads
clearly or a person confirms or corrects it.

Claims and passes come from the buttons or the view (``claim``, ``pass_``);
the camera cannot see them. ``undo`` takes back the last event. How a change
reads as one play is ``companion.explain``'s; the zones' names are
``companion.zones``'.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from companion.explain import Change, Problem, Waiting, explain, rules_error
from companion.messages import N_, NP_, Cards, Message
from companion.rules.actions import (
    Action,
    Betray,
    Claim,
    Desert,
    Discard,
    Pass,
    Place,
    Play,
    Redeploy,
    Remove,
    Scout,
)
from companion.rules.battlefield import Setup
from companion.rules.cards import Card, Tactic, Terrain, parse_card
from companion.rules.claims import Ruling, Rulings, adjudicate
from companion.rules.errors import ClaimRefused, IllegalAction, NotationError
from companion.rules.game import Outcome
from companion.rules.position import FLAG_COUNT, Player, Position, Variant
from companion.rules.table import Table
from companion.rules.table_game import TableGame
from companion.ruling_words import describe_ruling
from companion.snapshot import UNKNOWN, Reading, Snapshot
from companion.zones import (
    ZoneName,
    discard_zone,
    env_zone,
    flag_words,
    formation_zone,
    guile_zone,
    terrain_zone,
    who,
)

DEFAULT_THRESHOLD: Final = 0.75


class IssueKind(enum.Enum):
    ATTENTION = "attention"  # the table shows something the rules cannot explain
    UNCERTAIN = "uncertain"  # a reading is not sure enough to act on
    WAITING = "waiting"  # half a play: a guile card whose move is still to come


@dataclass(frozen=True, slots=True)
class Issue:
    kind: IssueKind
    flag: int | None  # 0..8, or None for the areas off the flag line and the camera
    message: Message  # English as a str; ``message.localized(_)`` for the view


@dataclass(frozen=True, slots=True)
class TrackedEvent:
    """One game event: a card play, a claim or a pass, by ``player``."""

    player: Player
    action: Action
    pile: str | None = None  # the discard pile a moved card went to
    ruling: Ruling | None = None  # for a claim

    def notation(self) -> str:
        return self.action.notation()

    def describe(self) -> str:
        return f"{self.player} {self.notation()}"


@dataclass(frozen=True, slots=True)
class ClaimResult:
    """A claim's outcome: the ruling, and the event when it was granted and taken."""

    player: Player
    flag: int
    ruling: Ruling | None
    event: TrackedEvent | None
    message: Message  # a plain sentence for the view (translatable)


@dataclass(frozen=True, slots=True)
class TrackerState:
    """What the tracker believes at one moment; immutable, so undo is a pop."""

    game: TableGame
    zones: Mapping[str, tuple[str, ...]]

    @property
    def table(self) -> Table:
        return self.game.table

    @property
    def position(self) -> Position:
        return self.game.table.position

    @property
    def to_move(self) -> Player:
        return self.game.to_move

    @property
    def moment(self) -> int:
        return self.game.moment

    @property
    def passes(self) -> int:
        return self.game.passes

    @property
    def outcome(self) -> Outcome | None:
        return self.game.outcome


def _zones_after(
    zones: Mapping[str, tuple[str, ...]], player: Player, action: Action, pile: str | None
) -> dict[str, tuple[str, ...]]:
    """Where every card lies after ``player`` plays ``action`` (the tracker's belief)."""
    out = dict(zones)

    def add(zone: str, card: Card) -> None:
        out[zone] = (*out.get(zone, ()), card.token)

    def take(zone: str, card: Card) -> None:
        cards = list(out.get(zone, ()))
        cards.remove(card.token)
        out[zone] = tuple(cards)

    if isinstance(action, Place):
        out[terrain_zone(action.flag)] = (action.terrain.token,) if action.up else ()
    elif isinstance(action, Discard | Remove):
        # Marshes: the loser discards their own troop; Watchtower: the claimant takes the
        # opponent's. Either way the card goes to its owner's discard pile by default.
        owner = player if isinstance(action, Discard) else player.other
        take(formation_zone(action.flag, owner), action.card)
        add(pile or discard_zone(owner), action.card)
    own_pile = pile or discard_zone(player)
    if isinstance(action, Play):
        card = action.card
        if isinstance(card, Tactic) and card.is_environment:
            add(env_zone(action.flag, player), card)
        else:
            add(formation_zone(action.flag, player), card)
    elif isinstance(action, Scout):
        add(guile_zone(player), Tactic.SCOUT)
    elif isinstance(action, Redeploy):
        add(guile_zone(player), Tactic.REDEPLOY)
        take(formation_zone(action.flag, player), action.card)
        add(own_pile if action.to is None else formation_zone(action.to, player), action.card)
    elif isinstance(action, Desert):
        add(guile_zone(player), Tactic.DESERTER)
        take(formation_zone(action.flag, player.other), action.card)
        add(own_pile, action.card)
    elif isinstance(action, Betray):
        add(guile_zone(player), Tactic.TRAITOR)
        take(formation_zone(action.flag, player.other), action.card)
        add(formation_zone(action.to, player), action.card)
    return {z: c for z, c in out.items() if c}


def _card_token(text: str) -> str | None:
    """``text`` as a card's token (``r7`` is ``R7``), or None if it names no card."""
    try:
        return parse_card(text).token
    except NotationError:
        return None


def _laid_on_top(readings: tuple[Reading, ...], belief: Counter[str], sure: Counter[str],
                 threshold: float) -> bool:
    """Whether a zone shows one card more than believed, the last one read surely and
    not believed there, and every other card read surely is a believed one: a card laid
    on the zone's own, whose cards now show their bands alone (``sure``: the cards read
    surely)."""
    return (bool(belief) and len(readings) == sum(belief.values()) + 1
            and readings[-1].certain(threshold)
            and sure - belief == Counter([readings[-1].token]))


@dataclass
class Tracker:
    """Successive snapshots in, events out; claims and passes from the buttons or the view."""

    variant: Variant = field(default_factory=Variant)
    first: Player = Player.SOUTH
    threshold: float = DEFAULT_THRESHOLD
    # False at a real table: whoever lays the first card plays first (the non-dealer).
    first_known: bool = True
    setup: Setup = Setup.STANDARD
    state: TrackerState = field(init=False)
    history: list[tuple[TrackerState, TrackedEvent]] = field(default_factory=list, init=False)
    issues: list[Issue] = field(default_factory=list, init=False)
    last_snapshot: Snapshot | None = field(default=None, init=False)
    # zone -> (what lies there, the reading it corrected)
    corrections: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = field(
        default_factory=dict, init=False
    )

    def __post_init__(self) -> None:
        game = TableGame.new(self.variant, self.first if self.first_known else None, self.setup)
        self.state = TrackerState(game, {})

    # ----------------------------------------------------------------- queries
    @property
    def table(self) -> Table:
        return self.state.table

    @property
    def position(self) -> Position:
        return self.state.table.position

    @property
    def events(self) -> list[TrackedEvent]:
        return [event for _, event in self.history]

    @property
    def outcome(self) -> Outcome | None:
        return self.state.outcome

    @property
    def settled(self) -> bool:
        """The table matches the belief: no attention, no uncertain reading, nothing half done."""
        return not self.issues

    def rulings(self) -> Rulings:
        return adjudicate(self.position)

    def issues_at(self, flag: int | None) -> list[Issue]:
        return [i for i in self.issues if i.flag == flag]

    def provable(self) -> dict[int, Player]:
        """Flags (0..8) provable right now, and for whom: the hints."""
        if self.outcome is not None:
            return {}
        out: dict[int, Player] = {}
        for f in self.rulings().flags:
            for player in (self.state.to_move, self.state.to_move.other):
                if f.ruling(player).granted and f.index not in out:
                    out[f.index] = player
        return out

    # ----------------------------------------------------------------- snapshots
    def observe(self, snapshot: Snapshot) -> list[TrackedEvent]:
        """Compare a new stable snapshot with the belief; the event it shows, if any."""
        self.last_snapshot = snapshot
        return self._evaluate()

    def correct(self, zone: str, tokens: Sequence[str]) -> list[TrackedEvent]:
        """A person says what lies in ``zone`` (first played first); it stands until the
        zone visibly changes, and replaces any correction elsewhere that lists one of
        these cards. Re-reads the last snapshot with it."""
        where = ZoneName.parse(zone)
        if where is None:
            raise ValueError(f"{zone!r} is not a zone the tracker follows")
        fixed = tuple(parse_card(t).token for t in tokens)  # NotationError names a bad token
        raw = () if self.last_snapshot is None else self.last_snapshot.readings(zone)
        self._stand(zone, fixed, tuple(r.token for r in raw))
        return self._evaluate()

    def confirm(self, flag: int | None = None) -> list[TrackedEvent]:
        """Accept the uncertain readings at ``flag`` (0..8; None: everywhere) as read.

        A card read as ``unknown`` stands as the camera's guess, which the message
        asking about it named (``_guessed``); without one it needs ``correct``.
        """
        snap = self.last_snapshot
        if snap is None:
            return []
        for zone, readings in snap.zones.items():
            where = ZoneName.parse(zone)
            if where is None or (flag is not None and where.flag != flag):
                continue
            if any(not r.certain(self.threshold) for r in readings):
                fixed = self._guessed(zone, readings)
                if fixed is not None:
                    self._stand(zone, fixed, tuple(r.token for r in readings))
        return self._evaluate()

    def guesses(self, zone: str) -> tuple[str | None, ...]:
        """Per card of ``zone`` in the last snapshot, the camera's guess a person may
        take (``confirm`` takes them all at once), else None (``_guesses``)."""
        snap = self.last_snapshot
        return self._guesses(zone, () if snap is None else snap.readings(zone))

    def _guesses(self, zone: str, readings: tuple[Reading, ...]) -> tuple[str | None, ...]:
        """Per reading, the camera's guess where it read ``unknown``, else None; None too
        where the guess is not a card, is a card the record holds at another zone, is
        read by name here, or is guessed twice here (a card lies in one place)."""
        held = {t for z, cards in self.state.zones.items() if z != zone for t in cards}
        held |= {_card_token(r.token) or r.token for r in readings if r.token != UNKNOWN}
        guessed = [_card_token(r.guess) if r.token == UNKNOWN and r.guess else None
                   for r in readings]
        counts = Counter(g for g in guessed if g is not None)
        return tuple(None if g is None or g in held or counts[g] > 1 else g for g in guessed)

    def _guessed(self, zone: str, readings: tuple[Reading, ...]) -> tuple[str, ...] | None:
        """The zone's cards as read, each ``unknown`` one as the camera's guess; None if
        one has no guess a person may take (``_guesses``), or a token is not a card."""
        guesses = self._guesses(zone, readings)
        if any(r.token == UNKNOWN and g is None
               for r, g in zip(readings, guesses, strict=True)):
            return None
        try:
            return tuple(g or parse_card(r.token).token
                         for r, g in zip(readings, guesses, strict=True))
        except NotationError:
            return None

    def _stand(self, zone: str, fixed: tuple[str, ...], raw: tuple[str, ...]) -> None:
        """Let ``fixed`` stand for ``zone``. Each card lies in one place, so a correction
        elsewhere that lists one of its cards is stale (the card was moved, say by a
        Deserter, and read unsure at its new place): it goes, and that zone is read as seen.
        """
        for other, (cards, _) in list(self.corrections.items()):
            if other != zone and set(cards) & set(fixed):
                del self.corrections[other]
        self.corrections[zone] = (fixed, raw)

    def _effective(
        self, zone: str, readings: tuple[Reading, ...], elsewhere: Counter[str]
    ) -> tuple[Reading, ...]:
        """The readings with a standing correction applied.

        A correction stands while the zone reads exactly as when it was corrected (the
        same misreading), or while its reading fits the correction: no card read for
        sure that it does not list, no more cards than it lists, and none of its cards
        read for sure in another zone (``elsewhere``). A card the camera keeps missing
        or misreading stays corrected; a card laid there or taken away to another zone
        drops the correction (one corrected into another zone drops it in ``_stand``).
        """
        standing = self.corrections.get(zone)
        if standing is None:
            return readings
        fixed, raw = standing
        sure = Counter(r.token for r in readings if r.certain(self.threshold))
        fits = tuple(r.token for r in readings) == raw or (
            not sure - Counter(fixed)
            and len(readings) <= len(fixed)
            and not any(elsewhere[t] - sure[t] > 0 for t in fixed)
        )
        if not fits:
            del self.corrections[zone]
            return readings
        return tuple(Reading(t, 1.0) for t in fixed)

    def _evaluate(self) -> list[TrackedEvent]:
        snap = self.last_snapshot
        if snap is None:
            return []
        believed = self.state.zones
        names = sorted(
            {z for z in snap.zones if ZoneName.parse(z)} | set(believed)
            | {z for z in self.corrections if z not in snap.zones}
        )
        changes: list[Change] = []
        uncertain: list[Issue] = []
        everywhere = Counter(
            r.token for z in snap.zones for r in snap.readings(z) if r.certain(self.threshold)
        )
        for zone in names:
            where = ZoneName.parse(zone)
            assert where is not None
            readings = self._effective(zone, snap.readings(zone), everywhere)
            belief = Counter(believed.get(zone, ()))
            sure = Counter(r.token for r in readings if r.certain(self.threshold))
            unsure = len(readings) - sum(sure.values())
            if unsure and _laid_on_top(readings, belief, sure, self.threshold):
                # The cards already there, covered now, read unsure under the one just
                # laid on them, read surely: they stand for what they were.
                changes.append(Change(zone, where, readings[-1].token, True))
                continue
            if unsure:
                # Unsure readings may stand for believed cards not read surely; anything
                # more (a card added, moved or taken) cannot be told apart: ask.
                if sure - belief or len(readings) != sum(belief.values()):
                    uncertain.append(
                        Issue(IssueKind.UNCERTAIN, where.flag,
                              self._unsure_message(zone, where, readings, unsure))
                    )
                continue
            changes += [Change(zone, where, t, True) for t in sorted((sure - belief).elements())]
            changes += [Change(zone, where, t, False) for t in sorted((belief - sure).elements())]
        if uncertain:
            self.issues = uncertain
            return []
        if not changes:
            self.issues = []
            return []
        if self.outcome is not None:
            self._problem(
                Problem(Message(N_("the game is over: start a new game to play on")), [])
            )
            return []
        try:
            player, action, pile = explain(self.state, changes)
            error = rules_error(self.state, player, action, first_known=self.first_known)
            if error is not None:
                raise error
        except Problem as problem:
            self._problem(problem)
            return []
        return [self._commit(TrackedEvent(player, action, pile))]

    def _unsure_message(self, zone: str, where: ZoneName, readings: tuple[Reading, ...],
                        unsure: int) -> Message:
        """What to do about a zone's ``unsure`` readings; where the camera guessed every
        card it could not read, the zone's cards as ``confirm`` would take them (``Cards``:
        tokens in English and at the terminal, which ``correct`` takes; words on a view
        that names cards)."""
        fixed = self._guessed(zone, readings)
        if fixed is None or all(r.token != UNKNOWN for r in readings):
            template = NP_(
                "{zone}: {n} card not read for sure; straighten it, or confirm or "
                "correct the reading",
                "{zone}: {n} cards not read for sure; straighten them, or confirm "
                "or correct the reading")
            return Message(template, zone=where.text(), n=unsure)
        template = NP_(
            "{zone}: {n} card not read for sure, the camera guesses {cards}; confirm "
            "the guess, straighten the card, or correct the reading",
            "{zone}: {n} cards not read for sure, the camera guesses {cards}; confirm "
            "the guess, straighten the cards, or correct the reading")
        return Message(template, zone=where.text(), n=unsure, cards=Cards(fixed))

    def _problem(self, problem: Problem) -> None:
        kind = IssueKind.WAITING if isinstance(problem, Waiting) else IssueKind.ATTENTION
        flags = problem.flags or [None]
        self.issues = [Issue(kind, f, problem.message) for f in flags]

    # ----------------------------------------------------------------- applying events
    def _commit(self, event: TrackedEvent) -> TrackedEvent:
        before = self.state
        self.state = self._after(before, event)
        self.history.append((before, event))
        self.issues = []
        return event

    def _after(self, state: TrackerState, event: TrackedEvent) -> TrackerState:
        game = state.game.apply(event.player, event.action)
        zones = state.zones
        if not isinstance(event.action, Claim | Pass):
            zones = _zones_after(zones, event.player, event.action, event.pile)
        return TrackerState(game, zones)

    def apply(self, event: TrackedEvent) -> TrackedEvent:
        """Apply an event from the journal (resume, replay): checked by the same rules."""
        action = event.action
        if isinstance(action, Claim):
            result = self.claim(action.flag, event.player)
            if result.event is None:
                raise IllegalAction(Message(N_("claim {flag} by {side}: {ruling}"),
                                            flag=action.flag + 1, side=who(event.player),
                                            ruling=result.message))
            return result.event
        if isinstance(action, Pass):
            return self.pass_(event.player)
        problem = rules_error(self.state, event.player, action, first_known=self.first_known)
        if problem is not None:
            raise IllegalAction(problem.message)
        return self._commit(event)

    def claim(self, flag: int, player: Player) -> ClaimResult:
        """``player`` claims flag ``flag`` (0..8): the ruling, and the event if granted."""
        if not 0 <= flag < FLAG_COUNT:
            return ClaimResult(player, flag, None, None,
                               Message(N_("there is no flag {flag}"), flag=flag + 1))
        number = flag + 1
        if self.outcome is not None:
            return ClaimResult(player, flag, None, None, Message(N_("the game is already over")))
        if self.issues:
            where = tuple(dict.fromkeys(flag_words(i.flag) for i in self.issues))
            return ClaimResult(
                player, flag, None, None,
                Message(N_("cannot rule on flag {flag} yet: {where} needs attention first"),
                        flag=number, where=where),
            )
        if self.variant.claim_timing == "advanced" and player is not self.state.to_move:
            return ClaimResult(
                player, flag, None, None,
                Message(N_("advanced claim timing: {side} claims only at the start of their "
                           "own turn, before playing"), side=who(player)),
            )
        error = self.state.game.error(player, Claim(flag))
        if error is not None and not isinstance(error, ClaimRefused):
            return ClaimResult(player, flag, None, None,
                               Message(N_("claim {flag}: {error}"), flag=number,
                                       error=error.phrase))
        ruling = self.table.rule(flag, player)
        said = describe_ruling(ruling, medieval=self.variant.edition == "medieval")
        if not ruling.granted:
            return ClaimResult(player, flag, ruling, None, said)
        event = self._commit(TrackedEvent(player, Claim(flag), ruling=ruling))
        return ClaimResult(player, flag, ruling, event, said)

    def pass_(self, player: Player) -> TrackedEvent:
        """``player`` passes (cannot play a card); two passes in a row end the game."""
        if self.outcome is not None:
            raise IllegalAction(Message(N_("the game is already over")))
        if player is not self.state.to_move:
            raise IllegalAction(Message(N_("it is {side}'s turn, not {other}'s"),
                                        side=who(self.state.to_move), other=who(player)))
        error = self.state.game.error(player, Pass())
        if error is not None:
            raise error
        return self._commit(TrackedEvent(player, Pass()))

    def place(self, flag: int, terrain: Terrain, up: bool) -> TrackedEvent:
        """A battlefield card placed at ``flag`` (0..8), said on the view: the camera sees
        a text-down card (a plain flag) as no battlefield card at all. Who places it is
        the rules' say (Hundred Years' War: in turn, the second player first)."""
        game = self.state.game
        player = game.placer() or game.to_move
        action = Place(terrain, flag, up)
        problem = rules_error(self.state, player, action, first_known=self.first_known)
        if problem is not None:
            raise IllegalAction(problem.message)
        return self._commit(TrackedEvent(player, action))

    def undo(self) -> TrackedEvent | None:
        """Take back the last event; the table must then be put back as it was."""
        if not self.history:
            return None
        before, event = self.history.pop()
        self.state = before
        self.issues = []
        return event
