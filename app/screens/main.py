"""The main screen: header, filter, catalog list + source pane, legend, index budget meter.

Data flow (DESIGN "Data path"): a thread worker opens the catalog (or refreshes it), renders the
budgeted index and counts its tokens, then posts :class:`CatalogLoaded`; the screen sets its
widgets from that (attributes down). Widgets post messages up (row highlighted / chosen). File
reads for the body preview happen in another thread worker. Nothing slow runs on the event loop:
opening ~1 s on 10k skills shows a loading indicator on the list and ``loading…`` in the header.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Input, Static
from textual.worker import Worker, WorkerState

from skillshelf.core.filter import FilterIndex
from skillshelf.core.model import Generation, Source
from skillshelf.core.render import Form, render_budgeted
from skillshelf.core.tokens import TokenCounter
from skillshelf.widgets.budget_meter import BudgetMeter
from skillshelf.widgets.catalog_list import CatalogList
from skillshelf.widgets.header import CatalogHeader
from skillshelf.widgets.rows import LEGEND, CatalogRow, build_rows, group_hits
from skillshelf.widgets.source_pane import SourcePane

__all__ = ["MainScreen", "CatalogLike", "BudgetInfo", "CatalogLoaded", "index_budget_info", "read_body"]

#: Filter debounce, seconds.
FILTER_DELAY = 0.12
#: Most hits shown for a non-empty filter.
FILTER_LIMIT = 500
#: Largest body preview read, in bytes (more is cut with a note).
BODY_MAX_BYTES = 256 * 1024


class CatalogLike(Protocol):
    """What the screen needs from :class:`skillshelf.core.catalog.Catalog` (tests pass a fake)."""

    @property
    def current(self) -> Generation: ...

    def refresh(self) -> Generation: ...

    @property
    def index_budget(self) -> int: ...


@dataclass(frozen=True)
class BudgetInfo:
    """The index budget meter's numbers: ``used`` / ``budget`` in characters, ``tokens`` of the
    rendered index (``exact`` False = 4-characters-per-token estimate, SPEC U), counts of
    truncated and omitted entries (SPEC P5–P6)."""

    used: int
    budget: int
    tokens: int | None
    exact: bool
    truncated: int
    omitted: int


_token_counter: TokenCounter | None = None


def _count_tokens(text: str) -> tuple[int, bool]:
    """(tokens, exact) for ``text`` through :class:`~skillshelf.core.tokens.TokenCounter`
    (tiktoken when loadable, else the 4-characters-per-token estimate, SPEC U/T)."""
    global _token_counter
    if _token_counter is None:
        _token_counter = TokenCounter()
    count = _token_counter.count(text)
    return int(count.tokens), bool(count.exact)


def index_budget_info(catalog: CatalogLike, generation: Generation) -> BudgetInfo | None:
    """Render the budgeted index of ``generation`` (SPEC P5–P6) and measure it; ``None`` when the
    catalog has no usable budget (a fake without ``index_budget``, or a negative one). Runs in a
    worker thread (token counting loads tiktoken)."""
    try:
        budget = int(catalog.index_budget)
        result = render_budgeted(generation.entries(), Form.INDEX, budget)
    except (AttributeError, ValueError):
        return None
    tokens, exact = _count_tokens(result.text)
    return BudgetInfo(len(result.text), budget, tokens, exact, result.truncated, result.omitted)


def read_body(row: CatalogRow) -> str:
    """The text shown as the body preview for ``row``: the embedded body of a built-in, else the
    whole file (first :data:`BODY_MAX_BYTES` bytes, UTF-8 with replacement). An unreadable file
    gives a one-line explanation instead. Runs in a worker thread."""
    item = row.item
    body = getattr(item, "body", None)
    if isinstance(item, Source) and body is not None:
        return body
    if item.location.startswith("builtin://"):
        return ""
    try:
        with open(item.location, "rb") as fh:
            data = fh.read(BODY_MAX_BYTES + 1)
    except OSError as exc:
        return f"(cannot read {item.location}: {exc.strerror or exc})"
    text = data[:BODY_MAX_BYTES].decode("utf-8", errors="replace")
    if len(data) > BODY_MAX_BYTES:
        text += f"\n… (preview cut at {BODY_MAX_BYTES:,} bytes)"
    return text


class CatalogLoaded(Message):
    """A worker finished opening or refreshing: the generation to show and its budget numbers."""

    def __init__(self, catalog: CatalogLike, generation: Generation, budget: BudgetInfo | None) -> None:
        super().__init__()
        self.catalog = catalog
        self.generation = generation
        self.budget = budget


class GenerationPublished(Message):
    """The catalog published a generation (posted from the publishing thread)."""

    def __init__(self, generation: Generation) -> None:
        super().__init__()
        self.generation = generation


class BodyLoaded(Message):
    """Body text read for the row at ``location`` (``rejected`` tells the row kind)."""

    def __init__(self, key: tuple[str, bool], text: str) -> None:
        super().__init__()
        self.key = key
        self.text = text


def _row_key(row: CatalogRow) -> tuple[str, bool]:
    return (row.location, row.rejected)


class MainScreen(Screen[None]):
    """The catalog browser (DESIGN "The TUI").

    ``open_catalog`` is called once in a worker thread and returns a :class:`CatalogLike`;
    ``host`` and ``cwd_display`` go into the header as given.
    """

    BINDINGS = [
        Binding("slash", "focus_filter", "Filter", id="main.filter"),
        Binding("escape", "escape", "Back", show=False, id="main.escape"),
        Binding("n", "next_conflict(1)", "Next conflict", id="main.next-conflict"),
        Binding("N", "next_conflict(-1)", "Prev conflict", id="main.prev-conflict"),
        Binding("r", "refresh", "Refresh", id="main.refresh"),
        Binding("enter", "focus_source", "Source", show=False, id="main.source"),
    ]

    def __init__(self, open_catalog: Callable[[], CatalogLike], *, host: str = "zuno", cwd_display: str = "") -> None:
        super().__init__()
        self._open_catalog = open_catalog
        self.host = host
        self.cwd_display = cwd_display
        self.catalog: CatalogLike | None = None
        self.generation: Generation | None = None
        self.rows: list[CatalogRow] = []
        self._index = FilterIndex([])
        self._filter_timer: Timer | None = None
        self._shown_key: tuple[str, bool] | None = None

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield CatalogHeader(id="header")
        yield Input(placeholder="/ filter…  (name, description, keywords; typos ok)", id="filter")
        with Horizontal(id="panes"):
            with Vertical(id="catalog-pane"):
                yield CatalogList(id="catalog")
            yield SourcePane(id="source")
        yield Static(LEGEND, id="legend", markup=False)
        yield BudgetMeter(id="meter")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(CatalogHeader).show(self.host, self.cwd_display, None, "loading…")
        self.query_one("#catalog-pane").border_title = "Catalog"
        self.query_one(SourcePane).border_title = "Source"
        self.query_one(CatalogList).focus()
        self.load_catalog(refresh=False)

    # ------------------------------------------------------------------ loading
    def _set_loading(self, loading: bool, status: str = "") -> None:
        self.query_one(CatalogList).loading = loading
        if status:
            self.query_one(CatalogHeader).show(self.host, self.cwd_display, self.generation, status)

    @work(thread=True, exclusive=True, group="catalog", exit_on_error=False, description="open catalog")
    def load_catalog(self, refresh: bool = False) -> None:
        """Open (first call) or refresh the catalog, then post :class:`CatalogLoaded`."""
        self.app.call_from_thread(self._set_loading, True, "refreshing…" if refresh else "loading…")
        catalog = self.catalog
        if catalog is None:
            catalog = self._open_catalog()
            subscribe = getattr(catalog, "subscribe", None)
            if callable(subscribe):
                subscribe(lambda gen: self.post_message(GenerationPublished(gen)))
            generation = catalog.current
        elif refresh:
            generation = catalog.refresh()
        else:
            generation = catalog.current
        budget = index_budget_info(catalog, generation)
        self.post_message(CatalogLoaded(catalog, generation, budget))

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "catalog" and event.state is WorkerState.ERROR:
            error = event.worker.error
            message = f"cannot open the catalog: {type(error).__name__}: {error}"
            self.query_one(CatalogList).loading = False
            self.query_one(CatalogHeader).show(self.host, self.cwd_display, self.generation, message)
            self.query_one(SourcePane).show_message(message)
            self.notify(message, severity="error", timeout=8, markup=False)

    @on(GenerationPublished)
    def _published(self, event: GenerationPublished) -> None:
        if self.generation is None or event.generation.number > self.generation.number:
            if self.catalog is not None:
                self.load_catalog(refresh=False)

    @on(CatalogLoaded)
    def _loaded(self, event: CatalogLoaded) -> None:
        if self.generation is not None and event.generation.number < self.generation.number:
            return
        keep = self._current_key()
        self.catalog = event.catalog
        self.generation = event.generation
        self.rows = build_rows(event.generation)
        self._index = FilterIndex([r.item for r in self.rows])
        self.query_one(CatalogList).loading = False
        self.query_one(CatalogHeader).show(self.host, self.cwd_display, event.generation)
        meter = self.query_one(BudgetMeter)
        if event.budget is None:
            meter.message = "budget not available"
        else:
            meter.message = ""
            b = event.budget
            meter.used, meter.limit, meter.tokens, meter.tokens_exact = b.used, b.budget, b.tokens, b.exact
            meter.truncated, meter.omitted = b.truncated, b.omitted
            meter.pending = False
        self._shown_key = None
        self.apply_filter(keep_key=keep)

    # ------------------------------------------------------------------ filter
    def _current_key(self) -> tuple[str, bool] | None:
        row = self.query_one(CatalogList).current_row
        if row is None or row >= len(self.rows):
            return None
        return _row_key(self.rows[row])

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._filter_timer = self.set_timer(FILTER_DELAY, self.apply_filter)

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self.apply_filter()
        self.query_one(CatalogList).focus()

    def apply_filter(self, keep_key: tuple[str, bool] | None = None) -> None:
        """Show the rows matching the filter box now (grouped by name, capped at
        :data:`FILTER_LIMIT` for a non-empty query); keep the cursor on the same row if shown."""
        self._filter_timer = None
        query = self.query_one("#filter", Input).value
        if keep_key is None:
            keep_key = self._current_key()
        hits = self._index.search(query, FILTER_LIMIT)
        order = group_hits(self.rows, [h.index for h in hits])
        spans = {h.index: h.spans for h in hits if h.spans}
        keep = None
        if keep_key is not None:
            for i in order:
                if _row_key(self.rows[i]) == keep_key:
                    keep = i
                    break
        catalog = self.query_one(CatalogList)
        catalog.show_rows(self.rows, order, spans, keep=keep)
        pane = self.query_one("#catalog-pane")
        total = len(self.rows)
        pane.border_title = f"Catalog ({len(order):,} of {total:,})" if query.strip() else f"Catalog ({total:,})"
        if not order:
            self._show_row(None)

    # ------------------------------------------------------------------ selection
    @on(CatalogList.RowHighlighted)
    def _row_highlighted(self, event: CatalogList.RowHighlighted) -> None:
        self._show_row(event.row)

    @on(CatalogList.RowChosen)
    def _row_chosen(self, event: CatalogList.RowChosen) -> None:
        self._show_row(event.row)
        self.action_focus_source()

    def _show_row(self, index: int | None) -> None:
        pane = self.query_one(SourcePane)
        if index is None or index >= len(self.rows):
            self._shown_key = None
            pane.show_row(None)
            return
        row = self.rows[index]
        key = _row_key(row)
        if key == self._shown_key:
            return
        self._shown_key = key
        pane.show_row(row)
        self.load_body(row)

    @work(thread=True, exclusive=True, group="body", exit_on_error=False, description="read body")
    def load_body(self, row: CatalogRow) -> None:
        """Read ``row``'s body off the event loop and post :class:`BodyLoaded`."""
        self.post_message(BodyLoaded(_row_key(row), read_body(row)))

    @on(BodyLoaded)
    def _body_loaded(self, event: BodyLoaded) -> None:
        if event.key == self._shown_key:
            self.query_one(SourcePane).show_body(event.text)

    def selected_row(self) -> CatalogRow | None:
        """The row under the catalog cursor (``None`` when nothing is shown or still loading)."""
        index = self.query_one(CatalogList).current_row
        if index is None or index >= len(self.rows):
            return None
        return self.rows[index]

    def jump_to_row(self, index: int) -> None:
        """Put the cursor on row ``index`` (clearing the filter if it hides it) and focus the list."""
        catalog = self.query_one(CatalogList)
        if catalog.position_of(index) is None:
            self.query_one("#filter", Input).value = ""
            self.apply_filter()
        catalog.highlight_row(index)
        catalog.focus()
        self._show_row(index)

    # ------------------------------------------------------------------ actions
    def action_focus_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_focus_source(self) -> None:
        self.query_one("#source-details-scroll").focus()

    def action_escape(self) -> None:
        box = self.query_one("#filter", Input)
        if box.has_focus and box.value:
            box.value = ""
            self.apply_filter()
        self.query_one(CatalogList).focus()

    def action_refresh(self) -> None:
        if self.catalog is not None:
            self.load_catalog(refresh=True)

    def action_next_conflict(self, step: int) -> None:
        """Move to the first row of the next (``step`` 1) or previous (-1) ambiguous name group
        among the shown rows, wrapping around."""
        catalog = self.query_one(CatalogList)
        order = catalog.order
        if not order:
            return
        here = catalog.highlighted if catalog.highlighted is not None else -1
        here_name = self.rows[order[here]].name if here >= 0 else None
        n = len(order)
        for k in range(1, n + 1):
            pos = (here + step * k) % n
            row = self.rows[order[pos]]
            if row.ambiguous and not row.rejected and (row.name != here_name or k == n):
                while pos > 0 and self.rows[order[pos - 1]].name == row.name and not self.rows[order[pos - 1]].rejected:
                    pos -= 1
                catalog.highlighted = pos
                catalog.scroll_to_highlight()
                return
        self.notify("No ambiguous names in the shown rows.", timeout=3)
