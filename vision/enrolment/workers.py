"""Enrolment's work spread over the machine's cores: a deck's photos are each looked
at apart from the others, and its face model and each height's discriminant are fitted
while the band model's cards are drawn; a Pi 4 has four cores for the minutes a player
waits."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import Executor, ProcessPoolExecutor

import cv2
from threadpoolctl import threadpool_limits

from companion.i18n import language, set_language

_limits: object = None  # kept: the limits hold while it lives


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def jobs(asked: int | None) -> int:
    """The workers a ``--jobs`` asks for: one per core when not said, at least one."""
    return cores() if asked is None else max(1, asked)


def workers(jobs: int) -> Executor:
    """``jobs`` processes, each working one thread at a time (OpenCV's and BLAS's
    own threads would only contend with the other workers). Started by a fork server:
    the touchscreen's process, with its threads and display, is never forked. They
    speak the caller's language (a photo's problem is told in it)."""
    return ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("forkserver"),
                               initializer=_start, initargs=(language(),))


def _start(speaking: str) -> None:
    global _limits
    set_language(speaking)
    cv2.setNumThreads(1)
    _limits = threadpool_limits(limits=1)
