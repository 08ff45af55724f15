"""The last run's first page of the catalog list, shown until the list has rows of its own.

Plain text only (the lines were made visible when kept and are again when read), dimmed, in a
box titled like the list with ``· last run, checking…`` after it; nothing in it can be selected.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widgets import Static

__all__ = ["LAST_RUN", "KeptPageView"]

#: What follows the list's title on the kept page.
LAST_RUN = " · last run, checking…"


class KeptPageView(Static):
    """The kept page (:meth:`show`); hidden until shown."""

    DEFAULT_CSS = """
    KeptPageView { height: 1fr; padding: 0 0 0 1; color: $foreground-muted; text-wrap: nowrap;
        text-overflow: ellipsis; display: none; }
    KeptPageView.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(Content(""), id=id, classes=classes, markup=False)
        #: The lines shown (plain text), empty while hidden.
        self.lines: tuple[str, ...] = ()

    def show(self, title: str, lines: Sequence[str]) -> None:
        """Show ``lines`` (plain text) under the border title ``title`` + :data:`LAST_RUN`."""
        self.lines = tuple(lines)
        self.update(Content("\n".join(self.lines)))
        self.border_title = Content(title + LAST_RUN)  # plain text: a title is never markup
        self.add_class("-shown")

    def hide(self) -> None:
        """Hide the page (the list has rows)."""
        self.lines = ()
        self.remove_class("-shown")
