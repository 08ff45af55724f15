"""Background work that gives way while the person at the screen acts (SPEC-neutral).

CPython runs one thread's Python at a time: a background thread computing beside a keystroke
takes every other 5 ms slice from it (``sys.getswitchinterval``). So work nobody waits for (the
filter's fuzzy parts, the catalog view, the lint of every file) calls :meth:`Foreground.pause`
between its steps, and a keystroke calls :meth:`Foreground.touch`: the next step then starts
only once ``quiet`` seconds have passed without another. A step already under way finishes
first (never paused half-done, so nothing the keystroke may itself need stays locked
meanwhile); a step is a few milliseconds to ~0.1 s at 10,000 skills.
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["Foreground"]


class Foreground:
    """When the foreground last acted, and background steps waiting for it to be quiet.

    ``quiet``: seconds after the last :meth:`touch` before background steps go on (``0``: they
    never wait). Safe to share between threads (one float written and read whole).
    """

    def __init__(self, quiet: float = 0.4) -> None:
        self.quiet = quiet
        #: ``time.monotonic()`` of the last :meth:`touch`; ``-inf`` before any (``monotonic``
        #: counts from boot: ``0.0`` is not long ago on a fresh machine)
        self.touched_at = float("-inf")

    def touch(self) -> None:
        """The foreground acts now (a keystroke): background steps wait for ``quiet`` seconds."""
        self.touched_at = time.monotonic()

    def busy(self) -> bool:
        """Whether the foreground acted less than ``quiet`` seconds ago."""
        return self.quiet > 0 and time.monotonic() - self.touched_at < self.quiet

    def pause(self, cancelled: Callable[[], bool] | None = None, *, step: float = 0.02) -> bool:
        """Wait until the foreground is quiet (no wait when it is); True to go on, False as soon
        as ``cancelled()`` is true (the work is to stop). Checks every ``step`` seconds,
        sleeping meanwhile."""
        while True:
            if cancelled is not None and cancelled():
                return False
            if not self.busy():
                return True
            time.sleep(step)
