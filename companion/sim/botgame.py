"""``battleline-companion botgame``: a seeded bot-vs-bot game (or match) in the terminal.

Prints each turn, each claim with its ruling, the final table and the result.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from companion.i18n import N_, ArgumentParser, _, ngettext, set_language, translation
from companion.messages import localized
from companion.rules.actions import Action, Chance, Claim, Draw, EndTurn
from companion.rules.game import Dealer, Ending, GameState, Outcome
from companion.rules.match import Match
from companion.rules.position import PLAYERS, Player, Position
from companion.ruling_words import describe_ruling
from companion.sim.bots import BOTS, Bot
from companion.zones import who


def side_word(player: Player) -> str:
    """A player's name in the language shown, as the tracker says it."""
    return localized(who(player), translation())


def board_lines(position: Position) -> list[str]:
    """The nine flags, north above south, as fixed-width text."""
    lines = []
    for number, flag in enumerate(position.flags, start=1):
        env = "".join(f" {t.token}" for t in flag.environment)
        held = "" if flag.claimed_by is None else f"  [{side_word(flag.claimed_by)}]"
        north = " ".join(c.token for c in flag.north) or "-"
        south = " ".join(c.token for c in flag.south) or "-"
        flag_word = _("flag {flag}").format(flag=number)
        lines.append(f"  {flag_word}{env:<8} {side_word(Player.NORTH)} {north:<16} "
                     f"{side_word(Player.SOUTH)} {south:<16}{held}")
    return lines


def play_game(
    north: Bot,
    south: Bot,
    *,
    seed: int,
    first: Player = Player.SOUTH,
    out: Callable[[str], None] = print,
) -> GameState:
    """Play one game between two bots with a seeded dealer; returns the final state."""
    dealer = Dealer(seed)
    bots = {Player.NORTH: north, Player.SOUTH: south}
    state = GameState.new(first)
    turn = 0
    while not state.is_over:
        if state.chance_outcomes():
            state = state.apply(dealer.reveal(state))
            continue
        player = state.player
        action: Action = bots[player].choose(state)
        if isinstance(action, Claim):
            out(f"    {localized(describe_ruling(state.rule(action.flag)), translation())}")
        elif not isinstance(action, Draw | EndTurn | Chance) and state.phase.value == "play":
            turn += 1
            out(_("turn {turn}: {side} {play}").format(turn=turn, side=side_word(player),
                                                     play=action.notation()))
        state = state.apply(action)
    return state


def result_line(outcome: Outcome) -> str:
    """The game's result in the language shown (``companion.i18n``)."""
    north, south = outcome.flags
    if outcome.winner is None:
        return ngettext("Draw: {n} flag each.", "Draw: {n} flags each.", north).format(n=north)
    side = side_word(outcome.winner)
    template = {
        Ending.BREAKTHROUGH: N_("{side} wins by breakthrough ({north}–{south} in flags)."),
        Ending.ENVELOPMENT: N_("{side} wins by envelopment ({north}–{south} in flags)."),
    }.get(outcome.ending, N_("{side} wins with more flags ({north}–{south} in flags)."))
    return _(template).format(side=side, north=north, south=south)


def match_line(north: int, south: int) -> str:
    return _("Match score: north {north}, south {south}").format(north=north, south=south)


def main(argv: list[str]) -> int:
    set_language("auto")  # the system's: a bot game reads no settings
    parser = ArgumentParser(prog="battleline-companion botgame",
                            description=_("Play seeded bot-vs-bot Battle Line games."))
    parser.add_argument("--seed", type=int, default=1, help=_("the dealer's seed (default 1)"))
    parser.add_argument("--games", type=int, default=1,
                        help=_("games in the match (default 1)"))
    parser.add_argument("--north", choices=sorted(BOTS), default="greedy",
                        help=_("north's bot (default greedy)"))
    parser.add_argument("--south", choices=sorted(BOTS), default="greedy",
                        help=_("south's bot (default greedy)"))
    parser.add_argument("--quiet", action="store_true", help=_("print only results"))
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(_("--games must be at least 1"))

    out: Callable[[str], None] = (lambda _line: None) if args.quiet else print
    match = Match()
    for game in range(args.games):
        seed, first = args.seed + game, match.next_first
        print(_("Game {k} (seed {seed}, {side} plays first)").format(
            k=game + 1, seed=seed, side=side_word(first)))
        bots = {p: BOTS[getattr(args, p.value)](seed * 2 + i) for i, p in enumerate(PLAYERS)}
        state = play_game(bots[Player.NORTH], bots[Player.SOUTH], seed=seed, first=first, out=out)
        assert state.outcome is not None
        for line in board_lines(state.position):
            out(line)
        print(result_line(state.outcome))
        match = match.record(state.outcome)
        north, south = match.score
        print(match_line(north, south))
    sys.stdout.flush()
    return 0
