"""The index preview screen (SPEC P1–P7, DESIGN "The TUI"): the exact text the model gets.

Shows the budgeted rendering (:func:`skillshelf.core.render.render_budgeted`) of the current
generation for the host in each form (``index`` / ``list`` / ``verbose``; ``f`` or the tabs switch)
in a read-only ``TextArea`` (fast on 40,000 characters; control characters made visible,
SPEC X1 — copy and save use the exact text). The side list names every truncated
description with its original length and the cap it was cut to (selecting one selects that
description in the text), then every omitted skill with the reason ("over budget"); the summary
gives the budget (characters, SPEC U1), rendered / truncated / omitted / search-only counts and the
token count (tiktoken ``cl100k_base`` or the 4-characters estimate, SPEC U4/T1). When the
configuration says ``includeInstructions: false`` a banner says the index is not in the prompt
(SPEC P7). A host with one catalog form (no :attr:`Feature.FORMS
<skillshelf.core.hosts.base.Feature.FORMS>`) shows its catalog text as its session builds it
(Zhin's ``# Skills (catalog)`` section, SPEC Z3), without the form tabs.

``c`` sends the text to the terminal clipboard (``App.copy_to_clipboard``: an OSC 52 escape —
whether it lands depends on the terminal, so the notice says "sent", not "copied"); ``ctrl+s``
asks for a path (default ``skill_index.txt`` in the catalog's working directory — the project —
and relative paths are taken from there too), asks again before overwriting an existing file,
and writes the plain text as UTF-8. Rendering and token counting run in a worker thread.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, OptionList, Static, Tab, Tabs, TextArea
from textual.widgets.option_list import Option
from textual.widgets.text_area import Selection

from skillshelf.app.budgets import NO_WHAT_IF, SessionBudget, budget_advice, count_tokens, index_budget
from skillshelf.app.catalog_protocol import AppCatalog
from skillshelf.app.worker_errors import ReportsWorkerErrors
from skillshelf.core.advice import FitAdvice
from skillshelf.core.hosts.base import EntryState, Feature, Host, HostSession, PromptSection
from skillshelf.core.model import Generation, SkillEntry
from skillshelf.core.render import Budgeted, Form, normalize_description, render_budgeted
from skillshelf.core.textsafe import encodable, visible
from skillshelf.core.tokens import TokenSpan
from skillshelf.widgets.footer import FittingFooter
from skillshelf.widgets.notice_line import NoticeLine
from skillshelf.widgets.places import distinguishing_parts, short_root_label
from skillshelf.widgets.rows import fit_end, short_location

__all__ = [
    "IndexPreview",
    "IndexPreviewScreen",
    "SavePathScreen",
    "TruncatedEntry",
    "build_preview",
]

#: Default file name for ``ctrl+s`` (in the catalog's working directory).
DEFAULT_SAVE_NAME = "skill_index.txt"
#: Kept for callers: the default as typed when no working directory is known.
DEFAULT_SAVE_PATH = "./" + DEFAULT_SAVE_NAME

_FORMS = (Form.INDEX, Form.LIST, Form.VERBOSE)
_INDEX_LINE = re.compile(r'^  <skill name="([^"]*)"(?: source="([^"]*)")?(?: />|>(.*)</skill>)$')


@dataclass(frozen=True)
class TruncatedEntry:
    """One description the index form cut (SPEC P4–P5): ``original`` is the normalised
    description's length in characters, ``cap`` the uniform cap applied (0 in the name-only
    fallback); ``line`` the 0-based line of the text and ``columns`` the (start, end) character
    columns of the shown description on it."""

    name: str
    location: str
    original: int
    cap: int
    line: int
    columns: tuple[int, int]

    @property
    def cut(self) -> int:
        """Characters removed (original − cap, at least 0)."""
        return max(0, self.original - self.cap)


@dataclass(frozen=True)
class IndexPreview:
    """Everything the screen shows for one form: ``text`` (exact), the ``result`` of
    :func:`render_budgeted`, the ``truncated`` entries (index form only), ``budget`` in characters,
    ``tokens`` of ``text`` (``exact`` False = 4-characters estimate), ``include_instructions``
    (SPEC P7) and ``title`` (what is shown: ``index form`` or ``zhin catalog``)."""

    form: Form
    text: str
    result: Budgeted | None
    truncated: tuple[TruncatedEntry, ...]
    budget: int | None
    tokens: int | None
    exact: bool
    include_instructions: bool
    title: str
    #: what would make every skill fit (index form of a host with search-only exposure), or ``None``
    advice: FitAdvice | None = None
    #: a host sending several prompt sections (Zuno, conformance Z-P): each section, in prompt
    #: order; ``text`` is then the whole prompt and ``truncated`` lines count from its start
    sections: tuple[PromptSection, ...] = ()
    #: the host's own unit for ``budget`` and ``used`` (Claude Code: columns, Codex: tokens)
    unit: str = "characters"
    #: what the host counts against ``budget`` when it is not the text's length (``None``: the length)
    used: int | None = None
    #: a host with one catalog form: every entry it shortened or left out — (name, locator, what)
    host_cuts: tuple[tuple[str, str, str], ...] = ()


def truncated_entries(entries: Sequence[SkillEntry], result: Budgeted) -> tuple[TruncatedEntry, ...]:
    """The index-form lines of ``result.text`` whose description was cut (SPEC P5), in text order.

    Each line is matched back to its entry by ``source`` attribute (duplicate names) or by name;
    an entry counts when its name is in ``result.truncated_names`` and its normalised description
    is longer than ``result.cap`` (every kept entry in the name-only fallback, ``cap`` 0)."""
    if result.cap is None or not result.truncated:
        return ()
    cap = result.cap
    names = set(result.truncated_names)
    by_location = {e.location: e for e in entries}
    by_name: dict[str, SkillEntry] = {}
    for e in entries:
        if e.indexed:
            by_name.setdefault(e.name, e)
    out: list[TruncatedEntry] = []
    for i, line in enumerate(result.text.split("\n")):
        m = _INDEX_LINE.match(line)
        if not m:
            continue
        name = html.unescape(m.group(1))
        if name not in names:
            continue
        entry = by_location.get(html.unescape(m.group(2))) if m.group(2) is not None else by_name.get(name)
        if entry is None:
            continue
        original = len(normalize_description(entry.catalog_description))
        if original <= cap and cap != 0:
            continue
        start = m.start(3) if m.group(3) is not None else len(line)
        end = m.end(3) if m.group(3) is not None else len(line)
        out.append(TruncatedEntry(name, entry.location, original, cap, i, (start, end)))
    return tuple(out)


def _tokens(text: str, count: bool, spans: Sequence[TokenSpan] = ()) -> tuple[int | None, bool]:
    if not count:
        return None, False
    counted = count_tokens(text, spans)
    return counted.tokens, counted.exact


def build_preview(generation: Generation, form: Form, budget: int | None, *, include_instructions: bool = True,
                  session: HostSession | None = None, context_window: int | None = None, title: str = "catalog",
                  tokens: bool = True, prompt_session: HostSession | None = None) -> IndexPreview:
    """Render ``generation`` for the preview (pure apart from token counting).

    A ``session`` whose host has one catalog form (no :attr:`Feature.FORMS`): that host's
    catalog text for ``context_window`` tokens, no budget result. Otherwise
    ``render_budgeted(generation.entries(), form, budget)`` (SPEC P5–P6; ``budget`` is then
    required); with a ``prompt_session`` whose host sends several prompt sections (Zuno,
    conformance Z-P), the index form shows the whole prompt — every section as the host joins
    them — and counts its tokens. ``tokens`` False skips counting (``tokens`` is then ``None``)."""
    if session is not None:
        model = session.catalog(generation, context_window=context_window)
        n, exact = _tokens(model.text, tokens, model.token_spans)
        cuts: list[tuple[str, str, str]] = []
        for e in model.entries:  # what the host itself shortened or left out, in its catalog order
            if e.state is EntryState.CUT:
                cuts.append((e.name, e.location, f"description cut to {len(e.shown or ''):,} characters"))
            elif e.state is EntryState.NAME_ONLY:
                cuts.append((e.name, e.location, "name only"))
            elif e.state is EntryState.OMITTED:
                cuts.append((e.name, e.location, "over budget"))
        own = model.unit != "characters"
        return IndexPreview(form, model.text, None, (), model.budget if budget is None else budget, n, exact,
                            include_instructions, title, unit=model.unit, used=model.used if own else None,
                            host_cuts=tuple(cuts))
    if budget is None:
        raise ValueError("a render form needs a budget in characters")
    entries = generation.entries()
    result = render_budgeted(entries, form, budget)
    cut = truncated_entries(entries, result) if form is Form.INDEX else ()
    if form is Form.INDEX and prompt_session is not None:
        model = prompt_session.catalog(generation, context_window=context_window, budget=budget)
        if model.sections and result.text and result.text in model.text:
            # the whole prompt as the host sends it; the render's lines move down past the sections before it
            shift = model.text[:model.text.index(result.text)].count("\n")
            cut = tuple(replace(t, line=t.line + shift) for t in cut)
            n, exact = _tokens(model.text, tokens, model.token_spans)
            return IndexPreview(form, model.text, result, cut, budget, n, exact, include_instructions,
                                "index form · whole prompt", sections=model.sections)
    n, exact = _tokens(result.text, tokens)
    return IndexPreview(form, result.text, result, cut, budget, n, exact, include_instructions, f"{form.value} form")


def search_only_note(form: Form) -> str:
    """How search-only skills appear in ``form`` (SPEC E1): the index form counts them but does
    not list them; the list and verbose forms list them."""
    return "counted, not listed" if form is Form.INDEX else "listed"


def summary_content(p: IndexPreview) -> Content:
    """The summary block above the side list (numbers with thousands separators); the
    search-only count says per form whether they are listed (:func:`search_only_note`)."""
    parts: list[str | tuple[str, str]] = [(p.title, "bold"), "\n"]
    parts.append(f"budget {p.budget:,} {p.unit}\n" if p.budget is not None else "no budget\n")
    if p.used is not None:
        parts.append(f"counted {p.used:,} {p.unit} (as the client counts)\n")
    if p.sections and p.result is not None:
        parts.append(f"budgeted {len(p.result.text):,} characters (the index render)\n")
        parts.append("sections ")
        parts.append(" + ".join(f"{x.name} {x.characters:,}" + (" (stand-in)" if x.stand_in else "")
                                for x in p.sections))
        parts.append("\n")
    parts.append(f"text   {len(p.text):,} characters")
    if p.tokens is not None:
        parts.append(f" · {p.tokens:,} tokens (tiktoken)" if p.exact else f" · ~{p.tokens:,} tokens (characters ÷ 4)")
    parts.append("\n")
    r = p.result
    if r is not None:
        parts.append(f"{r.rendered:,} rendered · ")
        parts.append((f"{r.truncated:,} truncated", "$warning" if r.truncated else ""))
        if r.cap is not None and r.truncated:
            parts.append(f" (descriptions cut to {r.cap:,} characters)" if r.cap else " (names only)")
        parts.append("\n")
        parts.append((f"{r.omitted:,} omitted", "$error" if r.omitted else ""))
        parts.append(f" · {r.search_only:,} search-only ({search_only_note(p.form)})\n")
    if p.advice is not None:
        parts += ["\n", ("To fit every skill in full:", "bold"), "\n", (p.advice.words(), "$accent"), "\n",
                  ", ".join(visible(n) for n in p.advice.names), "\n",
                  ("p: preview this change in the picker (nothing is written before ctrl+s there)",
                   "$foreground-muted"), "\n"]
    return Content.assemble(*parts)


class PreviewComputed(Message):
    """The worker rendered ``preview``."""

    def __init__(self, preview: IndexPreview) -> None:
        super().__init__()
        self.preview = preview


class SavePathScreen(ModalScreen[str | None]):
    """Ask for a file path (``enter`` accepts, ``escape`` cancels); returns the absolute path
    (relative input is taken from ``base``, ``~`` expanded) or ``None``. An existing file is not
    accepted at once: the dialog says so and a second ``enter`` on the same path overwrites."""

    DEFAULT_CSS = """
    SavePathScreen { align: center middle; }
    SavePathScreen > Vertical { width: 76; max-width: 96%; height: auto; border: round $primary;
        background: $surface; padding: 0 1; }
    SavePathScreen #save-keys { color: $foreground-muted; }
    SavePathScreen #save-warning { color: $warning; height: auto; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="save.cancel")]

    def __init__(self, default: str = DEFAULT_SAVE_PATH, *, base: str | None = None) -> None:
        super().__init__()
        self.default = default
        self.base = base or os.getcwd()
        self._confirm: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"Save the preview text to (relative to {visible(self.base)}):", markup=False)
            yield Input(value=self.default, id="save-path")
            yield Static("", id="save-warning", markup=False)
            yield Static("enter save · esc cancel", id="save-keys", markup=False)
            yield NoticeLine()

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def full_path(self, typed: str) -> str:
        """The absolute path ``typed`` names (``~`` expanded, relative to :attr:`base`)."""
        return os.path.normpath(os.path.join(self.base, os.path.expanduser(typed)))

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        self._confirm = None
        self.query_one("#save-warning", Static).update("")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        typed = event.value.strip()
        if not typed:
            self.dismiss(None)
            return
        full = self.full_path(typed)
        if os.path.exists(full) and self._confirm != full:
            self._confirm = full
            self.query_one("#save-warning", Static).update(
                f"{visible(full)} exists: enter again to overwrite it, or change the path.")
            return
        self.dismiss(full)

    def action_cancel(self) -> None:
        self.dismiss(None)


