"""Frame sources: every camera (and stand-in for one) behind one interface."""

from vision.sources.base import (
    FramePair,
    FrameSource,
    RetryingSource,
    SourceEnded,
    SourceError,
)

__all__ = ["FramePair", "FrameSource", "RetryingSource", "SourceEnded", "SourceError"]
