"""Keeping a catalog live in the TUI (SPEC H2–H4): the watcher it runs and the generations it
publishes, waited on without polling."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from skillshelf.core.catalog import Catalog
from skillshelf.core.model import Generation
from skillshelf.core.watch import CatalogWatcher

__all__ = ["GenerationFeed", "LiveWatch"]


class GenerationFeed:
    """The generations one catalog publishes, for worker threads to wait on.

    Subscribes to the catalog once (:meth:`Catalog.subscribe`); :meth:`wait_past` blocks on a
    condition the publishing thread notifies — no sleeping, no polling.
    """

    def __init__(self, catalog: Catalog) -> None:
        self._condition = threading.Condition()
        self._latest = catalog.current.number
        catalog.subscribe(self._published)

    def _published(self, generation: Generation) -> None:
        with self._condition:
            self._latest = max(self._latest, generation.number)
            self._condition.notify_all()

    @property
    def latest(self) -> int:
        """The number of the newest generation published so far."""
        with self._condition:
            return self._latest

    def wait_past(self, number: int, timeout: float) -> bool:
        """Block until a generation newer than ``number`` is published (True) or ``timeout``
        seconds pass (False)."""
        with self._condition:
            return self._condition.wait_for(lambda: self._latest > number, timeout)


@dataclass
class LiveWatch:
    """One watched catalog: its :class:`~skillshelf.core.watch.CatalogWatcher`, the event that
    stops it and the feed of its generations."""

    catalog: Catalog
    watcher: CatalogWatcher
    feed: GenerationFeed
    stop: threading.Event = field(default_factory=threading.Event)

    @property
    def ready(self) -> bool:
        """True once the watcher's first watches are in place (it publishes every change from then on)."""
        return self.watcher.ready.is_set() and not self.stop.is_set()
