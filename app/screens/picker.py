"""The skill picker (SPEC K4–K5, DESIGN "The TUI"): decide any skill in ``skills.config`` —
enable, disable, search-only, explicit, index — and resolve a name declared by several sources.

A modal over the main screen, for any name (``a``), or for several at once with preset choices
(:meth:`AmbiguityPicker.preset`, the API other screens use to offer a change to preview). It
shows the sources side by side (a table: choice, what decides the source now, provenance, root,
locator, description, size in bytes, modified time, lint error/warning counts), the rule that
decides the source under the cursor, a unified diff of two bodies, and the exact change to the
target file (entries appended ``+`` and removed ``-``, and why a path is not portable). ``j`` /
``k`` (or the arrows) move the cursor as on the main screen; the choice for the source under the
cursor: ``1`` keep (enabled, its own exposure), ``2`` search-only, ``3`` explicit-only, ``4``
disable, ``5`` index, ``space`` cycles them, ``K`` keeps only this one (every other source of its
name disabled); ``t`` switches the target file (project ``.zuno/zuno.json`` ↔ the global
file ↔ an existing ``.jsonc`` layer; the candidates are recomputed on every ``t`` and after every
write, so a file created meanwhile is offered); ``ctrl+s`` writes through
:func:`skillshelf.core.configwrite.apply_plan` (atomic, ``.bak``, comments kept, portable paths),
rebuilds the catalog and checks the outcome (a wrong outcome is undone, as ``skillshelf resolve``
does), records the write in the undo journal (:mod:`skillshelf.app.undo`) and posts
:class:`AmbiguityPicker.Written`; ``u`` undoes the last write skillshelf made (this session or
an earlier one, CLI or TUI) byte for byte. Choosing a source's former state again removes the
entry skillshelf wrote for it, and restores the file's earlier bytes when that is what it held. When the chosen set leaves the name ambiguous (two or
more sources stay enabled), the plan pane says so before writing and the first ``ctrl+s`` asks
for a second one. Planning and writing never raise into the UI: every
:class:`~skillshelf.core.configwrite.ConfigWriteError` is shown in the preview pane, with the
picker's own advice (``press t to choose another target``) instead of the CLI's.

One generation step per write: the picker is given ``after_write(before)``, which returns the
catalog's next generation (the app's waits for the live watcher when it watches this catalog,
else rescans once); by default ``catalog.refresh()``. The picker is only offered for hosts with
a configuration (:attr:`Feature.CONFIG <skillshelf.core.hosts.base.Feature.CONFIG>`).

Skill text is untrusted (SPEC X1): every cell and diff line is built from plain text made
visible with :func:`skillshelf.core.textsafe.visible`; markup is never parsed.
"""

from __future__ import annotations

import difflib
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, ScrollableContainer, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from skillshelf.app.catalog_protocol import AppCatalog
from skillshelf.app.common import home_short
from skillshelf.app.lint_cache import LintCache
from skillshelf.app.screens.moves import step_cursor
from skillshelf.app.undo import Journal, undo_words
from skillshelf.app.worker_errors import ReportsWorkerErrors
from skillshelf.core.config import RuleEntry
from skillshelf.core.configwrite import (
    Choice,
    ConfigWriteError,
    WritePlan,
    WriteResult,
    apply_plan,
    default_target,
    global_target,
    outcome_problems,
    plan_resolution,
    undo,
)
from skillshelf.core.fileread import read_regular
from skillshelf.core.model import Generation, Severity, Source
from skillshelf.core.paths import find_worktree
from skillshelf.core.textsafe import visible
from skillshelf.widgets.footer import FittingFooter
from skillshelf.widgets.notice_line import NoticeLine

__all__ = [
    "CHOICE_CYCLE",
    "AmbiguityPicker",
    "SourceReading",
    "Target",
    "body_diff",
    "candidate_targets",
    "current_choice",
    "decided_by",
    "default_choices",
    "picker_advice",
    "read_source",
    "stays_ambiguous",
]

#: Most diff lines shown (a longer diff is cut with a note).
DIFF_MAX_LINES = 2_000
#: Config files up to this size (bytes) are planned at once; larger ones in a worker.
PLAN_INLINE_BYTES = 256 * 1024
#: Largest body read per source for the diff, in bytes.
BODY_MAX_BYTES = 256 * 1024

_CHOICE_LABEL = {Choice.KEEP: "keep", Choice.SEARCH: "search-only", Choice.EXPLICIT: "explicit",
                 Choice.DISABLE: "disable", Choice.INDEX: "index"}
#: ``space`` cycles the choice in this order (the digit keys ``1``–``5`` pick one directly; index,
#: rarely wanted, only with ``5``).
CHOICE_CYCLE = (Choice.KEEP, Choice.SEARCH, Choice.EXPLICIT, Choice.DISABLE)
#: Under this many columns the footer drops its spacing (as the main screen's) so ``esc`` stays in view.
COMPACT_FOOTER_BELOW = 100
#: Under this many rows the sources table shows fewer rows, so the change to the file stays readable.
SHORT_BELOW = 30

