"""Array aliases. OpenCV's stubs return loosely typed arrays, so images are ``NDArray[Any]``."""

from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

Image = NDArray[Any]  # uint8 BGR or grey
FloatImage = NDArray[Any]  # float32

GREY_BGR: Final = np.array([0.114, 0.587, 0.299], np.float32)  # BGR -> grey, as OpenCV weighs
