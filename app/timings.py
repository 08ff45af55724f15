"""Every delay the TUI waits on, as one value the app is given (tests pass zero delays)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_TIMINGS", "Timings"]


@dataclass(frozen=True)
class Timings:
    """Delays of the TUI, in seconds unless said otherwise.

    ``filter_debounce``: quiet time after typing in the filter box before the list is filtered;
    ``typing_debounce``: the same for the what-if boxes; ``progress_after``: background work
    shows progress only when it runs longer than this; ``changes_shown``: how long the header
    shows what the last generation changed; ``watcher_wait``: longest wait for the live watcher
    to publish the generation of a config write before the writer rescans itself;
    ``watch_step`` / ``watch_debounce``: the watcher's batching in milliseconds (watchfiles'
    ``step`` and ``debounce``); ``typing_quiet``: background work (the lint of every file, the
    filter's fuzzy parts, the view) pauses while the filter is typed in, until this long after
    the last keystroke (one GIL: a keystroke shares the CPU only with a step already under way,
    :mod:`skillshelf.core.foreground`); ``partial_after``: with the last run's first page on
    screen, the last run's whole list (checked against the files meanwhile) is drawn only when
    the check takes longer than this (``0``: at once).
    """

    filter_debounce: float = 0.12
    typing_debounce: float = 0.1
    progress_after: float = 0.3
    changes_shown: float = 10.0
    watcher_wait: float = 2.0
    watch_step: int = 50
    watch_debounce: int = 1600
    typing_quiet: float = 0.4
    partial_after: float = 0.5


#: The delays the shipped app uses.
DEFAULT_TIMINGS = Timings()
