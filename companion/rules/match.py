"""Match play: games in a row, scored 5 for the winner and 1 per flag for the loser."""

from __future__ import annotations

from dataclasses import dataclass

from companion.rules.game import Outcome
from companion.rules.position import Player


@dataclass(frozen=True, slots=True)
class Match:
    """The games played so far; who starts next follows from the last result."""

    first: Player = Player.SOUTH  # who started the first game
    outcomes: tuple[Outcome, ...] = ()

    def record(self, outcome: Outcome) -> Match:
        return Match(self.first, (*self.outcomes, outcome))

    @property
    def score(self) -> tuple[int, int]:
        """Total points (north, south)."""
        return (
            sum(o.score()[0] for o in self.outcomes),
            sum(o.score()[1] for o in self.outcomes),
        )

    @property
    def next_first(self) -> Player:
        """The winner starts the next game; after a draw the same player starts again."""
        starter = self.first
        for outcome in self.outcomes:
            starter = outcome.winner or starter
        return starter
