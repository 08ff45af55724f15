"""The body section of the source pane: what the host hands the model when the selected skill is
loaded, one page at a time (:meth:`HostSession.load_page
<skillshelf.core.hosts.base.HostSession.load_page>`; SPEC L3–L6, Z4), a file of the skill folder
instead of the body (``R``), and the cost of loading it (U3).

Attributes down: :meth:`BodyPager.show_source` with the selected row and the catalog; the screen
calls :meth:`next_page`, :meth:`previous_page`, :meth:`toggle_raw` and :meth:`choose_file` for its
keys. Messages up: :class:`BodyPager.CostKnown` with the selected body's cost.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from textual import on, work
from textual.message import Message

from skillshelf.app.catalog_protocol import AppCatalog
from skillshelf.app.components.catalog_pane import RowKey, row_key
from skillshelf.app.loaded_text import BodyCost, body_cost
from skillshelf.app.screens.choice import BODY_CHOICE, ChoiceScreen, resource_options
from skillshelf.app.worker_errors import ReportsWorkerErrors
from skillshelf.core.fileread import read_regular
from skillshelf.core.hosts.base import BUILT_IN_BODY, LoadedPage
from skillshelf.core.model import Rejected, Source
from skillshelf.core.textsafe import visible
from skillshelf.widgets.rows import CatalogRow
from skillshelf.widgets.source_pane import BodyView

__all__ = ["DISABLED_NOTE", "RAW_FILE_MAX", "REJECTED_NOTE", "BodyPager", "PageState", "read_raw_file"]

#: Largest raw-file preview read for a rejected file, in bytes (more is cut with a note).
RAW_FILE_MAX = 256 * 1024
#: The note above the body of a rejected file and of a disabled source.
REJECTED_NOTE = "rejected by the host: the skill tool cannot load it; the file is shown as is"
DISABLED_NOTE = "disabled: the agent cannot load it; shown as the tool would if it were enabled"


def read_raw_file(path: str) -> str:
    """The text of the file at ``path`` (its first :data:`RAW_FILE_MAX` bytes, UTF-8 with
    replacement; a longer file ends with a note), for a file the host refused. An unreadable
    file gives a one-line explanation instead. Worker thread."""
    try:
        data = read_regular(path, RAW_FILE_MAX)
    except OSError as exc:
        return f"(cannot read {path}: {exc.strerror or exc})"
    text = data[:RAW_FILE_MAX].decode("utf-8", errors="replace")
    if len(data) > RAW_FILE_MAX:
        text += f"\n… (preview cut at {RAW_FILE_MAX:,} bytes)"
    return text


@dataclass
class PageState:
    """Where the body view of one row is: ``resource`` (``None`` = the body), the cursors of the
    pages visited (``cursors[0]`` is ``None``: the first page), the shown page ``index``
    (0-based), the page count when known and the file's line number of each visited page's first
    line (``line_starts``; lines are numbered as in the file)."""

    resource: str | None = None
    cursors: list[str | None] = field(default_factory=lambda: [None])
    index: int = 0
    pages: int | None = None
    line_starts: list[int] = field(default_factory=list)


class BodyPager(ReportsWorkerErrors, BodyView):
    """:class:`~skillshelf.widgets.source_pane.BodyView` that loads the pages in a worker."""

    class CostKnown(Message):
        """What loading the selected source costs (``None``: nothing to load — a rejected file)."""

        def __init__(self, location: str, cost: BodyCost | None) -> None:
            super().__init__()
            self.location = location
            self.cost = cost

    class _Loaded(Message):
        def __init__(self, key: RowKey, page: LoadedPage, note: str) -> None:
            super().__init__()
            self.key = key
            self.page = page
            self.note = note

    def __init__(self, *, id: str | None = "source-body-view") -> None:
        super().__init__(id=id)
        #: Raw output (``v``): the host's whole text instead of the body inside it.
        self.raw = False
        self._row: CatalogRow | None = None
        self._catalog: AppCatalog | None = None
        self._states: dict[RowKey, PageState] = {}
        self._page: LoadedPage | None = None
        self._note = ""
        #: A file line to select once the body shows (the body search's match), or ``None``.
        self.want_line: int | None = None

    # ------------------------------------------------------------------ attributes down
    def show_source(self, row: CatalogRow | None, catalog: AppCatalog | None) -> None:
        """Show the first page of ``row``'s body (``None``: nothing). The same file in a new
        generation keeps showing the body or file it showed (from its first page: old cursors
        would be stale, the bytes changed); the same entry shown again changes nothing."""
        old = self._row if self._catalog is not None else None  # (shown with no catalog: nothing was read)
        self._row, self._catalog = row, catalog
        if row is None or catalog is None:
            self._page = None
            self.show_title("body")
            self.show_body("")
            return
        key = row_key(row)
        same_file = old is not None and row_key(old) == key
        if same_file and old is not None and old.item == row.item:
            return
        previous = self._states.get(key) if same_file else None
        self._states[key] = PageState(resource=previous.resource if previous is not None else None)
        self._page = None
        self.show_body("")
        self._load()
        if isinstance(row.item, Source) and row.item.enabled:
            self.compute_cost(row.item, catalog)
        else:
            self.post_message(self.CostKnown(row.location, None))

    def forget(self) -> None:
        """Drop every page state (another host reads pages differently)."""
        self._states.clear()
        self.show_source(None, None)

    @property
    def page(self) -> LoadedPage | None:
        """The page shown, ``None`` while loading."""
        return self._page

    def _state(self) -> PageState | None:
        return self._states.get(row_key(self._row)) if self._row is not None else None

    # ------------------------------------------------------------------ loading
    def _what(self, state: PageState | None, page: LoadedPage | None) -> str:
        if state is not None and state.resource is not None:
            return f"resource {state.resource}"
        if page is not None and page.body is None and page.error is None:
            return page.label
        return "body"

    def _load(self) -> None:
        row, catalog, state = self._row, self._catalog, self._state()
        if row is None or catalog is None or state is None:
            return
        self.show_title(f"{self._what(state, None)} · loading…")
        self.load(row, catalog, state.resource, state.cursors[state.index])

    @work(thread=True, exclusive=True, group="body", exit_on_error=False, description="read body")
    def load(self, row: CatalogRow, catalog: AppCatalog, resource: str | None, cursor: str | None) -> None:
        """One page of ``row`` through the host (a rejected file: the file itself); posts the result."""
        item = row.item
        if isinstance(item, Rejected):
            page = LoadedPage(read_raw_file(item.location), None, True, "file", first_line=1, pages=1)
            note = REJECTED_NOTE
        else:
            page = catalog.session.load_page(item, cursor, resource=resource)
            note = "" if item.enabled else DISABLED_NOTE
        self.post_message(self._Loaded(row_key(row), page, note))

    @work(thread=True, exclusive=True, group="body-cost", exit_on_error=False, description="body cost")
    def compute_cost(self, source: Source, catalog: AppCatalog) -> None:
        """What loading ``source`` costs (every page of it); posts :class:`CostKnown`."""
        self.post_message(self.CostKnown(source.location, body_cost(catalog.session, source)))

    @on(_Loaded)
    def _loaded(self, event: _Loaded) -> None:
        state = self._state()
        if self._row is None or row_key(self._row) != event.key or state is None:
            return
        page = event.page
        if page.pages is not None:
            state.pages = page.pages
        i = state.index
        del state.line_starts[i + 1:]
        while len(state.line_starts) <= i:
            state.line_starts.append(1)
        if page.first_line is not None:
            state.line_starts[i] = page.first_line
        if page.error is None:
            shown = page.body if page.body is not None else page.text
            state.line_starts.append(state.line_starts[i] + shown.count("\n"))
        self._page = page
        self._note = event.note
        self._show_page()

    # ------------------------------------------------------------------ view
    def title_text(self) -> str:
        """``body · page 2 of 3 · raw tool output   ] next  [ previous  v body only``."""
        state, page = self._state(), self._page
        what = self._what(state, page)
        if page is None:
            return f"{what} · loading…"
        if page.error is not None and page.error_code == BUILT_IN_BODY:
            return f"{what} · built into the client"  # not a refusal: the text is not on disk
        if page.error is not None:
            return f"{what} · refused ({page.error_code})" if page.error_code else f"{what} · refused"
        index = state.index + 1 if state is not None else 1
        pages = state.pages if state is not None else page.pages
        parts = [what, f"page {index}" if pages is None else f"page {index} of {pages}"]
        wrapped = page.body is not None
        if self.raw and wrapped:
            parts.append("raw tool output")
        keys = []
        if page.next_cursor is not None:
            keys.append("] next")
        if index > 1:
            keys.append("[ previous")
        if wrapped:
            keys.append("v " + ("body only" if self.raw else "raw"))
        return " · ".join(parts) + ("   " + "  ".join(keys) if keys else "")

    def _show_page(self) -> None:
        page, state = self._page, self._state()
        if page is None:
            return
        self.show_title(self.title_text())
        first = 1
        if page.error is not None:
            text = page.error
        elif self.raw or page.body is None:
            text = page.text
            if page.body is None and state is not None and len(state.line_starts) > state.index:
                first = state.line_starts[state.index]
        else:
            text = page.body
            if state is not None and len(state.line_starts) > state.index:
                first = state.line_starts[state.index]
        self.show_body(text, first_line=first, note=self._note)
        if self.want_line is not None and page.error is None:
            self.reveal_line(self.want_line)

    # ------------------------------------------------------------------ keys (called by the screen)
    def next_page(self) -> None:
        """The next page (the host's ``next_cursor``)."""
        state, page = self._state(), self._page
        if state is None or page is None:
            return
        if page.next_cursor is None:
            self.notify("This is the last page.", timeout=2)
            return
        del state.cursors[state.index + 1:]
        state.cursors.append(page.next_cursor)
        state.index += 1
        self._load()

    def previous_page(self) -> None:
        """The previous page (its cursor remembered from going forward)."""
        state = self._state()
        if state is None:
            return
        if state.index == 0:
            self.notify("This is the first page.", timeout=2)
            return
        state.index -= 1
        self._load()

    def toggle_raw(self) -> None:
        """The host's exact text (wrapper lines included) ↔ the body only."""
        self.raw = not self.raw
        self._show_page()

    def choose_file(self, resources: tuple[tuple[str, int], ...] | None, cut: bool) -> None:
        """Pick a file of the skill folder to read instead of the body (or the body again)."""
        row = self._row
        if row is None or row.rejected:
            return
        if resources is None:
            self.notify("No files listed: a built-in, or still listing.", timeout=3)
            return
        key = row_key(row)
        state = self._state()
        title = f"Files of {visible(row.name)} (read through the host)"
        if cut:
            title += f" · first {len(resources)} listed"

        def chosen(choice: str | None) -> None:
            if choice is None or self._row is None or row_key(self._row) != key:
                return
            self._states[key] = PageState(resource=None if choice == BODY_CHOICE else choice)
            self._page = None
            self._load()

        current = BODY_CHOICE if state is None or state.resource is None else state.resource
        self.app.push_screen(ChoiceScreen(title, resource_options(resources, cut), current, id="resource-picker"),
                             chosen)