#: The keys the footer does not show (it shows 1–4, t, ctrl+s, u, esc): one line at 80 columns.
_KEY_HINTS: tuple[tuple[str, str] | str, ...] = (
    ("j k", "bold"), " move  ", ("5", "bold"), " index  ", ("K", "bold"), " keep only this one  ",
    ("space", "bold"), " cycle the choice")


def picker_advice(message: str) -> str:
    """``message`` (a :class:`ConfigWriteError` text) with advice that works in the picker: core's
    ``choose another target file`` becomes ``press t to choose another target``; a CLI flag
    (``--file`` / ``--global``) is never suggested here."""
    out = message.replace("choose another target file", "press t to choose another target")
    out = out.replace("--file or --global", "t").replace("--file", "t (target)").replace("--global", "t (target)")
    return out


def current_choice(source: Source) -> Choice:
    """The choice that describes ``source`` as it is: ``disable`` when disabled, the exposure a
    ``skills.config`` rule sets, else ``keep`` (its own exposure)."""
    if not source.enabled:
        return Choice.DISABLE
    if source.exposure_reason.startswith("skills.config"):
        return Choice(source.exposure.value)
    return Choice.KEEP


def decided_by(source: Source, rule: RuleEntry | None, home: str | None) -> tuple[str, str]:
    """What decides ``source`` now: a short cell (``rule 2``, ``sidecar``, ``default``) and a
    sentence (``skills.config entry 2 in ~/p/.zuno/zuno.json: {"path": "…", "enabled": false}``)."""
    if rule is not None:
        fields: dict[str, str | bool] = {"path": rule.raw_path}
        if not rule.enabled:
            fields["enabled"] = False
        if rule.exposure is not None:
            fields["exposure"] = rule.exposure.value
        if rule.recursive:
            fields["recursive"] = True
        return (f"rule {rule.index + 1}",
                f"skills.config entry {rule.index + 1} in {home_short(rule.origin, home)}: "
                + json.dumps(fields, ensure_ascii=False))
    reason = source.exposure_reason or "default"
    cell = "sidecar" if reason.startswith("sidecar") else ("default" if reason == "default" else reason)
    return cell, f"no skills.config entry; exposure {source.exposure.value} ({reason})"


def stays_ambiguous(choices: Mapping[str, Choice]) -> int:
    """How many sources stay enabled under ``choices`` (keep / search-only / explicit): two or
    more leave the name ambiguous (SPEC D6: search-only and explicit sources are still loadable
    by name)."""
    return sum(1 for c in choices.values() if c is not Choice.DISABLE)


@dataclass(frozen=True)
class Target:
    """A config file the picker can write: ``kind`` (``project`` / ``global`` / ``jsonc``) and
    its absolute ``path`` (it may not exist yet)."""

    kind: str
    path: str


@dataclass(frozen=True)
class SourceReading:
    """What the worker reads for one source: its ``body`` (whole file text, UTF-8 with
    replacement, cut at :data:`BODY_MAX_BYTES`), lint ``errors`` / ``warnings`` counts (for the
    host's lint target; the source's own diagnostics for a built-in) and ``note`` (why reading
    failed, or that it was cut)."""

    location: str
    body: str
    errors: int
    warnings: int
    note: str = ""


def candidate_targets(catalog: AppCatalog) -> list[Target]:
    """The files the picker offers, in ``t`` order (SPEC K5, K1): the project file
    (:func:`~skillshelf.core.configwrite.default_target` at the worktree root, else the catalog's
    working directory), the global file (:func:`~skillshelf.core.configwrite.global_target`), then
    every other existing ``.jsonc`` layer of the loaded configuration. Duplicates are dropped."""
    out: list[Target] = []
    seen: set[str] = set()

    def add(kind: str, path: str | None) -> None:
        if not path:
            return
        key = os.path.normpath(os.path.abspath(path))
        if key in seen:
            return
        seen.add(key)
        out.append(Target(kind, key))

    cwd = catalog.context.cwd
    add("project", default_target(cwd, find_worktree(cwd)))
    xdg = catalog.context.env.xdg_config_home
    if xdg:
        if not os.path.isabs(xdg):
            xdg = os.path.join(cwd, xdg)
        add("global", global_target(xdg))
    for layer in catalog.config.layers:
        if layer.kind != "env-content" and layer.path.endswith(".jsonc") and os.path.isfile(layer.path):
            add("jsonc", layer.path)
    return out


def default_choices(sources: Sequence[Source], keep: str | None) -> dict[str, Choice]:
    """Initial picks: the source at locator ``keep`` (else the first enabled one) is kept, the
    other enabled sources disabled, and disabled sources stay disabled (no entry for them)."""
    enabled = [s for s in sources if s.enabled]
    if keep not in {s.location for s in enabled}:
        keep = enabled[0].location if enabled else None
    return {s.location: (Choice.KEEP if s.location == keep else Choice.DISABLE) for s in sources}


def _read_body(source: Source) -> tuple[str, str]:
    if source.body is not None:
        return source.body, ""
    if source.location.startswith("builtin://"):
        return "", ""
    try:
        data = read_regular(source.location, BODY_MAX_BYTES)
    except OSError as exc:
        return "", f"cannot read: {exc.strerror or exc}"
    text = data[:BODY_MAX_BYTES].decode("utf-8", errors="replace")
    return text, ("cut at 256 KiB" if len(data) > BODY_MAX_BYTES else "")


