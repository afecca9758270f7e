"""Vision: read every card at the nine flags from the camera looking down on the mat."""

import os

# Reading multiplies small matrices; a threaded BLAS only adds contention (and
# 100 ms stalls) on the Pi's few cores. Must be set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
