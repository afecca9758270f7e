"""Files that survive a power cut: the whole old file or the whole new one, never a torn one.

A file is written beside its final name (same folder, so the rename cannot
cross file systems), flushed and fsynced, renamed over the old one, and the
folder fsynced so the rename itself is on the disk. Settings, deck profiles
and exports are written this way; the journal appends and fsyncs each line
(``companion.records.journal``) and uses ``fsync_dir`` for its new files.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

# The mode a plain open() would give a new file (mkstemp's own is 0o600).
_UMASK = os.umask(0o022)
os.umask(_UMASK)


def fsync_dir(directory: Path) -> None:
    """Make the names in ``directory`` (a new or renamed file) survive a power cut."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return  # not every platform opens folders; the data itself is fsynced
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[IO[bytes]]:
    """A binary handle whose content replaces ``path`` as a whole when the block ends
    without an exception; otherwise ``path`` is left as it was."""
    folder = path.parent
    fd, spare = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    try:
        try:
            mode = os.stat(path).st_mode & 0o7777  # the old file's, kept
        except OSError:
            mode = 0o666 & ~_UMASK
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(spare, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(spare)
        raise
    fsync_dir(folder)


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` all at once, as far as a power cut sees."""
    with replacing(path) as handle:
        handle.write(data.encode("utf-8") if isinstance(data, str) else data)
