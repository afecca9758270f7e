"""``battleline-companion bench rules``: how fast the rules rule, measured in this run.

- ``full_board_ms_median``: ``adjudicate`` (all 9 flags, both players) on
  mid-game positions taken from seeded bot games.
- ``worst_claim_ms_median``: one claim on the hardest kind of position for
  the proof: Mud (4-card formations), the opponent's side empty or holding
  only a leader, few cards seen, so the unseen pool is nearly the whole deck.
- ``bruteforce_worst_claim_ms_median``: the same claims decided by trying
  every completion from the unseen troops, as a person would by hand.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from itertools import combinations
from typing import TypeVar

from companion.rules.cards import COLOURS, TROOPS, Card, Tactic, Troop, troop
from companion.rules.claims import adjudicate, rule_claim
from companion.rules.formations import evaluate, troops_in
from companion.rules.game import Dealer, GameState
from companion.rules.position import Flag, Player, Position
from companion.sim.bots import GreedyBot

T = TypeVar("T")


def _timed(run: Callable[[], T], repeat: int) -> tuple[float, T]:
    """The median milliseconds of ``repeat`` runs, and what the last run returned."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000, result


def midgame_positions(count: int, seed: int) -> list[Position]:
    """Positions after 24 played cards of seeded greedy-vs-greedy games."""
    positions = []
    for game in range(count):
        dealer, bots = Dealer(seed + game), (GreedyBot(game), GreedyBot(game + 1000))
        state = GameState.new()
        while (
            not state.is_over
            and sum(len(f.north) + len(f.south) for f in state.position.flags) < 24
        ):
            if state.chance_outcomes():
                state = state.apply(dealer.reveal(state))
            else:
                bot = bots[0] if state.player is Player.NORTH else bots[1]
                state = state.apply(bot.choose(state))
        positions.append(state.position)
    return positions


def worst_claim_positions(count: int, seed: int) -> list[Position]:
    """South claims flag 1 with a 4-card wedge under Mud; north holds nothing or a leader.

    Few other cards are seen, so the unseen pool is nearly the whole deck: the
    proof has the most completions to rule out, and a top wedge is granted
    only after every one of them is.
    """
    rng = random.Random(seed)
    positions = []
    for i in range(count):
        colour, start = rng.choice(COLOURS), (7, 7, 6, 5)[i % 4]
        claimant = tuple(troop(colour, v) for v in range(start, start + 4))
        rest = [t for t in TROOPS if t not in claimant]
        seen = tuple(rng.sample(rest, rng.randint(0, 4)))
        opponent: tuple[Card, ...] = ((), (Tactic.ALEXANDER,), (Tactic.DARIUS,))[i % 3]
        flags = [Flag(north=opponent, south=claimant, mud=True, south_completed=0)]
        flags += [Flag() for _ in range(8)]
        flags[4] = Flag(north=seen[:2], south=seen[2:])
        positions.append(Position(flags=tuple(flags)))
    return positions


def bruteforce_claim(position: Position, index: int, player: Player) -> bool:
    """Whether the claim is granted, by trying every completion of the opponent's side."""
    flag = position.flags[index]
    mine = evaluate(flag.cards(player), fog=flag.sum_only)
    theirs = flag.cards(player.other)
    pool: tuple[Troop, ...] = troops_in(position.unseen_troops())
    for added in combinations(pool, flag.size - len(theirs)):
        if evaluate((*theirs, *added), fog=flag.sum_only) > mine:
            return False
    return True


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="battleline-companion bench rules")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--boards", type=int, default=40, help="mid-game positions")
    parser.add_argument("--worst", type=int, default=8, help="worst-case claim positions")
    parser.add_argument("--repeat", type=int, default=25, help="timings per position")
    args = parser.parse_args(argv)

    boards = midgame_positions(args.boards, args.seed)
    full = [_timed(partial(adjudicate, p), args.repeat)[0] for p in boards]

    worst = worst_claim_positions(args.worst, args.seed)
    claim = partial(rule_claim, index=0, player=Player.SOUTH)
    brute = partial(bruteforce_claim, index=0, player=Player.SOUTH)
    claims = [_timed(partial(claim, p), args.repeat) for p in worst]
    brutes = [_timed(partial(brute, p), 1) for p in worst]
    claim_ms, brute_ms = [ms for ms, _ in claims], [ms for ms, _ in brutes]
    agree = all(r.granted == v for (_, r), (_, v) in zip(claims, brutes, strict=True))

    worst_median = statistics.median(claim_ms)
    brute_median = statistics.median(brute_ms)
    figures = {
        "full_board_ms_median": round(statistics.median(full), 4),
        "full_board_ms_p95": round(sorted(full)[int(0.95 * (len(full) - 1))], 4),
        "worst_claim_ms_median": round(worst_median, 4),
        "worst_claim_ms_max": round(max(claim_ms), 4),
        "bruteforce_worst_claim_ms_median": round(brute_median, 2),
        "speedup_vs_bruteforce": round(brute_median / worst_median, 1),
        "bruteforce_agrees": agree,
        "positions": {"full_board": len(boards), "worst_claim": len(worst)},
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    json.dump(figures, sys.stdout)
    print()
    return 0 if agree else 1
