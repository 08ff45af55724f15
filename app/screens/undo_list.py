"""The undo list (``U``): every configuration write skillshelf made, newest first, from the
journal (:mod:`skillshelf.app.undo`) — this session's and earlier ones, CLI and TUI alike.

Each row: ``#id``, when, state (``current``: the file still holds what was written, so it can be
undone; ``changed``: the file changed since; ``undone``), the file and what changed. ``enter``
dismisses with the selected write's id (the app undoes it, byte for byte, and rescans); ``esc``
/ ``q`` close. Text is plain ``Content`` made visible (SPEC X1).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from skillshelf.app.common import home_short
from skillshelf.app.screens.moves import step_cursor
from skillshelf.app.undo import JournalEntry
from skillshelf.core.textsafe import visible
from skillshelf.widgets.notice_line import NoticeLine

__all__ = ["UndoListScreen", "entry_content"]

_STATE_STYLE = {"current": "$success", "changed": "$warning", "undone": "$foreground-muted"}


def entry_content(entry: JournalEntry, state: str, home: str | None) -> Content:
    """One row: ``#3  2026-12-02 01:20  current  ~/p/.zuno/zuno.json  disable pdf: ~/…``."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.when))
    return Content.assemble((f"#{entry.id:<4}", "bold"), f"{when}  ",
                            (f"{state:<8}", _STATE_STYLE.get(state, "")),
                            visible(home_short(entry.target, home)), "  ", visible(entry.summary))


class UndoListScreen(ModalScreen[int | None]):
    """Modal list of ``entries`` (newest first) with their ``states``; dismisses with the id of
    the write to undo, or ``None``."""

    DEFAULT_CSS = """
    UndoListScreen { align: center middle; }
    UndoListScreen > Vertical {
        width: 96%; height: 80%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    UndoListScreen #undo-title { height: auto; margin-bottom: 1; }
    UndoListScreen #undo-list { height: 1fr; border: none; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="undo.close"),
        Binding("q", "close", "Close", show=False, id="undo.close-q"),
        Binding("j", "move(1)", "Down", show=False, id="undo.down"),
        Binding("k", "move(-1)", "Up", show=False, id="undo.up"),
    ]

    def __init__(self, entries: Sequence[JournalEntry], states: Sequence[str], home: str | None) -> None:
        super().__init__()
        self.entries = list(entries)
        self.states = list(states)
        self.home = home

    def compose(self) -> ComposeResult:
        with Vertical():
            count = len(self.entries)
            yield Static(Content.assemble(
                ("Config writes", "bold"), f" — {count} recorded, newest first.  ",
                ("enter", "bold"), " undo the selected one (only a ", ("current", "$success"),
                " one: its file still holds what skillshelf wrote)  ", ("esc", "bold"), " close"),
                id="undo-title")
            options = [Option(entry_content(e, s, self.home), id=str(e.id), disabled=s != "current")
                       for e, s in zip(self.entries, self.states, strict=True)]
            if not options:
                options = [Option("no writes recorded yet", id="none", disabled=True)]
            yield OptionList(*options, id="undo-list")
            yield NoticeLine()
        yield Footer()

    def action_move(self, step: int) -> None:
        """``j`` / ``k``: next / previous write."""
        step_cursor(self.query_one(OptionList), step)

    @on(OptionList.OptionSelected, "#undo-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id and event.option.id.isdigit():
            self.dismiss(int(event.option.id))

    def action_close(self) -> None:
        self.dismiss(None)
