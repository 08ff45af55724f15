"""A dialog's own notification line: what would be a toast, shown inside the dialog under its
text instead of floating over it.

Attributes down: :meth:`NoticeLine.show_notice` (the app routes ``notify`` here while a dialog
is on top); the line hides itself after the notice's timeout. The text is a
:class:`~textual.content.Content` the caller built (plain text made visible, or the caller's own
markup), never parsed here.
"""

from __future__ import annotations

from textual.content import Content
from textual.timer import Timer
from textual.widgets import Static

__all__ = ["NOTICE_GLYPH", "NoticeLine"]

#: Glyph and style per notification severity (the words reinforce the colour).
NOTICE_GLYPH = {"information": ("•", "$accent"), "warning": ("⚠", "$warning"), "error": ("✗", "$error")}


class NoticeLine(Static):
    """One notice at a time (the newest wins), hidden when there is none."""

    DEFAULT_CSS = """
    NoticeLine {
        height: auto;
        max-height: 4;
        width: 1fr;
        padding: 0 1;
        background: $panel;
        display: none;
    }
    NoticeLine.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = "notice-line", classes: str | None = None) -> None:
        super().__init__("", id=id, classes=classes, markup=False)
        self._timer: Timer | None = None
        #: The shown notice as plain text (``""`` when hidden).
        self.text = ""

    def on_mount(self) -> None:
        """A dialog opened: toasts already on screen would cover it, so they go."""
        self.app.clear_notifications()

    def show_notice(self, content: Content, severity: str = "information", timeout: float = 5.0) -> None:
        """Show ``content`` now, replacing any notice shown."""
        if self._timer is not None:
            self._timer.stop()
        glyph, style = NOTICE_GLYPH.get(severity, NOTICE_GLYPH["information"])
        self.update(Content.assemble((glyph + " ", style), content))
        self.text = content.plain
        self.add_class("-shown")
        self._timer = self.set_timer(max(0.5, timeout), self.clear_notice)

    def clear_notice(self) -> None:
        """Hide the line."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.text = ""
        self.update("")
        self.remove_class("-shown")