def save_text(path: str, text: str, *, base: str | None = None) -> str:
    """Write ``text`` (UTF-8, exactly, no newline added; a lone surrogate, which UTF-8 cannot
    hold, as its escape text ``\\ud800``) to ``path`` (``~`` expanded, relative to ``base``,
    default the process's working directory); returns the absolute path. The text is encoded
    before the file is opened, so a failure never leaves an emptied file. Raises ``OSError``."""
    full = os.path.normpath(os.path.join(base or os.getcwd(), os.path.expanduser(path)))
    data = encodable(text).encode("utf-8")
    with open(full, "wb") as fh:
        fh.write(data)
    return full


class IndexPreviewScreen(ReportsWorkerErrors, Screen[None]):
    """The exact prompt index (see the module docstring). ``context_window`` (tokens) is the
    session what-if window, ``None`` for the catalog's own budget."""

    DEFAULT_CSS = """
    IndexPreviewScreen #ip-title { height: 1; padding: 0 1; background: $panel; text-style: bold; }
    IndexPreviewScreen #ip-banner { height: auto; padding: 0 1; color: $warning; display: none; }
    IndexPreviewScreen #ip-banner.shown { display: block; }
    IndexPreviewScreen #ip-body { height: 1fr; }
    IndexPreviewScreen #ip-text { width: 1fr; height: 1fr; }
    IndexPreviewScreen #ip-side { width: 34%; min-width: 28; max-width: 60; height: 1fr; border: round $primary 40%; }
    IndexPreviewScreen #ip-summary { height: auto; }
    IndexPreviewScreen #ip-cuts { height: 1fr; border: none; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    BINDINGS = [
        Binding("f", "next_form", "Form", id="preview.form"),
        Binding("c", "copy", "Copy", id="preview.copy"),
        Binding("ctrl+s", "save", "Save", id="preview.save"),
        Binding("p", "preview_advice", "Fit all: preview", id="preview.advice"),
        Binding("escape", "close", "Close", id="preview.close"),
        Binding("q", "close", "Close", show=False, id="preview.close-q"),
    ]

    def __init__(self, catalog: AppCatalog, generation: Generation, *, budget: SessionBudget = NO_WHAT_IF,
                 form: Form = Form.INDEX, after_write: Callable[[int], Generation] | None = None) -> None:
        super().__init__()
        self.catalog = catalog
        #: Given to the picker ``p`` opens: the generation that shows a write made when the
        #: catalog's generation was that number (one generation step per write).
        self.after_write = after_write
        self.generation = generation
        self.session_budget = budget
        self.form = Form(form)
        #: The catalog budget in characters (``None``: the host has none).
        self.budget = index_budget(catalog, budget)
        self.include_instructions = catalog.config.include_instructions
        self.host: Host = catalog.host
        self.preview: IndexPreview | None = None
        self._where_words = ""

    def compose(self) -> ComposeResult:
        yield Static(id="ip-title", markup=False)
        yield Tabs(*(Tab(f.value, id=f"form-{f.value}") for f in _FORMS), active=f"form-{self.form.value}", id="ip-forms")
        yield Static(id="ip-banner", markup=False)
        with Horizontal(id="ip-body"):
            yield TextArea("", id="ip-text", read_only=True, soft_wrap=False, show_line_numbers=True, show_cursor=False)
            with Vertical(id="ip-side"):
                yield Static(id="ip-summary", markup=False)
                yield OptionList(id="ip-cuts")
        yield NoticeLine()
        yield FittingFooter()

    def on_mount(self) -> None:
        self.query_one("#ip-side").border_title = "Cut by the budget"
        session = self.session_budget
        window = session.context_window if session.context_window is not None else self.catalog.context.context_window
        where = (f"window {window:,} tokens for this session" if session.context_window is not None
                 else (f"window {window:,} tokens" if window else "window unknown"))
        if not session.replaces_max_context_tokens:
            mct = self.catalog.config.max_context_tokens
            if mct is not None:
                where += f" · maxContextTokens {mct:,}"
        elif session.max_context_tokens is None:
            where += " · maxContextTokens unset for this session"
        else:
            where += f" · maxContextTokens {session.max_context_tokens:,} for this session"
        self._where_words = where
        self._show_title("")
        banner = self.query_one("#ip-banner", Static)
        if not self.include_instructions:
            banner.update("includeInstructions: false — the index and the trigger policy are NOT in the prompt; "
                          "list and search still work. Below: what the index would be.")
            banner.add_class("shown")
        if Feature.FORMS not in self.host.features:
            self.query_one("#ip-forms", Tabs).display = False  # one catalog section, no forms
        self.query_one("#ip-text", TextArea).focus()
        self.recompute()

    def _show_title(self, unit: str) -> None:
        """The title line; ``unit``: the budget's (the host's own, known once rendered)."""
        budget = (f"budget {self.budget:,}" + (f" {unit}" if unit else "")) if self.budget is not None else "no budget"
        self.query_one("#ip-title", Static).update(
            f"Index preview — {visible(self.host.describe())} — generation "
            f"{self.generation.number} — {budget} ({self._where_words})")

    # ------------------------------------------------------------------ compute
    def recompute(self) -> None:
        """Render the current form in a worker."""
        self.query_one("#ip-summary", Static).update("rendering…")
        self.render_preview(self.form)

    @work(thread=True, exclusive=True, group="index-preview", exit_on_error=False, description="render index")
    def render_preview(self, form: Form) -> None:
        preview = build_preview(
            self.generation, form, self.budget, include_instructions=self.include_instructions,
            session=None if Feature.FORMS in self.host.features else self.catalog.session,
            context_window=self.session_budget.context_window, title=f"{self.host.name} {self.host.labels.catalog}",
            prompt_session=self.catalog.session)
        if form is Form.INDEX and self.include_instructions:
            preview = replace(preview, advice=budget_advice(self.catalog, self.generation, self.session_budget))
        self.post_message(PreviewComputed(preview))

    @on(PreviewComputed)
    def _computed(self, event: PreviewComputed) -> None:
        p = event.preview
        if p.form is not self.form:
            return
        self.preview = p
        area = self.query_one("#ip-text", TextArea)
        # shown made visible (SPEC X1); copy and save use the exact text
        area.load_text(visible(p.text, multiline=True))
        self.query_one("#ip-summary", Static).update(summary_content(p))
        options: list[Option] = []
        names = [t.name for t in p.truncated]
        for i, t in enumerate(p.truncated):
            where = self._where(t.location) if names.count(t.name) > 1 else ""
            options.append(Option(Content.assemble(
                ("✂ ", "$warning"), visible(t.name), f"  {t.original:,} → {t.cap:,} (−{t.cut:,})",
                (where, "$foreground-muted")), id=f"t{i}"))
        if p.result is not None:
            omitted = list(p.result.omitted_names)
            for name in omitted:
                where = ""
                if omitted.count(name) > 1 or name in names:
                    where = " (" + ", ".join(self._provenances(name)) + ")"
                options.append(Option(Content.assemble(("✗ ", "$error"), visible(name), (where, "$foreground-muted"),
                                                       ("  over budget", "$error"))))
        for name, location, what in p.host_cuts:
            where = self._where(location) if [c[0] for c in p.host_cuts].count(name) > 1 else ""
            style = "$error" if what == "over budget" else "$warning"
            options.append(Option(Content.assemble(("✗ " if what == "over budget" else "✂ ", style), visible(name),
                                                   (where, "$foreground-muted"), (f"  {what}", style))))
        if not options:
            options.append(Option(Content("nothing truncated or omitted"), disabled=True))
        self._show_title(p.unit)
        cuts = self.query_one("#ip-cuts", OptionList)
        cuts.set_options(options)

    def _where(self, location: str) -> str:
        """`` (project .zuno …/.zuno/…)`` — the root label and the part of the path that tells
        same-name entries apart (as the catalog rows show them)."""
        for s in self.generation.sources:
            if s.location == location:
                copies = [c.location for c in self.generation.sources if c.name == s.name]
                apart = distinguishing_parts(copies, self.catalog.context.env.home).get(location, "")
                place = apart or fit_end(visible(short_location(s)), 24)
                return f" ({visible(short_root_label(s.provenance))} {visible(place)})"
        return f" ({fit_end(visible(location), 24)})"

    def _provenances(self, name: str) -> list[str]:
        return [short_root_label(s.provenance) for s in self.generation.sources if s.name == name and s.enabled]

    @on(OptionList.OptionHighlighted, "#ip-cuts")
    def _cut_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        oid = event.option.id
        if self.preview is None or not oid or not oid.startswith("t"):
            return
        t = self.preview.truncated[int(oid[1:])]
        area = self.query_one("#ip-text", TextArea)
        line = self.preview.text.split("\n")[t.line]
        start, end = (len(visible(line[:c])) for c in t.columns)
        area.selection = Selection((t.line, start), (t.line, end))
        area.scroll_cursor_visible(center=True)

    @on(Tabs.TabActivated, "#ip-forms")
    def _tab(self, event: Tabs.TabActivated) -> None:
        tab_id = event.tab.id or ""
        form = Form(tab_id.removeprefix("form-")) if tab_id.startswith("form-") else self.form
        if form is not self.form:
            self.form = form
            self.recompute()

    # ------------------------------------------------------------------ actions
    def action_next_form(self) -> None:
        nxt = _FORMS[(_FORMS.index(self.form) + 1) % len(_FORMS)]
        self.query_one("#ip-forms", Tabs).active = f"form-{nxt.value}"

    def action_copy(self) -> None:
        """``c``: send the exact text to the terminal clipboard (OSC 52; the terminal decides)."""
        if self.preview is None:
            return
        self.app.copy_to_clipboard(encodable(self.preview.text))  # OSC 52 carries UTF-8 only
        self.notify(f"{len(self.preview.text):,} characters sent to the terminal clipboard (OSC 52).", timeout=4)

    @property
    def save_base(self) -> str:
        """Where ``ctrl+s`` saves relative paths: the catalog's working directory (the project)."""
        return self.catalog.context.cwd

    def action_save(self) -> None:
        """``ctrl+s``: ask for a path (confirming an overwrite) and write the exact text."""
        if self.preview is None:
            return
        text = self.preview.text
        base = self.save_base

        def done(path: str | None) -> None:
            if not path:
                return
            try:
                full = save_text(path, text, base=base)
            except OSError as exc:
                self.notify(visible(f"Not saved: {path}: {exc.strerror or exc}"), severity="error", timeout=8, markup=False)
                return
            self.notify(f"Saved {len(text):,} characters to {visible(full)}", timeout=5, markup=False)

        self.app.push_screen(SavePathScreen(DEFAULT_SAVE_NAME, base=base), done)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``p`` only while there is budget advice to preview."""
        if action == "preview_advice":
            return self.preview is not None and self.preview.advice is not None
        return True

    def action_preview_advice(self) -> None:
        """``p``: the picker over the advised skills with search-only preset for each (the exact
        ``skills.config`` change shows there; nothing is written before its ``ctrl+s``). When it
        closes, the preview is shown again for the catalog's newest generation."""
        advice = self.preview.advice if self.preview is not None else None
        if advice is None:
            return
        from skillshelf.app.screens.picker import AmbiguityPicker
        from skillshelf.core.configwrite import Choice

        catalog = self.catalog
        picker = AmbiguityPicker(catalog, self.generation, list(dict.fromkeys(advice.names)),
                                 choices=dict.fromkeys(advice.locations, Choice.SEARCH), after_write=self.after_write)

        def closed(_result: object = None) -> None:
            if catalog.current.number != self.generation.number:
                self.generation = catalog.current
                self.recompute()

        self.app.push_screen(picker, closed)

    def action_close(self) -> None:
        self.app.pop_screen()
