"""Hypothesis strategies: formations and whole position files, small enough for the oracle.

Positions are built as ``battleline-position/1`` dicts (so every property test
also goes through the notation parser) around one *target* flag whose claims
the oracle rules on. The unseen troops (deck and hands) are kept few, so the
oracle's enumeration of every completion stays fast; everything else lies
face up at the other flags, claimed or not, or in the discards.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tests.rules import oracle

# Reproducible in CI: the same examples every run, no example database.
ORACLE_SETTINGS = settings(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

FORTIFIED = ("CASTLE", "FORTRESS")
LEADERS = ("AL", "DA")

# Formations the oracle may classify per claim: about 35 ms of brute force.
COST_BUDGET = 8000

sizes = st.sampled_from([3, 4])


@st.composite
def formation_cards(draw: st.DrawFn, size: int, *, max_wilds: int = 4) -> list[str]:
    """``size`` distinct formation cards: troops and up to ``max_wilds`` wild tactics."""
    wild_count = draw(st.integers(0, min(size, max_wilds)))
    # One leader per player per game, so never both at one side.
    wilds = draw(
        st.lists(
            st.sampled_from(oracle.WILDS), min_size=wild_count, max_size=wild_count, unique=True
        ).filter(lambda ws: not {"AL", "DA"} <= set(ws))
    )
    troops = draw(
        st.lists(troop_tokens, min_size=size - len(wilds), max_size=size - len(wilds), unique=True)
    )
    return draw(st.permutations(troops + wilds))


# Troops skewed towards runs, same colours and same values, where the ranks differ.
troop_tokens = st.one_of(
    st.sampled_from(oracle.TROOP_TOKENS),
    st.builds(lambda v: f"R{v}", st.integers(1, 10)),
    st.builds(lambda c: f"{c}7", st.sampled_from(oracle.COLOURS)),
)


def spelled(token: str, lower: bool) -> str:
    """Tokens are case-insensitive on input: sometimes write them in lower case."""
    return token.lower() if lower else token


@dataclass(frozen=True)
class ClaimCase:
    """A position file and what the oracle needs to rule on its target flag."""

    document: dict[str, object]
    target: int  # 0..8
    north: tuple[str, ...]
    south: tuple[str, ...]
    fog: bool
    mud: bool
    terrain: str | None  # at the target flag
    defender: str | None  # of a Castle or Fortress there
    towns: tuple[int, ...]  # a Town elsewhere (0..8)
    unseen: tuple[str, ...]
    claimed_by: tuple[str | None, ...]
    completed_first: str | None


@st.composite
def claim_cases(draw: st.DrawFn) -> ClaimCase:
    """A legal-looking table with wilds, Fog, Mud, discards, claimed flags and terrain."""
    fog, mud = draw(st.booleans()), draw(st.booleans())
    terrain = draw(
        st.sampled_from([None] * 7 + ["HILLS", "CASTLE", "FORTRESS", "RIVER", "WOODLAND"])
    )
    defender = draw(st.sampled_from(["north", "south"])) if terrain in FORTIFIED else None
    size = 4 if mud or terrain == "RIVER" else 3
    holds = {side: size + (side == defender) for side in ("north", "south")}
    target = draw(st.integers(0, 8))
    deck = list(draw(st.permutations(oracle.TROOP_TOKENS)))

    # Wild tactics: in a hand (off the table), at the target flag, elsewhere or discarded.
    wild_place = {
        w: draw(st.sampled_from(["hand", "north", "south", "north", "south", "table"]))
        for w in oracle.WILDS
    }
    if wild_place["AL"] == wild_place["DA"] in ("north", "south"):
        wild_place["DA"] = "table"  # one leader per player
    sides: dict[str, list[str]] = {}
    for side in ("north", "south"):
        wilds = [w for w, p in wild_place.items() if p == side]
        room = holds[side]
        count = draw(st.one_of(st.just(room), st.integers(max(0, len(wilds) - 1), room)))
        wilds = wilds[:count]
        for w in oracle.WILDS:
            if wild_place[w] == side and w not in wilds:
                wild_place[w] = "hand"
        sides[side] = draw(st.permutations(wilds + [deck.pop() for _ in range(count - len(wilds))]))
    # Now and then south mirrors north in other colours: equal formations, so ties get ruled.
    recolour = dict(zip(oracle.COLOURS, draw(st.permutations(oracle.COLOURS)), strict=True))
    troops_only = all(t not in oracle.WILDS for t in sides["north"])
    mirrored = [f"{recolour[t[0]]}{t[1:]}" for t in sides["north"]] if troops_only else []
    if (
        draw(st.sampled_from([False] * 3 + [True]))
        and set(mirrored) <= set(deck)
        and holds["south"] == len(mirrored)
    ):
        for card in sides["south"]:
            if card in oracle.WILDS:
                wild_place[card] = "hand"
            else:
                deck.append(card)
        deck = [t for t in deck if t not in mirrored]
        sides["south"] = mirrored

    # Few unseen troops: what the oracle can enumerate for either side as the opponent.
    limit = len(deck)
    for side in ("north", "south"):
        while (
            limit
            and len(sides[side]) < holds[side]
            and oracle.completion_cost(sides[side], holds[side], limit) > COST_BUDGET
        ):
            limit -= 1
    need = max(holds[s] - len(sides[s]) for s in sides)
    unseen_count = draw(st.one_of(st.integers(0, min(limit, need + 1)), st.integers(0, limit)))
    if draw(st.sampled_from([False, False, True])):
        deck.sort(key=lambda t: oracle.identity(t)[1])  # only low troops unseen: hard to beat
    unseen = tuple(deck[:unseen_count])
    seen = deck[unseen_count:]

    # Fog and Mud not at the target lie at other flags.
    env: list[list[str]] = [[] for _ in range(9)]
    if fog:
        env[target].append("FOG")
    if mud:
        env[target].append("MUD")
    others = [i for i in range(9) if i != target]
    for card, here in (("FOG", fog), ("MUD", mud)):
        if not here and draw(st.booleans()):
            env[draw(st.sampled_from(others))].append(card)

    # Every seen troop and tabled wild goes to another flag's side with room, or the discards.
    flags: list[dict[str, list[str]]] = [{"north": [], "south": []} for _ in range(9)]
    flags[target] = {"north": list(sides["north"]), "south": list(sides["south"])}
    discards: list[str] = []
    # Now and then a breakthrough already decided the game: three adjacent full sides.
    runs = [range(a, a + 3) for a in range(7) if target not in range(a, a + 3)]
    decided: list[tuple[int, str]] = []
    if draw(st.sampled_from([False] * 11 + [True])):
        won, run = draw(st.sampled_from(["north", "south"])), draw(st.sampled_from(runs))
        decided = [(i, won) for i in run]
        for i in run:
            room = 4 if "MUD" in env[i] else 3
            while seen and len(flags[i][won]) < room:
                flags[i][won].append(seen.pop())
    tabled = [w for w, p in wild_place.items() if p == "table"]
    places = draw(
        st.lists(
            st.integers(0, 23), min_size=len(seen) + len(tabled), max_size=len(seen) + len(tabled)
        )
    )
    leader_at = {side: any(t in LEADERS for t in sides[side]) for side in sides}
    for card, place in zip(seen + tabled, places, strict=True):
        flag, half = divmod(place, 2)  # flags 9..11 stand for the discards
        side = "north" if half else "south"
        if flag < 9 and flag != target and not (card in LEADERS and leader_at[side]):
            room = 4 if "MUD" in env[flag] else 3
            cards = flags[flag][side]
            if len(cards) < room:
                cards.append(card)
                leader_at[side] |= card in LEADERS  # one leader per player per game
                continue
        discards.append(card)
    guile = draw(
        st.lists(
            st.sampled_from(["SCOUT", "REDEPLOY", "DESERTER", "TRAITOR"]), unique=True, max_size=2
        )
    )
    discards += guile

    # Claims: a few flags held, now and then enough to decide the game. Only a complete
    # side can have claimed, and its cards never change afterwards.
    rooms = [
        holds if i == target else {s: 4 if "MUD" in env[i] else 3 for s in holds} for i in range(9)
    ]
    claimed: list[str | None] = [
        draw(
            st.sampled_from(
                [None] * 10 + ["north", "south"] if i != target else [None] * 3 + ["north", "south"]
            )
        )
        for i in range(9)
    ]
    for i, side in decided:
        claimed[i] = side
    for i, side in enumerate(claimed):
        if side is not None and len(flags[i][side]) < rooms[i][side]:
            claimed[i] = None
    town = draw(st.sampled_from([None] * 16 + others))  # the Town counts double, no neighbours
    towns = () if town is None else (town,)
    lower = draw(st.booleans())
    entries: list[dict[str, object]] = []
    for i in range(9):
        both = all(len(flags[i][s]) >= rooms[i][s] for s in ("north", "south"))
        first = draw(st.sampled_from(["north", "south"])) if both else None
        entry: dict[str, object] = {
            "north": [spelled(t, lower) for t in flags[i]["north"]],
            "south": [spelled(t, lower) for t in flags[i]["south"]],
            "environment": [spelled(t, lower) for t in env[i]],
            "claimed_by": claimed[i],
            "completed_first": first,
        }
        if i == target and terrain:
            entry |= {"terrain": spelled(terrain, lower)}
            if defender:
                entry["defender"] = defender
        if i in towns:
            entry["terrain"] = "TOWN"
        entries.append(entry)
    document: dict[str, object] = {
        "format": "battleline-position/1",
        "variant": {"terrain": bool(terrain or towns)},
        "to_move": draw(st.sampled_from(["north", "south", None])),
        "flags": entries,
        "discards": [spelled(t, lower) for t in discards],
    }
    return ClaimCase(
        document=document,
        target=target,
        north=tuple(sides["north"]),
        south=tuple(sides["south"]),
        fog=fog,
        mud=mud,
        terrain=terrain,
        defender=defender,
        towns=towns,
        unseen=unseen,
        claimed_by=tuple(claimed),
        completed_first=entries[target]["completed_first"],  # type: ignore[arg-type]
    )
