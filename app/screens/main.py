"""The main screen: header, notices, filter, catalog pane + source pane, legend, meters.

The screen owns the catalog and the shown generation; its components own the rest
(DESIGN "The TUI"; Textual style: attributes down, messages up):

- :class:`~skillshelf.app.components.catalog_pane.CatalogPane` — rows, filter, sort, lint of
  every row; posts ``RowShown`` when the cursor's row changes;
- :class:`~skillshelf.app.components.source_details.DetailsPanel` and
  :class:`~skillshelf.app.components.body_pager.BodyPager` — the source pane's sections, each
  with its worker (details and facts; pages and body cost);
- :class:`~skillshelf.app.components.meters.Meters` — the catalog and selected-body meters;
- :class:`~skillshelf.app.components.status_lines.ProblemsLine` and
  :class:`~skillshelf.app.components.status_lines.WatchWarningLine` — notices under the header;
- :class:`~skillshelf.app.components.agent_view.AgentView` — the agent picker and its banner.

Workers of the screen itself: opening / refreshing the catalog (group ``catalog``), the view of
a generation for the current agent and session budget (``view``) and ``pull now`` (``pull``).
New generations published by the catalog (a refresh, the live watcher, a config write) arrive
through :meth:`Catalog.subscribe <skillshelf.core.catalog.Catalog.subscribe>` as
:class:`GenerationPublished`. Keys (ids in :attr:`MainScreen.BINDINGS`) are listed on the help
screen; ``g`` applies only to hosts with agents, ``p`` only to hosts with remote indexes.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from functools import partial

from textual import on, work
from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Input, Static
from textual.worker import Worker, WorkerState, get_current_worker

from skillshelf.app.budgets import NO_WHAT_IF, SessionBudget
from skillshelf.app.catalog_protocol import AppCatalog
from skillshelf.app.catalog_view import CatalogView, catalog_view
from skillshelf.app.collector import collector_paused, thaw
from skillshelf.app.components.agent_view import AgentView
from skillshelf.app.components.body_pager import BodyPager
from skillshelf.app.components.catalog_pane import CatalogPane
from skillshelf.app.components.meters import Meters
from skillshelf.app.components.source_details import DetailsPanel
from skillshelf.app.components.status_lines import ProblemsLine, WatchWarningLine
from skillshelf.app.editor import editor_command, file_digest
from skillshelf.app.empty_catalog import empty_catalog_text
from skillshelf.app.generation_diff import generation_diff
from skillshelf.app.keptpage import PAGE_LINES, KeptPage, forget_page, write_page
from skillshelf.app.lint_cache import LintCache
from skillshelf.app.problems import Problem
from skillshelf.app.timings import DEFAULT_TIMINGS, Timings
from skillshelf.app.worker_errors import error_detail, report_failure
from skillshelf.core.foreground import Foreground
from skillshelf.core.hosts import DEFAULT_HOST
from skillshelf.core.hosts.base import BuildCancelled, BuildProgress, Feature, Host, reporting_progress
from skillshelf.core.model import Generation, Source
from skillshelf.core.parsecache import ParseCache
from skillshelf.core.textsafe import encodable, visible
from skillshelf.widgets.footer import FittingFooter
from skillshelf.widgets.header import CatalogHeader, HeaderState
from skillshelf.widgets.notice_line import NoticeLine
from skillshelf.widgets.rows import LEGEND, CatalogRow, legend
from skillshelf.widgets.source_pane import SourcePane

#: The header's status while remote indexes are pulled.
PULLING = "pulling remote skills…"
#: The filter's placeholder with the body search (``ctrl+f``) off / on: a mode that stays on is
#: shown where it applies, first so it survives a narrow box, not in a toast over the list.
FILTER_PLACEHOLDER = {
    False: "/ filter…  (name, description, keywords; typos ok)  ctrl+f: bodies too",
    True: "/ filter… bodies too (ctrl+f: off) · name, description, keywords; typos ok",
}

__all__ = ["COMPACT_FOOTER_BELOW", "FILTER_PLACEHOLDER", "LEGEND_FROM", "METERS_BRIEF_BELOW", "REMOTE_WARNINGS_SHOWN", "CatalogOpened", "GenerationPublished",
           "MainScreen", "PullDone"]

#: Most remote warnings listed in the notice after ``pull now`` (the rest are counted).
REMOTE_WARNINGS_SHOWN = 5
#: Terminal width (cells) under which the footer is compact.
COMPACT_FOOTER_BELOW = 100
#: Terminal height (rows) from which the glyph legend shows under the panes.
LEGEND_FROM = 30
#: Terminal height (rows) under which each meter is one line (no prompt or rule line): at 60×15
#: five meter lines left the list two to four rows. 20 rows, not 24: at 80×24 the five lines
#: fit beside 13 list rows and each says something the others do not.
METERS_BRIEF_BELOW = 20


class GenerationPublished(Message):
    """``catalog`` published ``generation`` (posted from the publishing thread)."""

    def __init__(self, generation: Generation, catalog: AppCatalog) -> None:
        super().__init__()
        self.generation = generation
        self.catalog = catalog


def catalog_parse_cache(catalog: AppCatalog) -> ParseCache | None:
    """The parse cache of ``catalog``'s host for its workspace, ``None`` without one."""
    store = catalog.context.cache
    if store is None:
        return None
    host = catalog.host
    return store.for_host(host.name, host.version)