def read_source(source: Source, lint: LintCache) -> SourceReading:
    """Read and lint one source with ``lint`` (the host's lint target; worker thread). Never
    raises for file-system problems (they become the note)."""
    body, note = _read_body(source)
    diags = source.diagnostics if source.location.startswith("builtin://") else lint.lint(source)
    errors = sum(1 for d in diags if d.severity is Severity.ERROR)
    warnings = sum(1 for d in diags if d.severity is Severity.WARNING)
    return SourceReading(source.location, body, errors, warnings, note)


def body_diff(a_label: str, a_text: str, b_label: str, b_text: str, *, max_lines: int = DIFF_MAX_LINES) -> list[str]:
    """``difflib.unified_diff`` of two bodies as lines without newlines (3 lines of context);
    ``["(identical bodies)"]`` when equal; cut after ``max_lines`` with a ``… N more lines`` line."""
    lines = list(difflib.unified_diff(a_text.splitlines(), b_text.splitlines(), a_label, b_label, lineterm=""))
    if not lines:
        return ["(identical bodies)"]
    if len(lines) > max_lines:
        rest = len(lines) - max_lines
        lines = lines[:max_lines] + [f"… {rest:,} more lines"]
    return lines


def diff_content(lines: Sequence[str]) -> Content:
    """Diff lines as plain :class:`Content` (made visible, SPEC X1), ``+`` lines in ``$success``,
    ``-`` lines in ``$error``, hunk headers in ``$accent``."""
    parts: list[str | tuple[str, str]] = []
    for line in lines:
        shown = visible(line) + "\n"
        if line.startswith(("+++", "---")):
            parts.append((shown, "bold"))
        elif line.startswith("+"):
            parts.append((shown, "$success"))
        elif line.startswith("-"):
            parts.append((shown, "$error"))
        elif line.startswith("@@"):
            parts.append((shown, "$accent"))
        else:
            parts.append(shown)
    return Content.assemble(*parts)


class SourcesRead(Message):
    """The worker read and linted every source (``readings`` by locator)."""

    def __init__(self, readings: Mapping[str, SourceReading]) -> None:
        super().__init__()
        self.readings = dict(readings)


class PlanReady(Message):
    """A plan made for the choices of request ``token`` (``plan`` or the ``error`` text)."""

    def __init__(self, token: int, plan: WritePlan | None, error: str | None) -> None:
        super().__init__()
        self.token = token
        self.plan = plan
        self.error = error


class WriteDone(Message):
    """A write or undo finished: the new ``generation`` (or ``None`` when the refresh failed),
    the ``result`` kept for undo (``None`` after an undo), and a ``message`` / ``error``."""

    def __init__(self, generation: Generation | None, result: WriteResult | None, message: str,
                 error: bool = False) -> None:
        super().__init__()
        self.generation = generation
        self.result = result
        self.message = message
        self.error = error


