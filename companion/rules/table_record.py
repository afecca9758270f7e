"""The table record: a game as the table showed it, in text, replayable by the rules.

Where ``battleline-record/1`` (``record.py``) holds every action of the full
game, deals and draws included, the table record holds only what lies face
up: cards played and moved, battlefield cards laid, discards, claims with
their ruling, passes. Each event line names its player; a claim carries the
ruling's reason in braces::

    [Format "battleline-table/1"]
    [First "south"]
    [Tactics "true"]
    [ClaimTiming "standard"]
    [Terrain "false"]
    [Setup "standard"]
    [Edition "gmt"]
    [Result "south breakthrough"]

    south R7@3
    north B4@5
    south claim 3 {stronger than the opponent's complete formation}
    north pass

``First`` is ``north``, ``south`` or ``table`` (whoever laid the first card);
``Terrain``, ``Setup`` and ``Edition`` default as in ``battleline-record/1``;
``Result`` is ``*`` for an unfinished game, else the winner (``none`` for a
draw) and the ending. Other headers are kept as they are. Lines starting
with ``#`` are comments; ``parse_table_record(record.text()) == record``.

``parse_table_record`` raises ``NotationError`` naming the line of any text
problem. ``TableRecord.replay`` checks every event with ``TableGame`` and
raises the ``IllegalAction`` subclass of the first one the rules forbid (its
message names the line), ``RulingMismatch`` when a claim's recorded reason
is not the rules' ruling, and ``ResultMismatch`` when the game does not end
as the ``Result`` header says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from companion.rules.actions import (
    Action,
    Betray,
    Chance,
    Claim,
    Desert,
    Discard,
    Pass,
    Place,
    Play,
    Redeploy,
    Remove,
    Scout,
    parse_action,
)
from companion.rules.battlefield import Setup
from companion.rules.cards import Terrain
from companion.rules.claims import Reason
from companion.rules.errors import (
    N_,
    IllegalAction,
    InvalidSetup,
    NotationError,
    Phrase,
    ResultMismatch,
    RulingMismatch,
    term,
)
from companion.rules.game import Ending, GameState, Outcome
from companion.rules.position import Player, Variant
from companion.rules.record import (
    GameRecord,
    header_choice,
    header_variant,
    line_at,
    record_lines,
)
from companion.rules.table_game import TableGame

TABLE_RECORD_FORMAT: Final = "battleline-table/1"
_EVENT: Final = re.compile(r"(north|south)\s+([^{]+?)\s*(?:\{([^}]*)\})?", re.IGNORECASE)
_REASONS: Final = {r.value: r for r in Reason}
_KNOWN: Final = ("Format", "First", "Tactics", "ClaimTiming", "Terrain", "Setup", "Edition", "Result")


@dataclass(frozen=True, slots=True)
class TableEvent:
    """One event as the table showed it; ``line`` is where it was read (not compared)."""

    player: Player
    action: Action
    reason: Reason | None = None  # a claim's ruling
    line: int = field(default=0, compare=False)

    def text(self) -> str:
        out = f"{self.player} {self.action.notation()}"
        return out if self.reason is None else f"{out} {{{self.reason.value}}}"


def result_text(outcome: Outcome | None) -> str:
    if outcome is None:
        return "*"
    return f"{outcome.winner.value if outcome.winner else 'none'} {outcome.ending.value}"


@dataclass(frozen=True, slots=True)
class TableRecord:
    first: Player | None = Player.SOUTH  # None: whoever laid the first card
    variant: Variant = field(default_factory=Variant)
    events: tuple[TableEvent, ...] = ()
    setup: Setup = Setup.STANDARD
    result: str = "*"  # as the Result header says; replay checks it
    extra: tuple[tuple[str, str], ...] = ()  # other headers (Source, Seed, Started, ...)

    def new_game(self) -> TableGame:
        try:
            return TableGame.new(self.variant, self.first, self.setup)
        except InvalidSetup as error:
            raise NotationError("Setup", error.phrase) from None

    def replay(self) -> TableGame:
        """The game after every event; raises the first rule broken, naming its line."""
        game = self.new_game()
        for number, event in enumerate(self.events, start=1):
            where = (line_at(event.line) if event.line
                     else Phrase(N_("event {number}"), number=number))
            reason = None
            if isinstance(event.action, Claim) and game.outcome is None:
                reason = game.rule(event.action.flag, event.player).reason
            try:
                game = game.apply(event.player, event.action)
            except IllegalAction as error:
                raise type(error)(N_("{where} ({event}): {detail}"), where=where,
                                  event=event.text(), detail=error.detail or term(error.rule),
                                  ) from None
            if event.reason is not None and reason is not None and event.reason is not reason:
                raise RulingMismatch(N_("{where} ({event}): the rules grant it for {reason}"),
                                     where=where, event=event.text(),
                                     reason=_quoted(reason))
        got = result_text(game.outcome)
        if self.result != "*" and got != self.result:
            raise ResultMismatch(N_("Result {result}: the events lead to {got}"),
                                 result=repr(self.result), got=repr(got))
        return game

    def with_event(self, event: TableEvent) -> TableRecord:
        return TableRecord(
            self.first, self.variant, (*self.events, event), self.setup, self.result, self.extra
        )

    def headers(self) -> dict[str, str]:
        out = {
            "Format": TABLE_RECORD_FORMAT,
            "First": self.first.value if self.first is not None else "table",
            "Tactics": _flag(self.variant.tactics),
            "ClaimTiming": self.variant.claim_timing,
            "Terrain": _flag(self.variant.terrain),
            "Setup": self.setup.value,
            "Edition": self.variant.edition,
            "Result": self.result,
        }
        out.update(self.extra)
        return out

    def text(self) -> str:
        lines = [f'[{k} "{v}"]' for k, v in self.headers().items()]
        return "\n".join([*lines, "", *(e.text() for e in self.events)]) + "\n"


_SEEN: Final = (Play, Scout, Redeploy, Desert, Betray, Claim, Pass, Place, Discard, Remove)


def table_record_of(record: GameRecord) -> TableRecord:
    """The table's view of a full game: its face-up events, hands and draws left out.

    A battlefield card dealt in the shuffled layout is laid at the next flag (by
    the first player, as the tracker records it); Hundred Years' War picks are
    hidden, placements are seen.
    """
    state = GameState.new(record.first, record.variant, record.setup)
    events: list[TableEvent] = []
    for action in record.actions:
        player = state.player
        before = state
        state = state.apply(action)
        if isinstance(action, Chance) and isinstance(action.card, Terrain):
            if record.setup is Setup.STANDARD:
                flags = before.position.flags
                index = next(i for i, f in enumerate(flags) if f.terrain is None and
                             state.position.flags[i].terrain is action.card)
                events.append(TableEvent(record.first, Place(action.card, index, True)))
        elif isinstance(action, _SEEN):
            reason = before.rule(action.flag, player).reason if isinstance(action, Claim) else None
            events.append(TableEvent(player, action, reason))
    return TableRecord(record.first, record.variant, tuple(events), record.setup,
                       result_text(state.outcome))


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _quoted(reason: Reason) -> Phrase:
    """The reason quoted as ``repr`` quotes its English, translated."""
    quotes = N_('"{reason}"') if "'" in reason.value else N_("'{reason}'")
    return Phrase(quotes, reason=term(reason.value))


def parse_table_record(text: str) -> TableRecord:
    """A table record from its text; NotationError names the line or header of any problem."""
    headers, body = record_lines(text)
    events = [_event(line, number) for number, line in body]
    if headers.get("Format") != TABLE_RECORD_FORMAT:
        raise NotationError("Format", N_("expected {wanted}, got {value}"),
                            wanted=f'"{TABLE_RECORD_FORMAT}"', value=repr(headers.get("Format")))
    first_text = header_choice(headers, "First", "south", ("north", "south", "table"))
    variant = header_variant(headers)
    setup = Setup(header_choice(headers, "Setup", "standard", tuple(s.value for s in Setup)))
    result = headers.get("Result", "*")
    if result != "*":
        _parse_result(result)
    first = None if first_text == "table" else Player(first_text)
    extra = tuple((k, v) for k, v in headers.items() if k not in _KNOWN)
    record = TableRecord(first, variant, tuple(events), setup, result, extra)
    record.new_game()  # a setup the rules cannot play is a header problem
    return record


def _parse_result(text: str) -> Outcome | None:
    winner, _, ending = text.partition(" ")
    endings = {e.value: e for e in Ending}
    if winner not in ("north", "south", "none") or ending not in endings:
        raise NotationError(
            "Result", N_('expected "*" or a winner (north, south, none) and an ending, got {value}'),
            value=repr(text),
        )
    return Outcome(None if winner == "none" else Player(winner), endings[ending], (0, 0))


def _event(line: str, number: int) -> TableEvent:
    match = _EVENT.fullmatch(line)
    if match is None:
        raise NotationError(
            line_at(number),
            N_("{line} is not an event (a player, north or south, then an action)"),
            line=repr(line),
        )
    try:
        action = parse_action(match[2])
    except NotationError as error:
        raise NotationError(line_at(number), error.problem) from None
    reason = None
    if match[3] is not None:
        if not isinstance(action, Claim):
            raise NotationError(line_at(number), N_("only a claim carries a ruling in braces"))
        reason = _REASONS.get(match[3].strip())
        if reason is None or not reason.grants:
            raise NotationError(line_at(number),
                                N_("{reason} is not a reason a claim is granted for"),
                                reason=repr(match[3].strip()))
    return TableEvent(Player(match[1].lower()), action, reason, number)
