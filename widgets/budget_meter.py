"""A one-line budget meter: ``index ██████░░ 6,120 / 8,000 chars · 1,530 tok · 3 truncated · 0 omitted``.

Attributes down (reactives set by the screen); renders :class:`~textual.content.Content` with theme
variables so it follows the theme. Units: ``used`` / ``limit`` in characters (SPEC U1), ``tokens``
in tokens (``None`` = not counted yet; ``tokens_exact`` False shows ``~``).
"""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

__all__ = ["BudgetMeter", "meter_text"]


def meter_text(
    label: str,
    used: int,
    limit: int,
    *,
    tokens: int | None = None,
    tokens_exact: bool = True,
    truncated: int = 0,
    omitted: int = 0,
    bar_width: int = 18,
) -> Content:
    """The meter line. The bar fills ``used / limit`` of ``bar_width`` cells (a full bar when
    ``limit`` is 0); green under 80 %, warning up to the limit, error when entries were
    omitted. Numbers use thousands separators."""
    ratio = 1.0 if limit <= 0 else max(0.0, min(1.0, used / limit))
    filled = round(ratio * bar_width)
    if omitted:
        colour = "$error"
    elif ratio < 0.8:
        colour = "$success"
    else:
        colour = "$warning"
    parts: list[str | tuple[str, str]] = [
        (f"{label} ", "bold"),
        ("█" * filled, colour),
        ("░" * (bar_width - filled), "$foreground-muted"),
        f" {used:,} / {limit:,} chars",
    ]
    if tokens is not None:
        parts.append(f" · {'' if tokens_exact else '~'}{tokens:,} tok")
    parts.append(" · ")
    parts.append((f"{truncated:,} truncated", "$warning" if truncated else ""))
    parts.append(" · ")
    parts.append((f"{omitted:,} omitted", "$error" if omitted else ""))
    return Content.assemble(*parts)


class BudgetMeter(Widget):
    """The index budget meter (DESIGN "The TUI"). Set the reactives; it re-renders itself."""

    DEFAULT_CSS = """
    BudgetMeter {
        height: 1;
        width: 1fr;
    }
    """

    label: reactive[str] = reactive("index")
    used: reactive[int] = reactive(0)
    limit: reactive[int] = reactive(0)
    tokens: reactive[int | None] = reactive(None)
    tokens_exact: reactive[bool] = reactive(True)
    truncated: reactive[int] = reactive(0)
    omitted: reactive[int] = reactive(0)
    pending: reactive[bool] = reactive(True)
    #: When set, shown instead of the numbers (for example ``budget not available``).
    message: reactive[str] = reactive("")

    def render(self) -> Content:
        if self.pending or self.message:
            note = self.message or "computing…"
            return Content.assemble((f"{self.label} ", "bold"), (note, "$foreground-muted"))
        return meter_text(
            self.label,
            self.used,
            self.limit,
            tokens=self.tokens,
            tokens_exact=self.tokens_exact,
            truncated=self.truncated,
            omitted=self.omitted,
        )
