"""The main screen: header, agent warning, filter, catalog list + source pane, legend, two meters.

Data flow (DESIGN "Data path"): a thread worker opens the catalog (or refreshes it) and computes
the :class:`~skillshelf.app.sourceinfo.ViewInfo` for the current agent view (E4: listed sources,
index budget U1 with exact and estimated tokens, requiredSkills S2 and their bodies U2), then
posts :class:`CatalogLoaded`; the screen sets its widgets from that (attributes down). Widgets
post messages up (row highlighted / chosen). Everything slow runs in thread workers and comes
back as messages: per-row details (spec lint F5, sidecar origins E3, remote origin R, resource
listing L5, the selected body's cost U3), body / resource pages through the model-facing
:class:`~skillshelf.core.tool.SkillTool` (L3–L6), lint of every row after a generation is shown
(progress in the catalog pane's subtitle after 0.3 s), the agent picker's checks and ``pull now``.

Keys added for issues 2–4 and 8 (ids in :attr:`MainScreen.BINDINGS`, listed on the help screen):
``s`` sort, ``g`` agent view, ``]`` / ``[`` body pages, ``v`` raw tool output, ``R`` resources,
``p`` pull remote skills now, ``c`` copy the selected locator (OSC 52).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Input, Static
from textual.worker import Worker, WorkerState, get_current_worker

from skillshelf.app.screens.agent_picker import (
    BODY_CHOICE,
    NO_AGENT,
    AgentChoice,
    ChoiceScreen,
    agent_options,
    resource_options,
)
from skillshelf.app.sourceinfo import (
    FROM_CONFIG,
    BodyCost,
    LintCache,
    PageResult,
    Problem,
    ViewInfo,
    body_cost,
    empty_catalog_text,
    filtered_generation,
    generation_diff,
    list_resources,
    load_page,
    problem_counts,
    problems,
    problems_summary,
    remote_origin,
    row_tokens,
    sidecar_origins,
    single_error_text,
    view_info,
    zhin_body_cost,
    zhin_details,
    zhin_load_page,
)
from skillshelf.core.filter import FilterIndex
from skillshelf.core.hosts import DEFAULT_HOST
from skillshelf.core.hosts.base import Host
from skillshelf.core.hosts.zhin import ZHIN
from skillshelf.core.model import Generation, Rejected, Source
from skillshelf.core.render import Form, render_budgeted
from skillshelf.core.textsafe import visible
from skillshelf.core.tokens import TokenCounter
from skillshelf.widgets.budget_meter import BudgetMeter, SelectedMeter
from skillshelf.widgets.catalog_list import CatalogList
from skillshelf.widgets.header import CatalogHeader
from skillshelf.widgets.rows import LEGEND, CatalogRow, build_rows, group_hits, next_sort, size_cell, sort_order
from skillshelf.widgets.source_pane import SourceExtras, SourcePane

__all__ = [
    "CHANGES_SHOWN",
    "BudgetInfo",
    "CatalogLike",
    "CatalogLoaded",
    "CatalogOpened",
    "GenerationPublished",
    "MainScreen",
    "PageState",
    "index_budget_info",
    "read_body",
]

#: Filter debounce, seconds.
FILTER_DELAY = 0.12
#: Most hits shown for a non-empty filter.
FILTER_LIMIT = 500
#: Largest raw-file preview read for a rejected file, in bytes (more is cut with a note).
BODY_MAX_BYTES = 256 * 1024
#: Background work shows progress only when it runs longer than this, seconds.
PROGRESS_AFTER = 0.3
#: How long the header shows what the last live generation changed, seconds.
CHANGES_SHOWN = 10.0


class CatalogLike(Protocol):
    """What the screen needs from :class:`skillshelf.core.catalog.Catalog` (tests pass a fake).

    Optional, read with ``getattr``: ``subscribe``, ``config`` (agents, includeInstructions),
    ``selected_budget``, ``remote_origins``, ``refresh(pull_remote=True)``.
    """

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
    global _token_counter
    if _token_counter is None:
        _token_counter = TokenCounter()
    count = _token_counter.count(text)
    return int(count.tokens), bool(count.exact)


def index_budget_info(catalog: CatalogLike, generation: Generation) -> BudgetInfo | None:
    """Render the budgeted index of ``generation`` (SPEC P5–P6) and measure it; ``None`` when the
    catalog has no usable budget. Kept for callers outside the screen; the screen itself uses
    :func:`skillshelf.app.sourceinfo.view_info` (which also handles agent views)."""
    try:
        budget = int(catalog.index_budget)
        result = render_budgeted(generation.entries(), Form.INDEX, budget)
    except (AttributeError, ValueError):
        return None
    tokens, exact = _count_tokens(result.text)
    return BudgetInfo(len(result.text), budget, tokens, exact, result.truncated, result.omitted)


def read_body(row: CatalogRow) -> str:
    """The raw file text of ``row`` (first :data:`BODY_MAX_BYTES` bytes, UTF-8 with replacement),
    used for rejected files the tool cannot load; the embedded body of a built-in. An unreadable
    file gives a one-line explanation instead. Runs in a worker thread."""
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


# --------------------------------------------------------------------------- messages


class CatalogLoaded(Message):
    """A worker finished opening or refreshing: the generation and its view for ``view.agent``."""

    def __init__(self, catalog: CatalogLike, generation: Generation, view: ViewInfo, epoch: int = 0) -> None:
        super().__init__()
        self.catalog = catalog
        self.generation = generation
        self.view = view
        self.epoch = epoch


class ViewComputed(Message):
    """The view of ``generation`` for another agent is ready (after ``g``)."""

    def __init__(self, generation: Generation, view: ViewInfo) -> None:
        super().__init__()
        self.generation = generation
        self.view = view


class GenerationPublished(Message):
    """``catalog`` published a generation (posted from the publishing thread: a refresh, the
    live watcher, a picker write)."""

    def __init__(self, generation: Generation, catalog: Any = None) -> None:
        super().__init__()
        self.generation = generation
        self.catalog = catalog


class CatalogOpened(Message):
    """The screen opened ``catalog`` (first load or a host switch); bubbles to the app, which
    starts watching it (SPEC H2)."""

    def __init__(self, catalog: Any) -> None:
        super().__init__()
        self.catalog = catalog


class DetailsLoaded(Message):
    """Worker results for the row ``key``: extras for the pane and the body's cost."""

    def __init__(self, key: tuple[str, bool], extras: SourceExtras, cost: BodyCost | None) -> None:
        super().__init__()
        self.key = key
        self.extras = extras
        self.cost = cost


