"""The simulated camera: its pose (``Camera``) and where it puts the mat's points in a frame
(pinhole homography, lens bending), apart from ``synth``, which photographs tables through it."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.mat import MatLayout, standard_mat
from vision.types import FloatImage

FRAME_SIZE = (2304, 1296)  # the Pi camera's main stream


@dataclass(frozen=True)
class Camera:
    """Where the camera is: mat centre offset, height, tilt and turn."""

    yaw_deg: float = 0.0
    tilt_x_deg: float = 0.0
    tilt_y_deg: float = 0.0
    fill: float = 0.9  # fraction of the frame height the mat spans
    shift: tuple[float, float] = (0.0, 0.0)  # mat centre offset, fraction of frame
    k1: float = 0.0  # radial distortion, normalised by the focal length

    @staticmethod
    def random(rng: np.random.Generator) -> Camera:
        return Camera(
            yaw_deg=float(rng.uniform(-4, 4)),
            tilt_x_deg=float(rng.uniform(-10, 10)),
            tilt_y_deg=float(rng.uniform(-8, 8)),
            fill=float(rng.uniform(0.86, 0.97)),
            shift=(float(rng.uniform(-0.04, 0.04)), float(rng.uniform(-0.02, 0.02))),
            k1=float(rng.uniform(-0.06, 0.03)),
        )

    @staticmethod
    def room(rng: np.random.Generator, layout: MatLayout | None = None,
             margin: float = 0.015) -> Camera:
        """A wider spread of poses (a camera on a shelf, a lamp arm, a tripod set down
        anyhow), redrawn until the whole mat is in the frame: calibration needs it."""
        lay = layout or standard_mat()
        while True:
            cam = Camera(
                yaw_deg=float(rng.uniform(-10, 10)),
                tilt_x_deg=float(rng.uniform(-16, 16)),
                tilt_y_deg=float(rng.uniform(-14, 14)),
                fill=float(rng.uniform(0.78, 0.97)),
                shift=(float(rng.uniform(-0.07, 0.07)), float(rng.uniform(-0.04, 0.04))),
                k1=float(rng.uniform(-0.06, 0.03)),
            )
            if mat_in_view(cam, lay, margin):
                return cam


def mat_in_view(cam: Camera, layout: MatLayout, margin: float = 0.0,
                frame_size: tuple[int, int] = FRAME_SIZE) -> bool:
    """Whether the mat's whole outline (lens bending included) lies ``margin`` (a
    fraction of the frame) inside the frame."""
    fw, fh = frame_size
    h = camera_homography(cam, layout, frame_size)
    t = np.linspace(0, 1, 9)
    w, ht = layout.width, layout.height
    edge = np.concatenate([np.stack([t * w, 0 * t], 1), np.stack([t * w, 0 * t + ht], 1),
                           np.stack([0 * t, t * ht], 1), np.stack([0 * t + w, t * ht], 1)])
    pts = cv2.perspectiveTransform(edge.reshape(-1, 1, 2), h).reshape(-1, 2)
    for x, y in pts:
        xd, yd = distort_point(float(x), float(y), cam.k1, frame_size)
        if not (margin * fw <= xd <= (1 - margin) * fw and margin * fh <= yd <= (1 - margin) * fh):
            return False
    return True


def camera_homography(cam: Camera, layout: MatLayout,
                      frame_size: tuple[int, int] = FRAME_SIZE) -> FloatImage:
    """Mat mm -> frame pixels for a pinhole camera at that pose."""
    fw, fh = frame_size
    f = 1.1 * fw
    k = np.array([[f, 0, fw / 2], [0, f, fh / 2], [0, 0, 1]])
    rx, ry, rz = (math.radians(v) for v in (cam.tilt_x_deg, cam.tilt_y_deg, cam.yaw_deg))
    rot, _ = cv2.Rodrigues(np.array([rx, ry, 0.0]))
    rot_z, _ = cv2.Rodrigues(np.array([0.0, 0.0, rz]))
    rot = rot @ rot_z
    # Mat points centred on the origin, camera distance from the wanted fill.
    dist = f * layout.height / (cam.fill * fh)
    t = np.array([cam.shift[0] * fw * dist / f, cam.shift[1] * fh * dist / f, dist])
    centre = np.array([[1, 0, -layout.width / 2], [0, 1, -layout.height / 2], [0, 0, 1]])
    plane = np.column_stack([rot[:, 0], rot[:, 1], t])
    h = k @ plane @ centre
    return np.asarray(h / h[2, 2], np.float64)


def _distort_maps(h_frame_to_table: FloatImage, k1: float,
                  frame_size: tuple[int, int]) -> tuple[FloatImage, FloatImage]:
    fw, fh = frame_size
    f = 1.1 * fw
    xs, ys = np.meshgrid(np.arange(fw, dtype=np.float32), np.arange(fh, dtype=np.float32))
    # Each distorted pixel shows the undistorted ray r_u = r_d * (1 + k1 r_d^2).
    xn, yn = (xs - fw / 2) / f, (ys - fh / 2) / f
    scale = 1 + k1 * (xn * xn + yn * yn)
    pts = np.stack([xn * scale * f + fw / 2, yn * scale * f + fh / 2], axis=-1)
    table = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), h_frame_to_table).reshape(fh, fw, 2)
    return table[..., 0].astype(np.float32), table[..., 1].astype(np.float32)


@lru_cache(maxsize=2)  # two pairs of full-frame maps are ~50 MB
def frame_maps(cam: Camera, layout: MatLayout, px_per_mm: float,
               frame_size: tuple[int, int]) -> tuple[FloatImage, FloatImage]:
    """Frame pixel -> table pixel for a camera that does not move between photographs."""
    h = camera_homography(cam, layout, frame_size)
    h_table_to_frame = h @ np.linalg.inv(np.diag([px_per_mm, px_per_mm, 1.0]))
    mx, my = _distort_maps(np.linalg.inv(h_table_to_frame), cam.k1, frame_size)
    mx.setflags(write=False)
    my.setflags(write=False)
    return mx, my


def distort(xy: FloatImage, k1: float, frame_size: tuple[int, int] = FRAME_SIZE,
            iterations: int = 8) -> FloatImage:
    """Where undistorted frame points (..., 2) appear once the lens bends them."""
    fw, fh = frame_size
    f = 1.1 * fw
    u = (np.asarray(xy, np.float64) - (fw / 2, fh / 2)) / f
    d = u
    for _ in range(iterations):
        d = u / (1 + k1 * (d * d).sum(axis=-1, keepdims=True))
    out: FloatImage = d * f + (fw / 2, fh / 2)
    return out


def distort_point(x: float, y: float, k1: float, frame_size: tuple[int, int] = FRAME_SIZE,
                  iterations: int = 8) -> tuple[float, float]:
    """Where an undistorted frame point appears once the lens bends it."""
    xd, yd = distort(np.array([x, y]), k1, frame_size, iterations)
    return float(xd), float(yd)
