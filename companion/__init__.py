"""Battle Line table companion: reads the table, rules on claims, lights the flags."""

__version__ = "0.1.0"

import os as _os

# One BLAS thread, set before NumPy loads (this package's modules import it later):
# the reader's small matrix products take ~2 ms on one thread, but OpenBLAS's worker
# threads spinning against the camera, the renderer and the screen on a busy Pi made
# the same product take 100-500 ms. Vision's figures are for one core.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
    _os.environ.setdefault(_var, "1")
# A picture past 100 MP is refused before it is decoded (see vision/__init__.py).
_os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(100_000_000))
