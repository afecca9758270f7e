"""Several reads of one table voted into one snapshot: per zone how many cards lie
there (a card some read named counts, though other reads missed it), per slot the
token most reads agree on, each card at most once.

A read names a card only from a trust that was never wrong (``trust.NAME_AT``), so a
card near that bar is asked about in read after read. Distinct photos, or frames a
moment apart whose focus, shake, noise and JPEG differ, are fresh looks at it: where
every read's nearest card is the same, each trusted from ``GUESS_AT``, the snapshot
names it (on 144 tuning tables, three frames each: 72 more cards named, none wrong;
vision/ROUNDS.md). Frames that are nearly one picture (a still camera's, a tenth of
a second apart) are no second look: their reads are voted without guesses
(``stabilize``). A card still asked about may be offered to the person who says
which it is (``suggest``): the touchscreen's picker marks it, and it is never a name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from vision.position import UNKNOWN, build_position, contested
from vision.reading.result import FrameRead

GUESS_AT = 0.95  # the trust from which every read's guess must be, to name it
# The trust from which a read's guess is offered to the person who says which card it
# is (``suggest``): never a name, only the card the picker marks. On 16 tuning designs'
# room frames (each read alone, as the live path votes one), 40 % of the asked cards
# were offered one, and 94 % of the offers were the card there (vision/ROUNDS.md).
SUGGEST_AT = 0.8


@dataclass
class Snapshot:
    zones: dict[str, list[str]]
    agreement: dict[str, list[float]]  # per card: share of the votes its token got
    # Per card: how sure the snapshot is of it, the least of its share of the votes
    # and the reader's own confidence in each read that voted for it.
    confidence: dict[str, list[float]] = field(default_factory=dict)
    frames: list[int] = field(default_factory=list)  # the frames whose reads were voted
    # Per zone, each card's suggestion where the snapshot asks (``suggest``), else None.
    suggested: dict[str, list[str | None]] = field(default_factory=dict)

    def position(self, to_move: str = "south") -> dict[str, object]:
        return build_position(self.zones, to_move)

    def cards_json(self) -> list[dict[str, object]]:
        """Each card as a frame's read lists it (``CardRead.to_json``), first played first."""
        return [{"zone": z, "order": i, "token": t, "confidence": round(c, 3)}
                for z, toks in self.zones.items()
                for i, (t, c) in enumerate(zip(toks, self.confidence.get(z, [0.0] * len(toks)),
                                               strict=True))]


Confidences = dict[str, list[float]]
# Per zone, each card's guess where its read asked: the model's nearest card and the
# trust in it (``CardRead.guess``); ``None`` for a named card or one never judged.
Guesses = dict[str, list[tuple[str, float] | None]]


def vote(reads: Sequence[dict[str, list[str]]],
         confidences: Sequence[Confidences] | None = None,
         guesses: Sequence[Guesses] | None = None) -> Snapshot:
    """Per zone a card count (``_count``), then per slot the majority token of the
    reads that saw that many cards.

    A read that left a slot ``unknown`` abstains; a slot without a strict
    majority of one token among the others is ``unknown``; a token voted for at
    two places stands only at the one the snapshot is clearly surer of (a card
    lies once), at neither when they are close (``contested``).
    ``confidences`` (one per read, like the reads' zones) are the reader's own
    per card; without them each read counts as sure. ``guesses`` (one per read)
    name a slot still ``unknown`` as ``guessed`` says.
    """
    zones: dict[str, list[str]] = {}
    agree: dict[str, list[float]] = {}
    sure: dict[str, list[float]] = {}
    names = sorted({z for r in reads for z in r})
    confs = list(confidences) if confidences is not None else [{} for _ in reads]
    for z in names:
        n = _count([r.get(z, []) for r in reads])
        if n == 0:
            continue
        same = [(r.get(z, []), c.get(z, [])) for r, c in zip(reads, confs, strict=True)
                if len(r.get(z, [])) == n]
        zones[z], agree[z], sure[z] = [], [], []
        for i in range(n):
            c = Counter(s[i] for s, _ in same if s[i] != UNKNOWN)
            tok, k = c.most_common(1)[0] if c else (UNKNOWN, 0)
            share = k / len(reads)
            # An unknown read abstains (its guess counts only in ``guessed``): the token must
            # hold a strict majority of the reads that named one; its share of all
            # the reads is how much the snapshot trusts it.
            ok = tok != UNKNOWN and k * 2 > sum(c.values())
            zones[z].append(tok if ok else UNKNOWN)
            agree[z].append(share if ok else 0.0)
            own = [cs[i] for s, cs in same if s[i] == tok and i < len(cs)]
            sure[z].append(min(share, *own) if ok and own else agree[z][-1])
    # Each card at most once, even when every read had it once: frames that put it
    # at different places vote for both.
    slots = [(z, i) for z, toks in zones.items() for i in range(len(toks))]
    for k in contested([_Slot(zones[z][i], sure[z][i]) for z, i in slots]):
        z, i = slots[k]
        zones[z][i] = UNKNOWN
        agree[z][i] = 0.0
        sure[z][i] = 0.0
    if guesses is not None:
        for (z, i), (token, least) in guessed(reads, list(guesses), zones).items():
            # Every read agreed on it: its share of the votes is all of them.
            zones[z][i], agree[z][i], sure[z][i] = token, 1.0, least
    return Snapshot(zones, agree, sure)


