"""Any OpenCV capture: a USB camera by index, or a video file."""

from __future__ import annotations

from pathlib import Path

import cv2

from companion.i18n import _
from vision.sources.base import FramePair, SourceError, low_from_main


class OpenCVSource:
    def __init__(self, device: int | str, size: tuple[int, int] | None = (2304, 1296),
                 flush: int = 2) -> None:
        self.name = f"opencv:{device}"
        if isinstance(device, str) and not Path(device).exists():
            raise SourceError(_("{device}: no such video file").format(device=device))
        self._cap = cv2.VideoCapture(device)
        if not self._cap.isOpened():
            raise SourceError(_("{camera}: cannot open (unplugged, busy or not a video)").format(
                camera=self.name))
        self._live = isinstance(device, int)
        if self._live and size is not None:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        self._flush = flush if self._live else 0

    def read(self) -> FramePair:
        # A live camera buffers frames: drop the stale ones so we see the table now.
        for _stale in range(self._flush):
            self._cap.grab()
        ok, frame = self._cap.read()
        if not ok or frame is None:
            raise SourceError(_("{camera}: no frame (camera unplugged or end of video)").format(
                camera=self.name))
        return FramePair(frame, low_from_main(frame))

    def close(self) -> None:
        self._cap.release()
