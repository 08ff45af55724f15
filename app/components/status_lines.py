"""The one-line notices under the header: the problems summary (SPEC K1, D2, D4, R, H3, F6) and a
failed live watch (H4). Each hides itself when there is nothing to say."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from skillshelf.app.problems import Problem, problem_counts, problems, problems_summary, single_error_text
from skillshelf.core.model import Generation
from skillshelf.core.textsafe import visible

__all__ = ["ProblemsLine", "WatchWarningLine", "WATCH_WARNINGS_SHOWN"]

#: Most ``WatchFailed`` warnings named on the line (the rest are counted).
WATCH_WARNINGS_SHOWN = 2


class ProblemsLine(Static):
    """``✗ 1 error · 2 warnings · 1 note — press e`` (the one error named when there is exactly
    one). :attr:`problems` holds the Problems view's entries for the shown generation."""

    DEFAULT_CSS = """
    ProblemsLine { height: 1; margin: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, *, id: str | None = "problems-line") -> None:
        super().__init__("", id=id, markup=False)
        self.problems: tuple[Problem, ...] = ()

    def on_mount(self) -> None:
        self.display = False

    def show(self, generation: Generation | None) -> None:
        """Recompute :attr:`problems` for ``generation`` (``None``: none) and the line."""
        self.problems = problems(generation) if generation is not None else ()
        summary = problems_summary(self.problems)
        self.display = bool(summary)
        if not summary:
            self.update("")
            return
        counts = problem_counts(self.problems)
        glyph, style = ("✗", "$error") if counts.errors else ("⚠", "$warning") if counts.warnings else ("•", "$accent")
        if counts.errors == 1:
            summary = single_error_text(self.problems)
        self.update(Content.assemble((glyph + " ", f"bold {style}"), summary, (" — press e", "$foreground-muted")))


class WatchWarningLine(Static):
    """The ``WatchFailed`` warnings of the shown generation (SPEC H4) on one line."""

    DEFAULT_CSS = """
    WatchWarningLine { height: 1; margin: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, *, id: str | None = "watch-warning") -> None:
        super().__init__("", id=id, markup=False)

    def on_mount(self) -> None:
        self.display = False

    def show(self, generation: Generation | None) -> None:
        """Show (or hide) the line for ``generation``."""
        failed = [w for w in generation.warnings if w.kind == "WatchFailed"] if generation is not None else []
        self.display = bool(failed)
        if not failed:
            self.update("")
            return
        shown = " · ".join(visible(w.message) for w in failed[:WATCH_WARNINGS_SHOWN])
        rest = len(failed) - WATCH_WARNINGS_SHOWN
        more = f" · and {rest} more" if rest > 0 else ""
        self.update(Content.assemble(("⚠ live watch: ", "bold $warning"), shown + more,
                                     (" (r refreshes by hand)", "$foreground-muted")))
