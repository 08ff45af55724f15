"""What-if: change the context window or ``maxContextTokens`` and watch the budgets (SPEC U1–U2, P5).

Nothing is written to any file. The window box has the focus when the dialog opens, so typing a
number works at once (``128k``, ``1M``, ``200,000`` all parse; typing is debounced, ~100 ms);
``↑`` / ``↓`` step through the presets (32k / 128k / 200k / 1M tokens), which are also buttons —
no key of the dialog is a digit or a letter, so none can swallow what is typed. Every change
recomputes, in a worker thread, the catalog budget and text (for hosts with render forms
``index_budget_chars`` and ``render_budgeted``, U1 and P5; for the others the host's own
catalog), the list of skills whose descriptions would be truncated (original length → cap) or
that would be dropped ("over budget"), and the selected-body budget (U2). Each budget is said
in words, whose rule it is and how it follows from the inputs. ``maxContextTokens`` wins over
the window (U1): clear that box to see the window's effect.

``enter`` applies both boxes to the session (posts :class:`WhatIfScreen.Applied` with a
:class:`~skillshelf.app.budgets.SessionBudget`; an empty ``maxContextTokens`` box means unset for
the session): the main screen's meters, the index preview (``i``) and the next what-if start
from them, and the dialog's ``Now:`` line shows the session values at once. No configuration
file is changed. ``escape`` closes. The ``maxContextTokens`` box is shown only for hosts with a
configuration (:attr:`Feature.CONFIG <skillshelf.core.hosts.base.Feature.CONFIG>`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, Input, Label, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from skillshelf.app.budgets import (
    NO_WHAT_IF,
    SessionBudget,
    budget_advice,
    index_budget,
    index_rule_words,
    selected_words,
)
from skillshelf.app.catalog_protocol import AppCatalog
from skillshelf.app.screens.index_preview import TruncatedEntry, truncated_entries
from skillshelf.app.timings import DEFAULT_TIMINGS, Timings
from skillshelf.app.worker_errors import ReportsWorkerErrors
from skillshelf.core.advice import FitAdvice
from skillshelf.core.budget import index_budget_chars, index_budget_rule, selected_budget_rule, selected_budget_tokens
from skillshelf.core.hosts.base import EntryState, Feature
from skillshelf.core.model import Generation
from skillshelf.core.render import Budgeted, Form, render_budgeted
from skillshelf.core.textsafe import visible
from skillshelf.widgets.budget_meter import BudgetMeter
from skillshelf.widgets.footer import FittingFooter
from skillshelf.widgets.notice_line import NoticeLine

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
    ``None``), ``budget`` (the catalog budget in ``unit``, U1; ``None``: the host has no budget)
    and what is ``used`` of it, the catalog ``text``, the ``truncated`` descriptions and the
    ``omitted`` names, ``selected_budget`` (tokens, U2; ``None``: none), both budgets' rules in
    words and, for hosts with render forms, the index ``result`` (P5)."""

    context_window: int | None
    max_context_tokens: int | None
    budget: int | None
    text: str
    truncated: tuple[TruncatedEntry, ...]
    omitted: tuple[str, ...]
    selected_budget: int | None
    result: Budgeted | None = None
    #: what counts against ``budget``, in ``unit`` (``characters``; the host's own: Codex ``tokens``)
    used: int = 0
    unit: str = "characters"
    #: the catalog budget's rule and the selected-body budget's, in words
    rule: str = ""
    selected_rule: str = ""
    #: what would make every skill fit this budget (hosts with search-only exposure), or ``None``
    advice: FitAdvice | None = None


