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
reading (``reading.fan``: which of its stack's tops are cards) is a generator that
asks for the bands it reads next (one card's, or every place a stack's band may
lie): where it looks next depends on what it found below. The bands all zones ask
for at once are read together, each step one call for all of them (or for all of
one visible height), which is most of what keeps a frame quick. So a zone asks
ahead, with its last card, for every top whose ask cannot wait on what lies below
it (the band shows whole whatever is found there); a read asked ahead is used only
where the top is then asked just so, and the reads are the same as one at a time.
Which bands are read again, and how (a band beyond its warp, a doubtful read at
the runner-up tilt), is decided here; where else a zone looks (a stack's first or
last band further along, a gap wider than any fan), in ``reading.fan``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection
from typing import Final

import cv2
import numpy as np
from threadpoolctl import ThreadpoolController

from vision.calibrate import Calibration
from vision.mat import MatLayout, Zone, standard_mat
from vision.models.band_model import BandModel, as_trained, two_nearest
from vision.models.face_model import FACE_PX, FACE_SEARCH_PX, FaceModel
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
from vision.reading.fan import (
    AHEAD_SLACK_MM,
    FILL_GAP_MM,
    FILL_TRIES,
    NO_INDEX,
    READ_SLACK_MM,
    RETRY_MM,
    TILT_WORTH,
    Asking,
    read_fan,
)
from vision.reading.laps import Laps
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
from vision.reading.placement import (
    RECENTRE,
    REFINE_MM,
    SHIFT_PX,
    Band,
    Placed,
    Placer,
    as_bgr,
    four_channels,
)
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
# A doubtful read's found tilt is stepped this far at a time either way: the top edge's
# tilt is a hundredth off for some three cards in ten, and a numeral fits best at its
# card's own tilt.
FINE_TILTS: Final = (-0.01, 0.01)
FINE_STEPS: Final = 4  # steps each way at most: one card in twenty is 0.04 off its found tilt
INDEX_LIKE: Final = 0.8  # a weak edge is a card only if its band matches this well
ASTRAY_PX: Final = 2  # a placement this far (template px) from its certain top is astray


def _advance(gen: Asking, sent: list[CardRead | None] | None, name: str,
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
        self.laps = Laps()  # CPU time per step, over every read (the bench prints it)
        self._frame4: Image | None = None  # the last frame as BGRA (``four_channels``)

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
        self.laps.start()
        low = top_down(frame, calib, self.low_size)
        light = self.light.fit(low)
        gain = self.light.gain_grid(light)
        corrected = self.light.true_colours(low, gain)
        fg = not_mat(corrected, self._ref8)
        pale = not_mat(corrected, self._ref8, PALE_THRESHOLD)
        m2f = calib.mat_to_frame
        # How soft the frame is, said with the read: a soft frame names few cards.
        soft = blur_mm(frame, calib, self.layout)
        # A read of every zone warps its bands (some 200) and faces from the frame as
        # BGRA: the same values, sooner. The copy (into the last one's buffer: fresh
        # pages cost more than the copy) is some 0.6 ms, more than a read of a zone or
        # two saves by it.
        frame4 = frame
        if zones is None:
            self._frame4 = frame4 = four_channels(frame, self._frame4)
        self.laps.lap("view")
        # Every zone's reading runs side by side: each asks for one band at a time
        # (where it looks next depends on what it found), and the bands all zones
        # ask for at once are read together, one call per step for all of them.
        readers = {zone.name: self._read_zone(zone, fg, corrected, pale)
                   for zone in self.layout.zones if zones is None or zone.name in zones}
        done: dict[str, list[CardRead]] = {}
        asked: dict[str, list[Ask]] = {}
        for name, gen in readers.items():
            _advance(gen, None, name, asked, done)
        self.laps.lap("stacks")
        while asked:
            names = list(asked)
            batches = [asked.pop(n) for n in names]
            got = self._read_bands([a for b in batches for a in b], frame4, m2f, light, soft)
            k = 0
            for name, b in zip(names, batches, strict=True):
                _advance(readers[name], got[k:k + len(b)], name, asked, done)
                k += len(b)
            self.laps.lap("stacks")
        cards = [rd for name in readers for rd in done[name]]
        self._by_faces(cards, frame4, m2f, soft)
        self.laps.lap("faces")
        self._without_taken(cards, elsewhere)
        self.laps.lap("names")
        return FrameRead(cards, calib, fg.astype(bool), gain, soft)

    def _by_faces(self, cards: list[CardRead], frame: Image, m2f: FloatImage,
                  soft: float | None) -> None:
        """Each zone's last card weighed by its whole face (``vision.models.face_model``,
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
        face = as_bgr(cv2.warpPerspective(frame, m2f @ to_mat, (cols, rows),
                                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                          borderMode=cv2.BORDER_REPLICATE))
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
                   pale_all: Image | None = None) -> Asking:
        """A zone's cards, first played first: asks (yields) for the bands it reads, a
        list at a time (``pale_all``: the mask at ``PALE_THRESHOLD``, none: not looked
        at)."""
        st, pale_from = stack_in_masks(zone, fg_all, colour_all, self.profile,
                                       self.templates.th, pale_all)
        if st is None:
            return []
        return (yield from read_fan(st, pale_from, self.profile.band_mm))

    # -- the bands asked for -------------------------------------------------------------
    def _read_bands(self, asks: list[Ask], frame: Image, m2f: FloatImage,
                    light: Light, soft: float | None = None) -> list[CardRead | None]:
        """The card each ask's band shows (``None``: a line in the art, not a card) in a
        frame (BGR, or BGRA: ``four_channels``) ``soft`` mm soft (``vision.sharpness``;
        ``None``: not known)."""
        m, h = round(REFINE_MM * TPL_PX), self.templates.th
        self.laps.lap("stacks")
        bands = self._bands(asks, m2f, light)
        # The tilt from each card's own top edge (and the lines parallel to it).
        cols = self.top_edges.strip_cols()
        edges = self.top_edges.find(np.stack([
            self.placer.warp_band(b.to_frame, b.u0, b.v0, 0.0, frame, m + h // 2, cols)
            for b in bands]))
        self.laps.lap("tilts")
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
        placed = placer.place_many(bands, [(e.slope, e.lines) for e in edges], frame)
        self.laps.lap("placing")
        reads = self._cards(bands, placed, soft)
        self.laps.lap("naming")
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
            (placed[i].slope, [r - (placed[i].ty - m) for r in edges[i].lines]) for i in off],
            frame)
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
        def unsure(rd: CardRead) -> bool:
            return rd.token == UNKNOWN or rd.confidence < SURE

        def ranked(rd: CardRead | None) -> float:
            # How well the card ranked first explains the band, its colour weighed.
            return rd.candidates[0][1] if rd is not None and rd.candidates else -math.inf

        doubt = [i for i, rd in enumerate(reads)
                 if rd is not None and unsure(rd) and ranked(rd) >= TILT_WORTH]
        # A band that looked like no index at its top edge's tilt may be a covered card
        # laid crooked against the card it lies on, whose art drew the stronger line:
        # where the runner-up tilt is a second edge, the band is placed there too, and
        # stands only if it then names a card surely.
        retry = doubt + [i for i, rd in enumerate(reads) if rd is None and edges[i].second]
        best: dict[int, Placed] = {}

        def keep(i: int, pl: Placed) -> None:
            if float(pl.corr.max()) > float(best.get(i, placed[i]).corr.max()):
                best[i] = pl

        for i, pl in zip(retry, placer.place_many(
                [bands[i] for i in retry], [(edges[i].runner_up, edges[i].lines) for i in retry],
                frame), strict=True):
            keep(i, pl)
        # A read like no index, placed away from the top its stack's outline found for
        # certain: in grey a white strip over a dark header (the card above's body over
        # this card's) fits a tactic's title as well as the card's own index fits, and
        # may have drawn the placement there. It is placed at that top too, and stands
        # if it then names a card surely, or if some card explains it better there with
        # its colour weighed (left as it is, the fan drops a band like no index).
        astray = [i for i, rd in enumerate(reads)
                  if rd is not None and unsure(rd) and ranked(rd) < TILT_WORTH
                  and bands[i].ask.certain and abs(placed[i].ty - m) > ASTRAY_PX]
        placed_own = set(astray)
        best.update(zip(astray, placer.place_many(
            [bands[i] for i in astray], [(placed[i].slope, edges[i].lines) for i in astray],
            frame, own_top=True, had=[placed[i] for i in astray]), strict=True))
        walk = [(i, d, placed[i]) for i in doubt for d in FINE_TILTS]
        for _ in range(FINE_STEPS):
            if not walk:
                break
            tried = placer.place_many(
                [bands[i] for i, _, _ in walk], [(pl.slope + d, edges[i].lines) for i, d, pl in walk],
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
            if reads[i] is None and (rd is None or unsure(rd)):
                continue
            if i in placed_own and (rd is None or unsure(rd)) and ranked(rd) <= ranked(reads[i]):
                continue
            reads[i] = rd
        self.laps.lap("second looks")
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
