"""The help screen: every binding of the main screen and the status glyph legend."""

from __future__ import annotations

from typing import Iterable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from skillshelf.widgets.rows import LEGEND_ITEMS

__all__ = ["HelpScreen", "help_content"]

#: (keys, what) for the help table, in the order shown. Kept next to the bindings' ids in
#: :mod:`skillshelf.app.screens.main`; a test checks every binding id appears here.
HELP_ROWS: tuple[tuple[str, str, str], ...] = (
    ("main.filter", "/", "focus the filter (esc clears it and returns to the list)"),
    ("catalog.down", "j  ↓", "next row"),
    ("catalog.up", "k  ↑", "previous row"),
    ("main.source", "enter", "focus the source pane (esc returns to the list)"),
    ("main.next-conflict", "n", "next ambiguous name (conflict)"),
    ("main.prev-conflict", "N", "previous ambiguous name (conflict)"),
    ("main.refresh", "r", "rescan now (new generation; the catalog is also watched live)"),
    ("app.switch-host", "h", "switch host zuno ↔ zhin (same folder, paths and config)"),
    ("main.sort", "s", "cycle sort: catalog, name, provenance, size, tokens (description chars/4, or file size/4)"),
    ("main.agent", "g", "agent view: (no agent) or an agents.<name> entry; ✓/✗ = would start"),
    ("main.next-page", "]", "next body / resource page (skill tool load / read_resource)"),
    ("main.prev-page", "[", "previous body / resource page"),
    ("main.raw", "v", "raw tool output (wrapper lines included) / body only"),
    ("main.resources", "R", "resources of the skill directory: read one with read_resource"),
    ("main.pull", "p", "pull remote skills (skills.urls) now and rescan"),
    ("app.resolve", "a", "resolve the selected ambiguous name (the picker)"),
    ("app.undo-write", "ctrl+z", "undo the last picker write to skills.config"),
    ("app.index-preview", "i", "index preview: exact prompt text (f form, c copy, ^s save)"),
    ("app.whatif", "w", "what-if: context window / maxContextTokens (writes nothing)"),
    ("app.problems", "e", "problems: warnings, config errors, hints, rejected files"),
    ("app.help", "?", "this help"),
    ("app.palette", "ctrl+p", "command palette: a skill, or any action above, by name"),
    ("app.quit", "q", "quit (in a dialog: close it)"),
    ("main.escape", "esc", "clear the filter / back to the list"),
)


def help_content(rows: Iterable[tuple[str, str, str]] = HELP_ROWS) -> Content:
    """The help text: a keys table then the glyph legend."""
    parts: list[str | tuple[str, str]] = [("Keys", "bold"), "\n"]
    for _id, keys, what in rows:
        parts += [(f"  {keys:<10}", "$accent"), f"{what}\n"]
    parts += ["\n", ("Status column (first cell: state, second cell: flag)", "bold"), "\n"]
    for glyph, meaning in LEGEND_ITEMS:
        parts += [(f"  {glyph}  ", "bold"), f"{meaning}\n"]
    parts += ["\nColour only reinforces the glyphs; everything reads without it.\n",
              "Skill text is shown literally: markup and control characters are made visible."]
    return Content.assemble(*parts)


class HelpScreen(ModalScreen[None]):
    """Modal help; ``esc``, ``q`` or ``?`` closes it."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 80; max-width: 95%; height: auto; max-height: 90%;
        border: round $primary; background: $surface; padding: 1 2;
    }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="help.close"),
        Binding("q", "close", "Close", show=False, id="help.close-q"),
        Binding("question_mark", "close", "Close", show=False, id="help.close-help"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(help_content(), id="help-text", markup=False)
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)
