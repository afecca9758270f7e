"""Vision: read every card at the nine flags from the camera looking down on the mat."""

import os

# Reading multiplies small matrices; a threaded BLAS only adds contention (and
# 100 ms stalls) on the Pi's few cores. Must be set before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# A picture is refused past 100 MP (a phone shoots 12 to 50): a small file may claim
# 30000x30000 and take gigabytes to decode. OpenCV reads this when it loads.
os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(100_000_000))
