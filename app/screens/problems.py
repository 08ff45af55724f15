"""The Problems screen (``e``): every warning, catalog diagnostic and rejected file of the shown
generation, grouped by kind (SPEC K1 "the browser still starts and shows it", D2 uncovered-folder
hints, D4 scan warnings, R remote failures, H3 kept-last-valid, F6 rejected files).

The entries come from :func:`skillshelf.app.problems.problems` (pure, folded so nothing is
listed twice). Each shows a severity glyph (``✗`` error, ``⚠`` warning, ``•`` note), the exact
message, the path / URL / variable it is about and the hint, all as plain ``Content`` made
visible (SPEC X1: no markup, control characters shown). ``j`` / ``k`` (or the arrows) move; ``enter`` on an entry
that names a skill file dismisses the screen with that locator (the app moves the catalog cursor
there); ``esc`` / ``q`` close it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from skillshelf.app.problems import REJECTED_KIND, Problem, problems_summary
from skillshelf.app.screens.moves import step_cursor
from skillshelf.core.model import Severity
from skillshelf.core.textsafe import visible
from skillshelf.widgets.notice_line import NoticeLine

__all__ = ["SEVERITY_GLYPH", "ProblemsScreen", "group_title", "problem_content"]

#: Glyph and style per severity (``•`` for notes: ``ℹ`` is missing from common monospace fonts).
SEVERITY_GLYPH = {Severity.ERROR: ("✗", "$error"), Severity.WARNING: ("⚠", "$warning"), Severity.INFO: ("•", "$accent")}
#: Indent of the source / hint lines under an entry.
_INDENT = "    "


def problem_content(p: Problem) -> Content:
    """One entry: ``✗ [code] line 3 col 1  message`` then ``    source`` and ``    hint: …`` lines
    (the code and position only for rejected files; source and hint only when present; the
    source not again when the message already starts with it)."""
    glyph, style = SEVERITY_GLYPH[p.severity]
    first: list[str | tuple[str, str]] = [(glyph + " ", style)]
    if p.code:
        first.append((f"[{visible(p.code)}] ", style))
    if p.where:
        first.append((p.where + "  ", "$foreground-muted"))
    first.append(visible(p.message))
    parts = list(first)
    if p.source and not p.message.startswith(p.source):  # a config error's message starts with its file
        parts += ["\n", (_INDENT + visible(p.source), "$foreground-muted")]
    if p.hint:
        parts += ["\n", (_INDENT + "hint: ", "bold"), visible(p.hint)]
    return Content.assemble(*parts)


def kind_words(kind: str) -> str:
    """A problem kind in words: ``PathNotFound`` → ``path not found``, ``gemini-untrusted`` →
    ``gemini untrusted`` (the identifiers stay in the CLI's JSON; the screen reads as prose)."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", kind).replace("-", " ").replace("_", " ")
    return " ".join(spaced.split()).lower()


def group_title(kind: str, count: int) -> Content:
    """``path not found (2)`` (:func:`kind_words`); the rejected group reads ``rejected files (2)``."""
    name = "rejected files" if kind == REJECTED_KIND else visible(kind_words(kind))
    return Content.assemble((name, "bold"), (f" ({count})", "$foreground-muted"))


class ProblemsScreen(ModalScreen[str | None]):
    """Modal list of ``problems`` (already grouped and ordered); ``generation`` is the number
    shown in the title. Dismisses with the locator of the chosen entry, or ``None``."""

    DEFAULT_CSS = """
    ProblemsScreen { align: center middle; }
    ProblemsScreen > Vertical {
        width: 96%; height: 90%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    ProblemsScreen #problems-title { height: auto; margin-bottom: 1; }
    ProblemsScreen #problems-list { height: 1fr; border: none; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close", id="problems.close"),
        Binding("q", "close", "Close", show=False, id="problems.close-q"),
        Binding("e", "close", "Close", show=False, id="problems.close-e"),
        Binding("j", "move(1)", "Down", show=False, id="problems.down"),
        Binding("k", "move(-1)", "Up", show=False, id="problems.up"),
    ]

    def __init__(self, problems: Sequence[Problem], generation: int | None = None) -> None:
        super().__init__(id="problems")
        self.problems = list(problems)
        self.generation = generation

    def title_content(self) -> Content:
        """``Problems · generation 3 · 1 error · 2 warnings`` plus the key hint."""
        head = "Problems" + (f" · generation {self.generation}" if self.generation is not None else "")
        summary = problems_summary(self.problems) or "none"
        return Content.assemble((head, "bold"), " · ", summary,
                                ("   enter: go to the skill file · esc: close", "$foreground-muted"))

    def _options(self) -> list[Option]:
        if not self.problems:
            return [Option(Content("No problems: no warnings, no catalog diagnostics, no rejected files."),
                           disabled=True)]
        counts: dict[str, int] = {}
        for p in self.problems:
            counts[p.kind] = counts.get(p.kind, 0) + 1
        out: list[Option] = []
        kind = None
        for i, p in enumerate(self.problems):
            if p.kind != kind:
                kind = p.kind
                out.append(Option(group_title(kind, counts[kind]), id=f"group-{i}", disabled=True))
            out.append(Option(problem_content(p), id=str(i)))
        return out

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_content(), id="problems-title", markup=False)
            yield OptionList(*self._options(), id="problems-list", markup=False)
            yield NoticeLine()
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def entry_texts(self) -> list[str]:
        """Every option as plain text (group titles and entries, in order; for tests)."""
        lst = self.query_one(OptionList)
        texts = []
        for i in range(lst.option_count):
            prompt = lst.get_option_at_index(i).prompt
            texts.append(prompt.plain if isinstance(prompt, Content) else str(prompt))
        return texts

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        oid = event.option.id or ""
        if not oid.isdigit():
            return
        problem = self.problems[int(oid)]
        if problem.location is None:
            self.notify("This entry names no skill file.", timeout=3)
            return
        self.dismiss(problem.location)

    def action_move(self, step: int) -> None:
        """``j`` / ``k``: the next / previous entry (group titles are skipped, as with the arrows)."""
        step_cursor(self.query_one(OptionList), step)

    def action_close(self) -> None:
        self.dismiss(None)
