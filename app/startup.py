"""The TUI's imports with Python's cyclic garbage collector off.

Importing Textual and skillshelf's screens makes ~150,000 objects that live as long as the
process (modules, classes, functions, CSS tables). With the collector on, each is walked by a
young, a middle and sometimes a full collection soon after it is made: ~0.03 s of CPU before the
first frame, for almost no garbage (~450 objects in reference cycles, a few kilobytes).
Importing this module turns the collector off; :func:`imports_done` (called at the end of
``skillshelf.app.tui``) freezes what is alive (:func:`gc.freeze`: the collector never walks it
again; turning it on with everything in its young generation would cost one ~25 ms pass at the
next allocation) and turns the collector back on when it was on before.
"""

from __future__ import annotations

import gc

__all__ = ["imports_done"]

_was_enabled = gc.isenabled()
gc.disable()


def imports_done() -> None:
    """The imports are done: what is alive is frozen and the collector is on again if it was on
    when this module was imported (idempotent)."""
    global _was_enabled
    gc.freeze()
    if _was_enabled:
        _was_enabled = False
        gc.enable()
