"""Settings for the whole suite, made before any test module imports NumPy."""

import os

# As the command line does (companion/cli.py): one BLAS thread, so the reader's small
# matrix products are not slowed 100x by worker threads spinning on a busy machine.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
# The suite reads the companion's English messages: a developer's own locale must not
# translate them (``language = "auto"`` takes LANGUAGE first).
os.environ["LANGUAGE"] = "en"