class PageLoaded(Message):
    """One body / resource page for the row ``key``."""

    def __init__(self, key: tuple[str, bool], result: PageResult) -> None:
        super().__init__()
        self.key = key
        self.result = result


class LintProgress(Message):
    """``done`` of ``total`` files linted so far (only posted after :data:`PROGRESS_AFTER`)."""

    def __init__(self, done: int, total: int) -> None:
        super().__init__()
        self.done = done
        self.total = total


class LintDone(Message):
    """Every row of generation ``number`` is linted; ``bad`` are the locators with lint errors."""

    def __init__(self, number: int, bad: frozenset[str]) -> None:
        super().__init__()
        self.number = number
        self.bad = bad


class AgentsChecked(Message):
    """The agent picker's rows are computed (``g``)."""

    def __init__(self, choices: list[AgentChoice]) -> None:
        super().__init__()
        self.choices = choices


class PullDone(Message):
    """``pull now`` finished: the new generation (or ``error``) and the remote warnings."""

    def __init__(self, generation: Generation | None, warnings: list[str], error: str = "") -> None:
        super().__init__()
        self.generation = generation
        self.warnings = warnings
        self.error = error


@dataclass
class PageState:
    """Where the body view of one row is: ``resource`` (``None`` = the SKILL.md body), the
    tool cursors of the pages visited (``cursors[0]`` is ``None``: the first page), the shown
    page ``index`` (0-based), the total ``pages`` when known and the first line number of each
    visited page (``line_starts``; the body view numbers lines as the file does)."""

    resource: str | None = None
    cursors: list[str | None] = field(default_factory=lambda: [None])
    index: int = 0
    pages: int | None = None
    #: The file's line number of each visited page's first line (same indices as ``cursors``).
    line_starts: list[int] = field(default_factory=list)


def _row_key(row: CatalogRow) -> tuple[str, bool]:
    return (row.location, row.rejected)


# --------------------------------------------------------------------------- the screen


