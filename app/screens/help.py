"""The help screen: the keys of every screen (one section each: main, ambiguity picker, index
preview, what-if, problems), the registered hosts ``h`` cycles through (from the registry, with
the keys each one has) and the status glyph legend. Long descriptions wrap with a hanging indent
under the description column (computed for the shown width, not left to the widget)."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from skillshelf.core.hosts import HOSTS, host_names
from skillshelf.core.hosts.base import Feature, Host
from skillshelf.widgets.notice_line import NoticeLine
from skillshelf.widgets.rows import LEGEND_ITEMS

__all__ = ["FEATURE_KEYS", "HEADER_ROWS", "HELP_ROWS", "HELP_SECTIONS", "KEY_WIDTH", "HelpScreen", "budget_rows", "help_content",
           "hosts_rows"]

#: Width of the keys column, in cells (descriptions start here; continuation lines too).
KEY_WIDTH = 12

#: (keys, what) for the help table, in the order shown. Kept next to the bindings' ids in
#: :mod:`skillshelf.app.screens.main`; a test checks every binding id appears here.
HELP_ROWS: tuple[tuple[str, str, str], ...] = (
    ("main.filter", "/", "focus the filter (esc clears it and returns to the list); exact and prefix matches "
                         "of names and words first, near misses (typos) after"),
    ("main.bodies", "ctrl+f", "the filter searches the skills' bodies too (a row found there shows the line; "
                              "the body view selects it) / stops"),
    ("catalog.down", "j  ↓", "next row"),
    ("catalog.up", "k  ↑", "previous row"),
    ("catalog.first", "home", "first row"),
    ("catalog.last", "end", "last row"),
    ("catalog.page-up", "pgup", "a page up"),
    ("catalog.page-down", "pgdn", "a page down"),
    ("catalog.choose", "enter", "on the list: the row's source, focused (esc returns to the list)"),
    ("main.source", "enter", "elsewhere: focus the source pane"),
    ("main.next-conflict", "n", "next ambiguous name (conflict)"),
    ("main.prev-conflict", "N", "previous ambiguous name (conflict)"),
    ("main.refresh", "r", "rescan now (new generation; the catalog is also watched live)"),
    ("app.switch-host", "h", "switch host: " + " → ".join(host_names()) + " (same folder, paths and config)"),
    ("main.sort", "s", "cycle sort: catalog, name, provenance, size, tokens (description chars/4, or file size/4)"),
    ("main.agent", "g", "agent view: (no agent), a native agent (orchestrator, review …) or an agents.<name> entry; ✓/✗ = would start"),
    ("main.next-page", "]", "next body / resource page (skill tool load / read_resource)"),
    ("main.prev-page", "[", "previous body / resource page"),
    ("main.raw", "v", "raw tool output (wrapper lines included) / body only"),
    ("main.resources", "R", "resources of the skill directory: read one with read_resource"),
    ("main.pull", "p", "pull remote skills (skills.urls) now and rescan"),
    ("main.edit", "o", "open the selected file in $VISUAL / $EDITOR (skillshelf waits; a change shows as a new "
                       "generation)"),
    ("main.copy", "c", "copy the selected locator (sent to the terminal clipboard with OSC 52; "
                       "the terminal decides whether it lands)"),
    ("app.resolve", "a", "the picker: enable, disable, expose or resolve the selected skill"),
    ("app.undo-write", "ctrl+z", "undo the last skills.config write skillshelf made (any session, CLI too)"),
    ("app.undo-list", "U", "every skills.config write skillshelf made; enter undoes one"),
    ("app.index-preview", "i", "index preview: exact prompt text (f form, c copy, ^s save)"),
    ("app.whatif", "w", "what-if: context window / maxContextTokens (writes nothing)"),
    ("app.problems", "e", "problems: warnings, config errors, hints, rejected files"),
    ("app.compare", "x", "compare: this workspace under every host side by side (d: only differences)"),
    ("app.help", "?", "this help"),
    ("app.palette", "ctrl+p", "command palette: a skill, or any action above, by name"),
    ("app.quit", "q", "quit (in a dialog: close it)"),
    ("main.escape", "esc", "clear the filter / back to the list"),
)


#: The other screens' keys, by section: (title, rows of (binding id, keys, what)). A test checks
#: every binding id of those screens appears in its section.
HELP_SECTIONS: tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...] = (
    ("Main screen", HELP_ROWS),
    ("Skill picker (a)", (
        ("picker.down", "j  ↓", "next source"),
        ("picker.up", "k  ↑", "previous source"),
        ("picker.keep", "1", "keep the source under the cursor (enabled, its own exposure)"),
        ("picker.search", "2", "search-only (loadable by name, not in the index)"),
        ("picker.explicit", "3", "explicit-only (loadable only when named exactly)"),
        ("picker.disable", "4", "disable it"),
        ("picker.index", "5", "index: always in the prompt index"),
        ("picker.keep-only", "K", "keep only this one: every other source of its name disabled"),
        ("picker.cycle", "space", "cycle keep → search-only → explicit → disable"),
        ("picker.target", "t", "next target file (project, global, other .jsonc layers; recomputed each time)"),
        ("picker.write", "ctrl+s", "write the change (atomic, .bak kept, portable paths); choosing a former "
                                   "state again takes skillshelf's entry out; a choice that leaves the name "
                                   "ambiguous asks for a second ctrl+s"),
        ("picker.undo", "u", "undo the last write skillshelf made (ctrl+z on the main screen too)"),
        ("picker.close", "esc  q", "close"),
    )),
    ("Undo list (U)", (
        ("undo.down", "j  ↓", "next write"),
        ("undo.up", "k  ↑", "previous write"),
        ("undo.go", "enter", "undo the selected write (only a current one: its file still holds what was written)"),
        ("undo.close", "esc  q", "close"),
    )),
    ("Index preview (i)", (
        ("preview.form", "f", "next form: index, list, verbose"),
        ("preview.copy", "c", "send the exact text to the terminal clipboard (OSC 52)"),
        ("preview.advice", "p", "when skills are cut or left out: the picker with the advised skills made "
                                "search-only, to preview (and write with ctrl+s there)"),
        ("preview.save", "ctrl+s", "save the exact text (relative to the project; asks before overwriting)"),
        ("preview.close", "esc  q", "close"),
    )),
    ("What-if (w)", (
        ("whatif.type", "0-9 k M", "type a context window in tokens (128k, 1M, 200,000) — the box has the focus; "
                                   "the budgets follow as you type"),
        ("whatif.preset-up", "↑  ↓", "step through the presets 32k / 128k / 200k / 1M (also buttons)"),
        ("whatif.apply", "enter", "use the window and maxContextTokens for this session (meters, index "
                                  "preview); writes no file"),
        ("whatif.close", "esc", "close"),
    )),
    ("Problems (e)", (
        ("problems.down", "j  ↓", "next entry"),
        ("problems.up", "k  ↑", "previous entry"),
        ("problems.go", "enter", "go to the skill file the entry names"),
        ("problems.close", "esc  q  e", "close"),
    )),
    ("Compare hosts (x)", (
        ("compare.differ", "d", "only the skill files the hosts disagree on / every file"),
        ("compare.choose", "enter", "go to the file in the catalog (when this host lists it)"),
        ("compare.close", "esc  q", "close"),
    )),
)


#: What a host feature turns on, in the help's words (keys and views that need it).
FEATURE_KEYS: tuple[tuple[Feature, str], ...] = (
    (Feature.CONFIG, "a resolve"),
    (Feature.AGENTS, "g agents"),
    (Feature.REMOTE, "p pull"),
    (Feature.FORMS, "i forms"),
    (Feature.ALWAYS, "always bodies"),
)


def hosts_rows(current: Host | None = None) -> tuple[tuple[str, str, str], ...]:
    """One help row per registered host (registry order): its name (``*`` marks ``current``),
    the client and version emulated, and the keys and views it has."""
    rows = []
    for name, host in HOSTS.items():
        extra = [words for feature, words in FEATURE_KEYS if feature in host.features]
        mark = "*" if current is not None and current.name == name else " "
        rows.append((f"host.{name}", f"{mark}{name}", host.describe() + (f" · {', '.join(extra)}" if extra else "")))
    return tuple(rows)


#: The header's counts and, under 110 columns, their short labels (widgets/header.counts_text).
HEADER_ROWS: tuple[tuple[str, str, str], ...] = (
    ("header.src", "src", "sources: every skill file the host reads, disabled ones included"),
    ("header.amb", "amb", "ambiguous: names declared by two or more enabled sources (n jumps to the next)"),
    ("header.brk", "brk", "broken: files the host rejects (e lists them)"),
    ("header.kept", "kept", "kept-last-valid: sources the host keeps from before their file broke"),
    ("header.off", "off", "disabled sources"),
    ("header.shd", "shd", "shadowed: copies another copy of the same name wins over"),
    ("header.hid", "hid", "hidden: sources the client hides from the model"),
)


def budget_rows(host: Host | None = None) -> tuple[tuple[str, str, str], ...]:
    """What the two meters under the panes measure, in ``host``'s words (its client's name)."""
    who = host.client if host is not None else "the host"
    label = host.labels.catalog if host is not None else "index"
    return (
        ("budget.index", label, f"the {label} text the model gets, in {who}'s unit, against {who}'s budget; the "
                                "line under the meter gives the rule and the numbers behind it"),
        ("budget.bodies", "bodies", "the skill bodies one request loads (an agent's required skills and the "
                                    f"selected skill), counted as {who} counts them, against its budget"),
        ("budget.tiktoken", "tiktoken", "a real tokenizer's count (cl100k_base), shown beside the host's own figure; "
                                        "the host's figure is the one it checks"),
        ("budget.window", "window", "from --context-window, or for this session from w (what-if); otherwise the "
                                    "rule under the meter says what the host uses"),
    )


def _wrapped(keys: str, what: str, width: int | None) -> list[str]:
    """``what`` wrapped to ``width`` cells after the keys column; continuation lines start under
    the description (hanging indent)."""
    room = None if width is None else width - KEY_WIDTH
    if room is None or room < 20:
        return [what]
    return textwrap.wrap(what, room) or [""]


def help_content(rows: Iterable[tuple[str, str, str]] | None = None, *, width: int | None = None,
                 sections: Sequence[tuple[str, Sequence[tuple[str, str, str]]]] = HELP_SECTIONS,
                 host: Host | None = None) -> Content:
    """The help text: one keys table per screen, the registered hosts (``host`` marked) and the
    glyph legend. ``rows`` alone gives a single ``Keys`` table. ``width`` (cells) wraps
    descriptions with a hanging indent at :data:`KEY_WIDTH`."""
    if rows is not None:
        sections = (("Keys", tuple(rows)),)
    sections = (*sections, ("Budgets (the meters under the panes)", budget_rows(host)),
                ("Header counts (short labels under 110 columns)", HEADER_ROWS),
                ("Hosts (h cycles them; * = this one)", hosts_rows(host)))
    parts: list[str | tuple[str, str]] = []
    for n, (title, section) in enumerate(sections):
        if n:
            parts.append("\n")
        parts += [(title, "bold"), "\n"]
        for _id, keys, what in section:
            lines = _wrapped(keys, what, width)
            parts += [(f"  {keys:<{KEY_WIDTH - 2}}", "$accent"), f"{lines[0]}\n"]
            for more in lines[1:]:
                parts.append(" " * KEY_WIDTH + more + "\n")
    parts += ["\n", ("Status column (first cell: state, second cell: flag)", "bold"), "\n"]
    for glyph, meaning in LEGEND_ITEMS:
        parts += [(f"  {glyph}  ", "bold"), f"{meaning}\n"]
    parts += ["\nColour only reinforces the glyphs; everything reads without it.\n",
              "Skill text is shown literally: markup and control characters are made visible."]
    return Content.assemble(*parts)


class HelpScreen(ModalScreen[None]):
    """Modal help for ``host`` (marked in the hosts section); ``esc``, ``q`` or ``?`` closes it."""

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

    def __init__(self, host: Host | None = None) -> None:
        super().__init__()
        self.host = host

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(help_content(host=self.host), id="help-text", markup=False)
        yield NoticeLine()
        yield Footer()

    def on_resize(self) -> None:
        self.call_after_refresh(self._rewrap)

    def on_mount(self) -> None:
        self.call_after_refresh(self._rewrap)

    def _rewrap(self) -> None:
        text = self.query_one("#help-text", Static)
        width = text.content_region.width
        if width > 0:
            text.update(help_content(width=width, host=self.host))

    def action_close(self) -> None:
        self.dismiss(None)
