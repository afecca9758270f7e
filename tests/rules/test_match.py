"""Match scoring and who starts the next game."""

from companion.rules.game import Ending, Outcome
from companion.rules.match import Match
from companion.rules.position import Player

N, S = Player.NORTH, Player.SOUTH


def test_match_totals_and_the_winner_starts_next() -> None:
    match = Match(first=S)
    assert match.next_first is S and match.score == (0, 0)
    match = match.record(Outcome(N, Ending.BREAKTHROUGH, (3, 2)))
    assert match.score == (5, 2) and match.next_first is N
    match = match.record(Outcome(None, Ending.DRAW, (4, 4)))
    assert match.score == (9, 6) and match.next_first is N  # after a draw the same player starts
    match = match.record(Outcome(S, Ending.ENVELOPMENT, (1, 5)))
    assert match.score == (10, 11) and match.next_first is S
