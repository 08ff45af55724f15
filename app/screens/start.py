"""The first frame of ``skillshelf``: the header and a loading line, drawn before the main
screen's modules are even imported.

The main screen (:mod:`skillshelf.app.screens.main`) composes about two dozen widgets — the
catalog list, the source pane with its text area, the meters, the footer — from modules that
take ~0.1 s to import and ~0.06 s to lay out and style on a 2-core machine. :class:`StartScreen`
is what the terminal shows meanwhile: the same header the main screen opens with (host, working
directory, ``loading…``), one line saying the rest is coming and, when the last run kept one,
the first page of its list (:mod:`skillshelf.app.keptpage`), in the main screen's place.
The app replaces it with the main screen once it has been drawn
(:meth:`~skillshelf.app.tui.SkillshelfApp.on_ready`); keys pressed meanwhile other than the
app's ``q`` and ``ctrl+c`` (both quit) are dropped (there is nothing on screen for them to act on yet).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from skillshelf.app.keptpage import KeptPage
from skillshelf.core.hosts.base import Host
from skillshelf.widgets.header import CatalogHeader, HeaderState
from skillshelf.widgets.kept_page import KeptPageView

__all__ = ["LOADING", "StartScreen"]

#: The line under the header while the main screen is made.
LOADING = "opening skillshelf…"


class StartScreen(Screen[None]):
    """The header (``host`` and ``cwd_display`` as the main screen shows them, status
    ``loading…``) over a :data:`LOADING` line. ``ctrl+c`` quits, as ``q`` does (the app's hint
    to press ``ctrl+q`` has nowhere to show yet)."""

    BINDINGS = [Binding("ctrl+c", "app.quit", show=False, priority=True)]

    DEFAULT_CSS = """
    StartScreen > #start-loading { margin: 1 2; color: $foreground-muted; }
    StartScreen > #start-page { width: 55%; border: round $primary 50%; }
    """

    def __init__(self, host: Host, cwd_display: str, page: KeptPage | None = None) -> None:
        super().__init__()
        self.host = host
        self.cwd_display = cwd_display
        self.page = page

    def compose(self) -> ComposeResult:
        yield CatalogHeader(id="header")
        yield Static(Content(LOADING), id="start-loading", markup=False)
        if self.page is not None:
            yield KeptPageView(id="start-page")

    def on_mount(self) -> None:
        self.query_one(CatalogHeader).show(HeaderState(self.host.name, self.cwd_display, None, "loading…",
                                                       client=self.host.describe()))
        if self.page is not None:
            self.query_one(KeptPageView).show(self.page.title, self.page.lines)
