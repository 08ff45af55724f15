"""The Compare screen (``x``): one workspace seen by every host side by side (SPEC N4).

One row per skill file (canonical path), one column per host; each cell shows what that host
made of the file (the glyphs of ``skillshelf compare``). The cell under the cursor is explained
below the table: the client emulated, the state, the name and description as that client lists
them, the reason in its terms, and the file that shadows it (or races it). ``d`` shows only the
files the hosts disagree on; the footer line gives per host the skills listed and the catalog
characters against its budget. ``enter`` on a row closes the screen with that file's locator
(the catalog cursor moves there when the current host lists it); ``esc`` / ``q`` close it.

The comparison runs in a worker thread (every host scans and parses the workspace); a progress
line shows while it runs, an error stays in view.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Static

from skillshelf.core.compare import Cell, CellState, Comparison, Row, compare
from skillshelf.core.hosts.base import Host, HostContext
from skillshelf.core.textsafe import visible
from skillshelf.widgets.footer import FittingFooter
from skillshelf.widgets.header import middle_ellipsis
from skillshelf.widgets.notice_line import NoticeLine

__all__ = ["CELL_GLYPHS", "CompareScreen", "cell_text", "explain_cell"]

#: Glyph and theme colour per state (colour only reinforces the glyph).
CELL_GLYPHS: dict[CellState, tuple[str, str]] = {
    CellState.LISTED: ("✓", "green"),
    CellState.CUT: ("✓ cut", "yellow"),
    CellState.NAME_ONLY: ("✓ name", "yellow"),
    CellState.OMITTED: ("− omit", "red"),
    CellState.SHADOWED: ("↓", "magenta"),
    CellState.RACE: ("⇄ race", "magenta"),
    CellState.HIDDEN: ("◌", "cyan"),
    CellState.DISABLED: ("○", "bright_black"),
    CellState.REJECTED: ("✗", "red"),
    CellState.NOT_READ: ("·", "bright_black"),
}
#: Cells a host column needs for its widest glyph (``⇄ race``); fewest cells the file column keeps.
HOST_CELL, FILE_MIN = 6, 16
LEGEND = "✓ listed  cut/name shortened  − omitted  ↓ shadowed  ⇄ either may win  ◌ hidden  ○ off  ✗ rejected  · not read"


def cell_text(cell: Cell) -> Text:
    """The table cell for ``cell`` (plain text, never markup)."""
    glyph, colour = CELL_GLYPHS[cell.state]
    return Text(glyph, style=colour)


def explain_cell(host: Host, row: Row, cell: Cell, home: str = "") -> Content:
    """The explanation block for one cell: client, state, name, description, reason, by (SPEC N4)."""
    def short(path: str) -> str:
        return "~" + path[len(home):] if home and path.startswith(home + "/") else path

    # a race is never a fixed winner (SPEC N3): the state itself says so
    state = "race: either copy may win" if cell.state is CellState.RACE else cell.state.value
    parts: list[str | tuple[str, str]] = [
        (f"{host.describe()}: ", "bold"), (state, "bold"), "  ", visible(short(row.location)),
    ]
    if cell.name is not None:
        parts += ["\n", ("name         ", "$foreground-muted"), visible(cell.name)]
    if cell.description is not None:
        desc = " ".join(cell.description.split())
        parts += ["\n", ("description  ", "$foreground-muted"), visible(desc[:300] + ("…" if len(desc) > 300 else ""))]
    if cell.reason:
        parts += ["\n", ("why          ", "$foreground-muted"), visible(cell.reason)]
    if cell.by:
        label = "competes with" if cell.state is CellState.RACE else "shadowed by "
        for by in cell.by:
            parts += ["\n", (f"{label} ", "$foreground-muted"), visible(short(by))]
    return Content.assemble(*parts)


class Compared(Message):
    """The worker finished: the comparison, or the error text."""

    def __init__(self, result: Comparison | None, error: str = "") -> None:
        super().__init__()
        self.result = result
        self.error = error


class CompareScreen(Screen[str | None]):
    """Side-by-side compare of ``context`` under ``hosts``; dismisses with a locator or ``None``."""

    DEFAULT_CSS = """
    CompareScreen { layout: vertical; }
    CompareScreen #cmp-title { height: 1; text-style: bold; }
    /* a short terminal keeps a header and four rows; the panels below scroll */
    CompareScreen DataTable { height: 1fr; min-height: 5; }
    CompareScreen #cmp-explain { height: auto; min-height: 4; max-height: 9; border-top: solid $primary; padding: 0 1; }
    CompareScreen #cmp-totals { height: auto; max-height: 7; color: $foreground-muted; }
    CompareScreen #cmp-legend { height: auto; color: $foreground-muted; }
    """

    BINDINGS = [
        Binding("escape,q", "close", "Close", id="compare.close"),
        Binding("d", "toggle_differ", "Only differences", id="compare.differ"),
        Binding("enter", "choose", "Go to file", id="compare.choose", priority=True),
    ]

    def __init__(self, context: HostContext, hosts: Sequence[Host], *, only_differ: bool = False) -> None:
        super().__init__()
        self.context = context
        self.hosts = tuple(hosts)
        self.only_differ = only_differ
        self.result: Comparison | None = None
        self.shown: tuple[Row, ...] = ()

    def compose(self) -> ComposeResult:
        yield Static(id="cmp-title", markup=False)
        table: DataTable[Text] = DataTable(id="cmp-table", cursor_type="cell", zebra_stripes=True)
        yield table
        yield Static(id="cmp-explain")
        yield Static(id="cmp-totals")
        yield Static(LEGEND, id="cmp-legend", markup=False)
        yield NoticeLine()
        yield FittingFooter()

    def on_mount(self) -> None:
        names = ", ".join(h.name for h in self.hosts)
        self.query_one("#cmp-title", Static).update(f"Compare — comparing {len(self.hosts)} hosts ({names})…")
        self.run_compare()

    @work(thread=True, exclusive=True, group="compare", exit_on_error=False, description="compare hosts")
    def run_compare(self) -> None:
        """Open the workspace under every host (worker thread)."""
        try:
            result = compare(self.context, self.hosts)
        except Exception as exc:  # shown on screen, never a traceback
            self.log.error("compare failed", exc)
            self.post_message(Compared(None, f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(Compared(result))

    @on(Compared)
    def _compared(self, event: Compared) -> None:
        if event.result is None:
            self.query_one("#cmp-title", Static).update(visible(f"Compare failed: {event.error}"))
            return
        self.result = event.result
        self._fill()

    def _short(self, path: str) -> str:
        cwd, home = self.context.cwd.rstrip("/"), self.context.env.home.rstrip("/")
        if path.startswith(cwd + "/"):
            return "./" + path[len(cwd) + 1:]
        if home and path.startswith(home + "/"):
            return "~" + path[len(home):]
        return path

    def _fill(self) -> None:
        result = self.result
        if result is None:
            return
        rows = result.disagreeing() if self.only_differ else result.rows
        self.shown = rows
        table = self.query_one("#cmp-table", DataTable)
        table.clear(columns=True)
        # every host column stays in view: the file column gets what they leave (a path keeps its
        # start — ./ or ~/ — and its end, which tell copies apart; the explanation has all of it)
        host_cells = sum(max(cell_len(h.name), HOST_CELL) + 2 for h in self.hosts)
        room = max(FILE_MIN, self.size.width - host_cells - 4) if self.size.width else None
        table.add_column("skill file", key="file")
        for h in self.hosts:
            table.add_column(h.name, key=h.name)
        for i, row in enumerate(rows):
            path = visible(self._short(row.location))
            table.add_row(Text(middle_ellipsis(path, room) if room else path),
                          *(cell_text(row.cells[h.name]) for h in self.hosts), key=str(i))
        differ = len(result.disagreeing())
        title = (f"Compare — {len(result.rows):,} skill files · {len(self.hosts)} hosts · {differ:,} differ"
                 + (f" · showing {len(rows):,} that differ (d: all)" if self.only_differ else " (d: only those)"))
        self.query_one("#cmp-title", Static).update(title)
        totals = []
        for col in result.hosts:
            # against its budget what the host counts, in its unit; the text sent when that differs
            if col.budget is None:
                line = f"{col.catalog_chars:,} characters (no budget)"
            else:
                line = f"{col.budget_used:,} / {col.budget:,} {col.budget_unit}"
                if col.budget_unit != "characters" or col.budget_used != col.catalog_chars:
                    line += f" · sends {col.catalog_chars:,} characters"
            # the version is in the explanation above (host.describe()): one line per host at 80 columns
            totals.append(f"{col.name:<9} {col.client}: {col.listed:,} listed · {line}")
        self.query_one("#cmp-totals", Static).update("\n".join(totals))
        if rows:
            table.move_cursor(row=0, column=1)
            self._explain(0, 1)
        else:
            self.query_one("#cmp-explain", Static).update("no skill files" if not self.only_differ
                                                          else "the hosts agree on every file")

    def on_resize(self) -> None:
        """The file column follows the width (every host column stays in view)."""
        if self.result is not None:
            table = self.query_one("#cmp-table", DataTable)
            at = table.cursor_coordinate
            self._fill()
            if at.row < table.row_count:
                table.move_cursor(row=at.row, column=at.column)

    def _explain(self, row: int, column: int) -> None:
        if not (0 <= row < len(self.shown)):
            return
        r = self.shown[row]
        explain = self.query_one("#cmp-explain", Static)
        if column <= 0:
            parts: list[str | tuple[str, str]] = [("skill file   ", "bold"), visible(r.location)]
            for spelled in r.spellings[:4]:
                if spelled != r.location:
                    parts += ["\n", ("reached as   ", "$foreground-muted"), visible(spelled)]
            explain.update(Content.assemble(*parts))
            return
        host = self.hosts[column - 1]
        explain.update(explain_cell(host, r, r.cells[host.name], self.context.env.home.rstrip("/")))

    @on(DataTable.CellHighlighted)
    def _highlighted(self, event: DataTable.CellHighlighted) -> None:
        self._explain(event.coordinate.row, event.coordinate.column)

    @on(DataTable.CellSelected)
    def _selected(self, event: DataTable.CellSelected) -> None:
        """A click only moves the cursor (the explanation follows); ``enter`` chooses."""
        event.stop()

    def action_toggle_differ(self) -> None:
        """``d``: only the files the hosts disagree on ↔ every file."""
        self.only_differ = not self.only_differ
        self._fill()

    def action_choose(self) -> None:
        """``enter``: close with the highlighted file's locator."""
        table = self.query_one("#cmp-table", DataTable)
        row = table.cursor_coordinate.row
        if 0 <= row < len(self.shown):
            self.dismiss(self.shown[row].location)

    def action_close(self) -> None:
        """``esc`` / ``q``."""
        self.dismiss(None)
