"""A one-line budget meter: ``index ██████░░ 6,120 / 8,000 chars · 1,530 tok · 3 truncated · 0 omitted``.

Attributes down (reactives set by the screen); renders :class:`~textual.content.Content` with theme
variables so it follows the theme. Units: ``used`` / ``limit`` in characters (SPEC U1), ``tokens``
in tokens (``None`` = not counted yet; ``tokens_exact`` False shows ``~``).
"""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from skillshelf.core.textsafe import visible

__all__ = ["BudgetMeter", "SelectedMeter", "meter_text", "prompt_text", "selected_meter_text", "tokens_text"]


def tokens_text(tokens: int | None, exact: bool, estimate: int | None) -> str:
    """``1,530 tok (agent est. 1,498)``: the tiktoken count beside the agent's own chars/4
    estimate (SPEC U, T1). When tiktoken is unavailable the count *is* an estimate and says so:
    ``1,498 tok approx (agent est. 1,498)``. ``estimate`` ``None`` leaves the parenthesis out."""
    if tokens is None:
        return "? tok"
    text = f"{tokens:,} tok" + ("" if exact else " approx")
    if estimate is not None:
        text += f" (agent est. {estimate:,})"
    return text


def prompt_text(prompt: int, sections: tuple[tuple[str, int], ...]) -> str:
    """``prompt 2,013 chars (policy 1,423 + index 588, joined by a blank line)``: the whole
    prompt in characters and each section (name, characters)."""
    text = f"prompt {prompt:,} chars"
    if sections:
        joined = ", joined by a blank line" if len(sections) > 1 else ""
        text += " (" + " + ".join(f"{name} {chars:,}" for name, chars in sections) + joined + ")"
    return text


def _bar(ratio: float, width: int, colour: str) -> list[tuple[str, str]]:
    filled = round(max(0.0, min(1.0, ratio)) * width)
    return [("█" * filled, colour), ("░" * (width - filled), "$foreground-muted")]


def meter_text(
    label: str,
    used: int,
    limit: int | None,
    *,
    tokens: int | None = None,
    tokens_exact: bool = True,
    approx_tokens: int | None = None,
    truncated: int = 0,
    omitted: int = 0,
    bar_width: int = 18,
    unit: str = "chars",
    prompt: int | None = None,
    sections: tuple[tuple[str, int], ...] = (),
) -> Content:
    """The index meter line (``approx_tokens`` = the agent's chars/4 estimate, see
    :func:`tokens_text`). The bar fills ``used / limit`` of ``bar_width`` cells (a full bar when
    ``limit`` is 0); green under 80 %, warning up to the limit, error when entries were
    omitted. ``limit`` ``None``: the host has no budget — no bar, ``372 chars · no budget``.
    ``unit``: the word after the numbers (``chars``; a host counting otherwise, ``tokens``).
    ``prompt`` (a host sending several sections, Zuno, conformance Z-P): ``used`` is then only
    what the budget counts, and a second line gives the whole prompt with its ``sections`` and
    the ``tokens`` (which are then the whole prompt's): ``prompt 2,013 chars (policy 1,423 +
    index 588, joined by a blank line) · 520 tok (agent est. 504)``. Numbers use thousands
    separators."""
    if limit is None:
        parts_nb: list[str | tuple[str, str]] = [(f"{label} ", "bold"), f"{used:,} {unit} · no budget"]
        if tokens is not None and prompt is None:
            parts_nb.append(" · " + tokens_text(tokens, tokens_exact, approx_tokens))
        parts_nb.append(" · ")
        parts_nb.append((f"{truncated:,} truncated", "$warning" if truncated else ""))
        parts_nb += _prompt_line(prompt, sections, tokens, tokens_exact, approx_tokens)
        return Content.assemble(*parts_nb)
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
        f" {used:,} / {limit:,} {unit}",
    ]
    if tokens is not None and prompt is None:
        parts.append(" · " + tokens_text(tokens, tokens_exact, approx_tokens))
    parts.append(" · ")
    parts.append((f"{truncated:,} truncated", "$warning" if truncated else ""))
    parts.append(" · ")
    parts.append((f"{omitted:,} omitted", "$error" if omitted else ""))
    parts += _prompt_line(prompt, sections, tokens, tokens_exact, approx_tokens)
    return Content.assemble(*parts)


def _prompt_line(prompt: int | None, sections: tuple[tuple[str, int], ...], tokens: int | None,
                 tokens_exact: bool, approx_tokens: int | None) -> list[str | tuple[str, str]]:
    if prompt is None:
        return []
    line = prompt_text(prompt, sections)
    if tokens is not None:
        line += " · " + tokens_text(tokens, tokens_exact, approx_tokens)
    return ["\n", ("prompt", "bold"), line.removeprefix("prompt")]