class MainScreen(Screen[None]):
    """The catalog browser (DESIGN "The TUI").

    ``open_catalog`` is called once in a worker thread and returns a :class:`CatalogLike`;
    ``host`` and ``cwd_display`` go into the header as given. ``generation`` is always the full
    published generation; ``rows`` are the rows of the current agent view (``agent``).
    """

    BINDINGS = [
        Binding("slash", "focus_filter", "Filter", id="main.filter"),
        Binding("escape", "escape", "Back", show=False, id="main.escape"),
        Binding("n", "next_conflict(1)", "Next conflict", id="main.next-conflict"),
        Binding("N", "next_conflict(-1)", "Prev conflict", id="main.prev-conflict"),
        Binding("r", "refresh", "Refresh", id="main.refresh"),
        Binding("enter", "focus_source", "Source", show=False, id="main.source"),
        Binding("s", "cycle_sort", "Sort", id="main.sort"),
        Binding("g", "pick_agent", "Agent", id="main.agent"),
        Binding("right_square_bracket", "next_page", "Next page", show=False, id="main.next-page"),
        Binding("left_square_bracket", "prev_page", "Prev page", show=False, id="main.prev-page"),
        Binding("v", "toggle_raw", "Raw", show=False, id="main.raw"),
        Binding("R", "pick_resource", "Resources", show=False, id="main.resources"),
        Binding("p", "pull", "Pull remote", show=False, id="main.pull"),
        Binding("c", "copy_locator", "Copy locator", show=False, id="main.copy"),
    ]

    def __init__(self, open_catalog: Callable[[], CatalogLike], *, host: Host = DEFAULT_HOST, cwd_display: str = "") -> None:
        super().__init__()
        self._open_catalog = open_catalog
        self.host = host
        self.cwd_display = cwd_display
        self.catalog: CatalogLike | None = None
        self.generation: Generation | None = None
        self.view: ViewInfo | None = None
        #: The agent view (``agents.<name>``), ``None`` = no agent (every source).
        self.agent: str | None = None
        self.rows: list[CatalogRow] = []
        #: Current sort (``s`` cycles :data:`skillshelf.widgets.rows.SORTS`).
        self.sort = "catalog"
        #: Raw tool output (``v``) instead of the body only.
        self.raw = False
        #: Lint per file for the host's target (``zhin`` under host zhin, else ``spec``; SPEC F5).
        self.lint_cache = LintCache(host.lint_target)
        self._lint_bad: set[str] = set()
        #: Filter index of :attr:`rows`, built on the first non-empty query of a generation.
        self._index: FilterIndex | None = None
        self._filter_timer: Timer | None = None
        self._shown_key: tuple[str, bool] | None = None
        self._shown_item: Any = None
        self._extras = SourceExtras()
        self._cost: BodyCost | None = None
        self._page: PageResult | None = None
        self._pages: dict[tuple[str, bool], PageState] = {}
        self._status = ""
        #: Warnings of the last ``pull now`` (display strings).
        self.last_pull_warnings: list[str] = []
        #: ``changed: +2 ~1 −1`` of the last new generation (cleared after :data:`CHANGES_SHOWN` s).
        self.changes = ""
        self._changes_timer: Timer | None = None
        #: Bumped on a host switch: results of workers started before it are dropped.
        self._epoch = 0
        #: The Problems view's entries for :attr:`generation` (``e``; SPEC K1, D2, D4, R, H3, F6).
        self.problems: tuple[Problem, ...] = ()

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield CatalogHeader(id="header")
        yield Static("", id="problems-line", markup=False)
        yield Static("", id="watch-warning", markup=False)
        yield Static("", id="agent-warning", markup=False)
        yield Input(placeholder="/ filter…  (name, description, keywords; typos ok)", id="filter")
        with Horizontal(id="panes"):
            with Vertical(id="catalog-pane"):
                yield Static("", id="no-match", markup=False)
                yield CatalogList(id="catalog")
            yield SourcePane(id="source")
        yield Static(LEGEND, id="legend", markup=False)
        yield BudgetMeter(id="meter")
        yield SelectedMeter(id="meter-selected")
        yield Footer()

    def on_mount(self) -> None:
        self._show_header("loading…")
        self.query_one("#agent-warning").display = False
        self.query_one("#watch-warning").display = False
        self.query_one("#problems-line").display = False
        self.query_one("#no-match").display = False
        self.query_one("#catalog-pane").border_title = "Catalog"
        self.query_one(SourcePane).border_title = "Source"
        self.query_one(CatalogList).focus()
        self.load_catalog(refresh=False)

    def _show_header(self, status: str | None = None) -> None:
        if status is not None:
            self._status = status
        gen = self.generation
        if gen is not None and self.view is not None:
            gen = filtered_generation(gen, self.view)
        mct = self._mct()
        self.query_one(CatalogHeader).show(self.host.name, self.cwd_display, gen, self._status, self.agent,
                                           changes=self.changes, window=self._window(),
                                           mct="config" if mct is FROM_CONFIG else mct)

    def _window(self) -> int | None:
        """The session context window set from the what-if screen (``None`` = the catalog's)."""
        window = getattr(self.app, "session_context_window", None)
        return window if isinstance(window, int) else None

    def _mct(self) -> Any:
        """The session ``maxContextTokens`` set from the what-if screen (tokens, ``None`` =
        unset), or :data:`FROM_CONFIG` (the configuration's)."""
        return getattr(self.app, "session_max_context_tokens", FROM_CONFIG)

    # ------------------------------------------------------------------ loading
    def _set_loading(self, loading: bool, status: str = "") -> None:
        self.query_one(CatalogList).loading = loading
        if status:
            self._show_header(status)

    def rescan_after_write(self) -> None:
        """Show the generation of a config write / undo just made (``ctrl+z``): one generation
        step — the live watcher's when it watches this catalog, else a refresh
        (:meth:`SkillshelfApp.generation_after_write`)."""
        if self.catalog is not None:
            self.load_catalog(refresh=True, after_write=True)

    @work(thread=True, exclusive=True, group="catalog", exit_on_error=False, description="open catalog")
    def load_catalog(self, refresh: bool = False, after_write: bool = False) -> None:
        """Open (first call) or refresh the catalog, compute the view, post :class:`CatalogLoaded`.
        ``after_write``: the refresh follows a config write (see :meth:`rescan_after_write`)."""
        epoch = self._epoch
        if self.catalog is None or refresh:
            self.app.call_from_thread(self._set_loading, True, "refreshing…" if refresh else "loading…")
        catalog = self.catalog
        if catalog is None:
            catalog = self._open_catalog()
            if epoch != self._epoch:
                return
            subscribe = getattr(catalog, "subscribe", None)
            if callable(subscribe):
                subscribe(lambda gen, cat=catalog: self.post_message(GenerationPublished(gen, cat)))
            self.post_message(CatalogOpened(catalog))
            generation = catalog.current
        elif refresh and after_write and hasattr(self.app, "generation_after_write"):
            generation = self.app.generation_after_write(catalog, catalog.current.number)
        elif refresh:
            generation = catalog.refresh()
        else:
            generation = catalog.current
        view = view_info(catalog, generation, self.agent, context_window=self._window(), max_context_tokens=self._mct())
        self.post_message(CatalogLoaded(catalog, generation, view, epoch))

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        if event.state is not WorkerState.ERROR:
            return
        error = event.worker.error
        if event.worker.group == "catalog":
            message = f"cannot open the catalog: {type(error).__name__}: {error}"
            self.query_one(CatalogList).loading = False
            self._show_header(message)
            self.query_one(SourcePane).show_message(message)
        else:
            message = f"{event.worker.description or event.worker.group} failed: {type(error).__name__}: {error}"
            self._set_progress("")
        self.notify(visible(message, multiline=True), severity="error", timeout=8, markup=False)

    @on(GenerationPublished)
    def _published(self, event: GenerationPublished) -> None:
        if event.catalog is not None and event.catalog is not self.catalog:
            return  # a catalog left behind by a host switch
        newer = self.generation is None or event.generation.number > self.generation.number
        if newer and self.catalog is not None:
            self.load_catalog(refresh=False)

    @on(CatalogLoaded)
    def _loaded(self, event: CatalogLoaded) -> None:
        if event.epoch != self._epoch:
            return
        if self.generation is not None and event.generation.number < self.generation.number:
            return
        self.catalog = event.catalog
        self.query_one(CatalogList).loading = False
        if event.view.agent != self.agent:  # the agent changed while this was computed
            self.generation = event.generation
            self.recompute_view()
            return
        self._status = ""
        self._apply_view(event.generation, event.view)

    def _apply_view(self, generation: Generation, view: ViewInfo) -> None:
        """Show ``generation`` through ``view``: rows, header, agent warning, meters; keeps the
        selected row (by locator), the filter text and the scroll position."""
        keep = self._current_key()
        previous = self.generation
        if previous is not None and generation.number > previous.number:
            self._set_changes(generation_diff(previous, generation).text)
        self.generation = generation
        self.view = view
        self._show_watch_warnings(generation)
        self._show_problems(generation)
        self.rows = build_rows(filtered_generation(generation, view), self._lint_bad)
        self._index = None
        self._show_header()
        warning = self.query_one("#agent-warning", Static)
        if view.agent is not None and view.problems:
            warning.update(Content.assemble(
                (f"⚠ agent {visible(view.agent)} would not start", "bold $error"),
                (" (e: full text): ", "$foreground-muted"),
                visible(" · ".join(view.problems)),
            ))
            warning.display = True
        else:
            warning.update("")
            warning.display = False
        meter = self.query_one(BudgetMeter)
        meter.label = self.host.labels.catalog
        self.query_one(SelectedMeter).required_label = self.host.labels.selected
        if not view.budget_available:
            meter.message = "budget not available"
        else:
            meter.message = ""
            meter.used, meter.limit = view.used, view.budget
            meter.tokens, meter.tokens_exact, meter.approx_tokens = view.tokens, view.exact, view.approx
            meter.truncated, meter.omitted = view.truncated, view.omitted
            meter.pending = False
        self._update_selected_meter()
        self.apply_filter(keep_key=keep)
        self.lint_all(generation)

    def _set_changes(self, text: str) -> None:
        """Show ``text`` (``changed: +2 ~1 −1``) in the header for :data:`CHANGES_SHOWN` seconds
        (a newer generation replaces it at once)."""
        if self._changes_timer is not None:
            self._changes_timer.stop()
            self._changes_timer = None
        self.changes = text
        if text:
            self._changes_timer = self.set_timer(CHANGES_SHOWN, self._clear_changes)

    def _clear_changes(self) -> None:
        self._changes_timer = None
        self.changes = ""
        self._show_header()

    def _show_problems(self, generation: Generation | None) -> None:
        """Keep :attr:`problems` and the one-line summary under the header (``✗ 1 error · 2
        warnings · 1 note — press e``; hidden when there are none) in step with ``generation``."""
        self.problems = problems(generation) if generation is not None else ()
        line = self.query_one("#problems-line", Static)
        summary = problems_summary(self.problems)
        if not summary:
            line.update("")
            line.display = False
            return
        errors, warnings, _notes = problem_counts(self.problems)
        glyph, style = ("✗", "$error") if errors else ("⚠", "$warning") if warnings else ("•", "$accent")
        if errors == 1:
            summary = single_error_text(self.problems)
        line.update(Content.assemble((glyph + " ", f"bold {style}"), summary, (" — press e", "$foreground-muted")))
        line.display = True

    def jump_to_location(self, location: str) -> bool:
        """Put the cursor on the row whose file is ``location`` (its locator, an alias or its
        canonical path), clearing a filter that hides it; False (and a notice) when the current
        view does not list it (an agent view hides it, or it is gone)."""
        for i, row in enumerate(self.rows):
            item = row.item
            if location == item.location or location == item.canonical or location in item.aliases:
                self.jump_to_row(i)
                return True
        self.notify(f"{visible(location)} is not listed in this view.", timeout=4, markup=False)
        return False

    def _show_watch_warnings(self, generation: Generation) -> None:
        """The ``WatchFailed`` warnings of ``generation`` (SPEC H4) on one line under the header."""
        line = self.query_one("#watch-warning", Static)
        failed = [w for w in generation.warnings if w.kind == "WatchFailed"]
        if not failed:
            line.update("")
            line.display = False
            return
        shown = " · ".join(visible(w.message) for w in failed[:2])
        more = f" · and {len(failed) - 2} more" if len(failed) > 2 else ""
        line.update(Content.assemble(("⚠ live watch: ", "bold $warning"), shown + more,
                                     (" (r refreshes by hand)", "$foreground-muted")))
        line.display = True

    def _search_path(self) -> str | None:
        """PATH of the catalog's environment (Zhin looks dependencies up there, SPEC Z5)."""
        env = getattr(self.catalog, "env", None)
        path = getattr(env, "vars", {}).get("PATH") if env is not None else None
        return path if isinstance(path, str) else None

    def window_changed(self) -> None:
        """The session context window changed (what-if ``enter``): recompute both budgets (U1–U2)."""
        if self.generation is None or self.catalog is None:
            return
        self.query_one(BudgetMeter).pending = True
        self.query_one(SelectedMeter).pending = True
        self._show_header()
        self.recompute_view()

    def switch_host(self, host: Host, open_catalog: Callable[[], CatalogLike]) -> None:
        """Show the catalog ``open_catalog()`` returns (the same inputs under ``host``, SPEC Z):
        the current catalog is dropped (results still in flight for it are ignored), the filter
        and sort are kept, the agent view is reset (no agent), the cursor goes to the first row."""
        self._epoch += 1
        self._open_catalog = open_catalog
        self.host = host
        self.agent = None  # agents.<name> belong to one host's configuration
        self.catalog = None
        self.generation = None
        self.view = None
        self.rows = []
        self._index = None
        self._pages.clear()
        self._page = None
        self._shown_key = self._shown_item = None
        self._show_problems(None)
        self._lint_bad = set()
        self.lint_cache = LintCache(host.lint_target)
        self._set_changes("")
        self.query_one(CatalogList).show_rows([], [])
        self._show_row(None)
        self.query_one(BudgetMeter).pending = True
        self.query_one(SelectedMeter).pending = True
        self._show_header(f"opening host {host.name}…")
        self.load_catalog(refresh=False)

    @work(thread=True, exclusive=True, group="view", exit_on_error=False, description="agent view")
    def recompute_view(self) -> None:
        """Compute the view of the shown generation for :attr:`agent` (after ``g``)."""
        generation, catalog = self.generation, self.catalog
        if generation is None or catalog is None:
            return
        self.post_message(ViewComputed(generation, view_info(catalog, generation, self.agent, context_window=self._window(),
                                                             max_context_tokens=self._mct())))

    @on(ViewComputed)
    def _view_computed(self, event: ViewComputed) -> None:
        if event.view.agent != self.agent or self.generation is None:
            return
        if event.generation.number < self.generation.number:
            return
        self._apply_view(event.generation, event.view)

    # ------------------------------------------------------------------ lint of every row (issue 2)
    def _set_progress(self, text: str) -> None:
        self.query_one("#catalog-pane").border_subtitle = text

    @work(thread=True, exclusive=True, group="lint", exit_on_error=False, description="lint")
    def lint_all(self, generation: Generation) -> None:
        """Lint every listed file of ``generation`` (the host's target: ``zhin`` / ``spec``; cached by content SHA-256),
        posting progress after :data:`PROGRESS_AFTER` s and :class:`LintDone` at the end."""
        worker = get_current_worker()
        items: list[Source | Rejected] = [s for s in generation.sources if not s.location.startswith("builtin://")]
        items += list(generation.rejected)
        started = time.monotonic()
        last = 0.0
        bad: set[str] = set()
        cache = self.lint_cache
        for n, item in enumerate(items, 1):
            if worker.is_cancelled:
                return
            cache.lint(item)
            if cache.has_errors(item):
                bad.add(item.location)
            now = time.monotonic()
            if now - started > PROGRESS_AFTER and now - last > 0.2:
                last = now
                self.post_message(LintProgress(n, len(items)))
        self.post_message(LintDone(generation.number, frozenset(bad)))

    @on(LintProgress)
    def _lint_progress(self, event: LintProgress) -> None:
        self._set_progress(f"linting {event.done:,} / {event.total:,}…")

    @on(LintDone)
    def _lint_done(self, event: LintDone) -> None:
        self._set_progress("")
        if self.generation is None or event.number != self.generation.number:
            return
        self._set_lint_bad(set(event.bad))

    def _set_lint_bad(self, bad: set[str]) -> None:
        if bad == self._lint_bad:
            return
        changed_locs = bad ^ self._lint_bad
        self._lint_bad = bad
        assert self.generation is not None and self.view is not None
        self.rows = build_rows(filtered_generation(self.generation, self.view), self._lint_bad)
        changed = [i for i, r in enumerate(self.rows) if r.location in changed_locs]
        self.query_one(CatalogList).update_rows(self.rows, changed)

    # ------------------------------------------------------------------ filter and sort
    def _current_key(self) -> tuple[str, bool] | None:
        row = self.query_one(CatalogList).current_row
        if row is None or row >= len(self.rows):
            return None
        return _row_key(self.rows[row])

    def selected_row(self) -> CatalogRow | None:
        """The row under the cursor, or ``None``."""
        row = self.query_one(CatalogList).current_row
        if row is None or row >= len(self.rows):
            return None
        return self.rows[row]

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
        """Show the rows matching the filter box now (grouped by name; for a non-empty query the
        best :data:`FILTER_LIMIT` are listed and the title gives the true match count; an empty
        query lists every row in the current sort); keep the cursor on the same row if shown.
        No match shows ``no skills match `…``` above the (empty) list."""
        self._filter_timer = None
        query = self.query_one("#filter", Input).value
        if keep_key is None:
            keep_key = self._current_key()
        matches: int | None = None
        if not query.strip():
            # every row: build_rows already groups same-name rows, so no search is needed
            order = sort_order(self.rows, range(len(self.rows)), self.sort, row_tokens)
            spans: dict[int, Any] = {}
        else:
            if self._index is None:
                self._index = FilterIndex([r.item for r in self.rows])
            hits = self._index.search(query, max(1, len(self._index)))
            matches = len(hits)
            hits = hits[:FILTER_LIMIT]
            order = group_hits(self.rows, [h.index for h in hits])
            spans = {h.index: h.spans for h in hits if h.spans}
        keep = None
        if keep_key is not None:
            for i in order:
                if _row_key(self.rows[i]) == keep_key:
                    keep = i
                    break
        catalog = self.query_one(CatalogList)
        catalog.value_column = self._value_column() if matches is None else None
        catalog.show_rows(self.rows, order, spans, keep=keep)
        self._catalog_title(len(order), matches)
        no_match = self.query_one("#no-match", Static)
        if matches == 0:
            no_match.update(Content.assemble("no skills match ", (f"`{visible(query.strip())}`", "bold"),
                                             ("  (esc clears the filter)", "$foreground-muted")))
            no_match.display = True
        else:
            no_match.display = False
        if not order:
            self._show_row(None)
        elif catalog.current_row is not None:
            self._show_row(catalog.current_row)

    def _catalog_title(self, shown: int, matches: int | None) -> None:
        """``Catalog (1,104) · sort name``; filtered: ``Catalog (12 matches · 1,104 rows)``, or
        ``Catalog (500 shown of 812 matches · 1,104 rows)`` when the list is capped."""
        total = len(self.rows)
        if matches is None:
            count = f"{total:,}"
        elif shown < matches:
            count = f"{shown:,} shown of {matches:,} matches · {total:,} rows"
        else:
            count = f"{matches:,} match{'' if matches == 1 else 'es'} · {total:,} rows"
        sort = "relevance" if matches is not None else self.sort
        self.query_one("#catalog-pane").border_title = f"Catalog ({count}) · sort {sort}"

    def _value_column(self) -> Any:
        """The sort-key column for the ``size`` / ``tokens`` sorts (``None`` otherwise)."""
        if self.sort == "size":
            return ("size", lambda row: size_cell(row.item))
        if self.sort == "tokens":
            return ("tokens", lambda row: f"{row_tokens(row.item):,} tok")
        return None

    def action_cycle_sort(self) -> None:
        """``s``: next sort (catalog → name → provenance → size → tokens)."""
        self.sort = next_sort(self.sort)
        self.apply_filter()

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
            self._shown_key = self._shown_item = None
            self._cost = None
            self._page = None
            pane.show_row(None)
            if not self.rows and self.generation is not None:
                pane.show_message(empty_catalog_text(self.generation))
            self._update_selected_meter()
            return
        row = self.rows[index]
        key = _row_key(row)
        same_file = key == self._shown_key
        if same_file and row.item == self._shown_item:
            pane.show_extras(row, self._extras)  # flags / ambiguity may have changed
            return
        self._shown_key, self._shown_item = key, row.item
        self._extras = SourceExtras(lint=self.lint_cache.get(row.item), lint_target=self.lint_cache.target)
        self._cost = None
        pane.show_row(row, self._extras)
        self._update_selected_meter()
        self.load_details(row)
        # a new file starts on its first page; the same file in a new generation keeps showing
        # the body or resource it showed (old cursors would be stale: the bytes changed)
        old = self._pages.get(key) if same_file else None
        state = self._pages[key] = PageState(resource=old.resource if old is not None else None)
        self._load_page(row, state)

    @work(thread=True, exclusive=True, group="details", exit_on_error=False, description="source details")
    def load_details(self, row: CatalogRow) -> None:
        """Lint (cached), sidecar origins, remote origin, resources and the body cost of ``row``."""
        item = row.item
        cache = self.lint_cache
        lint = cache.lint(item)
        sidecars: dict[str, str] = {}
        remote = None
        resources = None
        cut = False
        cost = None
        zhin = None
        if isinstance(item, Source) and self.host is ZHIN and not item.location.startswith("builtin://"):
            zhin = zhin_details(item, search_path=self._search_path())
            if item.enabled:
                cost = zhin_body_cost(item, search_path=self._search_path())
            extras = SourceExtras(lint=lint, zhin=zhin, lint_target=cache.target)
            self.post_message(DetailsLoaded(_row_key(row), extras, cost))
            return
        if isinstance(item, Source):
            sidecars = sidecar_origins(item)
            remote = remote_origin(self.catalog, item)
            if item.directory:
                found, cut = list_resources(item.directory)
                resources = tuple((r.path, r.size) for r in found)
            if item.enabled:
                cost = body_cost(item)
        extras = SourceExtras(lint=lint, sidecars=sidecars, remote=remote, resources=resources, resources_cut=cut,
                              lint_target=cache.target)
        self.post_message(DetailsLoaded(_row_key(row), extras, cost))

    @on(DetailsLoaded)
    def _details_loaded(self, event: DetailsLoaded) -> None:
        if event.key != self._shown_key:
            return
        self._extras = event.extras
        self._cost = event.cost
        row = self.selected_row()
        if row is not None and _row_key(row) == event.key:
            self.query_one(SourcePane).show_extras(row, event.extras)
            from skillshelf.core.model import Severity

            has_errors = any(d.severity is Severity.ERROR for d in (event.extras.lint or ()))
            if has_errors and row.location not in self._lint_bad:
                self._set_lint_bad(self._lint_bad | {row.location})
        self._update_selected_meter()

    def _update_selected_meter(self) -> None:
        """The selected-body meter: the agent's required bodies plus the selected row's body (U2–U3)."""
        meter = self.query_one(SelectedMeter)
        view = self.view
        if view is None:
            meter.pending = True
            return
        required = view.required
        estimate = sum(b.tokens for b in required)
        exact_parts = [b.exact for b in required]
        selected = None
        note = ""
        cost = self._cost
        row = self.selected_row()
        if cost is not None and row is not None and cost.location == row.location:
            if cost.error:
                note = "selected body cannot be read"
            elif cost.location not in {b.location for b in required}:
                estimate += cost.tokens
                exact_parts.append(cost.exact)
                selected = row.name
        exact_ok = all(x is not None for x in exact_parts)
        tokens = sum(x or 0 for x in exact_parts) if exact_ok else estimate
        meter.estimate, meter.budget = estimate, view.selected_budget
        meter.tokens, meter.tokens_exact = tokens, exact_ok
        meter.required, meter.selected, meter.note = len(required), selected, note
        meter.pending = False

    # ------------------------------------------------------------------ body pages (issue 4)
    def _load_page(self, row: CatalogRow, state: PageState) -> None:
        self.query_one(SourcePane).show_body_title(self._page_title(None, state, loading=True))
        self.load_page_worker(row, state.resource, state.cursors[state.index], state.index + 1, state.pages)

    @work(thread=True, exclusive=True, group="body", exit_on_error=False, description="read body")
    def load_page_worker(self, row: CatalogRow, resource: str | None, cursor: str | None, page: int, pages: int | None) -> None:
        """One page of ``row``'s body or resource through the skill tool; posts :class:`PageLoaded`."""
        from skillshelf.core.tool import SkillTool

        item = row.item
        key = _row_key(row)
        if self.host is ZHIN and isinstance(item, Source) and not item.location.startswith("builtin://"):
            self.post_message(PageLoaded(key, zhin_load_page(item, search_path=self._search_path())))
            return
        if isinstance(item, Rejected):
            text = read_body(row)
            note = "rejected by the host: the skill tool cannot load it; the file is shown as is"
            self.post_message(PageLoaded(key, PageResult(1, 1, output=text, body=text, note=note, first_line=1)))
            return
        if not item.enabled:
            tool: Any = SkillTool([item.entry])
            entries: Any = [item.entry]
            note = "disabled: the agent cannot load it; shown as the tool would if it were enabled"
        else:
            tool = SkillTool(self.catalog)
            entries = self.generation.entries() if self.generation is not None else [item.entry]
            note = ""
        result = load_page(tool, entries, item.name, item.location, cursor, page, resource=resource, pages=pages)
        if note:
            result = replace(result, note=note)
        self.post_message(PageLoaded(key, result))

    @on(PageLoaded)
    def _page_loaded(self, event: PageLoaded) -> None:
        if event.key != self._shown_key:
            return
        state = self._pages.get(event.key)
        result = event.result
        if state is not None:
            if result.pages is not None:
                state.pages = result.pages
            i = result.page - 1
            del state.line_starts[i + 1:]
            while len(state.line_starts) <= i:
                state.line_starts.append(1)
            if result.first_line is not None:
                state.line_starts[i] = result.first_line
            if not result.refusal:
                state.line_starts.append(state.line_starts[i] + result.body.count("\n"))
        self._page = result
        self._render_page()

    def _page_title(self, result: PageResult | None, state: PageState | None, *, loading: bool = False) -> str:
        if self.host is ZHIN:
            what = "load_skill text"
        else:
            what = "body" if state is None or state.resource is None else f"resource {state.resource}"
        if loading or result is None:
            return f"{what} · loading…"
        if result.refusal:
            return f"{what} · refused ({result.code})"
        parts = [what, result.label]
        if self.raw:
            parts.append("raw tool output")
        keys = []
        if result.next_cursor is not None:
            keys.append("] next")
        if result.page > 1:
            keys.append("[ previous")
        keys.append("v " + ("body only" if self.raw else "raw"))
        return " · ".join(parts) + "   " + "  ".join(keys)

    def _render_page(self) -> None:
        pane = self.query_one(SourcePane)
        result = self._page
        state = self._pages.get(self._shown_key) if self._shown_key else None
        if result is None:
            return
        pane.show_body_title(self._page_title(result, state))
        first = 1
        if result.refusal:
            text = result.refusal
        else:
            text = result.output if self.raw else result.body
            if not self.raw and state is not None and len(state.line_starts) >= result.page:
                first = state.line_starts[result.page - 1]
        pane.show_body(text, first_line=first, note=result.note)

    def action_next_page(self) -> None:
        """``]``: the next page (cursor from the tool's ``next_cursor``)."""
        row, state = self.selected_row(), self._pages.get(self._shown_key) if self._shown_key else None
        if row is None or state is None or self._page is None:
            return
        if self._page.next_cursor is None:
            self.notify("This is the last page.", timeout=2)
            return
        del state.cursors[state.index + 1:]
        state.cursors.append(self._page.next_cursor)
        state.index += 1
        self._load_page(row, state)

    def action_prev_page(self) -> None:
        """``[``: the previous page (cursor remembered from going forward)."""
        row, state = self.selected_row(), self._pages.get(self._shown_key) if self._shown_key else None
        if row is None or state is None:
            return
        if state.index == 0:
            self.notify("This is the first page.", timeout=2)
            return
        state.index -= 1
        self._load_page(row, state)

    def action_toggle_raw(self) -> None:
        """``v``: the exact tool output (wrapper lines included) ↔ the body only."""
        self.raw = not self.raw
        self._render_page()

    def action_pick_resource(self) -> None:
        """``R``: pick a file of the skill directory to read with ``read_resource`` (or the body)."""
        row = self.selected_row()
        if row is None or row.rejected or _row_key(row) != self._shown_key:
            return
        if self._extras.resources is None:
            self.notify("No resources: a built-in, or still listing.", timeout=3)
            return
        key = _row_key(row)
        state = self._pages.get(key)
        title = f"Resources of {visible(row.name)} (read with read_resource)"
        if self._extras.resources_cut:
            title += f" · first {len(self._extras.resources)} listed"

        def chosen(choice: str | None) -> None:
            if choice is None or self.selected_row() is None or _row_key(self.selected_row()) != key:
                return
            new = PageState(resource=None if choice == BODY_CHOICE else choice)
            self._pages[key] = new
            self._load_page(self.selected_row(), new)

        current = BODY_CHOICE if state is None or state.resource is None else state.resource
        self.app.push_screen(ChoiceScreen(title, resource_options(self._extras.resources, self._extras.resources_cut), current,
                                          id="resource-picker"), chosen)

    # ------------------------------------------------------------------ agent view (issue 3)
    def action_pick_agent(self) -> None:
        """``g``: choose the agent view among ``(no agent)`` and the configured agents."""
        if self.catalog is None or self.generation is None:
            self.notify("The catalog is still loading.", timeout=3)
            return
        self.check_agents()

    @work(thread=True, exclusive=True, group="agents", exit_on_error=False, description="check agents")
    def check_agents(self) -> None:
        """Compute each configured agent's ✓/✗ (would it start, SPEC S2/U3) for the picker."""
        catalog, generation = self.catalog, self.generation
        assert catalog is not None and generation is not None
        agents = getattr(getattr(catalog, "config", None), "agents", {}) or {}
        started = time.monotonic()
        choices: list[AgentChoice] = []
        for i, name in enumerate(agents):
            if time.monotonic() - started > PROGRESS_AFTER:
                self.app.call_from_thread(self._set_progress, f"checking agents {i:,} / {len(agents):,}…")
            info = view_info(catalog, generation, name)
            choices.append(AgentChoice(name, info.ok, info.problems, len(info.hidden)))
        self.post_message(AgentsChecked(choices))

    @on(AgentsChecked)
    def _agents_checked(self, event: AgentsChecked) -> None:
        self._set_progress("")
        title = "Agent view (agents.<name>): ✓ would start, ✗ would not"
        if not event.choices:
            title += " · no agents configured"

        def chosen(choice: str | None) -> None:
            if choice is None:
                return
            agent = None if choice == NO_AGENT else choice
            if agent != self.agent:
                self.agent = agent
                self.query_one(BudgetMeter).pending = True
                self.query_one(SelectedMeter).pending = True
                self.recompute_view()

        current = NO_AGENT if self.agent is None else self.agent
        self.app.push_screen(ChoiceScreen(title, agent_options(event.choices), current, id="agent-picker"), chosen)

    # ------------------------------------------------------------------ remote (issue 8)
    def action_pull(self) -> None:
        """``p``: pull the ``skills.urls`` indexes now and rescan (SPEC R)."""
        if self.catalog is None:
            return
        self.notify("Pulling remote skills…", timeout=3)
        self._show_header("pulling remote skills…")
        self.pull_remote()

    @work(thread=True, exclusive=True, group="pull", exit_on_error=False, description="pull remote skills")
    def pull_remote(self) -> None:
        """``catalog.refresh(pull_remote=True)`` off the event loop; posts :class:`PullDone`."""
        catalog = self.catalog
        try:
            gen = catalog.refresh(pull_remote=True)  # type: ignore[union-attr]
        except TypeError:
            self.post_message(PullDone(None, [], "this catalog cannot pull remote skills"))
            return
        except Exception as exc:  # shown, never raised
            self.post_message(PullDone(None, [], f"{type(exc).__name__}: {exc}"))
            return
        warnings = [w.message for w in gen.warnings if "://" in w.source and not w.source.startswith("builtin://")]
        self.post_message(PullDone(gen, warnings))

    @on(PullDone)
    def _pull_done(self, event: PullDone) -> None:
        self._status = ""
        if event.error:
            self._show_header()
            self.notify(visible(f"Pull failed: {event.error}", multiline=True), severity="error", timeout=8, markup=False)
            return
        self.last_pull_warnings = list(event.warnings)
        if event.warnings:
            shown = "\n".join(visible(w) for w in event.warnings[:5])
            more = f"\n… and {len(event.warnings) - 5} more" if len(event.warnings) > 5 else ""
            self.notify(f"Pulled with {len(event.warnings)} warning(s):\n{shown}{more}", severity="warning",
                        timeout=10, markup=False)
        else:
            self.notify("Remote skills pulled.", timeout=3)
        self.load_catalog(refresh=False)

    # ------------------------------------------------------------------ other actions
    def jump_to_row(self, index: int) -> None:
        """Put the cursor on row ``index`` (clearing the filter if it hides it) and focus the list."""
        catalog = self.query_one(CatalogList)
        if catalog.position_of(index) is None:
            self.query_one("#filter", Input).value = ""
            self.apply_filter()
        catalog.highlight_row(index)
        catalog.focus()
        self._show_row(index)

    def action_copy_locator(self) -> None:
        """``c``: copy the selected row's locator (DESIGN). The text goes to the terminal through
        an OSC 52 escape; whether it reaches the clipboard depends on the terminal, so the
        notice says where it was sent rather than claiming success."""
        row = self.selected_row()
        if row is None:
            self.notify("No row selected.", timeout=3)
            return
        self.app.copy_to_clipboard(row.location)
        self.notify(f"Locator sent to the terminal clipboard (OSC 52): {visible(row.location)}",
                    timeout=4, markup=False)

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
