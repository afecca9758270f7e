"""Read every zone of the mat: the fanned cards in order, each with a token and a confidence.

The steps for one frame, each in a module of ``vision.reading``:
1. ``zones``: a low-resolution top-down view (1 px/mm) of the mat, what in it
   is not mat, and each zone cut out of it turned card tops up;
2. ``light``: the light's smooth per-channel gain, fitted where the plain mat
   shows (true colours), and the glare the mat shows;
3. ``stack``: in each zone, the stack's extent and the candidate top edges of
   the cards in it;
4. ``tilt`` and ``placement``: each card's index band placed exactly in the
   full-resolution frame (its top edge's tilt, then where the index lies);
5. ``templates``, ``classify`` and ``confidence``: the band named, or
   ``unknown`` where it is not clearly one card, never a guess.

This module runs them (``reading.result`` holds what they found). Every zone's
reading is a generator that asks for the bands it reads next (one card's, or
every place a stack's band may lie): where it looks next depends on what it
found below. The bands all zones ask for at once are read together, each step
one call for all of them (or for all of one visible height), which is most of
what keeps a frame quick. So a zone asks ahead, with its last card, for every
top whose ask cannot wait on what lies below it (the band shows whole whatever
is found there); a read asked ahead is used only where the top is then asked
just so, and the reads are the same as one at a time. What is read again, and
where (a band beyond its warp, a doubtful read at the runner-up tilt, a stack's
first or last band further along, a gap wider than any fan), is decided here
too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Generator
from typing import Final

import cv2
import numpy as np
from threadpoolctl import ThreadpoolController

from vision.band_model import BandModel, as_trained, two_nearest
from vision.calibrate import Calibration
from vision.face_model import FACE_PX, FACE_SEARCH_PX, FaceModel
from vision.mat import MatLayout, Zone, standard_mat
from vision.position import UNKNOWN
from vision.profile import TPL_PX, DeckProfile, ProfileError
from vision.reading.classify import (
    COLOUR_FLOOR,
    COLOUR_WEIGHT,
    GLARE_PALEST,
    LOCAL_FIT,
    LOCAL_MARGIN,
    Classifier,
)
from vision.reading.confidence import (
    INDEX_FIT,
    INDEX_GOOD,
    MAX_RANK_GAP,
    MIN_MARGIN,
    MIN_SCORE,
    PAIR_COLOUR_SCALE,
    SHAPE_SURE,
    SHAPE_SURE_SCORE,
    TOP_K,
)
from vision.reading.light import (
    GLARE_LEAST,
    GLARE_MAT_MM,
    GLARE_MAT_SAMPLES,
    GLARE_MOST,
    LIGHT_SAMPLES,
    Light,
    MatLight,
    scaled,
)
from vision.reading.placement import RECENTRE, REFINE_MM, SHIFT_PX, Band, Placed, Placer
from vision.reading.result import CardRead, FrameRead
from vision.reading.stack import (
    COVER_SLACK_MM,
    MIN_EDGE,
    MIN_GAP_MM,
    PEAK_SEPARATION_MM,
    Ask,
    edge_rows,
    stack_in_masks,
)
from vision.reading.table_colour import by_table_colours
from vision.reading.templates import LOCAL_FLOOR, LOCAL_SIGMA, Templates
from vision.reading.tilt import LINES, STRIPS, TILT_APART, TILT_STEP, TILTS, Edge, TopEdges
from vision.reading.trust import FACE_TRUST, NAME_AT, face_speaks
from vision.reading.zones import (
    FG_THRESHOLD,
    LOW_PX,
    PALE_THRESHOLD,
    ZONE_MARGIN,
    not_mat,
    to_mat,
    top_down,
    zone_matrix,
)
from vision.render_mat import render_mat
from vision.sharpness import blur_mm
from vision.types import FloatImage, Image

_BLAS: Final = ThreadpoolController()

# The steps' constants stand in their modules; they are importable from here as before.
__all__ = [
    "AHEAD_SLACK_MM", "COLOUR_FLOOR", "COLOUR_WEIGHT", "COVER_SLACK_MM", "FG_THRESHOLD",
    "FILL_GAP_MM", "FILL_TRIES", "FINE_STEPS", "FINE_TILTS", "GLARE_LEAST", "GLARE_MAT_MM",
    "GLARE_MAT_SAMPLES", "GLARE_MOST", "GLARE_PALEST", "INDEX_FIT", "INDEX_GOOD", "INDEX_LIKE",
    "LIGHT_SAMPLES", "LINES", "LOCAL_FIT", "LOCAL_FLOOR", "LOCAL_MARGIN", "LOCAL_SIGMA", "LOW_PX",
    "MAX_RANK_GAP", "MIN_EDGE", "MIN_GAP_MM", "MIN_MARGIN", "MIN_SCORE", "NAME_AT", "NO_INDEX",
    "PAIR_COLOUR_SCALE", "PEAK_SEPARATION_MM", "READ_SLACK_MM", "RECENTRE", "REFINE_MM",
    "RETRY_MM", "SHAPE_SURE", "SHAPE_SURE_SCORE", "SHIFT_PX", "STRIPS", "SURE", "TILTS",
    "TILT_APART", "TILT_STEP", "TILT_WORTH", "TOP_K", "TPL_PX", "ZONE_MARGIN",
    "Reader", "edge_rows",
]

SURE: Final = 0.75  # a read less confident than this is tried at the runner-up tilt too
TILT_WORTH: Final = 0.6  # unless no token ranks this high for it: no tilt makes it a card
# A doubtful read's found tilt is stepped this far at a time either way: the top edge's
# tilt is a hundredth off for some three cards in ten, and a numeral fits best at its
# card's own tilt.
FINE_TILTS: Final = (-0.01, 0.01)
FINE_STEPS: Final = 4  # steps each way at most: one card in twenty is 0.04 off its found tilt
INDEX_LIKE: Final = 0.8  # a weak edge is a card only if its band matches this well
NO_INDEX: Final = 0.4  # a band no token ranks this high for is no card (a real card
# read unknown under glare still ranks about 0.45 or more)
RETRY_MM: Final = (8.0, -8.0, 16.0)  # further places a stack's first or last band may lie
FILL_GAP_MM: Final = 30.0  # more than any two fanned cards' tops lie apart
FILL_TRIES: Final = 3  # edges tried in such a gap for the card hidden there
# How far two cards' read tops may lie inside the tightest fan (MIN_GAP_MM): each is
# placed to half a millimetre or so, and a player laying a fan that tight misses it
# by as much.
READ_SLACK_MM: Final = 1.0
AHEAD_SLACK_MM: Final = 3.0  # room a band asked ahead has to show whole (``_read_zone``)


_Asking = Generator[list[Ask], list[CardRead | None], list[CardRead]]


def _advance(gen: _Asking, sent: list[CardRead | None] | None, name: str,
             asked: dict[str, list[Ask]], done: dict[str, list[CardRead]]) -> None:
    """Run a zone's reading on to its next asks, or to its end."""
    try:
        asked[name] = gen.send(sent)  # type: ignore[arg-type]  # None starts it
    except StopIteration as end:
        done[name] = end.value