def compute_whatif(generation: Generation, *, context_window: int | None, max_context_tokens: int | None,
                   max_selected_context_tokens: int | None = None) -> WhatIf:
    """Pure: the budgets and the budgeted index of ``generation`` for these inputs (SPEC U1, U2, P5)."""
    budget = index_budget_chars(max_context_tokens=max_context_tokens, context_window=context_window)
    entries = generation.entries()
    result = render_budgeted(entries, Form.INDEX, budget)
    selected = selected_budget_tokens(context_window=context_window,
                                      max_selected_context_tokens=max_selected_context_tokens)
    return WhatIf(context_window, max_context_tokens, budget, result.text, truncated_entries(entries, result),
                  tuple(result.omitted_names), selected, result, len(result.text), "characters",
                  index_budget_rule(max_context_tokens=max_context_tokens, context_window=context_window),
                  selected_budget_rule(context_window=context_window,
                                       max_selected_context_tokens=max_selected_context_tokens))


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
    selected = session.selected_budget(context_window)
    return WhatIf(context_window, None, model.budget, model.text, tuple(cuts), omitted, selected, None,
                  model.used, model.unit, model.budget_rule, selected_words(catalog, context_window, selected))


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
    WhatIfScreen #wi-how { height: auto; color: $foreground-muted; }
    WhatIfScreen #wi-controls, WhatIfScreen #wi-mct-row { height: 1; }
    WhatIfScreen #wi-controls Label, WhatIfScreen #wi-mct-row Label { padding: 0 1 0 0; }
    WhatIfScreen #wi-controls Button { min-width: 5; width: auto; margin: 0 1 0 0; }
    WhatIfScreen #wi-mct-note { color: $foreground-muted; }
    WhatIfScreen #wi-window { width: 12; }
    WhatIfScreen #wi-mct { width: 10; }
    WhatIfScreen #wi-now, WhatIfScreen #wi-bodies, WhatIfScreen #wi-error { height: auto; }
    WhatIfScreen #wi-advice { height: auto; max-height: 2; text-overflow: ellipsis; }
    WhatIfScreen #wi-error { color: $error; }
    WhatIfScreen #wi-lower { height: 1fr; min-height: 4; }
    WhatIfScreen #wi-cuts { width: 40%; min-width: 24; max-width: 50; height: 1fr; border: round $primary 40%; text-wrap: nowrap; text-overflow: ellipsis; }
    WhatIfScreen #wi-text { width: 1fr; height: 1fr; }
    """

    #: No key here is a digit or a letter: the window box has the focus and takes what is typed.
    BINDINGS = [
        Binding("up", "step_preset(1)", "Next preset", id="whatif.preset-up"),
        Binding("down", "step_preset(-1)", "Previous preset", id="whatif.preset-down"),
        Binding("enter", "apply_session", "Apply to session", id="whatif.apply", priority=True),
        Binding("escape", "close", "Close", id="whatif.close"),
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
        #: the window the host uses now (``--context-window``, else its own resolution: the
        #: configured model's window …) and where it came from, in words
        own_window = catalog.session.window()
        self.catalog_window: int | None = own_window.tokens or None
        self.catalog_window_words = own_window.describe()
        #: Session values in force when opened / after ``enter``.
        self.session = budget
        self.start_window = budget.context_window if budget.context_window is not None else self.catalog_window
        self.start_mct = budget.max_context_tokens if budget.replaces_max_context_tokens else self.config_mct
        self.current: WhatIf | None = None
        self._seq = 0
        self._timer: Timer | None = None

    def how_text(self) -> str:
        """The line under the title: how to use the dialog."""
        return ("Type a window in tokens (128k, 1M, 200,000): the budgets follow as you type. ↑ ↓ presets. "
                "Enter: use it for this session only. Esc: close.")

    def compose(self) -> ComposeResult:
        with Vertical(id="wi-box"):
            yield Static("What-if: another context window — nothing is written", id="wi-title", markup=False)
            yield Static(self.how_text(), id="wi-how", markup=False)
            with Horizontal(id="wi-controls"):
                yield Label("window")
                yield Input(str(self.start_window) if self.start_window else "", placeholder="unknown",
                            id="wi-window", compact=True)
                yield Label(" tokens ")
                for i, (label, _value) in enumerate(PRESETS):
                    yield Button(label, id=f"wi-preset-{i}", compact=True)
            with Horizontal(id="wi-mct-row"):
                yield Label("maxContextTokens")
                yield Input(str(self.start_mct) if self.start_mct else "", placeholder="unset", id="wi-mct",
                            compact=True)
                yield Label(" when set, it decides, not the window", id="wi-mct-note")
            yield Static(id="wi-now", markup=False)
            yield BudgetMeter(id="wi-meter")
            yield Static(id="wi-bodies", markup=False)
            yield Static(id="wi-advice", markup=False)
            yield Static(id="wi-error", markup=False)
            with Horizontal(id="wi-lower"):
                yield OptionList(id="wi-cuts")
                yield TextArea("", id="wi-text", read_only=True, soft_wrap=False, show_cursor=False)
            yield NoticeLine()
        yield FittingFooter()

    def on_mount(self) -> None:
        self.query_one("#wi-cuts").border_title = "Truncated / dropped"
        self.query_one(BudgetMeter).label = f"what-if {self.catalog.host.labels.catalog}"
        self.query_one("#wi-mct-row").display = self.has_config
        self._show_now()
        self.query_one("#wi-window", Input).focus()  # typing a number works at once
        self.recompute()

    def now_text(self) -> str:
        """The ``now:`` line: the catalog budget in force for this session (its applied what-if
        values, else the catalog's own) and what decides it, in words."""
        now = index_budget(self.catalog, self.session)
        host = self.catalog.host
        label = host.labels.catalog
        # the host's own unit (Claude: columns, Codex: tokens), known once the first outcome is in
        unit = f" {self.current.unit}" if self.current is not None else ""
        parts = [f"Now: {label} budget {now:,}{unit}" if now is not None
                 else f"Now: {host.client} sets no {label} budget"]
        session = self.session
        if not session.replaces_max_context_tokens:
            if self.config_mct is not None:
                parts.append(f"maxContextTokens {self.config_mct:,} (configuration) decides it")
        elif session.max_context_tokens is None:
            parts.append("maxContextTokens unset for this session")
        else:
            parts.append(f"maxContextTokens {session.max_context_tokens:,} (this session) decides it")
        if session.context_window is not None:
            parts.append(f"window {session.context_window:,} tokens for this session")
        else:
            # its reason in brackets is the bodies line's below: said once at 80 columns
            parts.append(f"window: {self.catalog_window_words.split(' (', 1)[0]}")
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
            self.query_one("#wi-window", Input).focus()  # what is typed next goes to the box again

    def action_preset(self, index: int) -> None:
        """Set the window box to preset ``index`` of :data:`PRESETS` and recompute now."""
        box = self.query_one("#wi-window", Input)
        with box.prevent(Input.Changed):
            box.value = str(PRESETS[index][1])
            box.cursor_position = len(box.value)
        self.recompute()

    def action_step_preset(self, step: int) -> None:
        """``↑`` / ``↓``: the next larger / smaller preset than the window typed (from an empty
        or unreadable box: the smallest / largest)."""
        try:
            typed = parse_tokens(self.query_one("#wi-window", Input).value)
        except ValueError:
            typed = None
        values = [v for _label, v in PRESETS]
        if typed is None:
            index = 0 if step > 0 else len(values) - 1
        elif step > 0:
            index = next((i for i, v in enumerate(values) if v > typed), len(values) - 1)
        else:
            index = next((i for i in reversed(range(len(values))) if values[i] < typed), 0)
        self.action_preset(index)

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
            # the host's own words (where the window came from, its units) when the boxes hold
            # what the host itself would use; a typed maxContextTokens is said here
            own = self.catalog.session.catalog(self.generation, context_window=window)
            whatif = replace(whatif, rule=own.budget_rule if mct == self.config_mct else whatif.rule,
                             selected_rule=own.selected_rule or whatif.selected_rule)
        else:
            whatif = host_whatif(self.catalog, self.generation, context_window=window)
        if whatif.truncated or whatif.omitted:
            replaces = self.has_config and mct != self.config_mct
            advice = budget_advice(self.catalog, self.generation, SessionBudget(window, mct if replaces else None, replaces))
            whatif = replace(whatif, advice=advice)
        self.post_message(WhatIfComputed(seq, whatif))

    @on(WhatIfComputed)
    def _computed(self, event: WhatIfComputed) -> None:
        if event.seq != self._seq:
            return
        w = event.whatif
        self.current = w
        self._show_now()  # its unit is the outcome's
        host = self.catalog.host
        meter = self.query_one(BudgetMeter)
        meter.used, meter.limit, meter.unit, meter.tokens = w.used, w.budget, w.unit, None
        meter.truncated, meter.omitted = len(w.truncated), len(w.omitted)
        meter.rule = index_rule_words(host, w.budget, w.rule)
        meter.message, meter.pending = "", False
        bodies = (f"{host.client}'s budget for the skill bodies one request loads: {w.selected_rule}"
                  if w.selected_budget is not None else f"{host.client} sets no budget for the skill bodies a request loads")
        self.query_one("#wi-bodies", Static).update(Content(bodies))
        advice = self.query_one("#wi-advice", Static)
        if w.advice is not None:
            advice.update(Content.assemble(("To fit every skill: ", "bold"), (w.advice.words(), "$accent"), " — ",
                                           ", ".join(visible(n) for n in w.advice.names)))
        advice.display = w.advice is not None
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
        self.notify(f"This session: {what} (the meters and the index preview use it; no file changed).", timeout=4)

    def action_close(self) -> None:
        self.dismiss(None)