def suggest(snap: Snapshot, reads: Sequence[dict[str, list[str]]],
            guesses: Sequence[Guesses], at: float = SUGGEST_AT) -> None:
    """Fill ``snap.suggested``: per slot the snapshot asks about, the card every read
    that saw the zone's cards and asked there guessed alike, each from ``at``, unless
    the snapshot names that card elsewhere or suggests it twice (a card lies once)."""
    found: dict[tuple[str, int], str] = {}
    for z, toks in snap.zones.items():
        for i, t in enumerate(toks):
            if t != UNKNOWN:
                continue
            seen = [g.get(z, [None] * len(toks))[i] for r, g in zip(reads, guesses, strict=True)
                    if len(r.get(z, [])) == len(toks)]
            cards = {s[0] if s is not None and s[1] >= at else None for s in seen}
            card = cards.pop() if len(cards) == 1 else None
            if card is not None:
                found[(z, i)] = card
    named = {t for toks in snap.zones.values() for t in toks}
    twice = Counter(found.values())
    snap.suggested = {z: [None] * len(toks) for z, toks in snap.zones.items()}
    for (z, i), card in found.items():
        if card not in named and twice[card] == 1:
            snap.suggested[z][i] = card


def _count(seen: Sequence[Sequence[str]]) -> int:
    """How many cards a zone holds, from what each read ``seen`` there: the count whose
    reads name the most distinct cards, then the count most reads saw. A card some
    read named is there (a name is given only from a trust never seen wrong), so a
    frame that found and named a card its neighbours missed is not outvoted by them
    (vision/ROUNDS.md)."""
    counts = Counter(len(s) for s in seen)
    named = {n: len({t for s in seen if len(s) == n for t in s if t != UNKNOWN})
             for n in counts}
    # ``most_common`` lists the counts most seen first (in the reads' order among
    # equals), and ``max`` keeps the first of equals: where no count names more cards,
    # the count chosen is the most common.
    return max((n for n, _ in counts.most_common()), key=named.__getitem__)


def vote_photos(reads: Sequence[FrameRead]) -> Snapshot:
    """Reads of distinct photos of one table (each a look of its own) voted, their
    guesses with them."""
    zones, guesses = [r.zones() for r in reads], [r.guesses() for r in reads]
    snap = vote(zones, [r.confidences() for r in reads], guesses)
    suggest(snap, zones, guesses)
    return snap


def guessed(reads: Sequence[dict[str, list[str]]], guesses: Sequence[Guesses],
            zones: dict[str, list[str]]) -> dict[tuple[str, int], tuple[str, float]]:
    """The slots of the voted ``zones`` left ``unknown`` that the reads' ``guesses``
    name: two reads or more, each holding the zone's cards and the same card there,
    named or guessed from ``GUESS_AT``, and neither a read nor the snapshot has it at
    another slot (a card lies once). Per slot: the card and the least trust in it."""
    found: dict[tuple[str, int], tuple[str, float]] = {}
    for z, toks in zones.items():
        if any(len(r.get(z, [])) != len(toks) for r in reads):
            continue  # a read that saw this zone otherwise says nothing of its slots
        for i, t in enumerate(toks):
            if t != UNKNOWN:
                continue
            seen: list[tuple[str, float] | None] = [
                (r[z][i], 1.0) if r[z][i] != UNKNOWN else g.get(z, [None] * len(toks))[i]
                for r, g in zip(reads, guesses, strict=True)]
            cards = {s[0] if s is not None else None for s in seen}
            card = cards.pop() if len(cards) == 1 else None
            trusts = [s[1] for s in seen if s is not None]
            # One read alone is never enough: its guess is below the bar that names.
            if card is not None and len(reads) >= 2 and min(trusts) >= GUESS_AT:
                found[(z, i)] = (card, min(trusts))
    # Where each card is named or guessed: one found at any other slot stays unknown.
    at: dict[str, set[tuple[str, int]]] = {}
    for r in [*reads, zones]:
        for z, ts in r.items():
            for i, t in enumerate(ts):
                at.setdefault(t, set()).add((z, i))
    for slot, (card, _) in found.items():
        at.setdefault(card, set()).add(slot)
    return {slot: got for slot, got in found.items() if at[got[0]] == {slot}}


class _Slot(NamedTuple):
    token: str
    confidence: float
