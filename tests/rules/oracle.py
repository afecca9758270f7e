"""A brute-force reference for formations and claims, written from RULES.md alone.

Nothing here calls the rules engine: cards are plain NOTATION.md tokens, every
wild takes every identity its card allows, every formation definition is
tested as written, and a claim against an incomplete side tries every
combination of unseen troops. Slow on purpose: the property tests keep their
positions small enough for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations, pairwise, product
from math import comb, prod

# Ranks as RULES.md orders them; SUM is the only measure under Fog.
WEDGE, PHALANX, BATTALION, SKIRMISH, HOST, SUM = 5, 4, 3, 2, 1, 0
RANK_NAMES = {
    WEDGE: "wedge",
    PHALANX: "phalanx",
    BATTALION: "battalion",
    SKIRMISH: "skirmish",
    HOST: "host",
    SUM: "sum",
}
COLOURS = "ROYGBP"
TROOP_TOKENS = tuple(f"{c}{v}" for c in COLOURS for v in range(1, 11))
# RULES.md: leaders any colour any value, CC any colour 8, SB any colour 1..3.
WILD_IDENTITIES: dict[str, tuple[tuple[str, int], ...]] = {
    "AL": tuple((c, v) for c in COLOURS for v in range(1, 11)),
    "DA": tuple((c, v) for c in COLOURS for v in range(1, 11)),
    "CC": tuple((c, 8) for c in COLOURS),
    "SB": tuple((c, v) for c in COLOURS for v in (1, 2, 3)),
}
WILDS = tuple(WILD_IDENTITIES)

Strength = tuple[int, int]  # (rank, sum): tuples compare rank first, then sum

# Reasons as the rulings print them (battleline-rulings/1).
REASON_TEXT = {
    "STRONGER": "stronger than the opponent's complete formation",
    "TIE_COMPLETED_FIRST": "equal formations, completed first",
    "UNBEATABLE": "no completion of the opponent's side can beat it",
    "OPPONENT_CANNOT_COMPLETE": "too few unseen troops remain for the opponent to complete",
    "CLAIMED": "flag already claimed",
    "GAME_OVER": "the game is already decided",
    "INCOMPLETE": "formation incomplete",
    "WEAKER": "the opponent's complete formation is stronger",
    "TIE_COMPLETED_LAST": "equal formations, the opponent completed first",
    "BEATABLE": "the opponent could still complete a stronger formation",
}
GRANTING = frozenset({"STRONGER", "TIE_COMPLETED_FIRST", "UNBEATABLE", "OPPONENT_CANNOT_COMPLETE"})
WITH_COUNTEREXAMPLE = frozenset({"BEATABLE", "WEAKER", "TIE_COMPLETED_LAST"})


def identity(token: str) -> tuple[str, int]:
    """A troop token's colour letter and value."""
    return token[0], int(token[1:])


def classify(cards: Sequence[tuple[str, int]]) -> Strength:
    """The formation a list of (colour, value) cards makes, straight from the table."""
    values = sorted(v for _, v in cards)
    total = sum(values)
    same_colour = len({c for c, _ in cards}) == 1
    run = all(b == a + 1 for a, b in pairwise(values))  # no wrap
    same_value = len(set(values)) == 1
    if same_colour and run:
        return WEDGE, total
    if same_value:
        return PHALANX, total
    if same_colour:
        return BATTALION, total
    if run:
        return SKIRMISH, total
    return HOST, total


def wild_choices(tokens: Iterable[str]) -> list[tuple[tuple[str, int], ...]]:
    """Every joint identity of the wilds among ``tokens`` (one empty choice if none)."""
    return list(product(*(WILD_IDENTITIES[t] for t in tokens if t in WILD_IDENTITIES)))


def _kept(cards: list[tuple[str, int]], defended: bool) -> list[list[tuple[str, int]]]:
    """The cards that count: a Castle/Fortress defender's highest is ignored (any one of them)."""
    if not defended:
        return [cards]
    top = max(v for _, v in cards)
    return [cards[:i] + cards[i + 1 :] for i, (_, v) in enumerate(cards) if v == top]


