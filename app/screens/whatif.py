"""What-if: change the context window or ``maxContextTokens`` and watch the index budget (SPEC U1–U2, P5).

Nothing is written to any file. Presets (``1``–``4`` or the buttons: 32k / 128k / 200k / 1M
tokens) or free entry in the two boxes (``128k``, ``1M``, ``200,000`` all parse); typing is
debounced (~100 ms). Every change recomputes, in a worker thread,
``index_budget_chars(max_context_tokens=…, context_window=…)`` (characters, U1) and
``render_budgeted(entries, Form.INDEX, budget)`` (P5): the meter, the list of skills whose
descriptions would be truncated (original length → cap) or that would be dropped ("over budget"),
the index text itself, and the selected-body budget for that window
(``selected_budget_tokens``, tokens, U2). ``maxContextTokens`` wins over the window (U1): clear
that box to see the window's effect.

``enter`` applies both boxes to the session (posts :class:`WhatIfScreen.Applied` with a
:class:`~skillshelf.app.budgets.SessionBudget`; an empty ``maxContextTokens`` box means unset for
the session): the main screen's meters, the index preview (``i``) and the next what-if start
from them, and the dialog's ``now:`` line shows the session values at once. No configuration file
is changed. ``escape`` closes.

Hosts with several render forms (:attr:`Feature.FORMS <skillshelf.core.hosts.base.Feature.FORMS>`)
are budgeted with SPEC U1 and P5 as above; any other host's catalog comes from its session
(:meth:`HostSession.catalog <skillshelf.core.hosts.base.HostSession.catalog>` for the window; a
host without a budget says so). The ``maxContextTokens`` box is shown only for hosts with a
configuration (:attr:`Feature.CONFIG <skillshelf.core.hosts.base.Feature.CONFIG>`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, Footer, Input, Label, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from skillshelf.app.budgets import NO_WHAT_IF, SessionBudget, index_budget
from skillshelf.app.catalog_protocol import AppCatalog
from skillshelf.app.screens.index_preview import TruncatedEntry, truncated_entries
from skillshelf.app.timings import DEFAULT_TIMINGS, Timings
from skillshelf.app.worker_errors import ReportsWorkerErrors
from skillshelf.core.budget import index_budget_chars, selected_budget_bytes, selected_budget_tokens
from skillshelf.core.hosts.base import EntryState, Feature
from skillshelf.core.model import Generation
from skillshelf.core.render import Budgeted, Form, render_budgeted
from skillshelf.core.textsafe import visible
from skillshelf.widgets.budget_meter import BudgetMeter

__all__ = ["PRESETS", "WhatIf", "WhatIfScreen", "compute_whatif", "host_whatif", "parse_tokens"]

#: Context-window presets in tokens, in key order (``1``–``4``).
PRESETS: tuple[tuple[str, int], ...] = (("32k", 32_000), ("128k", 128_000), ("200k", 200_000), ("1M", 1_000_000))
_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$")


def parse_tokens(text: str) -> int | None:
    """A token count typed by the user: ``32000``, ``32,000``, ``32_000``, ``128k``, ``1M``,
    ``1.5m``. Empty → ``None``. Raises ``ValueError`` for anything else or a value ≤ 0."""
    raw = text.replace(",", "").replace("_", "").strip()
    if not raw:
        return None
    m = _NUMBER.match(raw)
    if not m:
        raise ValueError(f"not a token count: {text!r}")
    value = float(m.group(1)) * {"": 1, "k": 1_000, "m": 1_000_000}[m.group(2).lower()]
    if value < 1:
        raise ValueError(f"must be a positive number of tokens: {text!r}")
    return int(value)


@dataclass(frozen=True)
class WhatIf:
    """One what-if outcome: inputs ``context_window`` / ``max_context_tokens`` (tokens or
    ``None``), ``budget`` (catalog characters, U1; ``None``: the host has no budget), the catalog
    ``text``, the ``truncated`` descriptions and the ``omitted`` names, ``selected_budget``
    (tokens, U2; ``None``: none) and, for hosts with render forms, the index ``result`` (P5)."""

    context_window: int | None
    max_context_tokens: int | None
    budget: int | None
    text: str
    truncated: tuple[TruncatedEntry, ...]
    omitted: tuple[str, ...]
    selected_budget: int | None
    result: Budgeted | None = None


def compute_whatif(generation: Generation, *, context_window: int | None, max_context_tokens: int | None,
                   max_selected_context_tokens: int | None = None) -> WhatIf:
    """Pure: the budgets and the budgeted index of ``generation`` for these inputs (SPEC U1, U2, P5)."""
    budget = index_budget_chars(max_context_tokens=max_context_tokens, context_window=context_window)
    entries = generation.entries()
    result = render_budgeted(entries, Form.INDEX, budget)
    selected = selected_budget_tokens(context_window=context_window,
                                      max_selected_context_tokens=max_selected_context_tokens)
    return WhatIf(context_window, max_context_tokens, budget, result.text, truncated_entries(entries, result),
                  tuple(result.omitted_names), selected, result)


def host_whatif(catalog: AppCatalog, generation: Generation, *, context_window: int | None) -> WhatIf:
    """The catalog of ``generation`` as the host builds it for ``context_window`` tokens (hosts
    without render forms): its text, budget, cut descriptions (original length → shown length)
    and omitted names."""
    session = catalog.session
    model = session.catalog(generation, context_window=context_window)
    by_location = {s.location: s for s in generation.sources}
    cuts = []
    for e in model.entries:
        if e.state in (EntryState.CUT, EntryState.NAME_ONLY):
            source = by_location.get(e.location)
            original = len(" ".join((source.description or "").split())) if source is not None else 0
            cuts.append(TruncatedEntry(e.name, e.location, original, len(e.shown or ""), 0, (0, 0)))
    omitted = tuple(e.name for e in model.entries if e.state is EntryState.OMITTED)
    return WhatIf(context_window, None, model.budget, model.text, tuple(cuts), omitted,
                  session.selected_budget(context_window))


class WhatIfComputed(Message):
    """The worker finished one :class:`WhatIf` (``seq`` orders concurrent requests)."""

    def __init__(self, seq: int, whatif: WhatIf) -> None:
        super().__init__()
        self.seq = seq
        self.whatif = whatif


class WhatIfScreen(ReportsWorkerErrors, ModalScreen[None]):
    """The what-if panel (module docstring). ``budget``: the session's what-if values in force
    (the boxes start from them, else from the catalog's). :attr:`current` is the last outcome."""

    class Applied(Message):
        """``enter``: use ``budget`` for this session."""

        def __init__(self, budget: SessionBudget) -> None:
            super().__init__()
            self.budget = budget

    DEFAULT_CSS = """
    WhatIfScreen { align: center middle; }
    WhatIfScreen > #wi-box { width: 96%; height: 94%; border: round $primary; background: $surface; padding: 0 1; }
    WhatIfScreen #wi-title { height: auto; text-style: bold; }
    WhatIfScreen #wi-presets { height: 1; }
    WhatIfScreen #wi-presets Button { min-width: 5; width: auto; margin: 0 1 0 0; }
    WhatIfScreen #wi-presets Label { color: $foreground-muted; }
    WhatIfScreen #wi-controls { height: 3; }
    WhatIfScreen #wi-controls Label { padding: 1 1 0 0; }
    WhatIfScreen #wi-window { width: 1fr; min-width: 11; max-width: 18; }
    WhatIfScreen #wi-mct { width: 1fr; min-width: 11; max-width: 18; }
    WhatIfScreen #wi-now, WhatIfScreen #wi-bodies, WhatIfScreen #wi-error { height: auto; }
    WhatIfScreen #wi-error { color: $error; }
    WhatIfScreen #wi-lower { height: 1fr; }
    WhatIfScreen #wi-cuts { width: 40%; min-width: 24; max-width: 50; height: 1fr; border: round $primary 40%; text-wrap: nowrap; text-overflow: ellipsis; }
    WhatIfScreen #wi-text { width: 1fr; height: 1fr; }
    """

    BINDINGS = [
        Binding("1", "preset(0)", "32k", id="whatif.preset-32k"),
        Binding("2", "preset(1)", "128k", id="whatif.preset-128k"),
        Binding("3", "preset(2)", "200k", id="whatif.preset-200k"),
        Binding("4", "preset(3)", "1M", id="whatif.preset-1m"),
        Binding("enter", "apply_session", "Apply both to session", id="whatif.apply", priority=True),
        Binding("escape", "close", "Close", id="whatif.close"),
        Binding("q", "close", "Close", show=False, id="whatif.close-q"),
    ]

    def __init__(self, catalog: AppCatalog, generation: Generation, *, budget: SessionBudget = NO_WHAT_IF,
                 timings: Timings = DEFAULT_TIMINGS) -> None:
        super().__init__()
        self.catalog = catalog
        self.generation = generation
        self.timings = timings
        self.forms = Feature.FORMS in catalog.host.features
        self.has_config = Feature.CONFIG in catalog.host.features
        self.config_mct: int | None = catalog.config.max_context_tokens
        self.config_mst: int | None = catalog.config.max_selected_context_tokens
        self.catalog_window: int | None = catalog.context.context_window
        #: Session values in force when opened / after ``enter``.
        self.session = budget
        self.start_window = budget.context_window if budget.context_window is not None else self.catalog_window
        self.start_mct = budget.max_context_tokens if budget.replaces_max_context_tokens else self.config_mct
        self.current: WhatIf | None = None
        self._seq = 0
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="wi-box"):
            if self.has_config:
                title = ("What-if: context window / maxContextTokens — nothing is written; "
                         "enter applies both to this session")
            else:
                title = (f"What-if: context window ({self.catalog.host.describe()}) — nothing is written; "
                         "enter applies it to this session")
            yield Static(title, id="wi-title", markup=False)
            with Horizontal(id="wi-presets"):
                for i, (label, _value) in enumerate(PRESETS):
                    yield Button(label, id=f"wi-preset-{i}", compact=True)
                yield Label("keys 1–4 · enter applies both boxes" if self.has_config else "keys 1–4 · enter applies")
            with Horizontal(id="wi-controls"):
                yield Label("window")
                yield Input(str(self.start_window) if self.start_window else "", placeholder="e.g. 128k",
                            id="wi-window")
                yield Label(" maxContextTokens", id="wi-mct-label")
                yield Input(str(self.start_mct) if self.start_mct else "", placeholder="unset", id="wi-mct")
            yield Static(id="wi-now", markup=False)
            yield BudgetMeter(id="wi-meter")
            yield Static(id="wi-bodies", markup=False)
            yield Static(id="wi-error", markup=False)
            with Horizontal(id="wi-lower"):
                yield OptionList(id="wi-cuts")
                yield TextArea("", id="wi-text", read_only=True, soft_wrap=False, show_cursor=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#wi-cuts").border_title = "Truncated / dropped"
        self.query_one(BudgetMeter).label = f"what-if {self.catalog.host.labels.catalog}"
        for widget_id in ("#wi-mct", "#wi-mct-label"):
            self.query_one(widget_id).display = self.has_config
        self._show_now()
        self.query_one("#wi-cuts").focus()
        self.recompute()

    def now_text(self) -> str:
        """The ``now:`` line: the index budget in force (the session values when set, else the
        catalog's), its ``maxContextTokens`` and window, each marked ``session`` when it comes
        from an applied what-if."""
        now = index_budget(self.catalog, self.session)
        label = self.catalog.host.labels.catalog
        parts = [f"now: {label} budget {now:,} chars" if now is not None else f"now: {label} has no budget"]
        session = self.session
        if not session.replaces_max_context_tokens:
            if self.config_mct is not None:
                parts.append(f"config maxContextTokens {self.config_mct:,} (wins over the window, U1)")
        elif session.max_context_tokens is None:
            parts.append("session maxContextTokens unset")
        else:
            parts.append(f"session maxContextTokens {session.max_context_tokens:,} (wins over the window, U1)")
        if session.context_window is not None:
            parts.append(f"session window {session.context_window:,} tok")
        else:
            parts.append(f"window {self.catalog_window:,} tok" if self.catalog_window else "window unknown")
        return " · ".join(parts)

    def _show_now(self) -> None:
        self.query_one("#wi-now", Static).update(self.now_text())

    # ------------------------------------------------------------------ inputs
    def _inputs(self) -> tuple[int | None, int | None] | None:
        error = self.query_one("#wi-error", Static)
        try:
            window = parse_tokens(self.query_one("#wi-window", Input).value)
            mct = parse_tokens(self.query_one("#wi-mct", Input).value)
        except ValueError as exc:
            error.update(str(exc))
            return None
        error.update("")
        return window, mct

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self.timings.typing_debounce <= 0:
            self.recompute()
        else:
            self._timer = self.set_timer(self.timings.typing_debounce, self.recompute)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        bid = event.button.id or ""
        if bid.startswith("wi-preset-"):
            self.action_preset(int(bid.removeprefix("wi-preset-")))

    def action_preset(self, index: int) -> None:
        """Set the window box to preset ``index`` of :data:`PRESETS` and recompute now."""
        box = self.query_one("#wi-window", Input)
        with box.prevent(Input.Changed):
            box.value = str(PRESETS[index][1])
        self.recompute()

    # ------------------------------------------------------------------ compute
    def recompute(self) -> None:
        """Recompute for the boxes' values (in a worker); invalid input shows an error line."""
        self._timer = None
        values = self._inputs()
        if values is None:
            return
        self._seq += 1
        self.run_whatif(self._seq, values[0], values[1])

    @work(thread=True, exclusive=True, group="whatif", exit_on_error=False, description="what-if")
    def run_whatif(self, seq: int, window: int | None, mct: int | None) -> None:
        """One :class:`WhatIf` for the boxes' values; posts :class:`WhatIfComputed`."""
        if self.forms:
            whatif = compute_whatif(self.generation, context_window=window, max_context_tokens=mct,
                                    max_selected_context_tokens=self.config_mst)
        else:
            whatif = host_whatif(self.catalog, self.generation, context_window=window)
        self.post_message(WhatIfComputed(seq, whatif))

    @on(WhatIfComputed)
    def _computed(self, event: WhatIfComputed) -> None:
        if event.seq != self._seq:
            return
        w = event.whatif
        self.current = w
        meter = self.query_one(BudgetMeter)
        meter.used, meter.limit, meter.tokens = len(w.text), w.budget, None
        meter.truncated, meter.omitted = len(w.truncated), len(w.omitted)
        meter.message, meter.pending = "", False
        window = f"a {w.context_window:,}-token window" if w.context_window else "an unknown window"
        label = self.catalog.host.labels.catalog
        if w.budget is None:
            budget_part = f"no budget for {window}   "
        else:
            if not self.forms:
                why = f"the host's rule for {window}"
            elif w.max_context_tokens is not None:
                why = f"maxContextTokens {w.max_context_tokens:,} → min(v, 10,000) × 4"
            elif w.context_window is not None:
                why = f"2% of a {w.context_window:,}-token window"
            else:
                why = "no window, no maxContextTokens: the 8,000 default"
            budget_part = f"{w.budget:,} chars ({why})   "
        if w.selected_budget is None:
            selected = "no selected-body budget"
        elif self.catalog.host.labels.selected_unit == "bytes":  # Zuno compares UTF-8 bytes (Z-U)
            in_bytes = selected_budget_bytes(context_window=w.context_window, max_selected_context_tokens=self.config_mst)
            selected = f"{in_bytes:,} bytes ({w.selected_budget:,} tok × 4) for {window}"
        else:
            selected = f"{w.selected_budget:,} tok for {window} (U2)"
        self.query_one("#wi-bodies", Static).update(Content.assemble(
            (f"{label} budget ", "bold"), budget_part, ("selected bodies ", "bold"), selected))
        options: list[Option] = []
        for t in w.truncated:
            options.append(Option(Content.assemble(
                ("✂ ", "$warning"), visible(t.name), f"  {t.original:,} → {t.cap:,}")))
        for name in w.omitted:
            options.append(Option(Content.assemble(("✗ ", "$error"), visible(name), ("  over budget", "$error"))))
        if not options:
            options.append(Option(Content("every skill fits in full"), disabled=True))
        self.query_one("#wi-cuts", OptionList).set_options(options)
        self.query_one("#wi-text", TextArea).load_text(visible(w.text, multiline=True))

    # ------------------------------------------------------------------ actions
    def action_apply_session(self) -> None:
        """``enter`` (a priority binding, so it works from the boxes and the list): use both boxes'
        values for the session (posts :class:`Applied`). On a focused preset button it presses
        the button instead."""
        if isinstance(self.focused, Button):
            self.focused.press()
            return
        if self._timer is not None:
            self.recompute()
        values = self._inputs()
        if values is None:
            return
        window, typed_mct = values
        # the configuration's own value typed back (or left as shown) is no session override
        replaces = self.has_config and typed_mct != self.config_mct
        self.session = SessionBudget(window, typed_mct if replaces else None, replaces)
        self.post_message(self.Applied(self.session))
        self._show_now()
        shown = f"{window:,} tokens" if window else "unknown"
        limit = f"{typed_mct:,}" if typed_mct is not None else "unset"
        what = f"context window {shown}" + (f", maxContextTokens {limit}" if self.has_config else "")
        self.notify(f"Session: {what} (meters and index preview use them; no file changed).", timeout=4)

    def action_close(self) -> None:
        self.dismiss(None)