class AmbiguityPicker(ReportsWorkerErrors, ModalScreen[None]):
    """Resolve the ambiguous skill ``name`` (SPEC K5). See the module docstring for the keys.

    ``name`` is kept as :attr:`skill_name`. ``catalog``: the live catalog; ``generation``: the
    generation shown when opened; ``keep``: the locator kept by default (the selected row);
    ``after_write(before)``: the catalog's generation after a write (see the module docstring).
    After a write, :attr:`last_result` holds the :class:`WriteResult` for :meth:`action_undo`.
    """

    class Written(Message):
        """A write (``result``) or an undo (``result`` ``None``) changed the configuration."""

        def __init__(self, result: WriteResult | None) -> None:
            super().__init__()
            self.result = result

    DEFAULT_CSS = """
    AmbiguityPicker { align: center middle; }
    AmbiguityPicker > #picker-box {
        width: 96%; height: 94%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    AmbiguityPicker #picker-title { height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    AmbiguityPicker #picker-names { height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    AmbiguityPicker #picker-keys { height: auto; color: $foreground-muted; }
    AmbiguityPicker #picker-sources { height: auto; max-height: 9; width: 1fr; }
    AmbiguityPicker.-short #picker-sources { max-height: 6; }
    AmbiguityPicker.-short > #picker-box { height: 100%; }
    AmbiguityPicker.-narrow > #picker-box { width: 100%; }
    AmbiguityPicker.-narrow #picker-plan-scroll { width: 58%; }
    AmbiguityPicker #picker-where { height: auto; color: $foreground-muted; }
    AmbiguityPicker #picker-lower { height: 1fr; }
    AmbiguityPicker #picker-diff-scroll { width: 1fr; height: 1fr; border: round $primary 40%; overflow-x: auto; }
    AmbiguityPicker #picker-diff { width: auto; text-wrap: nowrap; }
    AmbiguityPicker #picker-plan-scroll { width: 46%; height: 1fr; border: round $primary 40%; }
    AmbiguityPicker #picker-status { height: auto; min-height: 1; }
    AmbiguityPicker .error { color: $error; }
    """

    BINDINGS = [
        Binding("j", "move(1)", "Down", show=False, id="picker.down"),
        Binding("k", "move(-1)", "Up", show=False, id="picker.up"),
        Binding("1", "choose('keep')", "Keep", id="picker.keep"),
        Binding("2", "choose('search')", "Search-only", id="picker.search"),
        Binding("3", "choose('explicit')", "Explicit", id="picker.explicit"),
        Binding("4", "choose('disable')", "Disable", id="picker.disable"),
        Binding("5", "choose('index')", "Index", show=False, id="picker.index"),
        Binding("K", "keep_only", "Only this", show=False, id="picker.keep-only"),
        Binding("space", "cycle_choice", "Cycle", show=False, id="picker.cycle"),
        Binding("t", "cycle_target", "Target", id="picker.target"),
        Binding("ctrl+s", "write", "Write", id="picker.write"),
        Binding("u", "undo", "Undo", id="picker.undo"),
        Binding("escape", "close", "Close", id="picker.close"),
        Binding("q", "close", "Close", show=False, id="picker.close-q"),
    ]

    def __init__(self, catalog: AppCatalog, generation: Generation, name: str | Sequence[str], *,
                 keep: str | None = None, choices: Mapping[str, Choice | str] | None = None,
                 after_write: Callable[[int], Generation] | None = None,
                 journal: Journal | None = None) -> None:
        super().__init__()
        self.catalog = catalog
        self._after_write = after_write
        self.generation = generation
        self.names: tuple[str, ...] = (name,) if isinstance(name, str) else tuple(dict.fromkeys(name))
        self.skill_name = ", ".join(self.names)
        self.sources: list[Source] = [s for s in generation.sources if s.name in self.names]
        ambiguous = set(generation.ambiguous_names())
        if choices is not None:
            self.choices: dict[str, Choice] = {s.location: current_choice(s) for s in self.sources}
            self.choices.update({loc: Choice(c) for loc, c in choices.items() if loc in self.choices})
        elif len(self.names) == 1 and self.names[0] in ambiguous:
            self.choices = default_choices(self.sources, keep)
        else:  # not a conflict: start from how things are; nothing to write until a choice changes
            self.choices = {s.location: current_choice(s) for s in self.sources}
        self.journal = journal if journal is not None else Journal.for_env(catalog.context.env)
        self.targets: list[Target] = candidate_targets(catalog)
        self.target_index = 0
        self.facts: dict[str, SourceReading] = {}
        self.plan: WritePlan | None = None
        self.plan_error: str | None = None
        self.last_result: WriteResult | None = None
        #: the journal id of the last write made here (for the status line)
        self.last_entry: int | None = None
        self.status: str = ""
        self.status_error = False
        self._busy = False
        #: the newest planning request, and whether its worker is still running
        self._plan_token = 0
        self._planning = False
        #: ``ctrl+s`` was pressed once on a choice set that leaves the name ambiguous.
        self._ambiguous_confirmed = False

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            yield Static(id="picker-title", markup=False)
            yield Static(id="picker-names", markup=False)
            yield Static(id="picker-keys", markup=False)
            yield DataTable(id="picker-sources", cursor_type="row", zebra_stripes=True)
            yield Static(id="picker-where", markup=False)
            with Horizontal(id="picker-lower"):
                with ScrollableContainer(id="picker-diff-scroll"):
                    yield Static(id="picker-diff", markup=False)
                with VerticalScroll(id="picker-plan-scroll"):
                    yield Static(id="picker-plan", markup=False)
            yield Static(id="picker-status", markup=False)
            yield NoticeLine()
        yield FittingFooter()

    def on_mount(self) -> None:
        self.query_one("#picker-diff-scroll").border_title = "Body diff"
        self.query_one("#picker-plan-scroll").border_title = "skills.config entries"
        table = self.query_one(DataTable)
        # root and locator first after the choice: they tell same-name copies apart at 80 columns
        table.add_columns("#", "choice", "root", "locator", "decided by", "provenance", "description", "size",
                          "modified", "lint")
        self._fill_table()
        table.focus()
        self._replan()
        self.load_facts(tuple(self.sources))

    def on_resize(self) -> None:
        """Under :data:`SHORT_BELOW` rows the sources table gives rows to the change preview;
        under :data:`COMPACT_FOOTER_BELOW` columns the footer is compact and the change pane wider."""
        self.set_class(self.size.height < SHORT_BELOW, "-short")
        self.query_one(Footer).compact = self.size.width < COMPACT_FOOTER_BELOW
        self.set_class(self.size.width < COMPACT_FOOTER_BELOW, "-narrow")  # the change gets more room than the diff

    @property
    def target(self) -> Target | None:
        """The file the next write goes to."""
        return self.targets[self.target_index] if self.targets else None

    def _cursor_source(self) -> Source | None:
        table = self.query_one(DataTable)
        row = table.cursor_row
        if 0 <= row < len(self.sources):
            return self.sources[row]
        return None

    def _fill_table(self) -> None:
        table = self.query_one(DataTable)
        keep_row = table.cursor_row if table.row_count else 0
        table.clear()
        home = self.catalog.context.env.home
        for i, s in enumerate(self.sources, start=1):
            choice = self.choices.get(s.location)
            label = _CHOICE_LABEL[choice] if choice else "—"
            if not s.enabled:
                label += " (disabled now)"
            root = s.root or ""
            loc = s.location
            if root and loc.startswith(root.rstrip("/") + "/"):
                loc = loc[len(root.rstrip("/")) + 1:]
            desc = visible(" ".join((s.catalog_description or "").split()))
            if len(desc) > 34:
                desc = desc[:33] + "…"
            facts = self.facts.get(s.location)
            lint = "…" if facts is None else ("ok" if not (facts.errors or facts.warnings)
                                              else f"{facts.errors}E {facts.warnings}W")
            modified = time.strftime("%Y-%m-%d %H:%M", time.localtime(s.mtime)) if s.mtime else "—"
            style = "bold" if choice is Choice.KEEP else ("dim" if choice is Choice.DISABLE else "")
            if choice is not None and choice is not current_choice(s):
                label += " *"  # differs from now: written by ctrl+s
            table.add_row(
                Text(str(i)),
                Text(label, style=style),
                Text(visible(home_short(root, home, self.catalog.context.cwd))),
                Text(visible(loc)),
                Text(decided_by(s, self._rule(s), home)[0]),
                Text(s.provenance.value),
                Text(desc),
                Text(f"{s.size:,} B", justify="right"),
                Text(modified),
                Text(lint, style="red" if facts and facts.errors else ""),
                key=s.location,
            )
        if table.row_count:
            table.move_cursor(row=min(keep_row, table.row_count - 1))
        self._show_title()
        self._show_where()

    def _show_title(self) -> None:
        """The title (one line: what is decided and how it stands now), the names when several
        (one line, cut with ``…`` after the count that says how many), and the keys."""
        enabled = sum(1 for s in self.sources if s.enabled)
        conflicted = [n for n in self.names if sum(1 for s in self.sources if s.enabled and s.name == n) > 1]
        noun = "source" if len(self.sources) == 1 else "sources"
        verb = "Resolve " if conflicted else "Manage "
        if len(self.names) == 1:
            state = "ambiguous" if conflicted else "not ambiguous now"
            title = Content.assemble((verb, "bold"), (visible(self.skill_name), "bold $accent"),
                                     f" — {len(self.sources)} {noun}, {enabled} enabled ({state}).")
            names = Content("")
        else:
            # many names (budget advice offers dozens): counts on the title line, the names on one
            # line of their own, cut to the width; the table lists every source anyway
            state = (f"{len(conflicted)} of them ambiguous now" if conflicted else "none ambiguous now")
            title = Content.assemble((verb, "bold"), (f"{len(self.names)} skills", "bold $accent"),
                                     f" — {len(self.sources)} {noun}, {enabled} enabled; {state}")
            names = Content.assemble(("names ", "bold"), visible(", ".join(self.names)))
        self.query_one("#picker-title", Static).update(title)
        names_line = self.query_one("#picker-names", Static)
        names_line.update(names)
        names_line.display = len(self.names) > 1
        self.query_one("#picker-keys", Static).update(Content.assemble(*_KEY_HINTS))

    def _rule(self, source: Source) -> RuleEntry | None:
        """The ``skills.config`` entry that decides ``source`` now (SPEC K4), or ``None``."""
        config = getattr(self.catalog, "config", None)
        if config is None or source.location.startswith("builtin://"):
            return None
        return config.decide(source.canonical).rule  # type: ignore[no-any-return]

    def _show_where(self) -> None:
        source = self._cursor_source()
        if source is None:
            self.query_one("#picker-where", Static).update("")
            return
        sentence = decided_by(source, self._rule(source), self.catalog.context.env.home)[1]
        self.query_one("#picker-where", Static).update(Content.assemble(
            ("locator ", "bold"), visible(source.location), "\n",
            ("decided by ", "bold"), visible(sentence),
            "  ·  ", ("now ", "bold"),
            ("disabled" if not source.enabled else f"enabled, exposure {source.exposure.value}")))

    # ------------------------------------------------------------------ facts / diff
    @work(thread=True, exclusive=True, group="picker-facts", exit_on_error=False, description="lint sources")
    def load_facts(self, sources: tuple[Source, ...]) -> None:
        """Read and lint every source off the event loop; posts :class:`SourcesRead`."""
        lint = LintCache(self.catalog.host.lint_target)
        self.post_message(SourcesRead({s.location: read_source(s, lint) for s in sources}))

    @on(SourcesRead)
    def _sources_read(self, event: SourcesRead) -> None:
        self.facts.update(event.readings)
        self._fill_table()
        self._show_diff()

    def _diff_pair(self) -> tuple[Source, Source] | None:
        """The source under the cursor and another of the same name (the first one; the second
        when the cursor is on the first); ``None`` when its name has one source. Bodies of
        different names are never compared."""
        cursor = self._cursor_source()
        if cursor is None:
            return None
        same = [s for s in self.sources if s.name == cursor.name]
        if len(same) < 2:
            return None
        first = same[0]
        other = cursor if cursor.location != first.location else same[1]
        return first, other

    def _show_diff(self) -> None:
        pair = self._diff_pair()
        widget = self.query_one("#picker-diff", Static)
        if pair is None:
            widget.update("(one source of this name: nothing to compare)")
            self.query_one("#picker-diff-scroll").border_title = "Body diff"
            return
        a, b = pair
        fa, fb = self.facts.get(a.location), self.facts.get(b.location)
        if fa is None or fb is None:
            widget.update("reading bodies…")
            return
        ia, ib = self.sources.index(a) + 1, self.sources.index(b) + 1
        lines = body_diff(f"#{ia} {a.provenance.value}", fa.body, f"#{ib} {b.provenance.value}", fb.body)
        notes = [f"#{i}: {f.note}" for i, f in ((ia, fa), (ib, fb)) if f.note]
        content = diff_content(lines)
        if notes:
            content = Content.assemble(content, ("\n" + "; ".join(visible(n) for n in notes), "$warning"))
        widget.update(content)
        self.query_one("#picker-diff-scroll").border_title = f"Body diff #{ia} → #{ib}"

    @on(DataTable.RowHighlighted, "#picker-sources")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_where()
        self._show_diff()

    # ------------------------------------------------------------------ plan
    def _replan(self) -> None:
        """Plan the write for the current choices and target: at once for a small file, in a
        worker (``planning…`` shown) for one over :data:`PLAN_INLINE_BYTES`, so a huge config never
        freezes the screen."""
        target = self.target
        self.plan, self.plan_error = None, None
        if target is None:
            self.plan_error = "no config file to write"
            self._show_plan()
            return
        self._plan_token += 1
        try:
            size = os.stat(target.path).st_size
        except OSError:
            size = 0
        if size <= PLAN_INLINE_BYTES:
            plan, error = self._make_plan(target, dict(self.choices))
            self._planned(PlanReady(self._plan_token, plan, error))
            return
        self._planning = True
        self._show_plan()
        self.plan_in_worker(self._plan_token, target, dict(self.choices))

    def _make_plan(self, target: Target, choices: dict[str, Choice]) -> tuple[WritePlan | None, str | None]:
        ctx = self.catalog.context
        try:
            earlier = self.journal.earlier_states(target.path)
        except (ConfigWriteError, OSError):
            earlier = []
        try:
            return plan_resolution(self.sources, self.names, choices, target=target.path,
                                   config=self.catalog.config, cwd=ctx.cwd, home=ctx.env.home,
                                   project=find_worktree(ctx.cwd) or ctx.cwd, earlier=earlier), None
        except ConfigWriteError as exc:
            return None, str(exc)
        except OSError as exc:
            return None, f"cannot read {target.path}: {exc.strerror or exc}"

    @work(thread=True, exclusive=True, group="picker-plan", exit_on_error=False, description="plan the write")
    def plan_in_worker(self, token: int, target: Target, choices: dict[str, Choice]) -> None:
        """Plan off the event loop (a large config); posts :class:`PlanReady`."""
        plan, error = self._make_plan(target, choices)
        self.post_message(PlanReady(token, plan, error))

    @on(PlanReady)
    def _planned(self, event: PlanReady) -> None:
        if event.token != self._plan_token:
            return  # a newer choice is being planned
        self._planning = False
        self.plan, self.plan_error = event.plan, event.error
        self._show_plan()

    def _show_plan(self) -> None:
        target = self.target
        home = self.catalog.context.env.home
        parts: list[str | tuple[str, str] | Content] = [("target ", "bold")]
        if target is not None:
            parts += [(target.kind, "$accent"), " ", visible(home_short(target.path, home, self.catalog.context.cwd))]
        # the other targets go on the pane's bottom border: the lines inside are for the change
        others = [t.kind for i, t in enumerate(self.targets) if i != self.target_index]
        self.query_one("#picker-plan-scroll").border_subtitle = ("t switches to: " + ", ".join(others)) if others else ""
        parts.append("\n")
        if self._planning:
            parts.append(("planning… (a large config file)", "$foreground-muted"))
        elif self.plan_error is not None:
            parts.append((visible(picker_advice(self.plan_error), multiline=True), "$error"))
        elif self.plan is not None:
            plan = self.plan
            if not plan.changes:
                parts.append(("nothing to write: every source is already in the chosen state", "$foreground-muted"))
            else:
                if plan.deletes:
                    head = "remove the file (skillshelf created it; nothing else is in it)"
                elif plan.created:
                    head = "new file"
                elif plan.restores:
                    head = "back to the file's earlier bytes"
                else:
                    head = "change skills.config"
                parts.append((head, "bold"))
                parts.append(":\n")
                for removed in plan.removed:
                    parts.append(("- " + visible(removed) + "\n", "$error"))
                for entry in plan.entries:
                    parts.append(("+ " + visible(entry.render()) + "\n", "$success"))
                    if entry.caveat:
                        parts.append(("  " + visible(entry.caveat) + "\n", "$warning"))
            if plan.note and plan.changes:
                parts.append(("\nnote: " + visible(plan.note, multiline=True), "$warning"))
        # after the change: at 80×24 the lines to be written come first
        left = self._ambiguous_left()
        if len(left) == 1:
            [(name, remaining)] = left.items()
            parts.append((f"\n⚠ `{visible(name)}` stays ambiguous after this write: {remaining} sources stay "
                          "enabled (keep / search-only / explicit / index); press 4 on all but one to disable "
                          "them", "bold $warning"))
        elif left:  # one warning for all of them: dozens of paragraphs would hide the change itself
            parts.append((f"\n⚠ {len(left)} names stay ambiguous after this write (two or more of their sources "
                          f"stay enabled): {visible(', '.join(left))}; press 4 on all but one source of each "
                          "to disable them", "bold $warning"))
        self.query_one("#picker-plan", Static).update(Content.assemble(*parts))

    def _set_status(self, text: str, error: bool = False) -> None:
        self.status, self.status_error = text, error
        widget = self.query_one("#picker-status", Static)
        widget.set_class(error, "error")
        widget.update(visible(text, multiline=True))

    # ------------------------------------------------------------------ actions
    def action_move(self, step: int) -> None:
        """``j`` / ``k``: move the cursor down / up a source (as on the main screen)."""
        step_cursor(self.query_one(DataTable), step)

    def _ambiguous_left(self) -> dict[str, int]:
        """Names that would stay ambiguous under the current choices, with how many sources stay
        enabled (SPEC D6: search-only and explicit sources are still loadable by name)."""
        out: dict[str, int] = {}
        for name in self.names:
            mine = {s.location: self.choices.get(s.location, current_choice(s))
                    for s in self.sources if s.name == name}
            left = stays_ambiguous(mine)
            if left > 1:
                out[name] = left
        return out

    def action_keep_only(self) -> None:
        """``K``: keep the source under the cursor and disable every other source of its name."""
        source = self._cursor_source()
        if source is None or self._busy:
            return
        for s in self.sources:
            if s.name == source.name:
                self.choices[s.location] = Choice.KEEP if s is source else Choice.DISABLE
        self._ambiguous_confirmed = False
        self._fill_table()
        self._replan()

    def action_choose(self, value: str) -> None:
        """``1``–``5``: the choice for the source under the cursor."""
        source = self._cursor_source()
        if source is None or self._busy:
            return
        self.choices[source.location] = Choice(value)
        self._ambiguous_confirmed = False
        self._fill_table()
        self._replan()

    def action_cycle_choice(self) -> None:
        """``space``: the next choice (keep → search-only → explicit → disable → keep)."""
        source = self._cursor_source()
        if source is None or self._busy:
            return
        current = self.choices.get(source.location, Choice.DISABLE)
        nxt = CHOICE_CYCLE[(CHOICE_CYCLE.index(current) + 1) % len(CHOICE_CYCLE)] if current in CHOICE_CYCLE else Choice.KEEP
        self.action_choose(nxt.value)

    def refresh_targets(self) -> bool:
        """Recompute the candidate targets (a ``.zuno/zuno.jsonc`` created meanwhile is offered),
        keeping the current target when it is still a candidate; returns False (and selects the
        first candidate) when it is not."""
        current = self.target
        self.targets = candidate_targets(self.catalog)
        paths = [t.path for t in self.targets]
        if current is not None and current.path in paths:
            self.target_index = paths.index(current.path)
            return True
        self.target_index = 0
        return False

    def action_cycle_target(self) -> None:
        """``t``: the next candidate target (recomputed first; when the current one is no longer
        a candidate, the first candidate)."""
        if self._busy:
            return
        if self.refresh_targets() and self.targets:
            self.target_index = (self.target_index + 1) % len(self.targets)
        self._replan()

    def action_write(self) -> None:
        if self._busy:
            return
        if self._planning:
            self._set_status("still planning the change; press ctrl+s again in a moment")
            return
        if self.plan is None:
            self._set_status(f"not written: {self.plan_error or 'no plan'}", error=True)
            return
        if not self.plan.changes:
            self._set_status("nothing to write")
            return
        left = self._ambiguous_left()
        if left and not self._ambiguous_confirmed:
            self._ambiguous_confirmed = True
            if len(left) == 1:
                name, remaining = next(iter(left.items()))
                what = f"`{name}` would stay ambiguous ({remaining} sources stay enabled)"
            else:
                what = f"{len(left)} names would stay ambiguous"
            self._set_status(f"{what}: press ctrl+s again to write anyway, or 4 to disable all but one.", error=True)
            return
        self._ambiguous_confirmed = False
        self._busy = True
        self._set_status("writing…")
        self.write_plan(self.plan, dict(self.choices))

    @work(thread=True, exclusive=True, group="picker-write", exit_on_error=False, description="write skills.config")
    def write_plan(self, plan: WritePlan, choices: dict[str, Choice]) -> None:
        """Apply ``plan``, rebuild the catalog and check the outcome; posts :class:`WriteDone`."""
        before = self.catalog.current.number
        try:
            result = apply_plan(plan)
        except ConfigWriteError as exc:
            self.post_message(WriteDone(None, None, f"not written: {picker_advice(str(exc))}", error=True))
            return
        except OSError as exc:
            self.post_message(WriteDone(None, None, f"not written: {type(exc).__name__}: {exc}", error=True))
            return
        try:
            gen = self._generation_after(before)
        except OSError as exc:
            self.post_message(WriteDone(None, result, f"wrote {self._short(plan.target)}, but the rescan failed: {exc}",
                                        error=True))
            return
        problems = outcome_problems(gen, self.skill_name, choices)
        journaled = ""
        if not problems:
            try:
                entry = self.journal.record(result, self._summary(choices), tool="tui")
                journaled = f" it (write #{entry.id})" if entry else ""
            except (ConfigWriteError, OSError) as exc:
                journaled = f" (not in the undo journal: {exc})"
        if problems:
            try:
                undo(result)
                undone = "the change was undone"
            except ConfigWriteError as exc:
                undone = f"undo failed: {exc}"
            try:
                gen = self._generation_after(gen.number)
            except OSError as exc:
                undone += f" (the rescan after the undo failed: {exc})"
            self.post_message(WriteDone(gen, None, "the catalog does not show the chosen outcome ("
                                        + "; ".join(problems) + f"); {undone}", error=True))
            return
        backup = (" (removed; previous version in " + self._short(result.backup) + ")" if plan.deletes and result.backup
                  else f" (previous version in {self._short(result.backup)})" if result.backup else " (new file)")
        still = [n for n in self.names if n in gen.ambiguous_names()]
        was = [n for n in self.names if n in self.generation.ambiguous_names()]
        if still:
            after = (f"; `{still[0]}` is still ambiguous" if len(still) == 1
                     else f"; {len(still)} names are still ambiguous") + " (search/explicit sources stay loadable by name)"
        elif was:
            after = f"; `{was[0]}` is no longer ambiguous" if len(was) == 1 else f"; {len(was)} names are no longer ambiguous"
        else:
            after = ""
        self.post_message(WriteDone(gen, result, f"wrote {self._short(plan.target)}{backup}{after}. "
                                    f"u (or ctrl+z) undoes{journaled}."))

    def _summary(self, choices: Mapping[str, Choice]) -> str:
        """The journal's words for a write: what changed, per source."""
        home = self.catalog.context.env.home
        now = {s.location: current_choice(s) for s in self.sources}
        changed = {loc: c for loc, c in choices.items() if now.get(loc) is not c} or dict(choices)
        words = {Choice.KEEP: "enable", Choice.DISABLE: "disable", Choice.INDEX: "index",
                 Choice.SEARCH: "search-only", Choice.EXPLICIT: "explicit"}
        return f"{self.skill_name}: " + ", ".join(f"{words[c]} {home_short(loc, home)}" for loc, c in changed.items())

    def _short(self, path: str) -> str:
        """``path`` with the home shown as ``~`` (status lines stay short)."""
        return home_short(path, self.catalog.context.env.home)

    def _generation_after(self, before: int) -> Generation:
        """The generation showing a write just made (one step: the watcher's when live)."""
        if self._after_write is not None:
            return self._after_write(before)
        return self.catalog.refresh()

    def action_undo(self) -> None:
        """``u``: undo the last write skillshelf made (the journal's newest; this session's last
        write when the journal cannot be read)."""
        if self._busy:
            return
        try:
            latest = self.journal.latest()
        except (ConfigWriteError, OSError):
            latest = None
        if latest is None and self.last_result is None:
            self._set_status("nothing to undo")
            return
        self._busy = True
        self._set_status("undoing…")
        self.undo_write(self.last_result if latest is None else None)

    @work(thread=True, exclusive=True, group="picker-write", exit_on_error=False, description="undo write")
    def undo_write(self, result: WriteResult | None) -> None:
        """Undo the journal's newest write (or ``result``) byte for byte and rescan."""
        before = self.catalog.current.number
        try:
            if result is None:
                entry = self.journal.undo()
                result = self.journal.result_of(entry)
            else:
                undo(result)
        except ConfigWriteError as exc:
            self.post_message(WriteDone(None, self.last_result, f"not undone: {picker_advice(str(exc))}",
                                        error=True))
            return
        try:
            gen = self._generation_after(before)
        except OSError as exc:
            self.post_message(WriteDone(None, None, f"undone, but the rescan failed: {exc}", error=True))
            return
        words = undo_words(result).replace(result.target, self._short(result.target), 1)
        self.post_message(WriteDone(gen, None, f"undone: {words}"))

    @on(WriteDone)
    def _write_done(self, event: WriteDone) -> None:
        self._busy = False
        if not (event.error and event.result is None):
            # a failure that wrote nothing keeps the previous write undoable
            self.last_result = event.result
            self.post_message(self.Written(event.result))
        if event.generation is not None:
            self.generation = event.generation
            self.sources = [s for s in event.generation.sources if s.name in self.names]
            if event.result is None and not event.error:  # undone: the choices follow the file again
                self.choices = {s.location: current_choice(s) for s in self.sources}
            for s in self.sources:
                self.choices.setdefault(s.location, current_choice(s))
            self._fill_table()
            self._show_diff()
        self.refresh_targets()
        self._replan()
        self._set_status(event.message, error=event.error)
        self.notify(visible(event.message, multiline=True), severity="error" if event.error else "information",
                    timeout=6, markup=False)

    def action_close(self) -> None:
        if not self._busy:
            self.dismiss(None)