def strength(
    tokens: Sequence[str], fog: bool = False, *, hills: bool = False, defended: bool = False
) -> Strength:
    """The strongest reading of a complete formation: every wild identity tried.

    On the Hills every value v counts as 11 - v (wilds take an identity first);
    a defended side ignores its highest card, whichever is best to ignore.
    """
    fixed = [identity(t) for t in tokens if t not in WILD_IDENTITIES]
    best: Strength | None = None
    for choice in wild_choices(tokens):
        cards = fixed + list(choice)
        if hills:
            cards = [(c, 11 - v) for c, v in cards]
        for kept in _kept(cards, defended):
            found = (SUM, sum(v for _, v in kept)) if fog else classify(kept)
            if best is None or found > best:
                best = found
    assert best is not None
    return best


def completions(
    tokens: Sequence[str],
    size: int,
    unseen: Iterable[str],
    fog: bool = False,
    *,
    hills: bool = False,
    defended: bool = False,
) -> list[tuple[Strength, tuple[str, ...]]]:
    """Every way to complete ``tokens`` to ``size`` cards from ``unseen``, with its strength."""
    need = size - len(tokens)
    pool = sorted(set(unseen) - set(tokens))
    return [
        (strength([*tokens, *added], fog, hills=hills, defended=defended), added)
        for added in combinations(pool, need)
    ]


def best_completion(
    tokens: Sequence[str],
    size: int,
    unseen: Iterable[str],
    fog: bool = False,
    *,
    hills: bool = False,
    defended: bool = False,
) -> Strength | None:
    """The strongest completion's strength, None when there is none."""
    found = completions(tokens, size, unseen, fog, hills=hills, defended=defended)
    return max(s for s, _ in found) if found else None


def completion_cost(tokens: Sequence[str], size: int, unseen_count: int) -> int:
    """How many formations ``best_completion`` classifies: keeps generated cases fast."""
    need = size - len(tokens)
    wilds = prod(len(WILD_IDENTITIES[t]) for t in tokens if t in WILD_IDENTITIES)
    return comb(unseen_count, need) * wilds if need >= 0 else 0


def winner(claimed_by: Sequence[str | None], towns: Iterable[int] = ()) -> str | None:
    """Breakthrough (3 adjacent flags) or envelopment (5 flags) among claimed flags.

    A Town (index 0..8) counts as two flags and is adjacent to no flag.
    """
    towns = set(towns)
    for player in ("north", "south"):
        held = [c == player and i not in towns for i, c in enumerate(claimed_by)]
        adjacent = any(all(held[i : i + 3]) for i in range(len(held) - 2))
        count = sum(2 if i in towns else 1 for i, c in enumerate(claimed_by) if c == player)
        if adjacent or count >= 5:
            return player
    return None


def rule_claim(
    mine: Sequence[str],
    theirs: Sequence[str],
    *,
    fog: bool,
    size: int,
    unseen: Sequence[str],
    claimed: bool,
    game_over: bool,
    i_completed_first: bool | None,
    hills: bool = False,
    defender: str | None = None,
) -> tuple[str, Strength | None, Strength | None]:
    """(reason, claimant strength, opponent's strongest possible strength) for one claim.

    ``size`` is the formation size at the flag (4 with Mud or River); ``defender``
    is "mine" or "theirs" at a Castle or Fortress: that side holds one card more.
    """
    my_size = size + (defender == "mine")
    their_size = size + (defender == "theirs")
    if claimed:
        return "CLAIMED", None, None
    if game_over:
        return "GAME_OVER", None, None
    if len(mine) < my_size:
        return "INCOMPLETE", None, None
    my = strength(mine, fog, hills=hills, defended=defender == "mine")
    if len(theirs) == their_size:
        their = strength(theirs, fog, hills=hills, defended=defender == "theirs")
        if my > their:
            return "STRONGER", my, their
        if my == their:
            return ("TIE_COMPLETED_FIRST" if i_completed_first else "TIE_COMPLETED_LAST"), my, their
        return "WEAKER", my, their
    if len(set(unseen)) < their_size - len(theirs):
        return "OPPONENT_CANNOT_COMPLETE", my, None
    threat = best_completion(
        theirs, their_size, unseen, fog, hills=hills, defended=defender == "theirs"
    )
    assert threat is not None
    # Strictly stronger only: the opponent would complete last and lose a tie.
    return ("BEATABLE" if threat > my else "UNBEATABLE"), my, threat