class CatalogOpened(Message):
    """The screen opened ``catalog`` (first load or a host switch); bubbles to the app, which
    starts watching it (SPEC H2)."""

    def __init__(self, catalog: AppCatalog) -> None:
        super().__init__()
        self.catalog = catalog


class PullDone(Message):
    """``pull now`` finished: the new ``generation`` (``None`` on failure, ``error`` says why) and
    the remote warnings it carries."""

    def __init__(self, generation: Generation | None, warnings: list[str], error: str = "") -> None:
        super().__init__()
        self.generation = generation
        self.warnings = warnings
        self.error = error


class _Listed(Message):
    """A worker has ``generation`` (its rows need no view: no agent view filters them); its view
    (meters, agent banner) follows as :class:`_Shown`. ``epoch`` drops results of a host left behind."""

    def __init__(self, catalog: AppCatalog, generation: Generation, epoch: int) -> None:
        super().__init__()
        self.catalog = catalog
        self.generation = generation
        self.epoch = epoch


class _Shown(Message):
    """A worker produced ``generation`` and its ``view``; ``epoch`` drops results of a host left behind."""

    def __init__(self, catalog: AppCatalog, generation: Generation, view: CatalogView, epoch: int) -> None:
        super().__init__()
        self.catalog = catalog
        self.generation = generation
        self.view = view
        self.epoch = epoch


def _run_suspended(argv: list[str]) -> None:
    """Placeholder until mounted: the app's ``run_editor`` is passed in by :class:`SkillshelfApp`."""
    raise SuspendNotSupported("no app to suspend")


class _Abandoned(Exception):
    """A view whose worker was cancelled while it waited (:meth:`MainScreen.recompute_view`)."""


class _Building(Message):
    """The first build is under way: ``progress`` holds the entries made so far."""

    def __init__(self, progress: BuildProgress, epoch: int) -> None:
        super().__init__()
        self.progress = progress
        self.epoch = epoch


#: The source pane while the last run's first page is shown (its rows are a picture, not a list).
KEPT_PAGE_DETAILS = "The last run's list, shown while the skill files are checked: a skill opens here once the list is live."


