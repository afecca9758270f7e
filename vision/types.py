"""Array aliases. OpenCV's stubs return loosely typed arrays, so images are ``NDArray[Any]``."""

from typing import Any

from numpy.typing import NDArray

Image = NDArray[Any]  # uint8 BGR or grey
FloatImage = NDArray[Any]  # float32
