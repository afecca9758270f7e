"""The position file ``battleline-position/1`` and the rulings ``battleline-rulings/1``.

Parsing is strict and names the field of any problem (``flags[3].north[1]``):
other tools write these files, and a silently ignored typo would be a wrong
ruling at the table. Values round-trip: ``parse_position(dump_position(p)) == p``
for every position read from a file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields, replace
from functools import partial
from typing import Any, Final, TypeVar, cast, get_args

from companion.rules.cards import Card, Tactic, Terrain, parse_card, parse_terrain
from companion.rules.claims import Reason, Ruling, Rulings
from companion.rules.errors import N_, IllegalPosition, NotationError, Phrase, term
from companion.rules.position import (
    FLAG_COUNT,
    PLAYERS,
    ClaimTiming,
    Edition,
    Flag,
    Player,
    Position,
    Variant,
)
from companion.rules.terrain import side_strength

POSITION_FORMAT: Final = "battleline-position/1"
RULINGS_FORMAT: Final = "battleline-rulings/1"

_TOP_KEYS: Final = frozenset({"format", "variant", "to_move", "flags", "discards"})
_FLAG_KEYS: Final = frozenset(
    {"north", "south", "environment", "claimed_by", "completed_first", "terrain", "defender"}
)
_VARIANT_CHOICES: Final[dict[str, tuple[object, ...]]] = {
    "tactics": (True, False),
    "claim_timing": get_args(ClaimTiming),
    "terrain": (True, False),
    "edition": get_args(Edition),
}
# Refusals whose counter-example (possibly empty) the rulings list.
_WITH_COUNTEREXAMPLE: Final = frozenset({Reason.BEATABLE, Reason.WEAKER, Reason.TIE_COMPLETED_LAST})

T = TypeVar("T")
_FILE: Final = term("(file)")  # the field of a whole file's problem


def _at(field: str, parse: Callable[[], T]) -> T:
    """Run ``parse`` and report any NotationError it raises at ``field`` instead."""
    try:
        return parse()
    except NotationError as error:
        raise NotationError(field, error.problem) from None


def _expect(value: object, kind: type[T], field: str, what: str) -> T:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise NotationError(field, N_("expected {what}, got {value}"), what=term(what),
                            value=json.dumps(value))
    return value


def _player(value: object, field: str) -> Player | None:
    if value is None:
        return None
    if isinstance(value, str) and value.lower() in ("north", "south"):
        return Player(value.lower())
    raise NotationError(field, N_('expected null, "north" or "south", got {value}'),
                        value=json.dumps(value))


def _cards(value: object, field: str) -> tuple[Card, ...]:
    items = _expect(value, list, field, N_("a list of card tokens"))
    cards = []
    for i, token in enumerate(items):
        cards.append(_at(f"{field}[{i}]", partial(parse_card, token)))
    return tuple(cards)


def _variant(value: object) -> Variant:
    if value is None:
        return Variant()
    raw = _expect(value, dict, "variant", N_("an object"))
    options: dict[str, Any] = {}
    for key, option in raw.items():
        if key not in _VARIANT_CHOICES:
            known = ", ".join(_VARIANT_CHOICES)
            raise NotationError(f"variant.{key}", N_("unknown rule option (known: {known})"),
                                known=known)
        if isinstance(option, str):
            option = option.lower()
        if option not in _VARIANT_CHOICES[key] or type(option) is not type(
            _VARIANT_CHOICES[key][0]
        ):
            choices = ", ".join(json.dumps(c) for c in _VARIANT_CHOICES[key])
            raise NotationError(f"variant.{key}", N_("expected one of {choices}, got {value}"),
                                choices=choices, value=json.dumps(option))
        options[key] = option
    return Variant(**options)


def _flag(value: object, field: str) -> Flag:
    raw = _expect(value, dict, field, N_("an object"))
    for key in raw:
        if key not in _FLAG_KEYS:
            raise NotationError(f"{field}.{key}", N_("unknown key (known: {known})"),
                                known=", ".join(sorted(_FLAG_KEYS)))
    for key in ("north", "south"):
        if key not in raw:
            raise NotationError(f"{field}.{key}",
                                N_("missing (a list of card tokens, possibly empty)"))
    north, south = (_cards(raw[k], f"{field}.{k}") for k in ("north", "south"))
    for key, cards in (("north", north), ("south", south)):
        for i, card in enumerate(cards):
            if isinstance(card, Tactic) and not card.is_morale:
                raise NotationError(
                    f"{field}.{key}[{i}]",
                    N_("{card} is not a formation card (Fog/Mud go in environment)"),
                    card=card.token,
                )
    environment = _cards(raw.get("environment", []), f"{field}.environment")
    for i, card in enumerate(environment):
        if card not in (Tactic.FOG, Tactic.MUD) or environment.index(card) != i:
            raise NotationError(
                f"{field}.environment[{i}]",
                N_("expected FOG or MUD at most once each, got {card}"), card=card.token,
            )
    terrain_token = raw.get("terrain")
    terrain = None
    if terrain_token is not None:
        terrain = _at(f"{field}.terrain", lambda: parse_terrain(terrain_token))
    defender = _player(raw.get("defender"), f"{field}.defender")
    fortified = terrain in (Terrain.CASTLE, Terrain.FORTRESS)
    if fortified and defender is None:
        raise NotationError(f"{field}.defender", N_('required with {terrain}: "north" or "south"'),
                            terrain=str(terrain))
    if defender is not None and not fortified:
        raise NotationError(f"{field}.defender", N_("only a CASTLE or FORTRESS has a defender"))
    flag = Flag(
        north=north,
        south=south,
        fog=Tactic.FOG in environment,
        mud=Tactic.MUD in environment,
        terrain=terrain,
        claimed_by=_player(raw.get("claimed_by"), f"{field}.claimed_by"),
        defender=defender,
    )
    for key, cards in (("north", north), ("south", south)):
        holds = flag.side_size(Player(key))
        if len(cards) > holds:
            raise NotationError(f"{field}.{key}", N_("{n} cards, but a side here holds {holds}"),
                                n=len(cards), holds=holds)
    first = _player(raw.get("completed_first"), f"{field}.completed_first")
    both = flag.is_complete(Player.NORTH) and flag.is_complete(Player.SOUTH)
    if first is not None and not both:
        raise NotationError(
            f"{field}.completed_first", N_("must be null unless both sides are complete")
        )
    if both and first is None and flag.claimed_by is None:
        n, s = (side_strength(flag, p) for p in PLAYERS)
        if n == s:
            raise NotationError(
                f"{field}.completed_first",
                N_("required: both formations are equal and complete"),
            )
    moments = {Player.NORTH: None, Player.SOUTH: None} | {
        p: (0 if first in (None, p) else 1) for p in PLAYERS if flag.is_complete(p)
    }
    return replace(
        flag, north_completed=moments[Player.NORTH], south_completed=moments[Player.SOUTH]
    )


def parse_position(source: str | bytes | Mapping[str, object]) -> Position:
    """A position from its JSON text (or the decoded object); NotationError names the field."""
    if isinstance(source, str | bytes):
        try:
            raw_any: object = json.loads(source)
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise NotationError(_FILE, N_("not valid JSON: {error}"), error=str(error)) from None
        except RecursionError:  # the decoder recurses once per level of nesting
            raise NotationError(_FILE, N_("not valid JSON: nested too deeply")) from None
    else:
        raw_any = dict(source)
    raw = _expect(raw_any, dict, _FILE, N_("a JSON object"))
    for key in raw:
        if key not in _TOP_KEYS:
            raise NotationError(key, N_("unknown key (known: {known})"),
                                known=", ".join(sorted(_TOP_KEYS)))
    if raw.get("format") != POSITION_FORMAT:
        raise NotationError("format", N_("expected {wanted}, got {value}"),
                            wanted=json.dumps(POSITION_FORMAT), value=json.dumps(raw.get("format")))
    if "flags" not in raw:
        raise NotationError("flags", N_("missing (a list of {n} flags)"), n=FLAG_COUNT)
    flags_raw = _expect(raw["flags"], list, "flags",
                        Phrase(N_("a list of {n} flags"), n=FLAG_COUNT))
    if len(flags_raw) != FLAG_COUNT:
        raise NotationError("flags", N_("expected {n} flags, got {got}"), n=FLAG_COUNT,
                            got=len(flags_raw))
    flags = tuple(_flag(f, f"flags[{i}]") for i, f in enumerate(flags_raw))
    position = Position(
        flags=flags,
        discards=_cards(raw.get("discards", []), "discards"),
        to_move=_player(raw.get("to_move"), "to_move"),
        variant=_variant(raw.get("variant")),
    )
    _check_table(position)
    return position


def _check_table(position: Position) -> None:
    """What no game reaches: a card twice, two leaders on a side, a terrain twice, a claim
    behind an incomplete formation, cards of a variant not in play. Names the field."""
    seen: dict[Card, str] = {}
    places: list[tuple[str, Sequence[Card]]] = []
    for i, flag in enumerate(position.flags):
        places += [(f"flags[{i}].north", flag.north), (f"flags[{i}].south", flag.south)]
        places.append((f"flags[{i}].environment", flag.environment))
    places.append(("discards", position.discards))
    for field, cards in places:
        for j, card in enumerate(cards):
            here = f"{field}[{j}]"
            if card in seen:
                raise NotationError(here, N_("{card} is already at {where}"), card=card.token,
                                    where=seen[card])
            seen[card] = here
            if isinstance(card, Tactic) and not position.variant.tactics:
                raise NotationError(here, N_("{card} is a tactic, but variant.tactics is false"),
                                    card=card.token)
    terrain_at: dict[Terrain, str] = {}
    for i, flag in enumerate(position.flags):
        here = f"flags[{i}].terrain"
        if flag.terrain is not None:
            if not position.variant.terrain:
                raise NotationError(here, N_("{terrain} needs variant.terrain true"),
                                    terrain=str(flag.terrain))
            if flag.terrain in terrain_at:
                raise NotationError(here, N_("{terrain} is already at {where}"),
                                    terrain=str(flag.terrain), where=terrain_at[flag.terrain])
            terrain_at[flag.terrain] = here
        if flag.claimed_by is not None and not flag.is_complete(flag.claimed_by):
            raise NotationError(
                f"flags[{i}].claimed_by",
                N_("{side} holds the flag but their formation is incomplete"),
                side=term(flag.claimed_by),
            )
    for player in PLAYERS:
        leader_at: str | None = None
        for i, flag in enumerate(position.flags):
            for j, card in enumerate(flag.cards(player)):
                if isinstance(card, Tactic) and card.is_leader:
                    here = f"flags[{i}].{player}[{j}]"
                    if leader_at is not None:
                        raise NotationError(
                            here,
                            N_("{side} already has a leader at {where}: one per player per game"),
                            side=term(player), where=leader_at,
                        )
                    leader_at = here
    try:
        position.validate()
    except IllegalPosition as error:  # pragma: no cover - the checks above come first
        raise NotationError(term("(position)"), error.phrase) from None


def dump_position(position: Position) -> dict[str, object]:
    """The JSON object of a position, canonical tokens, every variant option spelled out."""
    variant = {f.name: getattr(position.variant, f.name) for f in fields(Variant)}
    flags = []
    for flag in position.flags:
        first = flag.completed_first()
        entry: dict[str, object] = {
            "north": [c.token for c in flag.north],
            "south": [c.token for c in flag.south],
            "environment": [c.token for c in flag.environment],
            "claimed_by": flag.claimed_by.value if flag.claimed_by else None,
            "completed_first": first.value if first else None,
        }
        if flag.terrain is not None:
            entry["terrain"] = flag.terrain.token
        if flag.defender is not None:
            entry["defender"] = flag.defender.value
        flags.append(entry)
    return {
        "format": POSITION_FORMAT,
        "variant": variant,
        "to_move": position.to_move.value if position.to_move else None,
        "flags": flags,
        "discards": [c.token for c in position.discards],
    }


def position_to_json(position: Position, *, indent: int | None = 2) -> str:
    return json.dumps(dump_position(position), indent=indent)


def _side(ruling: Ruling, flag: Flag) -> dict[str, object]:
    out: dict[str, object] = {"complete": flag.is_complete(ruling.player)}
    strength = ruling.strength or side_strength(flag, ruling.player)
    if strength is not None:
        out["formation"] = strength.formation.token
        out["sum"] = strength.total
    out["can_claim"] = ruling.granted
    if not ruling.granted:
        out["reason"] = ruling.reason.value
        if ruling.reason in _WITH_COUNTEREXAMPLE:
            out["counterexample"] = [t.token for t in ruling.counterexample or ()]
    return out


def dump_rulings(rulings: Rulings) -> dict[str, object]:
    """The ``battleline-rulings/1`` object of NOTATION.md."""
    flags = []
    for fr in rulings.flags:
        flags.append(
            {
                "flag": fr.index + 1,
                "claimed_by": fr.flag.claimed_by.value if fr.flag.claimed_by else None,
                "north": _side(fr.north, fr.flag),
                "south": _side(fr.south, fr.flag),
            }
        )
    return {
        "format": RULINGS_FORMAT,
        "flags": flags,
        "winner": rulings.winner.value if rulings.winner else None,
    }


def rulings_to_json(rulings: Rulings, *, indent: int | None = 2) -> str:
    return json.dumps(cast(dict[str, Any], dump_rulings(rulings)), indent=indent)
