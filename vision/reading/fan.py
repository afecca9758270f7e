"""A zone's fanned cards, read from the last one up: which of its stack's candidate
tops are cards.

``stack`` finds a zone's outline and the rows where a card's top may lie; most of
those are lines in a card's art. Which are cards is decided by reading their bands:
``read_fan`` is a generator that asks (yields) for the bands it reads next, a list at
a time, and is sent back what each read (``None``: no card's index there), for where
it looks next depends on what it found below. ``vision.read`` runs every zone's at
once, so that the bands all zones ask for are read together.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Final

from vision.position import UNKNOWN
from vision.reading.confidence import MIN_SCORE
from vision.reading.result import CardRead
from vision.reading.stack import COVER_SLACK_MM, MIN_GAP_MM, Ask, Stack
from vision.reading.zones import LOW_PX

# A band no token ranks this high for reads as no index: no other tilt makes it a card
# (``vision.read``), nor is it a card of its own above one found under it.
TILT_WORTH: Final = 0.6
NO_INDEX: Final = 0.4  # a band no token ranks this high for is no card (a real card
# read unknown under glare still ranks about 0.45 or more)
RETRY_MM: Final = (8.0, -8.0, 16.0)  # further places a stack's first or last band may lie
FILL_GAP_MM: Final = 30.0  # more than any two fanned cards' tops lie apart
FILL_TRIES: Final = 3  # edges tried in such a gap for the card hidden there
# How far two cards' read tops may lie inside the tightest fan (MIN_GAP_MM): each is
# placed to half a millimetre or so, and a player laying a fan that tight misses it
# by as much.
READ_SLACK_MM: Final = 1.0
AHEAD_SLACK_MM: Final = 3.0  # room a band asked ahead has to show whole

# Asks bands a list at a time, is sent what each read, returns the zone's cards.
Asking = Generator[list[Ask], list[CardRead | None], list[CardRead]]


def read_fan(st: Stack, pale_from: float, band_mm: float) -> Asking:
    """The cards of the stack ``st``, first played first (``pale_from``: the row above
    which a read shows in the pale mask only, and stands only where named;
    ``band_mm``: the deck's index band).
    """
    zone = st.zone
    # From the last card up: each card's visible height ends at the next card
    # actually found, not at a line in the art.
    reads: list[CardRead] = []
    sure: list[bool] = []
    # Tops closer than two cards' can be are at most one card's: one is the card's
    # top and the others lines in its band's art (the classic deck prints one some
    # 8 mm under a card's top; gradient art may step anywhere). Of an uncertain top
    # and the uncertain tops above it within MIN_GAP_MM, all are read and the one
    # that reads best as an index stands.
    up = st.tops[::-1]
    group: list[list[int]] = []
    for j, (t, c) in enumerate(up):
        k = j + 1
        while (not c and k < len(up) and not up[k][1]
               and t - up[k][0] < MIN_GAP_MM * LOW_PX):
            k += 1
        group.append(list(range(j, k)))
    # Asked ahead, in the first round with the last card: every top whose ask
    # already follows, as it does while each top below it that is not certain is
    # a line in the art (as most are) and each that is lies where the outline
    # shows it: its band shows whole with AHEAD_SLACK_MM to spare, and (for a top
    # that is not certain) no top below it but those of its group lies
    # close enough to hide it. A read asked ahead stands when its top's ask turns
    # out the same (a band's read does not depend on what else is read with it);
    # most do, and a zone of three cards then takes one round or two, not four.
    ahead: dict[tuple[float, int, int], Ask] = {}
    below = st.bottom
    for j, (t, certain) in enumerate(up):
        if below == st.bottom or (
                below - t - COVER_SLACK_MM >= band_mm + AHEAD_SLACK_MM
                and (certain or not any(
                    not c and t < u < t + (MIN_GAP_MM + AHEAD_SLACK_MM) * LOW_PX
                    and j not in group[k] for k, (u, c) in enumerate(up)))):
            ahead[st.shown(t, below)] = st.ask(t, certain, below)
        if certain:
            below = t
    early = dict(zip(ahead, (yield list(ahead.values())), strict=True))
    asked = {k: (a.cx, early[k]) for k, a in ahead.items()}
    under: dict[int, CardRead] = {}  # a read's id -> the card found under its band

    def read_at(t: float, certain: bool, below: float) -> Generator[
            list[Ask], list[CardRead | None], CardRead | None]:
        """The card whose top edge is at ``t``, the next card found below it at
        ``below``; ``None`` where there is none."""
        now = st.shown(t, below)
        if now not in asked:
            one = st.ask(t, certain, below)
            asked[now] = (one.cx, (yield [one])[0])
        cx, rd = asked[now]
        if rd is None:
            return None  # a line in the art, not a card's edge
        if certain and rd.score < MIN_SCORE:
            # The stack's outline was off (glare or a shadow on the mat next to
            # it looks like card): look for the band a little further along.
            # All asked at once (one round, not up to three), taken in turn. A band
            # there takes the read's place where it names a card and the read does
            # not, or names alike and fits better: a line above a lone card may fit
            # better in grey and name nothing.
            steps = [step for step in RETRY_MM
                     if 0 <= t + step <= below - MIN_GAP_MM * LOW_PX]
            further = (yield [Ask(zone, t + step * LOW_PX, cx,
                                  min(band_mm, below - t - step - COVER_SLACK_MM),
                                  certain) for step in steps]) if steps else []
            for other in further:
                if other is not None and (other.token != UNKNOWN, other.score) > (
                        rd.token != UNKNOWN, rd.score):
                    if (other.top_local - rd.top_local >= (MIN_GAP_MM - READ_SLACK_MM) * LOW_PX
                            and rd.top_local >= 0
                            and rd.candidates and rd.candidates[0][1] >= TILT_WORTH):
                        # As far below as the next card's top may lie, while this
                        # band reads as an index within the zone's view (beyond it
                        # lies the mat, or another zone's card): the next card,
                        # whose top the stack showed no edge for. Both stand, each
                        # read again as far as it shows (this band was read with
                        # the next card's top in it).
                        mine, hidden = yield [st.ask(t, certain, other.top_local),
                                              st.ask(other.top_local, True, below)]
                        rd = mine or rd
                        under[id(rd)] = hidden or other
                        break
                    rd = other
                if rd.score >= MIN_SCORE:
                    break
        if reads and rd.top_local > below - MIN_GAP_MM * LOW_PX:
            return None  # snapped onto the card already found below it
        if certain and rd.score < MIN_SCORE * 0.6 and not st.card_shaped(t):
            return None
        if rd.token == UNKNOWN and rd.candidates and rd.candidates[0][1] < NO_INDEX:
            return None  # like no card's index at all: glare or a shadow, not a card
        return rd

    def read_best(places: list[float], certain: bool) -> Generator[
            list[Ask], list[CardRead | None], tuple[CardRead | None, int]]:
        """Of the bands whose tops are at ``places`` (asked in one round, then taken in
        turn), the one that reads best as an index (named before unknown, then by
        score), and which it is."""
        fresh: dict[tuple[float, int, int], float] = {}
        for p_ in places:
            if st.shown(p_, next_top) not in asked:
                fresh.setdefault(st.shown(p_, next_top), p_)
        if fresh:
            asks = [st.ask(p_, certain, next_top) for p_ in fresh.values()]
            got = yield asks
            asked.update({key: (a.cx, rd)
                          for key, a, rd in zip(fresh, asks, got, strict=True)})
        found, at = None, -1
        for k, p_ in enumerate(places):
            rd = yield from read_at(p_, certain, next_top)
            if rd is not None and (found is None or (rd.token != UNKNOWN, rd.score)
                                   > (found.token != UNKNOWN, found.score)):
                found, at = rd, k
        return found, at

    next_top = st.bottom
    j = 0
    while j < len(up):
        t, certain = up[j]
        j += 1
        if reads and not certain and t > next_top - MIN_GAP_MM * LOW_PX:
            continue  # within the band of the card found below: a line in it
        if j == len(up) and st.elsewhere:
            # The stack's outline is shorter than a card: its first card's band is
            # read at each place its top may lie too.
            found, _ = yield from read_best([t, *st.elsewhere], True)
        elif len(group[j - 1]) == 1:
            found = yield from read_at(t, certain, next_top)
        else:
            # The tops below the one that stands lie in its band.
            members = group[j - 1]
            found, which = yield from read_best([up[k][0] for k in members], False)
            if found is not None:
                j = members[which] + 1
        if found is not None:
            hidden = under.get(id(found))
            if (hidden is not None
                    and hidden.top_local < next_top - (MIN_GAP_MM - READ_SLACK_MM) * LOW_PX):
                reads.append(hidden)
                sure.append(False)
            reads.append(found)
            sure.append(certain)
            next_top = found.top_local
    reads.reverse()
    sure.reverse()
    # A gap wider than any fan between two cards found hides a card whose top
    # edge drowned in the art around it: look where the edge is strongest there.
    k = 1
    while k < len(reads):
        a, b = reads[k - 1].top_local, reads[k].top_local
        if b - a > FILL_GAP_MM * LOW_PX:
            # The strongest few edges there, all asked at once (an edge in the art
            # of the card below may step more than the hidden card's own): the one
            # that fits best as an index stands.
            lo, hi = a + MIN_GAP_MM * LOW_PX, b - MIN_GAP_MM * LOW_PX
            tops = st.strongest_edges(int(lo), int(hi), FILL_TRIES)
            got = (yield [Ask(zone, t, st.middle, min(band_mm, b - t - COVER_SLACK_MM),
                              False) for t in tops]) if tops else []
            fits = [rd for rd in got if rd is not None and lo < rd.top_local < hi]
            if fits:
                reads.insert(k, max(fits, key=lambda rd: rd.score))
                sure.insert(k, False)
        k += 1
    # Two reads snapped onto one card: keep the one found from the stack's shape,
    # else the better explained.
    k = 1
    while k < len(reads):
        if reads[k].top_local - reads[k - 1].top_local < (MIN_GAP_MM - READ_SLACK_MM) * LOW_PX:
            drop = k if (sure[k - 1], reads[k - 1].score) >= (sure[k], reads[k].score) else k - 1
            del reads[drop], sure[drop]
        else:
            k += 1
    # The last card shows whole, its bottom edge too: where the card before it shows
    # its own bottom edge and the last read none, nothing covers that card and the
    # read is a line in its art (glare on the mat beyond it lengthened the outline).
    while len(reads) > 1 and st.whole(reads[-2].top_local, reads[-1].top_local):
        reads.pop()
        sure.pop()
    # What only the pale mask shows stands where a card is named there.
    reads = [rd for rd in reads if rd.token != UNKNOWN or rd.top_local >= pale_from]
    for k, rd in enumerate(reads):
        rd.order = k
    return reads