class MainScreen(Screen[None]):
    """The catalog browser (DESIGN "The TUI").

    ``open_catalog`` is called once in a worker thread; ``host`` and ``cwd_display`` go into the
    header; ``timings`` are the app's delays; ``generation_after_write(catalog, before)`` gives
    the generation that shows a config write (one generation step per write, SPEC H2);
    ``run_editor(argv)`` runs an editor on a file with the terminal handed over (``o``);
    ``home``: the home folder the catalog is opened with (rows show it as ``~`` before it is open).
    :attr:`generation` is always the whole published generation; :attr:`view` says what the
    current agent view lists.
    """

    #: In footer order: at 80 columns the first ones (``/`` ``a`` ``i`` ``w`` ``e`` ``?`` ``q``) are
    #: the ones that stay visible. ``a`` ``i`` ``w`` ``e`` ``h`` ``x`` run the app's actions (they
    #: open screens over this one); ``?`` and ``q`` repeat the app's bindings (same ids) only to
    #: place them in this footer.
    BINDINGS = [
        # (priority: handled as the key arrives, so the letters queued behind it go into the filter;
        # off while the filter has the focus, where ``/`` and ``q`` are letters: check_action)
        Binding("slash", "focus_filter", "Filter", id="main.filter", priority=True),
        Binding("a", "app.resolve", "Resolve", id="app.resolve"),
        Binding("i", "app.index_preview", "Index", id="app.index-preview"),
        Binding("w", "app.whatif", "What-if", id="app.whatif"),
        Binding("e", "app.problems", "Problems", id="app.problems"),
        Binding("question_mark", "app.help", "Help", id="app.help"),
        # (priority too: a ``q`` queued before a ``/`` still quits, as typed)
        Binding("q", "quit_app", "Quit", id="app.quit", priority=True),
        Binding("o", "open_editor", "Edit", id="main.edit"),
        Binding("n", "next_conflict(1)", "Conflict", id="main.next-conflict"),
        Binding("g", "pick_agent", "Agent", id="main.agent"),
        Binding("h", "app.switch_host", "Host", id="app.switch-host"),
        Binding("x", "app.compare", "Compare", id="app.compare"),
        Binding("s", "cycle_sort", "Sort", id="main.sort"),
        Binding("r", "refresh", "Refresh", id="main.refresh"),
        Binding("ctrl+f", "toggle_bodies", "Bodies too", show=False, id="main.bodies"),
        Binding("escape", "escape", "Back", show=False, id="main.escape"),
        Binding("N", "next_conflict(-1)", "Prev conflict", show=False, id="main.prev-conflict"),
        Binding("enter", "focus_source", "Source", show=False, id="main.source"),
        Binding("right_square_bracket", "next_page", "Next page", show=False, id="main.next-page"),
        Binding("left_square_bracket", "prev_page", "Prev page", show=False, id="main.prev-page"),
        Binding("v", "toggle_raw", "Raw", show=False, id="main.raw"),
        Binding("R", "pick_resource", "Resources", show=False, id="main.resources"),
        Binding("p", "pull", "Pull remote", show=False, id="main.pull"),
        Binding("c", "copy_locator", "Copy locator", show=False, id="main.copy"),
        # reached only when the action above is off for this host: they say why (never a dead key)
        Binding("g", "unavailable('pick_agent')", show=False, id="main.agent-unavailable"),
        Binding("p", "unavailable('pull')", show=False, id="main.pull-unavailable"),
    ]

    #: The list has the focus when the screen is shown, also when it is pushed over the start
    #: screen (Textual would focus the first focusable widget: the filter, where ``q`` is a letter).
    AUTO_FOCUS = "#catalog"
    #: Actions that apply only to hosts with a feature (others hide them).
    ACTION_FEATURES = {"pick_agent": Feature.AGENTS, "pull": Feature.REMOTE}
    #: What a key of :attr:`ACTION_FEATURES` says under a host without the feature.
    UNAVAILABLE = {
        "pick_agent": "g: {client} has no agent profiles (agents.<name>) to view the catalog through.",
        "pull": "p: {client} has no remote skill indexes (skills.urls) to pull.",
    }
    #: What ``p`` says when no configuration layer sets ``skills.urls`` (one line at 80 columns).
    NOTHING_TO_PULL = "p: nothing to pull: no configuration sets skills.urls (.zuno/zuno.json)"

    def __init__(self, open_catalog: Callable[[], AppCatalog], *, host: Host = DEFAULT_HOST, cwd_display: str = "",
                 timings: Timings = DEFAULT_TIMINGS,
                 generation_after_write: Callable[[AppCatalog, int], Generation] | None = None,
                 run_editor: Callable[[list[str]], None] | None = None, kept_page: KeptPage | None = None,
                 page_file: str | None = None, home: str | None = None) -> None:
        super().__init__()
        self._open_catalog = open_catalog
        self._home = home
        self.host = host
        self.cwd_display = cwd_display
        self.timings = timings
        self._after_write = generation_after_write
        self._run_editor = run_editor or _run_suspended
        self.catalog: AppCatalog | None = None
        self.generation: Generation | None = None
        self.view: CatalogView | None = None
        #: The agent view (``agents.<name>``), ``None`` = no agent (every source).
        self.agent: str | None = None
        #: What-if values applied to this session (attributes down from the app).
        self.budget = NO_WHAT_IF
        #: Lint per file for the host's lint target (shared by the catalog pane and the details).
        self.lint_cache = LintCache(host.lint_target)
        #: Warnings of the last ``pull now`` (display strings).
        self.last_pull_warnings: list[str] = []
        #: ``changed: +2 ~1 −1`` of the last new generation (cleared after ``Timings.changes_shown``).
        self.changes = ""
        self._changes_timer: Timer | None = None
        self._status = ""
        #: a pull worker is under way (its status stays in the header until it is done)
        self._pulling = False
        #: Bumped on a host switch: results of workers started before it are dropped.
        self._epoch = 0
        self._partial_sources: tuple[Source, ...] | None = None  # the provisional rows shown
        #: Touched by each keystroke in the filter; the view and the pane's background work wait
        #: for it to be quiet.
        self.foreground = Foreground(timings.typing_quiet)
        #: the last run's whole list, drawn if its check outlasts ``Timings.partial_after``
        self._late_partial: Generation | None = None
        self._late_partial_timer: Timer | None = None
        #: The generation whose rows are listed before its view came (:class:`_Listed`), else ``None``.
        self._listed: Generation | None = None
        #: The last run's first page, shown until the list has rows (:mod:`skillshelf.app.keptpage`).
        self.kept_page = kept_page
        #: Where this host's first page is kept for the next start (``None``: nowhere).
        self._page_file = page_file
        self._page_host = host
        self._page_lines: tuple[str, ...] = ()

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield CatalogHeader(id="header")
        yield ProblemsLine()
        yield WatchWarningLine()
        yield AgentView(self.timings)
        yield Input(placeholder=FILTER_PLACEHOLDER[False], id="filter")
        with Horizontal(id="panes"):
            pane = CatalogPane(self.timings, foreground=self.foreground)
            pane.home = self._home  # (the catalog's own, once it is open)
            yield pane
            yield SourcePane(DetailsPanel(), BodyPager(), id="source")
        yield Static(LEGEND, id="legend", markup=False)
        # every notice shown over this screen (App.notify is routed here): never a toast over the rows
        yield NoticeLine(id="main-notice")
        yield Meters()
        yield FittingFooter()

    def on_resize(self) -> None:
        """Under :data:`COMPACT_FOOTER_BELOW` columns the footer drops its extra spacing, so the
        main keys (``/`` ``a`` ``i`` ``w`` ``e`` ``?`` ``q``) all fit at 80 columns; under
        :data:`LEGEND_FROM` rows the glyph legend gives its line to the list (``?`` shows it) and
        the filter is one line instead of a bordered box of three; under :data:`METERS_BRIEF_BELOW`
        rows each meter is one line."""
        self.query_one(Footer).compact = self.size.width < COMPACT_FOOTER_BELOW
        self.query_one("#legend").display = self.size.height >= LEGEND_FROM
        self.set_class(self.size.height < LEGEND_FROM, "-short")  # the filter is one line then
        self.query_one(Meters).set_brief(self.size.height < METERS_BRIEF_BELOW)

    def on_mount(self) -> None:
        self.query_one(SourcePane).border_title = "Source"
        self._share_lint_cache()
        self._show_header("loading…")
        self.catalog_pane.catalog_list.focus()
        if self.kept_page is not None:
            self.catalog_pane.show_kept_page(self.kept_page.title, self.kept_page.lines)
            # (a picture of the last run's list: no row to show yet, and not "nothing selected")
            self.query_one(DetailsPanel).show_message(KEPT_PAGE_DETAILS)
        self.load_catalog()

    @property
    def catalog_pane(self) -> CatalogPane:
        """The catalog pane."""
        return self.query_one(CatalogPane)

    @property
    def rows(self) -> list[CatalogRow]:
        """The rows of the current view (every listed source and rejected file)."""
        return self.catalog_pane.rows

    @property
    def sort(self) -> str:
        """The current sort (``s`` cycles it)."""
        return self.catalog_pane.sort

    @sort.setter
    def sort(self, value: str) -> None:
        self.catalog_pane.sort = value

    @property
    def problems(self) -> tuple[Problem, ...]:
        """The Problems view's entries for :attr:`generation`."""
        return self.query_one(ProblemsLine).problems

    def selected_row(self) -> CatalogRow | None:
        """The row under the cursor, or ``None``."""
        return self.catalog_pane.selected_row()

    def _share_lint_cache(self) -> None:
        self.catalog_pane.lint_cache = self.lint_cache
        self.query_one(DetailsPanel).lint_cache = self.lint_cache

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide ``g`` / ``p`` for hosts without agents / remote indexes (their key then says why);
        ``/`` and ``q`` are letters while the filter has the focus."""
        if action in ("focus_filter", "quit_app"):
            return self.focused is not self.query_one("#filter", Input)  # (has_focus follows a message later)
        if action == "unavailable":
            feature = self.ACTION_FEATURES.get(str(parameters[0])) if parameters else None
            return feature is not None and feature not in self.host.features
        feature = self.ACTION_FEATURES.get(action)
        return feature is None or feature in self.host.features

    def action_unavailable(self, action: str) -> None:
        """A key whose action this host does not have: say so (:attr:`UNAVAILABLE`) on the
        screen's notice line."""
        self.show_notice(self.UNAVAILABLE[action].format(client=self.host.describe()), timeout=5)

    def show_notice(self, text: str, severity: str = "information", timeout: float = 5.0) -> None:
        """Show ``text`` (plain, made visible) on the screen's notice line above the meters for
        ``timeout`` seconds: a line of its own, where a toast would cover rows at 80 columns."""
        self.query_one("#main-notice", NoticeLine).show_notice(Content(visible(text)), severity, timeout)

    # ------------------------------------------------------------------ header
    def _show_header(self, status: str | None = None) -> None:
        if status is not None:
            self._status = status
        gen = self.generation
        if gen is not None and self.view is not None:
            gen = self.view.shown(gen)
        budget = self.budget
        mct: int | str | None = budget.max_context_tokens if budget.replaces_max_context_tokens else "config"
        self.query_one(CatalogHeader).show(HeaderState(
            self.host.name, self.cwd_display, gen, self._status, self.agent, client=self.host.describe(),
            changes=self.changes, window=budget.context_window, mct=mct, refusal=self._refusal_text()))

    def _refusal_text(self) -> str:
        """``Zuno would refuse to start: FILE:LINE:COL: reason`` for the header ("" = none)."""
        refusal = self.catalog.config.refusal if self.catalog is not None else None
        return refusal.message if refusal is not None else ""

    def _set_changes(self, text: str) -> None:
        """Show ``text`` (``changed: +2 ~1 −1``) in the header for ``Timings.changes_shown``
        seconds (a newer generation replaces it at once)."""
        if self._changes_timer is not None:
            self._changes_timer.stop()
            self._changes_timer = None
        self.changes = text
        if text:
            self._changes_timer = self.set_timer(self.timings.changes_shown, self._clear_changes)

    def _clear_changes(self) -> None:
        self._changes_timer = None
        self.changes = ""
        self._show_header()

    # ------------------------------------------------------------------ loading
    def _set_loading(self, status: str) -> None:
        self.catalog_pane.catalog_list.loading = True
        self._show_header(status)

    @work(thread=True, exclusive=True, group="catalog", exit_on_error=False, description="open catalog")
    def load_catalog(self, refresh: bool = False, after_write: int | None = None) -> None:
        """Open (first call) or refresh the catalog and compute the view; ``after_write``: the
        rescan follows a config write made when the generation was that number (one
        generation step: the watcher's when it is live)."""
        epoch = self._epoch
        catalog = self.catalog
        if catalog is None or refresh:
            self.app.call_from_thread(self._set_loading, "refreshing…" if refresh else "loading…")
        if catalog is None:
            # the first rows are shown while the build reads the rest (large catalogs)
            def building(progress: BuildProgress) -> None:
                self.post_message(_Building(progress, epoch))

            try:
                with reporting_progress(building), collector_paused():
                    catalog = self._open_catalog()
            except BuildCancelled:  # (the app is quitting: its first build stopped between files)
                return
            if epoch != self._epoch:
                return
            self.lint_cache.parse_cache = catalog_parse_cache(catalog)
            catalog.subscribe(partial(self._post_published, catalog))
            self.post_message(CatalogOpened(catalog))
            generation = catalog.current
        elif after_write is not None and self._after_write is not None:
            generation = self._after_write(catalog, after_write)
        elif refresh:
            generation = catalog.refresh()
        else:
            generation = catalog.current
        if not self._view_filters_rows():
            # the list first; its view (the catalog text, tokens: tiktoken's load alone is ~0.1 s)
            # is computed once the rows are on screen, the meters saying "computing…" meanwhile
            self.post_message(_Listed(catalog, generation, epoch))
            return
        self.post_message(_Shown(catalog, generation, catalog_view(catalog, generation, self.agent, self.budget), epoch))

    def _view_filters_rows(self) -> bool:
        """True when the rows depend on the view (an agent view lists only what the agent sees)."""
        return self.agent is not None and Feature.AGENTS in self.host.features

    def _post_published(self, catalog: AppCatalog, generation: Generation) -> None:
        """``catalog`` published ``generation`` (called from the publishing thread)."""
        self.post_message(GenerationPublished(generation, catalog))

    @work(thread=True, exclusive=True, group="view", exit_on_error=False, description="catalog view")
    def recompute_view(self) -> None:
        """The view of the shown generation for :attr:`agent` and :attr:`budget`."""
        catalog, generation = self.catalog, self.generation
        if catalog is None or generation is None:
            return
        pause = None
        if not self._view_filters_rows():  # (where the view decides the rows, the user waits for it)
            worker = get_current_worker()
            foreground = self.foreground

            def pause() -> None:  # while the filter is typed in, the keystrokes come first: the meters wait
                if not foreground.pause(lambda: worker.is_cancelled):
                    raise _Abandoned

        try:
            view = catalog_view(catalog, generation, self.agent, self.budget, pause=pause)
        except _Abandoned:
            return  # (a newer view is on its way)
        self.post_message(_Shown(catalog, generation, view, self._epoch))

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        """A worker that failed is logged and shown, never silent (the app keeps running); a
        catalog that cannot be opened also says so in the header and the source pane."""
        if event.state is not WorkerState.ERROR:
            return
        if event.worker.group != "catalog":
            report_failure(self, event.worker)
            if event.worker.group == "view":
                self._lint_listed()  # the lint put off for the view is not lost with it
            return
        error = event.worker.error
        message = f"cannot open the catalog: {error_detail(error)}"
        self.log.error(message, error)
        self._drop_late_partial()  # the last run's rows are not checked: they go, and do not come back
        self.catalog_pane.hide_kept_page()
        self.catalog_pane.catalog_list.loading = False
        self._show_header(message)
        self.query_one(DetailsPanel).show_message(message)
        self.notify(visible(message, multiline=True), severity="error", timeout=8, markup=False)

    @on(GenerationPublished)
    def _published(self, event: GenerationPublished) -> None:
        if event.catalog is not self.catalog:
            return  # a catalog left behind by a host switch
        if self.generation is None or event.generation.number > self.generation.number:
            self.load_catalog()

    @on(_Building)
    def _building(self, event: _Building) -> None:
        """Rows of the build so far, provisional (no precedence, order or lint yet), with how
        far it got in the header; the published generation replaces them."""
        if event.epoch != self._epoch or self.generation is not None:
            return
        progress = event.progress
        pane = self.catalog_pane
        if progress.sources is not self._partial_sources or not progress.checking:
            self._partial_sources = progress.sources
            partial_gen = Generation(0, "", self.host.name, "", (), progress.sources, progress.rejected, ())
            if progress.checking and pane.kept_page_lines and self.timings.partial_after > 0:
                # the last run's first page is on screen: its whole list only when the check takes
                # long (drawing 10,000 rows beside the check slows it by about as much)
                self._late_partial = partial_gen
                if self._late_partial_timer is None:
                    self._late_partial_timer = self.set_timer(self.timings.partial_after,
                                                              partial(self._show_late_partial, event.epoch))
            else:
                pane.catalog_list.loading = False
                pane.show_partial(partial_gen, whole=progress.checking)
        if progress.checking:  # the last run's list, shown while the files are checked against it
            done = f" {progress.done:,} / {progress.total:,}" if progress.done else ""
            self._show_header(f"checking skill files for changes…{done}")
        else:
            self._show_header(f"reading skill files… {progress.done:,} / {progress.total:,}")

    def _show_late_partial(self, epoch: int) -> None:
        """The check outlasted ``Timings.partial_after``: the last run's whole list replaces its
        first page (still provisional: the published generation replaces it)."""
        self._late_partial_timer = None
        late, self._late_partial = self._late_partial, None
        if late is not None and epoch == self._epoch and self.generation is None and self.catalog_pane.kept_page_lines:
            self.catalog_pane.catalog_list.loading = False
            self.catalog_pane.show_partial(late, whole=True)

    def _drop_late_partial(self) -> None:
        """No late provisional list any more (a generation came, or the host changed)."""
        if self._late_partial_timer is not None:
            self._late_partial_timer.stop()
            self._late_partial_timer = None
        self._late_partial = None

    @on(_Listed)
    def _list(self, event: _Listed) -> None:
        """The rows of a new generation, before its view: the meters say ``computing…`` until
        :class:`_Shown` (computed once the rows are painted) brings the view."""
        if event.epoch != self._epoch:
            return
        if self.generation is not None and event.generation.number < self.generation.number:
            return
        if self._view_filters_rows():  # an agent view was chosen meanwhile: its view decides the rows
            self.catalog, self.generation = event.catalog, event.generation
            self.recompute_view()
            return
        self.view = None
        self.query_one(Meters).computing()
        # the lint of every file (~1 s of CPU at 10,000 files, with a progress count) waits for
        # the view: both meters first, then the lint flags
        self._show_rows(event.catalog, event.generation, event.generation, lint=False)
        self._listed = event.generation
        self.call_after_refresh(self.recompute_view)  # once the list is painted (one GIL: no race for it)

    def _lint_listed(self) -> None:
        """Start the lint the listing of :attr:`_listed` put off (its view came, or failed)."""
        if self._listed is not None and self._listed is self.generation:
            self.catalog_pane.lint_all(self._listed)
        self._listed = None

    def _show_rows(self, catalog: AppCatalog, generation: Generation, rows: Generation, *, lint: bool = True) -> None:
        """Make ``generation`` the shown one, listing ``rows`` (``generation`` as the view lists
        it): the lines under the header, the header, the rows, the legend, the change summary;
        ``lint``: lint every listed file now."""
        self.catalog = catalog
        self._drop_late_partial()
        self.catalog_pane.catalog_list.loading = False
        self._status = PULLING if self._pulling else ""  # a pull under way stays in the header
        previous = self.generation
        if previous is not None and generation.number > previous.number:
            self._set_changes(generation_diff(previous, generation).text)
        self.generation = generation
        self.query_one(WatchWarningLine).show(generation)
        self.query_one(ProblemsLine).show(generation)
        self._show_header()
        self.catalog_pane.home = catalog.context.env.home
        self.catalog_pane.show_generation(rows, lint=lint)
        self.query_one("#legend", Static).update(legend(self.catalog_pane.rows))
        if self._page_file is not None and self.host is self._page_host:
            self.call_after_refresh(self._keep_page)

    def _keep_page(self) -> None:
        """Keep the list's first page for the next start when it is what that start lists first
        (a checked generation, the default order, no filter, no agent view)."""
        pane = self.catalog_pane
        if (self._page_file is None or self.generation is None or self.agent is not None
                or not pane.lists_every_row or pane.sort != "catalog"):
            return
        lst = pane.catalog_list
        lines = tuple(lst.line_content(i).plain for i in range(min(PAGE_LINES, lst.line_count)))
        if not lines:
            forget_page(self._page_file)  # an empty list: no last run's rows to show next time
        elif lines != self._page_lines:
            # (Textual gives the border title as markup: kept as the plain text it shows)
            write_page(self._page_file, KeptPage(Content.from_markup(pane.border_title or "Catalog").plain, lines))
        self._page_lines = lines

    @on(_Shown)
    def _shown(self, event: _Shown) -> None:
        if event.epoch != self._epoch:
            return
        if self.generation is not None and event.generation.number < self.generation.number:
            return
        self.catalog = event.catalog
        self.catalog_pane.catalog_list.loading = False
        if event.view.agent != (self.agent if Feature.AGENTS in self.host.features else None):
            self.generation = event.generation  # the agent changed while this was computed
            self.recompute_view()
            return
        listed = self._listed is event.generation and event.view.shown(event.generation) is event.generation
        self.view = event.view
        self.query_one(AgentView).show(event.view)
        self.query_one(Meters).show_view(event.view, self.host)
        if listed:  # its rows are on screen already; their lint was put off until now
            self._show_header()
            self._lint_listed()
        else:
            self._listed = None
            self._show_rows(event.catalog, event.generation, event.view.shown(event.generation))

    def rescan_after_write(self, before: int) -> None:
        """Show the generation of a config write or undo just made (``ctrl+z``) to the catalog
        whose generation was ``before``."""
        if self.catalog is not None:
            self.load_catalog(refresh=True, after_write=before)

    def apply_budget(self, budget: SessionBudget) -> None:
        """The session's what-if values changed: recompute both meters (SPEC U1–U2)."""
        self.budget = budget
        if self.generation is None or self.catalog is None:
            self._show_header()
            return
        self.query_one(Meters).computing()
        self._show_header()
        self.recompute_view()

    def switch_host(self, host: Host, open_catalog: Callable[[], AppCatalog]) -> None:
        """Show the catalog ``open_catalog()`` returns (the same inputs under ``host``): the current
        catalog is dropped (results still in flight for it are ignored), the filter and sort are
        kept, the agent view is reset (agents belong to one host's configuration)."""
        self._epoch += 1
        thaw()  # the catalog left behind goes back to the collector (app/collector.py)
        self._listed = None
        self._drop_late_partial()
        self._open_catalog = open_catalog
        self.host = host
        self.agent = None
        self.catalog = None
        self.generation = None
        self.view = None
        self.lint_cache = LintCache(host.lint_target)
        self.catalog_pane.reset(self.lint_cache)
        self.query_one(DetailsPanel).lint_cache = self.lint_cache
        self.query_one(BodyPager).forget()
        self.query_one(ProblemsLine).show(None)
        self.query_one(WatchWarningLine).show(None)
        self.query_one(AgentView).reset()
        self.query_one(Meters).computing()
        self._set_changes("")
        self._show_header(f"opening host {host.name}…")
        self.refresh_bindings()
        self.load_catalog()

    # ------------------------------------------------------------------ selection
    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.catalog_pane.set_query(event.value)

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self.catalog_pane.set_query(event.value, now=True)
        self.catalog_pane.catalog_list.focus()

    def apply_filter(self) -> None:
        """Filter by the filter box's text now (no debounce)."""
        self.catalog_pane.set_query(self.query_one("#filter", Input).value, now=True)

    @on(CatalogPane.RowShown)
    def _row_shown(self, event: CatalogPane.RowShown) -> None:
        row = event.row
        details = self.query_one(DetailsPanel)
        pager = self.query_one(BodyPager)
        self.query_one(SourcePane).show_head(row.location if row is not None else None)
        if row is None:
            details.inspect(None, None)
            pager.show_source(None, None)
            self.query_one(Meters).show_selected(None, None)
            if not self.rows and self.generation is not None:
                details.show_message(empty_catalog_text(self.generation))
            elif self.catalog_pane.kept_page_lines:
                details.show_message(KEPT_PAGE_DETAILS)
        else:
            same = details.row is not None and details.row.location == row.location
            details.inspect(row, self.catalog)
            index = self.catalog_pane.catalog_list.current_row
            found = self.catalog_pane.body_lines.get(index) if index is not None else None
            pager.want_line = found[0] if found is not None else None
            pager.show_source(row, self.catalog)
            if found is not None and same and pager.page is not None:
                pager.reveal_line(found[0])
            if not same:
                self.query_one(Meters).show_selected(row, None)
        if event.chosen:
            self.action_focus_source()

    @on(DetailsPanel.LintErrors)
    def _lint_errors(self, event: DetailsPanel.LintErrors) -> None:
        self.catalog_pane.mark_lint_errors(event.location)

    @on(BodyPager.CostKnown)
    def _cost_known(self, event: BodyPager.CostKnown) -> None:
        self.query_one(Meters).show_selected(self.selected_row(), event.cost)

    def jump_to_row(self, index: int) -> None:
        """Put the cursor on row ``index`` (clearing the filter if it hides it) and focus the list."""
        pane = self.catalog_pane
        if pane.catalog_list.position_of(index) is None:
            box = self.query_one("#filter", Input)
            with box.prevent(Input.Changed):
                box.value = ""
            pane.set_query("", now=True)
        pane.highlight(index)
        pane.catalog_list.focus()

    def jump_to_location(self, location: str) -> bool:
        """Put the cursor on the row whose file is ``location`` (its locator, an alias or its
        canonical path); False (and a notice) when the current view does not list it."""
        index = self.catalog_pane.index_of(location)
        if index is None:
            self.notify(f"{visible(location)} is not listed in this view.", timeout=4, markup=False)
            return False
        self.jump_to_row(index)
        return True

    # ------------------------------------------------------------------ agent view
    def action_pick_agent(self) -> None:
        """``g``: choose the agent view among ``(no agent)`` and the configured agents."""
        if self.catalog is None or self.generation is None:
            self.notify("The catalog is still loading.", timeout=3)
            return
        self.query_one(AgentView).pick(self.catalog, self.generation, self.agent, self.budget)

    @on(AgentView.Progress)
    def _agent_progress(self, event: AgentView.Progress) -> None:
        self.catalog_pane.progress = event.text

    @on(AgentView.Chosen)
    def _agent_chosen(self, event: AgentView.Chosen) -> None:
        if event.agent != self.agent:
            self.agent = event.agent
            self.query_one(Meters).computing()
            self.recompute_view()

    # ------------------------------------------------------------------ remote
    def action_pull(self) -> None:
        """``p``: pull the ``skills.urls`` indexes now and rescan (SPEC R)."""
        if self.catalog is None:
            return
        if not self.catalog.config.urls:
            # nothing to pull: say so (and how to add one) instead of a pull that does nothing
            self.show_notice(self.NOTHING_TO_PULL, severity="warning", timeout=8)
            return
        self.pull_now(self.catalog)

    def pull_now(self, catalog: AppCatalog) -> None:
        """Pull ``catalog``'s remote indexes in a worker, saying so in the header and a notice
        (``p``; also right after a catalog opened with its pull deferred)."""
        self.notify("Pulling remote skills…", timeout=3)
        self._pulling = True
        self._show_header(PULLING)
        self.pull_remote(catalog)

    @work(thread=True, exclusive=True, group="pull", exit_on_error=False, description="pull remote skills")
    def pull_remote(self, catalog: AppCatalog) -> None:
        """``catalog.refresh(pull_remote=True)``; posts :class:`PullDone` (a failed pull is shown)."""
        try:
            generation = catalog.refresh(pull_remote=True)
        except OSError as exc:
            reason = exc.strerror or str(exc) or type(exc).__name__
            self.post_message(PullDone(None, [], f"{reason}: {exc.filename}" if exc.filename else reason))
            return
        warnings = [w.message for w in generation.warnings if "://" in w.source and not w.source.startswith("builtin://")]
        self.post_message(PullDone(generation, warnings))

    @on(PullDone)
    def _pull_done(self, event: PullDone) -> None:
        self._pulling = False
        self._status = ""
        if event.error:
            self._show_header()
            self.notify(visible(f"Pull failed: {event.error}", multiline=True), severity="error", timeout=8, markup=False)
            return
        self.last_pull_warnings = list(event.warnings)
        if event.warnings:
            shown = "\n".join(visible(w) for w in event.warnings[:REMOTE_WARNINGS_SHOWN])
            rest = len(event.warnings) - REMOTE_WARNINGS_SHOWN
            more = f"\n… and {rest} more" if rest > 0 else ""
            self.notify(f"Pulled with {len(event.warnings)} warning(s):\n{shown}{more}", severity="warning",
                        timeout=10, markup=False)
        else:
            self.notify("Remote skills pulled.", timeout=3)
        self.load_catalog()

    # ------------------------------------------------------------------ other keys
    def action_next_page(self) -> None:
        """``]``: the next body page."""
        self.query_one(BodyPager).next_page()

    def action_prev_page(self) -> None:
        """``[``: the previous body page."""
        self.query_one(BodyPager).previous_page()

    def action_toggle_raw(self) -> None:
        """``v``: the host's exact text ↔ the body only."""
        self.query_one(BodyPager).toggle_raw()

    def action_pick_resource(self) -> None:
        """``R``: read a file of the skill folder instead of the body."""
        details = self.query_one(DetailsPanel)
        row = self.selected_row()
        if row is None or details.row is None or details.row.location != row.location:
            return
        self.query_one(BodyPager).choose_file(details.extras.resources, details.extras.resources_cut)

    def action_cycle_sort(self) -> None:
        """``s``: next sort (catalog → name → provenance → size → tokens)."""
        self.catalog_pane.cycle_sort()

    def action_copy_locator(self) -> None:
        """``c``: send the selected row's locator to the terminal clipboard (OSC 52; whether it
        lands depends on the terminal, so the notice says where it was sent)."""
        row = self.selected_row()
        if row is None:
            self.notify("No row selected.", timeout=3)
            return
        self.app.copy_to_clipboard(encodable(row.location))  # OSC 52 carries UTF-8 only
        self.notify(f"Locator sent to the terminal clipboard (OSC 52): {visible(row.location)}",
                    timeout=4, markup=False)

    def action_toggle_bodies(self) -> None:
        """``ctrl+f``: the filter searches the skills' bodies too (off the event loop; each row
        found there shows its line), or stops doing so."""
        on = self.catalog_pane.toggle_bodies()
        box = self.query_one("#filter", Input)
        box.placeholder = FILTER_PLACEHOLDER[on]
        box.border_title = "bodies too" if on else None  # seen on the bordered box (30 rows and more)

    def action_open_editor(self) -> None:
        """``o``: open the selected row's file in ``$VISUAL`` / ``$EDITOR`` (the app is suspended
        meanwhile); when the file changed, show the generation that has the change."""
        row = self.selected_row()
        if row is None or self.catalog is None or self.generation is None:
            self.notify("No row selected.", timeout=3)
            return
        path = row.location
        if not os.path.isfile(path):
            self.notify(f"{visible(path)} is not a file on disk (a built-in skill): nothing to open.", timeout=5,
                        markup=False)
            return
        command = editor_command(os.environ)
        if command is None:
            self.notify("Set $VISUAL or $EDITOR to the editor to use (for example: export EDITOR=nano).",
                        severity="warning", timeout=6, markup=False)
            return
        if shutil.which(command[0]) is None:
            self.notify(visible(f"The editor {command[0]} ($VISUAL / $EDITOR) was not found."), severity="error",
                        timeout=6, markup=False)
            return
        before, digest = self.generation.number, file_digest(path)
        try:
            self._run_editor([*command, path])
        except (OSError, SuspendNotSupported) as exc:
            self.notify(visible(f"Could not run {command[0]}: {exc}", multiline=True), severity="error", timeout=8,
                        markup=False)
            return
        if file_digest(path) == digest:
            self.notify(f"Unchanged: {visible(path)}", timeout=3, markup=False)
            return
        self.notify(f"Edited {visible(path)}: rescanning.", timeout=3, markup=False)
        self.rescan_after_write(before)

    def action_focus_filter(self) -> None:
        # at once (``Widget.focus`` waits for the messages already queued) and from a priority
        # binding: the letters typed right after ``/`` while the screen is busy go into the filter,
        # never to the list's keys (``w`` what-if, ``h`` host, ``o`` editor)
        self.set_focus(self.query_one("#filter", Input))

    async def action_quit_app(self) -> None:
        """``q`` on this screen: the app's quit (:meth:`SkillshelfApp.action_quit`)."""
        await self.app.action_quit()

    def action_focus_source(self) -> None:
        self.set_focus(self.query_one(DetailsPanel))

    def action_escape(self) -> None:
        box = self.query_one("#filter", Input)
        if box.has_focus and box.value:
            with box.prevent(Input.Changed):
                box.value = ""
            self.catalog_pane.set_query("", now=True)
        self.set_focus(self.catalog_pane.catalog_list)  # (at once: the keys after esc are the list's)

    def action_refresh(self) -> None:
        if self.catalog is not None:
            self.load_catalog(refresh=True)

    def action_next_conflict(self, step: int) -> None:
        """``n`` / ``N``: the next / previous ambiguous name among the shown rows, wrapping."""
        if not self.catalog_pane.next_conflict(step):
            self.notify("No ambiguous names in the shown rows.", timeout=3)
