"""The Raspberry Pi camera through picamera2 (imported only here, only when opened).

Two streams: ``main`` 2304x1296 for reading cards, ``lores`` for motion. The
main stream is asked for explicitly as BGR888 (OpenCV's order). After a settle
period the auto exposure, gain, white balance and focus are locked so that the
picture does not drift between frames that are to be voted together; stale
buffered frames are flushed before every read.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from companion.i18n import _
from vision.sources.base import FramePair, SourceError

MAIN_SIZE = (2304, 1296)
LORES_SIZE = (384, 216)
SETTLE_S = 2.0


def build_config(main_size: tuple[int, int] = MAIN_SIZE,
                 lores_size: tuple[int, int] = LORES_SIZE,
                 buffer_count: int = 3) -> dict[str, Any]:
    """The arguments of ``Picamera2.create_video_configuration`` we use."""
    return {
        "main": {"size": main_size, "format": "BGR888"},
        "lores": {"size": lores_size, "format": "YUV420"},
        "buffer_count": buffer_count,
        "queue": False,  # never hand out a frame captured before we asked
    }


def lock_controls(metadata: dict[str, Any]) -> dict[str, Any]:
    """Controls that freeze what auto exposure, white balance and focus settled on."""
    controls: dict[str, Any] = {"AeEnable": False, "AwbEnable": False}
    if "ExposureTime" in metadata:
        controls["ExposureTime"] = int(metadata["ExposureTime"])
    if "AnalogueGain" in metadata:
        controls["AnalogueGain"] = float(metadata["AnalogueGain"])
    if "ColourGains" in metadata:
        r, b = metadata["ColourGains"]
        controls["ColourGains"] = (float(r), float(b))
    if "LensPosition" in metadata:  # autofocus modules only (Camera Module 3)
        controls["AfMode"] = 0  # manual
        controls["LensPosition"] = float(metadata["LensPosition"])
    return controls


def lores_to_bgr(yuv: np.ndarray, size: tuple[int, int] = LORES_SIZE) -> np.ndarray:
    import cv2

    w, h = size
    return np.asarray(cv2.cvtColor(yuv[: h * 3 // 2, :w], cv2.COLOR_YUV2BGR_I420))


class Picamera2Source:
    def __init__(self, camera_num: int = 0, settle_s: float = SETTLE_S, flush: int = 2) -> None:
        self.name = f"picamera2:{camera_num}"
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found,unused-ignore]
        except ImportError as exc:
            raise SourceError(_("{camera}: picamera2 is not installed ({error}); on Raspberry Pi "
                                "OS: sudo apt install python3-picamera2").format(
                                    camera=self.name, error=exc)) from None
        try:
            self._cam = Picamera2(camera_num)
            cfg = self._cam.create_video_configuration(**build_config())
            self._cam.configure(cfg)
            self._cam.start()
            time.sleep(settle_s)
            self._cam.set_controls(lock_controls(self._cam.capture_metadata()))
        except Exception as exc:  # picamera2 raises plain RuntimeErrors and IndexErrors
            raise SourceError(_("{camera}: cannot start the camera ({error})").format(
                camera=self.name, error=exc)) from None
        self._flush = flush

    def read(self) -> FramePair:
        try:
            for _stale in range(self._flush):
                self._cam.capture_request().release()
            req = self._cam.capture_request()
            try:
                main = np.asarray(req.make_array("main"))
                low = lores_to_bgr(np.asarray(req.make_array("lores")))
            finally:
                req.release()
        except Exception as exc:
            raise SourceError(_("{camera}: capture failed ({error})").format(
                camera=self.name, error=exc)) from None
        return FramePair(main, low)

    def close(self) -> None:
        try:
            self._cam.stop()
            self._cam.close()
        except Exception:
            pass