class BudgetMeter(Widget):
    """The index budget meter (DESIGN "The TUI"). Set the reactives; it re-renders itself."""

    DEFAULT_CSS = """
    BudgetMeter {
        height: auto;
        width: 1fr;
    }
    """

    label: reactive[str] = reactive("index")
    used: reactive[int] = reactive(0)
    limit: reactive[int | None] = reactive(0)
    tokens: reactive[int | None] = reactive(None)
    tokens_exact: reactive[bool] = reactive(True)
    approx_tokens: reactive[int | None] = reactive(None)
    truncated: reactive[int] = reactive(0)
    omitted: reactive[int] = reactive(0)
    #: the word after the numbers: ``chars``, or the host's own unit (``tokens``)
    unit: reactive[str] = reactive("chars")
    #: the whole prompt (characters) and its sections, for a host sending several (Zuno)
    prompt: reactive[int | None] = reactive(None, layout=True)
    sections: reactive[tuple[tuple[str, int], ...]] = reactive(())
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
            approx_tokens=self.approx_tokens,
            truncated=self.truncated,
            omitted=self.omitted,
            unit=self.unit,
            prompt=self.prompt,
            sections=self.sections,
        )


def selected_meter_text(
    label: str,
    estimate: int,
    budget: int | None,
    *,
    tokens: int | None,
    tokens_exact: bool,
    required: int = 0,
    selected: str | None = None,
    note: str = "",
    bar_width: int = 18,
    required_label: str = "required",
    unit: str = "tokens",
) -> Content:
    """The selected-body meter (SPEC U2–U3), in tokens:
    ``bodies ███░░ 1,530 tok (agent est. 1,498) / 8,000 tok · 1 required + pdf``.

    The bar and the verdict use ``estimate`` (the agent's chars/4 count is what it checks
    against ``budget``); ``tokens`` is the exact count shown beside it. Over budget the bar is
    red and the line ends with ``over budget: the request would fail``. ``note`` (a body that
    cannot be read) is appended muted. ``required_label`` names the bodies counted on every
    request (``required`` for an agent's requiredSkills, ``always`` for Zhin's ``always: true``).
    ``budget`` ``None``: the host has no selected-body budget (``… · no budget · …``, no bar).
    ``unit`` ``bytes`` (Zuno compares UTF-8 bytes, conformance Z-U): ``estimate`` and ``budget``
    are bytes and the line reads ``2,400 / 80,000 bytes``, tokens left out.
    """
    tokens_part = f"{estimate:,} bytes" if unit == "bytes" else tokens_text(tokens, tokens_exact, estimate)
    what = [f"{required:,} {required_label}"] if required else []
    if selected is not None:
        what.append(visible(selected))
    if budget is None:
        parts_nb: list[str | tuple[str, str]] = [(f"{label} ", "bold"), tokens_part,
                                                 " · no budget · " + (" + ".join(what) if what else "nothing selected")]
        if note:
            parts_nb.append((f" · {visible(note)}", "$foreground-muted"))
        return Content.assemble(*parts_nb)
    over = estimate > budget
    ratio = 1.0 if budget <= 0 else estimate / budget
    colour = "$error" if over else ("$success" if ratio < 0.8 else "$warning")
    parts: list[str | tuple[str, str]] = [(f"{label} ", "bold"), *_bar(ratio, bar_width, colour)]
    if unit == "bytes":
        parts.append(f" {estimate:,} / {budget:,} bytes")
    else:
        parts.append(f" {tokens_part} / {budget:,} tok")
    parts.append(" · " + (" + ".join(what) if what else "nothing selected"))
    if over:
        parts.append((" · over budget: the request would fail", "$error"))
    if note:
        parts.append((f" · {visible(note)}", "$foreground-muted"))
    return Content.assemble(*parts)


class SelectedMeter(Widget):
    """The selected-body budget meter (U2): required bodies of the agent plus the selected row's
    body. Attributes down; ``pending`` shows ``computing…``."""

    DEFAULT_CSS = """
    SelectedMeter {
        height: 1;
        width: 1fr;
    }
    """

    label: reactive[str] = reactive("bodies")
    estimate: reactive[int] = reactive(0)
    budget: reactive[int | None] = reactive(0)
    tokens: reactive[int | None] = reactive(None)
    tokens_exact: reactive[bool] = reactive(True)
    required: reactive[int] = reactive(0)
    required_label: reactive[str] = reactive("required")
    #: ``tokens``, or ``bytes`` for a host comparing UTF-8 bytes (Zuno)
    unit: reactive[str] = reactive("tokens")
    selected: reactive[str | None] = reactive(None)
    note: reactive[str] = reactive("")
    pending: reactive[bool] = reactive(True)

    def render(self) -> Content:
        if self.pending:
            return Content.assemble((f"{self.label} ", "bold"), ("computing…", "$foreground-muted"))
        return selected_meter_text(
            self.label, self.estimate, self.budget, tokens=self.tokens, tokens_exact=self.tokens_exact,
            required=self.required, selected=self.selected, note=self.note, required_label=self.required_label,
            unit=self.unit,
        )

    @property
    def plain(self) -> str:
        """The rendered line as plain text (tests)."""
        return self.render().plain
