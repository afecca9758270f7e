import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.sources import RetryingSource, SourceError
from vision.sources.folder import FolderSource
from vision.sources.opencv_capture import OpenCVSource
from vision.sources.picamera2_source import Picamera2Source, build_config, lock_controls


def _write_video(path: Path, frames: list[np.ndarray]) -> None:
    h, w = frames[0].shape[:2]
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (w, h))
    assert out.isOpened()
    for f in frames:
        out.write(f)
    out.release()


def test_opencv_source_reads_a_video_file_then_says_it_ended(calm, tmp_path):
    _, frame = calm
    small = cv2.resize(frame.image, (640, 360))
    path = tmp_path / "table.avi"
    _write_video(path, [small, np.flipud(small).copy(), small])
    src = OpenCVSource(str(path))
    pairs = [src.read() for _ in range(3)]
    assert pairs[0].main.shape == (360, 640, 3)
    assert pairs[0].low.shape[:2] == (216, 384)
    # The second frame is the first upside down: the source really decodes frames.
    assert np.abs(pairs[1].main.astype(int) - pairs[0].main.astype(int)).mean() > 10
    with pytest.raises(SourceError, match="end of video"):
        src.read()
    src.close()


def test_missing_video_and_absent_camera_are_clear_errors(tmp_path):
    with pytest.raises(SourceError, match="no such video file"):
        OpenCVSource(str(tmp_path / "nope.avi"))
    with pytest.raises(SourceError, match="cannot open"):
        OpenCVSource(97)


def test_folder_source_names_a_corrupt_image(calm, tmp_path):
    _, frame = calm
    cv2.imwrite(str(tmp_path / "a.png"), cv2.resize(frame.image, (640, 360)))
    (tmp_path / "b.jpg").write_bytes(b"\xff\xd8 not a jpeg")
    src = FolderSource(tmp_path)
    assert src.read().main.shape == (360, 640, 3)
    with pytest.raises(SourceError, match=r"b\.jpg: not a readable image"):
        src.read()


def test_failing_source_is_retried_and_recovers(calm, tmp_path):
    _, frame = calm
    cv2.imwrite(str(tmp_path / "a.png"), cv2.resize(frame.image, (320, 180)))
    attempts: list[str] = []
    logs: list[str] = []
    waits: list[float] = []

    def opener():
        # The camera is "unplugged" for the first two attempts: a real missing device.
        attempts.append("open")
        if len(attempts) <= 2:
            return OpenCVSource(str(tmp_path / "unplugged.avi"))
        return FolderSource(tmp_path, loop=True)

    src = RetryingSource(opener, retries=3, delay=0.5, log=logs.append, sleep=waits.append)
    pair = src.read()
    assert pair.main.shape == (180, 320, 3)
    assert src.failures == 2 and len(attempts) == 3
    assert waits == [0.5, 0.5]
    assert all("unplugged.avi: no such video file" in m for m in logs)


def test_retrying_gives_up_with_the_cause():
    src = RetryingSource(lambda: OpenCVSource(98), retries=2, delay=0, log=lambda m: None,
                         sleep=lambda s: None)
    with pytest.raises(SourceError, match=r"gave up after 2 retries: opencv:98: cannot open"):
        src.read()


def test_picamera2_configuration_without_a_camera():
    cfg = build_config()
    assert cfg["main"] == {"size": (2304, 1296), "format": "BGR888"}
    assert cfg["lores"]["size"][0] < 640
    assert cfg["queue"] is False
    locked = lock_controls({"ExposureTime": 12000, "AnalogueGain": 2.5,
                            "ColourGains": (1.9, 1.6), "LensPosition": 3.2})
    assert locked == {"AeEnable": False, "AwbEnable": False, "ExposureTime": 12000,
                      "AnalogueGain": 2.5, "ColourGains": (1.9, 1.6), "AfMode": 0,
                      "LensPosition": 3.2}
    # A fixed-focus module reports no lens position: focus is left alone.
    assert "AfMode" not in lock_controls({"ExposureTime": 5000})
    assert "picamera2" not in sys.modules  # imported only when a camera is opened


def test_picamera2_missing_is_a_clear_error():
    if "picamera2" in sys.modules or _has_picamera2():
        pytest.skip("picamera2 is installed: this checks the message on machines without it")
    with pytest.raises(SourceError, match="apt install python3-picamera2"):
        Picamera2Source()


def _has_picamera2() -> bool:
    import importlib.util

    return importlib.util.find_spec("picamera2") is not None
