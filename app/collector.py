"""Keeping Python's cyclic garbage collector off a catalog while it loads.

Opening a catalog of 10,000 skills makes ~90,000 long-lived objects (the kept build, the
generation). With the collector running, each of them is walked by a young, a middle and a full
collection soon after it is made: ~0.1 s of CPU at 10,000 skills, on the way to the first rows
(one GIL: the event loop waits for it too). :func:`collector_paused` turns the collector off
while a catalog is opened, then collects the young generation once (what was made meanwhile:
reference cycles the event loop left behind are freed) and *freezes* what is alive
(:func:`gc.freeze`: kept out of later collections; reference counting still frees every object
that is not part of a cycle). A
catalog, its generations and its kept build hold no reference cycles (checked: a full collection
after refreshes and after dropping a catalog finds no garbage), so nothing frozen outlives its
use; :func:`thaw` gives frozen objects back to the collector all the same when a catalog is
dropped (a host switch), so a cycle that did reach them is collected in the end. A pause lasts
at most :data:`PAUSE_LIMIT` seconds (a cold start reads every file for minutes at 100,000
skills: the collector then runs as usual).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["PAUSE_LIMIT", "collector_paused", "pause", "resume", "thaw"]

_lock = threading.Lock()
_paused = 0  # sections under way (several workers may open catalogs at once)
_was_enabled = True
_resumed = False  # the pause outlasted its limit: the collector runs again as usual
_timer: threading.Timer | None = None

#: Longest pause, in seconds. A warm start opens its catalog well within it; a cold one (every
#: file read: minutes at 100,000 skills) gets the collector back after it, so the cycles the
#: event loop makes meanwhile never pile up.
PAUSE_LIMIT = 3.0


def _resume() -> None:
    """The pause outlasted :data:`PAUSE_LIMIT`: the collector runs again (nothing is frozen)."""
    global _resumed
    with _lock:
        if _paused and not _resumed:
            _resumed = True
            if _was_enabled:
                gc.enable()


@contextmanager
def collector_paused(limit: float | None = None) -> Iterator[None]:
    """The collector off for the ``with`` body (re-entrant, any thread), for at most ``limit``
    seconds (default :data:`PAUSE_LIMIT`; then it runs as usual). When the last section ends
    within the limit, the young generation is collected, what is alive is frozen and the
    collector is on again (if it was on before)."""
    pause(limit)
    try:
        yield
    finally:
        resume()


def pause(limit: float | None = None) -> None:
    """Start a paused section without a ``with`` block (:func:`collector_paused`); each call
    is ended by one :func:`resume`."""
    global _paused, _was_enabled, _resumed, _timer
    with _lock:
        if _paused == 0:
            _was_enabled = gc.isenabled()
            _resumed = False
            gc.disable()
            _timer = threading.Timer(PAUSE_LIMIT if limit is None else limit, _resume)
            _timer.daemon = True
            _timer.start()
        _paused += 1


def resume() -> None:
    """End a section started by :func:`pause` (:func:`collector_paused` says what the last one
    does)."""
    global _paused, _timer
    with _lock:
        _paused -= 1
        if _paused == 0:
            if _timer is not None:
                _timer.cancel()
                _timer = None
            if not _resumed:
                # garbage made meanwhile (the event loop's cycles) is collected first: the
                # young generation holds exactly what was made since the pause (~20 ms at
                # 10,000 skills)
                gc.collect(0)
                gc.freeze()
                if _was_enabled:
                    gc.enable()


def thaw() -> None:
    """Give every frozen object back to the collector (its oldest generation)."""
    gc.unfreeze()
