"""The catalog pane: the list of rows with its title (counts, sort, lint progress), the no-match
line, the filter and the lint of every listed file (SPEC D6, F5, F6).

Attributes down: the screen calls :meth:`CatalogPane.show_generation` with the generation of the
current view, :meth:`CatalogPane.set_query` with the filter text and sets :attr:`lint_cache`
and :attr:`progress`. Messages up: :class:`CatalogPane.RowShown` whenever the row under the
cursor changes (or is re-shown for a new generation), with ``chosen`` True on ``enter`` / click.
"""

from __future__ import annotations

import operator
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Static
from textual.worker import Worker, WorkerState, get_current_worker

from skillshelf.app.body_search import BodyCache, search_bodies
from skillshelf.app.lint_cache import LintCache
from skillshelf.app.timings import Timings
from skillshelf.app.worker_errors import ReportsWorkerErrors
from skillshelf.core.foreground import Foreground
from skillshelf.core.model import Generation, Rejected, Source
from skillshelf.core.textsafe import visible
from skillshelf.widgets.catalog_list import CatalogList, ValueColumn
from skillshelf.widgets.kept_page import LAST_RUN, KeptPageView
from skillshelf.widgets.rows import CatalogRow, build_rows, group_hits, next_sort, row_tokens, size_cell, sort_order

if TYPE_CHECKING:
    from skillshelf.core.filter import FilterHit, FilterIndex

__all__ = ["FILTER_LIMIT", "CatalogPane", "RowKey", "row_key"]

#: Most hits shown for a non-empty filter.
FILTER_LIMIT = 500


@dataclass(frozen=True)
class RowKey:
    """What identifies a row across generations: its locator and whether it is a rejected file."""

    location: str
    rejected: bool


def row_key(row: CatalogRow) -> RowKey:
    """The :class:`RowKey` of ``row``."""
    return RowKey(row.location, row.rejected)


#: Under the pane while a filter typed before the list has rows of its own (over the last run's
#: first page, or on a first run with none) waits for them.
WAITING_FILTER = "filter: waiting for the list…"


class _IndexBuild:
    """The filter index of one generation's rows, built once by whichever asks first: the
    background worker or a query typed before it has finished (which then waits for it).
    ``basis``: the build of the provisional rows of the same build, whose work is reused when
    it has begun by the time this index is built (it is waited for then, not built twice)."""

    def __init__(self, generation: Generation, items: list[Source | Rejected], basis: _IndexBuild | None = None) -> None:
        self.generation = generation
        self._items = items
        self._basis = basis
        self._lock = threading.Lock()
        self._index: FilterIndex | None = None
        #: someone has asked for the index (it is built or being built)
        self.started = False

    def get(self) -> FilterIndex:
        """The index (built now if nobody has yet, over the basis, waited for, when that has
        begun)."""
        self.started = True
        with self._lock:
            if self._index is None:
                from skillshelf.core.filter import FilterIndex  # rapidfuzz: loaded at the first query

                basis = self._basis.get() if self._basis is not None and self._basis.started else None
                self._index = FilterIndex(self._items, basis=basis)
                self._items = []
                self._basis = None
            return self._index

    def taken_by(self, generation: Generation) -> _IndexBuild:
        """This build, now the index of ``generation``, whose rows are the very same (the
        provisional list turned out to be the generation's: nothing to build again)."""
        self.generation = generation
        return self

    def built(self) -> FilterIndex | None:
        """The index when it is built, without waiting."""
        return self._index


def _same_objects(a: Sequence[object], b: Sequence[object]) -> bool:
    """Whether ``a`` and ``b`` hold the very same objects in the same order (C speed)."""
    return len(a) == len(b) and all(map(operator.is_, a, b))