class Reader:
    def __init__(self, profile: DeckProfile, layout: MatLayout | None = None,
                 model: BandModel | None = None, face: FaceModel | None = None) -> None:
        if len(profile.tokens) < 2:
            # Choosing a card means preferring it to another one.
            raise ProfileError(f"deck profile {profile.name!r}: holds {len(profile.tokens)} "
                               "card(s); enrol at least two")
        self.profile = profile
        # The deck's own learnt model names the cards where there is one (given, or
        # trained when the deck was enrolled); else the templates do.
        model = model if model is not None else BandModel.of(profile)
        self.model = model
        # The whole face of a zone's last card names it where the face is sure (given,
        # or trained with the model); without a band model no face is read.
        face = face if face is not None else FaceModel.of(profile)
        self.face = face if model is not None else None
        self.layout = layout or standard_mat()
        lay = self.layout
        self.low_size = (round(lay.width * LOW_PX), round(lay.height * LOW_PX))
        self._ref8 = render_mat(LOW_PX, lay)
        self.ref = self._ref8.astype(np.float32)
        self.light = MatLight(lay, self.low_size, self.ref)
        self.templates = Templates(profile)
        self.placer = Placer(self.templates, profile.card_w)
        self.top_edges = TopEdges(self.templates.tw)
        self.classifier = Classifier(profile, self.templates, model)

    def classify(self, crop: FloatImage, visible_mm: float,
                 ) -> tuple[str, float, float, list[tuple[str, float]]]:
        """Token, confidence, best score and the top candidates for a band crop
        (``Classifier.classify``)."""
        return self.classifier.classify(crop, visible_mm)

    # -- the frame ---------------------------------------------------------------------
    def read(self, frame: Image, calib: Calibration,
             zones: Collection[str] | None = None,
             elsewhere: Collection[str] = ()) -> FrameRead:
        """Every zone's cards, or only those of the named ``zones``; ``elsewhere``:
        cards known to lie in the zones not read, which no band read now can be (a
        card lies once: ``_without_taken``)."""
        if frame.ndim != 3 or frame.shape[2] != 3:
            raise ValueError(f"expected a BGR colour frame, got an array of shape {frame.shape}")
        # Many small matrix products: BLAS's own threads only wait on each other there
        # (a shift search's distances took 20 ms instead of 1 on a busy 2-core machine).
        with _BLAS.limit(limits=1, user_api="blas"):
            return self._read(frame, calib, zones, elsewhere)

    def _read(self, frame: Image, calib: Calibration, zones: Collection[str] | None,
              elsewhere: Collection[str]) -> FrameRead:
        low = top_down(frame, calib, self.low_size)
        light = self.light.fit(low)
        gain = self.light.gain_grid(light)
        corrected = self.light.true_colours(low, gain)
        fg = not_mat(corrected, self._ref8)
        pale = not_mat(corrected, self._ref8, PALE_THRESHOLD)
        m2f = calib.mat_to_frame
        # How soft the frame is, said with the read: a soft frame names few cards.
        soft = blur_mm(frame, calib, self.layout)
        # Every zone's reading runs side by side: each asks for one band at a time
        # (where it looks next depends on what it found), and the bands all zones
        # ask for at once are read together, one call per step for all of them.
        readers = {zone.name: self._read_zone(zone, fg, corrected, pale)
                   for zone in self.layout.zones if zones is None or zone.name in zones}
        done: dict[str, list[CardRead]] = {}
        asked: dict[str, list[Ask]] = {}
        for name, gen in readers.items():
            _advance(gen, None, name, asked, done)
        while asked:
            names = list(asked)
            batches = [asked.pop(n) for n in names]
            got = self._read_bands([a for b in batches for a in b], frame, m2f, light, soft)
            k = 0
            for name, b in zip(names, batches, strict=True):
                _advance(readers[name], got[k:k + len(b)], name, asked, done)
                k += len(b)
        cards = [rd for name in readers for rd in done[name]]
        self._by_faces(cards, frame, m2f, soft)
        self._without_taken(cards, elsewhere)
        return FrameRead(cards, calib, fg.astype(bool), gain, soft)

    def _by_faces(self, cards: list[CardRead], frame: Image, m2f: FloatImage,
                  soft: float | None) -> None:
        """Each zone's last card weighed by its whole face (``vision.face_model``,
        ``trust.face_speaks``). One the band left unknown, or named as a card named
        elsewhere too (one of them is wrong), is named as the face says where it speaks
        of a card its zone may hold and one of the band's two nearest. One the band
        named asks where the face, alone, speaks of another card: a soft numeral may
        pass for another where the whole card does not."""
        if self.face is None:
            return
        last: dict[str, CardRead] = {}
        for c in cards:
            if c.order >= last.get(c.zone, c).order:
                last[c.zone] = c
        named = Counter(c.token for c in cards)
        shown = [c for c in last.values() if c.judged is not None]
        if not shown:
            return
        faces, _ = as_trained(np.stack([self._face(c, frame, m2f) for c in shown]),
                              np.nan if soft is None else soft, FACE_PX)
        allowed = [c.judged.allowed for c in shown]  # type: ignore[union-attr]
        # The cards each zone may hold (none: every card).
        holds = None if any(a is None for a in allowed) else np.stack(
            allowed)  # type: ignore[arg-type]
        look = two_nearest(self.face.distances(faces), holds)
        # The face names one of the band's own two nearest cards: a face alone took an
        # orange card for the yellow of its rank, which the band put third.
        band = two_nearest(np.stack([c.judged.distances for c in shown]),  # type: ignore[union-attr]
                           holds)
        agree = (look.best == band.best) | (look.best == band.second)
        says = face_speaks(look.nearest, look.runner_up, look.best == band.best) & agree
        alone = face_speaks(look.nearest, look.runner_up)
        for c, k, speaks, sure in zip(shown, look.best.tolist(), says.tolist(), alone.tolist(),
                                      strict=True):
            token = self.face.tokens[k]
            if c.token != UNKNOWN and named[c.token] == 1:
                if sure and token != c.token:
                    # Not judged again among fewer cards either: the band did name it.
                    c.token, c.judged = UNKNOWN, None
            elif speaks:
                c.confidence = max(c.confidence, FACE_TRUST) if token == c.token else FACE_TRUST
                c.token = token

    def _face(self, card: CardRead, frame: Image, m2f: FloatImage) -> FloatImage:
        """The whole face of ``card`` (read from its band's corners), upright at FACE_PX
        in true colours, with ``FaceModel.shape``'s slack around it."""
        assert self.face is not None and card.judged is not None
        p, m = self.profile, FACE_SEARCH_PX
        (x0, y0), (x1, y1), _, (x3, y3) = card.corners
        # Face px -> mat mm: along the band's top edge and down its sides.
        ax, ay = (x1 - x0) / (p.card_w * FACE_PX), (y1 - y0) / (p.card_w * FACE_PX)
        dx, dy = (x3 - x0) / (p.band_mm * FACE_PX), (y3 - y0) / (p.band_mm * FACE_PX)
        to_mat = np.array([[ax, dx, x0 - m * (ax + dx)], [ay, dy, y0 - m * (ay + dy)],
                           [0.0, 0.0, 1.0]])
        rows, cols = self.face.shape()
        face = cv2.warpPerspective(frame, m2f @ to_mat, (cols, rows),
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_REPLICATE)
        return scaled(face, card.judged.placed.scale)

    def _without_taken(self, cards: list[CardRead], elsewhere: Collection[str] = ()) -> None:
        """Each card read ``unknown`` named, where it can be, among the cards not
        named elsewhere in the frame nor ``elsewhere`` (a card lies once:
        ``Classifier.without``); one still unknown keeps the model's guess (for a vote
        over frames); then every read's judgement let go."""
        taken = {c.token for c in cards}.union(elsewhere) - {UNKNOWN}
        ask = [(c, c.judged) for c in cards if c.token == UNKNOWN and c.judged is not None]
        if taken and ask:
            named = self.classifier.without(taken, [j for _, j in ask])
            for (c, _), (token, conf, _, _) in zip(ask, named, strict=True):
                if token != UNKNOWN:
                    c.token, c.confidence = token, conf
        if self.model is not None:
            by_table_colours(cards, self.model, self.templates.tw, elsewhere)
        for c in cards:
            if c.token == UNKNOWN and c.judged is not None:
                c.guess = self.classifier.guess(c.judged)
            c.judged = None

    # -- one zone ----------------------------------------------------------------------
    def _read_zone(self, zone: Zone, fg_all: Image, colour_all: FloatImage,
                   pale_all: Image | None = None) -> _Asking:
        """A zone's cards, first played first: asks (yields) for the bands it reads, a
        list at a time (``pale_all``: the mask at ``PALE_THRESHOLD``, none: not looked
        at)."""
        st, pale_from = stack_in_masks(zone, fg_all, colour_all, self.profile,
                                       self.templates.th, pale_all)
        if st is None:
            return []
        p = self.profile
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
                    below - t - COVER_SLACK_MM >= p.band_mm + AHEAD_SLACK_MM
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
                # All asked at once (one round, not up to three), taken in turn.
                steps = [step for step in RETRY_MM
                         if 0 <= t + step <= below - MIN_GAP_MM * LOW_PX]
                further = (yield [Ask(zone, t + step * LOW_PX, cx,
                                      min(p.band_mm, below - t - step - COVER_SLACK_MM),
                                      certain) for step in steps]) if steps else []
                for other in further:
                    if other is not None and other.score > rd.score:
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
                got = yield [Ask(zone, t, st.middle, min(p.band_mm, b - t - COVER_SLACK_MM),
                                 False) for t in tops]
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

    # -- the bands asked for -------------------------------------------------------------
    def _read_bands(self, asks: list[Ask], frame: Image, m2f: FloatImage,
                    light: Light, soft: float | None = None) -> list[CardRead | None]:
        """The card each ask's band shows (``None``: a line in the art, not a card) in a
        frame ``soft`` mm soft (``vision.sharpness``; ``None``: not known)."""
        m, h = round(REFINE_MM * TPL_PX), self.templates.th
        bands = self._bands(asks, m2f, light)
        # The tilt from each card's own top edge (and the lines parallel to it).
        cols = self.top_edges.strip_cols()
        edges = self.top_edges.find(np.stack([
            self.placer.warp_band(b.to_frame, b.u0, b.v0, 0.0, frame, m + h // 2, cols)
            for b in bands]))
        return self._read_many(bands, edges, frame, soft)

    def _bands(self, asks: list[Ask], m2f: FloatImage, light: Light) -> list[Band]:
        """The asks in frame terms: each band's corner, its matrix, height and light."""
        if not asks:
            return []
        p = self.profile
        corners = [(a.cx / LOW_PX - p.card_w / 2, a.t / LOW_PX) for a in asks]
        mids = np.array([to_mat(a.zone, u0 + p.card_w / 2, v0 + p.band_mm / 2)
                         for a, (u0, v0) in zip(asks, corners, strict=True)], np.float64)
        inverse = self.light.inverse_gains(light, mids)
        to_frame = {z.name: m2f @ zone_matrix(z) for z in {a.zone.name: a.zone
                                                           for a in asks}.values()}
        glare = self.light.mat_glare(light, [a.zone for a in asks], mids)
        return [Band(a, u0, v0, to_frame[a.zone.name], self.templates.visible_px(a.visible),
                     g, s)
                for a, (u0, v0), g, s in zip(asks, corners, inverse, glare, strict=True)]

    def _read_many(self, bands: list[Band], edges: list[Edge],
                   frame: Image, soft: float | None = None) -> list[CardRead | None]:
        """Place and read each band whose top edge's tilt, strongest lines and
        runner-up tilt are ``edges``, in a frame ``soft`` mm soft.

        ``None`` for an edge that was not certainly a card's and whose band looks
        like no index (a line in the art).
        """
        placer = self.placer
        placed = placer.place_many(bands, [(e[0], e[1]) for e in edges], frame)
        reads = self._cards(bands, placed, soft)
        # A card named from an index found beyond the warped band (the stack's centre
        # was misjudged: a neighbour's edge passed for its side) was read partly from
        # padding, and so was a band read unknown there that some token ranks as an
        # index (a line in the art passed for its top edge, the index half off the
        # band): the band is warped again around where it was found, and where some
        # card fits better stands.
        bands = list(bands)
        m = round(REFINE_MM * TPL_PX)
        off = [i for i, rd in enumerate(reads)
               if rd is not None and not placer.inside(placed[i], bands[i].hv)
               and (rd.token != UNKNOWN or rd.candidates[0][1] >= NO_INDEX)]
        moved = [placer.moved(bands[i], placed[i]) for i in off]
        again = placer.place_many(moved, [
            (placed[i].slope, [r - (placed[i].ty - m) for r in edges[i][1]]) for i in off], frame)
        fits = [(i, b, pl) for i, b, pl in zip(off, moved, again, strict=True)
                if float(pl.corr.max()) > float(placed[i].corr.max())]
        for (i, b, pl), rd in zip(fits, self._cards([b for _, b, _ in fits],
                                                    [pl for _, _, pl in fits], soft), strict=True):
            bands[i], placed[i], reads[i] = b, pl, rd
        # A doubtful read: a printed line of the mat or a covering card's edge may have
        # passed for this card's edge, or its edge's tilt is a little off. The runner-up
        # tilt is tried (the index looked for afresh), and the found tilt stepped
        # FINE_TILTS either way with the index where it was found, on each way while the
        # fit rises, up to FINE_STEPS steps; the tilt at which some card fits the band
        # best stands, with what it reads (a read is never shopped for: a worse fit that
        # names a card is a guess). Not for a band that looked like no index (a line in
        # the art), nor for one no token ranks even TILT_WORTH for: on the 30 cached
        # bench frames neither ever became a card at the runner-up tilt, and they were
        # five of every six tried.
        doubt = [i for i, rd in enumerate(reads)
                 if rd is not None and (rd.token == UNKNOWN or rd.confidence < SURE)
                 and rd.candidates and rd.candidates[0][1] >= TILT_WORTH]
        best: dict[int, Placed] = {}

        def keep(i: int, pl: Placed) -> None:
            if float(pl.corr.max()) > float(best.get(i, placed[i]).corr.max()):
                best[i] = pl

        for i, pl in zip(doubt, placer.place_many(
                [bands[i] for i in doubt], [(edges[i][2], edges[i][1]) for i in doubt], frame),
                strict=True):
            keep(i, pl)
        walk = [(i, d, placed[i]) for i in doubt for d in FINE_TILTS]
        for _ in range(FINE_STEPS):
            if not walk:
                break
            tried = placer.place_many(
                [bands[i] for i, _, _ in walk], [(pl.slope + d, edges[i][1]) for i, d, pl in walk],
                frame, [placer.turned(bands[i], pl, pl.slope + d) for i, d, pl in walk])
            rising = []
            for (i, d, pl), new in zip(walk, tried, strict=True):
                if float(new.corr.max()) > float(pl.corr.max()):
                    keep(i, new)
                    rising.append((i, d, new))
            walk = rising
        better = sorted(best.items())
        for (i, _), rd in zip(better, self._cards([bands[i] for i, _ in better],
                                                  [pl for _, pl in better], soft), strict=True):
            reads[i] = rd
        return reads

    def _cards(self, bands: list[Band], placed: list[Placed],
               soft: float | None = None) -> list[CardRead | None]:
        """The card each placed band shows (its frame ``soft`` mm soft), or ``None`` for
        an edge that was not certainly a card's and whose band looks like no index."""
        p = self.profile
        keep = [i for i, (b, pl) in enumerate(zip(bands, placed, strict=True))
                if b.ask.certain or float(pl.corr.max()) >= INDEX_LIKE]
        named, judged = self.classifier.judge_many(
            [placed[i] for i in keep], [bands[i].hv for i in keep],
            [bands[i].gain * 255.0 for i in keep], [bands[i].glare for i in keep],
            [bands[i].ask.zone.kind for i in keep], soft)
        out: list[CardRead | None] = [None] * len(bands)
        for i, (token, conf, score, cands), jd in zip(keep, named, judged, strict=True):
            band, pl = bands[i], placed[i]
            tx, ty = float(pl.tx), float(pl.ty)
            # The band's corners and its top edge's middle, crop px -> zone-local mm.
            bw, bh = p.card_w * TPL_PX, p.band_mm * TPL_PX
            (a, b, c), (d, e, f), _ = self.placer.band_matrix(band.u0, band.v0,
                                                              pl.slope).tolist()
            zone = band.ask.zone
            corners = [to_mat(zone, a * x + b * y + c, d * x + e * y + f)
                       for x, y in ((tx, ty), (tx + bw, ty), (tx + bw, ty + bh), (tx, ty + bh))]
            rd = CardRead(zone.name, 0, token, conf, score, corners, cands, judged=jd)
            rd.top_local = (d * (tx + bw / 2) + e * ty + f) * LOW_PX
            out[i] = rd
        return out
