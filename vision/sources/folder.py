"""Image files as frames: a folder of snapshots, in name order."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from companion.i18n import _
from vision.sources.base import FramePair, SourceEnded, SourceError, low_from_main

SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


def load_frame(path: Path) -> np.ndarray:
    data = np.fromfile(str(path), np.uint8) if path.is_file() else np.empty(0, np.uint8)
    try:
        img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    except cv2.error:  # refused before decoding: it claims more pixels than allowed
        raise SourceError(_("{path}: image too large (over 100 megapixels)").format(
            path=path)) from None
    if img is None:
        raise SourceError((_("{path}: no such file") if not path.exists() else
                           _("{path}: not a readable image (corrupt or unsupported)")).format(
                               path=path))
    return np.asarray(img)


class FolderSource:
    def __init__(self, folder: Path, loop: bool = False) -> None:
        self.name = f"folder:{folder}"
        if not folder.is_dir():
            raise SourceError(_("{folder}: not a folder").format(folder=folder))
        self._files = sorted(p for p in folder.iterdir() if p.suffix.lower() in SUFFIXES)
        if not self._files:
            raise SourceError(_("{folder}: no images in it").format(folder=folder))
        self._i, self._loop = 0, loop

    def read(self) -> FramePair:
        if self._i >= len(self._files):
            if not self._loop:
                raise SourceEnded(_("{source}: no more images").format(source=self.name))
            self._i = 0
        path = self._files[self._i]
        self._i += 1
        frame = load_frame(path)
        return FramePair(frame, low_from_main(frame))

    def close(self) -> None:
        pass