class CatalogPane(ReportsWorkerErrors, Vertical):
    """Rows of one generation, filtered and sorted; lints every listed file in a worker.

    ``filter_limit``: most hits listed for a non-empty query (the title gives the true count).
    """

    class RowShown(Message):
        """The row under the cursor (``None``: nothing is listed); ``chosen``: ``enter`` / click."""

        def __init__(self, row: CatalogRow | None, chosen: bool = False) -> None:
            super().__init__()
            self.row = row
            self.chosen = chosen

    class LintProgress(Message):
        """``done`` of ``total`` files linted so far (posted only after ``Timings.progress_after``)."""

        def __init__(self, done: int, total: int) -> None:
            super().__init__()
            self.done = done
            self.total = total

    class BodyHits(Message):
        """The body search for ``query`` over generation ``number`` found ``lines`` (row index →
        file line number and text); ``done`` False when it was stopped."""

        def __init__(self, query: str, number: int, lines: dict[int, tuple[int, str]]) -> None:
            super().__init__()
            self.query = query
            self.number = number
            self.lines = lines

    class LintDone(Message):
        """Every row of generation ``number`` is linted; ``bad`` are the locators with lint errors."""

        def __init__(self, number: int, bad: frozenset[str]) -> None:
            super().__init__()
            self.number = number
            self.bad = bad

    class _IndexReady(Message):
        """The filter index of ``generation``'s rows, built in the background."""

        def __init__(self, generation: Generation, index: FilterIndex) -> None:
            super().__init__()
            self.generation = generation
            self.index = index

    #: Background work shown in the pane's bottom border (``linting 120 / 1,104…``).
    progress: reactive[str] = reactive("")

    def __init__(self, timings: Timings, *, filter_limit: int = FILTER_LIMIT, foreground: Foreground | None = None,
                 id: str | None = "catalog-pane") -> None:
        super().__init__(id=id)
        self.timings = timings
        self.filter_limit = filter_limit
        self.rows: list[CatalogRow] = []
        #: Current sort (``s`` cycles :data:`skillshelf.widgets.rows.SORTS`).
        self.sort = "catalog"
        #: The filter text in force.
        self.query_text = ""
        #: Lint per file for the host's target (set by the screen; shared with the details).
        self.lint_cache = LintCache()
        #: The home folder, shown as ``~`` in what tells copies of a name apart (set by the screen).
        self.home: str | None = None
        #: Whether the filter also searches the skills' bodies (``ctrl+f``).
        self.bodies = False
        #: Body lines found for the query in force (row index → file line, text).
        self.body_lines: dict[int, tuple[int, str]] = {}
        self._body_cache = BodyCache()
        self._body_progress = ""
        self._metadata_matches: int | None = None
        self._generation: Generation | None = None
        self._lint_bad: set[str] = set()
        self._index: FilterIndex | None = None
        #: the filter index of the generation shown, built in the background or by the first query
        self._building: _IndexBuild | None = None
        #: the filter index of a provisional whole list (:meth:`show_partial`)
        self._basis: _IndexBuild | None = None
        #: the provisional whole list shown and the rows made of it, with the home folder and
        #: the lint flags they were made with (the real generation reuses them when its entries
        #: are the very same: :meth:`show_generation`)
        self._provisional: tuple[Generation, list[CatalogRow], str | None, set[str]] | None = None
        #: the row a provisional list put the cursor on by itself (its first): not kept when the
        #: list changes unless the cursor was moved since (a warm start's first row is the list's)
        self._auto_key: RowKey | None = None
        self._timer: Timer | None = None
        self._lint_progress = ""
        #: Each change of the filter text touches it: the background work (the lint of every file,
        #: the filter's fuzzy parts, the screen's view) waits until typing is quiet (``foreground``
        #: argument: one shared with the screen; default: the pane's own).
        self.foreground = foreground if foreground is not None else Foreground(timings.typing_quiet)

    def compose(self) -> ComposeResult:
        yield Static("", id="no-match", markup=False)
        yield KeptPageView(id="kept-page")
        yield CatalogList(id="catalog")

    def show_kept_page(self, title: str, lines: Sequence[str]) -> None:
        """Show the last run's first page (:mod:`skillshelf.app.keptpage`) in place of the list
        until it has rows (:meth:`apply_filter` hides it)."""
        if self.rows:
            return
        page = self.query_one(KeptPageView)
        page.show(title, lines)
        self.catalog_list.display = False
        self.border_title = Content(title + LAST_RUN)  # plain text: a kept title is never markup

    def hide_kept_page(self) -> None:
        """Show the list instead of the kept page (its rows came, or none will: the open failed)."""
        page = self.query_one(KeptPageView)
        if page.lines:
            page.hide()
            self.catalog_list.display = True
            self.border_title = "Catalog"

    @property
    def lists_every_row(self) -> bool:
        """The list shows every row in the current sort: no filter in force or waiting to be applied."""
        return not self.query_text.strip() and self._timer is None and len(self.catalog_list.order) == len(self.rows)

    @property
    def kept_page_lines(self) -> tuple[str, ...]:
        """The kept page's lines while it is shown, else ``()``."""
        return self.query_one(KeptPageView).lines

    def on_mount(self) -> None:
        self.query_one("#no-match").display = False
        self.border_title = "Catalog"

    @property
    def catalog_list(self) -> CatalogList:
        """The list widget."""
        return self.query_one(CatalogList)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A failed lint is reported (:class:`ReportsWorkerErrors`) and its progress cleared."""
        super().on_worker_state_changed(event)
        if event.state is WorkerState.ERROR:
            self._lint_progress = ""
            self.border_subtitle = self.progress

    def watch_progress(self, text: str) -> None:
        self.border_subtitle = text or self._lint_progress

    # ------------------------------------------------------------------ attributes down
    def show_generation(self, generation: Generation | None, *, lint: bool = True) -> None:
        """Show the rows of ``generation`` (``None``: nothing, e.g. while a host opens), keeping the
        filter, the sort, the row under the cursor (by locator) and the scroll position; then build
        the filter index and lint every listed file (``lint`` False: the screen starts
        :meth:`lint_all` itself, later)."""
        keep = self.selected_key()
        if keep is not None and keep == self._auto_key:
            keep = None  # (the first row of a list still being read: the generation's first instead)
        self._auto_key = None
        self._generation = generation
        provisional, self._provisional = self._provisional, None
        basis, self._basis = self._basis, None
        self._index = None
        if generation is None:
            self.rows = []
            self._building = None
        elif provisional is not None and basis is not None and self._same_rows(provisional, generation):
            # the last run's list, checked: its rows and their filter index (built or under way) stay
            self.rows = provisional[1]
            self._building = basis.taken_by(generation)
        else:
            self.rows = build_rows(generation, self._lint_bad, self.home)
            self._building = _IndexBuild(generation, [r.item for r in self.rows], basis)
        self.apply_filter(keep_key=keep)
        if generation is not None and self._building is not None:
            if lint:
                self.lint_all(generation)
            self.prepare_filter(self._building)

    def show_partial(self, generation: Generation, *, whole: bool = False) -> None:
        """Show the rows of a build still under way (:class:`~skillshelf.core.hosts.base.BuildProgress`
        as a provisional generation numbered 0): filter, sort and cursor as usual; nothing is
        linted until the real generation comes (:meth:`show_generation`). ``whole``: the rows are
        a whole list (the last run's, while the files are checked): their filter index is built
        in the background and the real generation's reuses it."""
        keep = self.selected_key()
        if keep is not None and keep == self._auto_key:
            keep = None
        self._generation = None
        self.rows = build_rows(generation, self._lint_bad, self.home)
        self._index = None
        self._basis = None
        self._provisional = None
        if whole:  # (before the filter in force is applied: a query uses this index too)
            self._basis = _IndexBuild(generation, [r.item for r in self.rows])
            self._provisional = (generation, self.rows, self.home, self._lint_bad)
        self.apply_filter(keep_key=keep)
        self._auto_key = self.selected_key() if keep is None else None
        if self._basis is not None:
            self.prepare_basis(self._basis)

    def _same_rows(self, provisional: tuple[Generation, list[CatalogRow], str | None, set[str]],
                   generation: Generation) -> bool:
        """Whether ``generation`` would be listed exactly as ``provisional`` was: the very same
        entry objects in the same order, no root label (a provisional list has no roots), the
        same home folder and lint flags (rows are made of nothing else: :func:`build_rows`)."""
        shown, _rows, home, lint_bad = provisional
        return (home == self.home and lint_bad is self._lint_bad
                and not any(r.label for r in generation.roots)
                and _same_objects(shown.sources, generation.sources)
                and _same_objects(shown.rejected, generation.rejected))

    def reset(self, lint_cache: LintCache) -> None:
        """Forget lint results (another host lints with another target) and every row."""
        self.lint_cache = lint_cache
        self._lint_bad = set()
        self.show_generation(None)

    def set_query(self, text: str, *, now: bool = False) -> None:
        """Filter by ``text`` after ``Timings.filter_debounce`` of quiet (``now``: at once)."""
        self.query_text = text
        self.foreground.touch()
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if now or self.timings.filter_debounce <= 0:
            self.apply_filter()
        else:
            self._timer = self.set_timer(self.timings.filter_debounce, self.apply_filter)

    # ------------------------------------------------------------------ reading
    def selected_row(self) -> CatalogRow | None:
        """The row under the cursor, or ``None``."""
        row = self.catalog_list.current_row
        if row is None or row >= len(self.rows):
            return None
        return self.rows[row]

    def selected_key(self) -> RowKey | None:
        """The :class:`RowKey` of the row under the cursor, or ``None``."""
        row = self.selected_row()
        return row_key(row) if row is not None else None

    def search(self, query: str) -> list[FilterHit]:
        """Every row matching ``query``, best first (the filter's own ranking)."""
        index = self._filter_index()
        return index.search(query, max(1, len(index)))

    def _filter_index(self) -> FilterIndex:
        """The filter index of the rows shown (built once per set of rows: a query typed while
        the background build runs waits for it rather than building another; over a provisional
        whole list, that list's own)."""
        if self._index is None:
            building = self._building
            if building is not None and building.generation is self._generation and self._generation is not None:
                self._index = building.get()
            elif self._generation is None and self._basis is not None:
                self._index = self._basis.get()
            else:
                from skillshelf.core.filter import FilterIndex  # rapidfuzz: loaded at the first query

                self._index = FilterIndex([r.item for r in self.rows])
        return self._index

    @work(thread=True, exclusive=True, group="filter-index", exit_on_error=False, description="filter index")
    def prepare_filter(self, building: _IndexBuild) -> None:
        """Build the filter index of a generation's rows (10,000 rows take about 0.04 s; far
        less over a basis, :meth:`prepare_basis`), so the first keystroke does not wait for it;
        kept only if that generation is still the one shown. Then, step by step while the filter
        is not being typed in (:attr:`foreground`), what typo-tolerant queries use
        (:meth:`FilterIndex.prepare`)."""
        worker = get_current_worker()
        go_on = partial(self.foreground.pause, lambda: worker.is_cancelled)
        if not go_on():  # (a keystroke meanwhile builds the index itself)
            return
        index = building.get()
        if not worker.is_cancelled:
            self.post_message(self._IndexReady(building.generation, index))  # (dropped when the pane is gone)
            index.prepare(go_on)

    @work(thread=True, exclusive=True, group="filter-basis", exit_on_error=False, description="filter index")
    def prepare_basis(self, building: _IndexBuild) -> None:
        """Build the filter index of a provisional whole list (drawn when there is one:
        :meth:`show_partial`), for the real generation's index to reuse (most rows are the same
        objects), so the first keystrokes after the real list appears do not wait for a whole
        build. Not prepared: the file check runs meanwhile, and every bit of work in another
        thread slows it (each ``stat`` gives the interpreter lock away and must wait to get it
        back); the real index prepares once it is shown."""
        building.get()

    @on(_IndexReady)
    def _prepared(self, event: _IndexReady) -> None:
        if self._generation is event.generation and self._index is None:
            self._index = event.index

    def index_of(self, location: str) -> int | None:
        """Row index of the file ``location`` (its locator, an alias or its canonical path), or ``None``."""
        for i, row in enumerate(self.rows):
            item = row.item
            if location == item.location or location == item.canonical or location in item.aliases:
                return i
        return None

    # ------------------------------------------------------------------ filter and sort
    def apply_filter(self, keep_key: RowKey | None = None) -> None:
        """Show the rows matching :attr:`query_text` now (grouped by name; for a non-empty query the
        best :attr:`filter_limit` are listed and the title gives the true match count; an empty
        query lists every row in the current sort), keeping the cursor on the same row if shown.
        No match shows ``no skills match `…``` above the (empty) list. Posts :class:`RowShown`."""
        self._timer = None
        # nothing of its own listed yet (its build is under way): the query applies to the rows to
        # come, and says so under the list, never "no skills match"
        waiting = not self.rows and self._generation is None
        if self.kept_page_lines:
            if waiting:
                self.border_subtitle = WAITING_FILTER if self.query_text.strip() else self.progress or self._lint_progress
                return
            self.hide_kept_page()
            self.border_subtitle = self.progress or self._lint_progress
        query = self.query_text
        if keep_key is None:
            keep_key = self.selected_key()
        matches: int | None = None
        spans: dict[int, tuple[tuple[int, int], ...]] = {}
        if not query.strip() or waiting:
            order = sort_order(self.rows, range(len(self.rows)), self.sort, row_tokens)
        else:
            index = self._filter_index()
            hits = index.search(query, self.filter_limit)  # spans only for the hits listed
            matches = index.count(query)
            order = group_hits(self.rows, [h.index for h in hits])
            spans = {h.index: tuple(h.spans) for h in hits if h.spans}
        keep = next((i for i in order if keep_key is not None and row_key(self.rows[i]) == keep_key), None)
        lst = self.catalog_list
        lst.value_column = self._value_column() if matches is None else None
        self._metadata_matches = matches
        self.body_lines = {}
        lst.show_rows(self.rows, order, spans, keep=keep)
        self._title(len(order), matches)
        if self.bodies and matches is not None:
            self.search_in_bodies(query.strip(), [r.item for r in self.rows],
                                  self._generation.number if self._generation is not None else 0)
        else:
            self.workers.cancel_group(self, "bodies")
            self._set_body_progress("")
        no_match = self.query_one("#no-match", Static)
        if matches == 0:
            no_match.update(Content.assemble("no skills match ", (f"`{visible(query.strip())}`", "bold"),
                                             ("  (esc clears the filter)", "$foreground-muted")))
        no_match.display = matches == 0
        if waiting and query.strip():
            self.border_subtitle = WAITING_FILTER
        self.post_message(self.RowShown(self.selected_row()))

    def _title(self, shown: int, matches: int | None, in_bodies: int | None = None) -> None:
        """``Catalog (1,104) · sort name``; filtered: ``Catalog (12 matches · 1,104 rows)``, or
        ``Catalog (500 shown of 812 matches · 1,104 rows)`` when the list is capped; with the body
        search on, ``Catalog (12 matches + 3 in bodies · 1,104 rows)``; the last run's whole list
        (:meth:`show_partial` ``whole``) ends with :data:`~skillshelf.widgets.kept_page.LAST_RUN`."""
        total = len(self.rows)
        if matches is None:
            count = f"{total:,}"
        elif shown < matches:
            count = f"{shown:,} shown of {matches:,} matches · {total:,} rows"
        else:
            count = f"{matches:,} match{'' if matches == 1 else 'es'} · {total:,} rows"
        if in_bodies is not None and matches is not None:
            count = count.replace(" · ", f" + {in_bodies:,} in bodies · ", 1)
        sort = "relevance" if matches is not None else self.sort
        bodies = " · bodies searched" if self.bodies and matches is not None else ""
        # (the last run's whole list, shown while its files are checked, says so as its page did)
        provisional = LAST_RUN if self._provisional is not None else ""
        self.border_title = f"Catalog ({count}) · sort {sort}{bodies}{provisional}"

    # ------------------------------------------------------------------ body search
    def toggle_bodies(self) -> bool:
        """``ctrl+f``: search the skills' bodies too (or stop); re-filters now. Returns the new state."""
        self.bodies = not self.bodies
        self.apply_filter()
        return self.bodies

    @work(thread=True, exclusive=True, group="bodies", exit_on_error=False, description="search bodies")
    def search_in_bodies(self, query: str, items: list[Source | Rejected], number: int) -> None:
        """Read the bodies (cached) and find ``query`` in them; posts :class:`BodyHits`, and
        progress after ``Timings.progress_after`` seconds."""
        worker = get_current_worker()
        started = time.monotonic()
        last = [0.0]

        def progress(done: int, total: int) -> None:
            now = time.monotonic()
            if now - started > self.timings.progress_after and now - last[0] > 0.2:
                last[0] = now
                self.app.call_from_thread(self._set_body_progress, f"searching bodies {done:,} / {total:,}…")

        lines = search_bodies(items, query, self._body_cache, lambda: worker.is_cancelled, progress)
        if not worker.is_cancelled:
            self.post_message(self.BodyHits(query, number, lines))

    def _set_body_progress(self, text: str) -> None:
        self._body_progress = text
        self.border_subtitle = self.progress or text or self._lint_progress

    @on(BodyHits)
    def _body_hits(self, event: BodyHits) -> None:
        self._set_body_progress("")
        number = self._generation.number if self._generation is not None else 0
        if not self.bodies or event.query != self.query_text.strip() or event.number != number:
            return
        lst = self.catalog_list
        shown = set(lst.order)
        extra = [i for i in sorted(event.lines) if i not in shown]
        order = lst.order + group_hits(self.rows, extra)
        self.body_lines = event.lines
        lst.show_rows(self.rows, order, lst.spans, keep=lst.current_row, lines=event.lines)
        self._title(len(lst.order) - len(extra), self._metadata_matches, len(extra))
        no_match = self.query_one("#no-match", Static)
        if extra:
            no_match.display = False
        self.post_message(self.RowShown(self.selected_row()))

    def _value_column(self) -> ValueColumn | None:
        """The sort-key column for the ``size`` / ``tokens`` sorts (``None`` otherwise)."""
        if self.sort == "size":
            return ("size", lambda row: size_cell(row.item))
        if self.sort == "tokens":
            return ("tokens", lambda row: f"{row_tokens(row.item):,} tok")
        return None

    def cycle_sort(self) -> None:
        """The next sort (catalog → name → provenance → size → tokens)."""
        self.sort = next_sort(self.sort)
        self.apply_filter()

    # ------------------------------------------------------------------ cursor
    def highlight(self, index: int) -> bool:
        """Put the cursor on row ``index``; False when the filter hides it."""
        return self.catalog_list.highlight_row(index)

    def next_conflict(self, step: int) -> bool:
        """Move to the first row of the next (``step`` 1) or previous (-1) ambiguous name group
        among the shown rows, wrapping around; False when there is none."""
        lst = self.catalog_list
        order = lst.order
        if not order:
            return False
        here = lst.highlighted if lst.highlighted is not None else -1
        here_name = self.rows[order[here]].name if here >= 0 else None
        n = len(order)
        for k in range(1, n + 1):
            pos = (here + step * k) % n
            row = self.rows[order[pos]]
            if row.ambiguous and not row.rejected and (row.name != here_name or k == n):
                while pos > 0 and self.rows[order[pos - 1]].name == row.name and not self.rows[order[pos - 1]].rejected:
                    pos -= 1
                lst.highlighted = pos
                return True
        return False

    @on(CatalogList.RowHighlighted)
    def _highlighted(self, event: CatalogList.RowHighlighted) -> None:
        event.stop()
        if not isinstance(event, CatalogList.RowChosen):
            self.post_message(self.RowShown(self.selected_row()))

    @on(CatalogList.RowChosen)
    def _chosen(self, event: CatalogList.RowChosen) -> None:
        event.stop()
        self.post_message(self.RowShown(self.selected_row(), chosen=True))

    # ------------------------------------------------------------------ lint of every row
    def mark_lint_errors(self, location: str) -> None:
        """The lint of ``location`` found errors (the details computed it first): flag its row."""
        if location not in self._lint_bad:
            self._set_lint_bad(self._lint_bad | {location})

    def _set_lint_bad(self, bad: set[str]) -> None:
        if bad == self._lint_bad or self._generation is None:
            return
        changed = bad ^ self._lint_bad
        self._lint_bad = bad
        self.rows = build_rows(self._generation, bad, self.home)  # the same items in the same order:
        self.catalog_list.update_rows(self.rows, [i for i, r in enumerate(self.rows) if r.location in changed])

    @work(thread=True, exclusive=True, group="lint", exit_on_error=False, description="lint")
    def lint_all(self, generation: Generation) -> None:
        """Lint every listed file of ``generation`` (built-ins have none), posting progress after
        ``Timings.progress_after`` seconds and :class:`LintDone` at the end; paused while the
        filter is being typed in (:attr:`foreground`)."""
        worker = get_current_worker()
        items: list[Source | Rejected] = [s for s in generation.sources if not s.location.startswith("builtin://")]
        items += list(generation.rejected)
        started = time.monotonic()
        last = 0.0
        bad: set[str] = set()
        cache = self.lint_cache
        go_on = partial(self.foreground.pause, lambda: worker.is_cancelled)
        memo: dict[str, str | None] = {}  # (siblings share their ancestors: each folder looked at once)
        for n, item in enumerate(items, 1):
            if not go_on():  # someone typing in the filter comes first; a cancelled pass stops
                return
            cache.lint(item, memo)
            if cache.has_errors(item):
                bad.add(item.location)
            now = time.monotonic()
            if now - started > self.timings.progress_after and now - last > 0.2:
                last = now
                self.post_message(self.LintProgress(n, len(items)))
        self.post_message(self.LintDone(generation.number, frozenset(bad)))
        if cache.parse_cache is not None:
            cache.parse_cache.save()  # keep what was linted for the next start (atomic, skipped if unchanged)

    @on(LintProgress)
    def _lint_progress_shown(self, event: LintProgress) -> None:
        self._lint_progress = f"linting {event.done:,} / {event.total:,}…"
        self.border_subtitle = self.progress or self._lint_progress

    @on(LintDone)
    def _lint_done(self, event: LintDone) -> None:
        self._lint_progress = ""
        self.border_subtitle = self.progress
        if self._generation is not None and event.number == self._generation.number:
            self._set_lint_bad(set(event.bad))
