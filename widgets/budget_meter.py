"""The budget meters: what the catalog text and the loaded bodies cost against the host's budgets,
each with a second line saying by whose rule.

``index ██████░░ 6,120 / 8,000 characters · 3 truncated · 0 omitted · 1,530 tokens (tiktoken)``
``  Zuno's index budget: 2% of a 200,000-token context window = 4,000 characters``

Attributes down (reactives set by the screen); renders :class:`~textual.content.Content` with theme
variables so it follows the theme. Units: ``used`` / ``limit`` in the host's unit (``characters``,
or what the host counts: Codex ``tokens``, SPEC U1); ``tokens`` is tiktoken's count of the text
(``cl100k_base``; an estimate of characters ÷ 4 when tiktoken is missing, and then it says so).
The bodies meter counts as the host does (characters ÷ 4 per token, SPEC U2–U3) and shows the
tiktoken count beside it.
"""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from skillshelf.core.textsafe import visible

__all__ = ["BudgetMeter", "SelectedMeter", "meter_text", "prompt_text", "selected_meter_text", "tokens_text"]


def tokens_text(tokens: int | None, exact: bool) -> str:
    """``1,530 tokens (tiktoken)``: the text's size in a real tokenizer's tokens; without tiktoken
    the figure is characters ÷ 4 and says so: ``~1,498 tokens (characters ÷ 4)``."""
    if tokens is None:
        return "? tokens"
    return f"{tokens:,} tokens (tiktoken)" if exact else f"~{tokens:,} tokens (characters ÷ 4)"


def prompt_text(prompt: int, sections: tuple[tuple[str, int], ...]) -> str:
    """``prompt 2,013 characters (policy 1,423 + index 588, joined by a blank line)``: the whole
    prompt in characters and each section (name, characters)."""
    text = f"prompt {prompt:,} characters"
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
    truncated: int = 0,
    omitted: int = 0,
    bar_width: int = 18,
    unit: str = "characters",
    prompt: int | None = None,
    sections: tuple[tuple[str, int], ...] = (),
) -> Content:
    """The catalog meter line. The bar fills ``used / limit`` of ``bar_width`` cells (a full bar
    when ``limit`` is 0); green under 80 %, warning up to the limit, error when entries were
    omitted. ``limit`` ``None``: the host has no budget — no bar, ``372 characters · no budget``.
    ``unit``: the word after the numbers (the host's unit). ``tokens``: tiktoken's count of the
    text (:func:`tokens_text`), last. ``prompt`` (a host sending several sections, Zuno,
    conformance Z-P): ``used`` is then only what the budget counts, and a second line gives the
    whole prompt with its ``sections`` and the ``tokens`` (then the whole prompt's):
    ``prompt 2,013 characters (policy 1,423 + index 588, joined by a blank line) · 520 tokens
    (tiktoken)``. Numbers use thousands separators."""
    parts: list[str | tuple[str, str]] = [(f"{label} ", "bold")]
    if limit is None:
        parts.append(f"{used:,} {unit} · no budget")
    else:
        ratio = 1.0 if limit <= 0 else max(0.0, min(1.0, used / limit))
        colour = "$error" if omitted else "$success" if ratio < 0.8 else "$warning"
        parts += [*_bar(ratio, bar_width, colour), f" {used:,} / {limit:,} {unit}"]
    parts += [" · ", (f"{truncated:,} truncated", "$warning" if truncated else "")]
    if limit is not None:
        parts += [" · ", (f"{omitted:,} omitted", "$error" if omitted else "")]
    if tokens is not None and prompt is None:
        parts.append(" · " + tokens_text(tokens, tokens_exact))
    if prompt is not None:
        line = prompt_text(prompt, sections)
        if tokens is not None:
            line += " · " + tokens_text(tokens, tokens_exact)
        parts += ["\n  ", ("prompt", "bold"), line.removeprefix("prompt")]
    return Content.assemble(*parts)


def _rule_line(rule: str) -> Content:
    return Content.assemble(("  " + visible(rule), "$foreground-muted"))


class BudgetMeter(Widget):
    """The catalog budget meter (DESIGN "The TUI") and, under it, :attr:`rule`: what the budget is
    and by whose rule. Set the reactives; it re-renders itself."""

    DEFAULT_CSS = """
    BudgetMeter {
        height: auto;
        width: 1fr;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    label: reactive[str] = reactive("index")
    used: reactive[int] = reactive(0)
    limit: reactive[int | None] = reactive(0)
    tokens: reactive[int | None] = reactive(None)
    tokens_exact: reactive[bool] = reactive(True)
    truncated: reactive[int] = reactive(0)
    omitted: reactive[int] = reactive(0)
    #: the word after the numbers: ``characters``, or the host's own unit (``tokens``)
    unit: reactive[str] = reactive("characters")
    #: the last line: the budget in the host's words (``Zuno's index budget: 2% of …``); ``""``: none
    rule: reactive[str] = reactive("", layout=True)
    #: the whole prompt (characters) and its sections, for a host sending several (Zuno)
    prompt: reactive[int | None] = reactive(None, layout=True)
    sections: reactive[tuple[tuple[str, int], ...]] = reactive(())
    pending: reactive[bool] = reactive(True)
    #: When set, shown instead of the numbers (for example ``budget not available``).
    message: reactive[str] = reactive("")
    #: One line only: the numbers, without the prompt line and the rule (short terminals)
    brief: reactive[bool] = reactive(False, layout=True)

    def render(self) -> Content:
        if self.pending or self.message:
            note = self.message or "computing…"
            line = Content.assemble((f"{self.label} ", "bold"), (note, "$foreground-muted"))
        else:
            line = meter_text(self.label, self.used, self.limit, tokens=self.tokens, tokens_exact=self.tokens_exact,
                              truncated=self.truncated, omitted=self.omitted, unit=self.unit,
                              prompt=None if self.brief else self.prompt, sections=self.sections)
        return Content("\n").join([line, _rule_line(self.rule)]) if self.rule and not self.brief else line

    @property
    def plain(self) -> str:
        """The rendered lines as plain text (tests)."""
        return self.render().plain


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
    unknown: bool = False,
) -> Content:
    """The selected-body meter (SPEC U2–U3):
    ``bodies ███░░ 1,498 / 8,000 tokens · 1 required + pdf · 1,530 tokens (tiktoken)``.

    ``estimate`` is what the host counts, in ``unit`` (tokens of 4 characters; Zuno: UTF-8
    ``bytes``, conformance Z-U): the bar and the verdict use it, because that is what the host
    checks against ``budget``; ``tokens`` is tiktoken's count beside it. Over budget the bar is red and the line says ``over budget: the request
    would fail``. ``note`` (a body that cannot be read) is appended muted. ``required_label``
    names the bodies counted on every request (``required`` for an agent's requiredSkills,
    ``always`` for Zhin's ``always: true``). ``unknown``: the selected body's size is not known
    (``note`` says why): the figures are what is known, followed by ``+ ?``. ``budget`` ``None``: the host has no selected-body
    budget (no bar; tiktoken's count, what is selected, ``no budget``).
    """
    what = [f"{required:,} {required_label}"] if required else []
    if selected is not None:
        what.append(visible(selected))
    picked = " + ".join(what) if what else "nothing selected"
    parts: list[str | tuple[str, str]] = [(f"{label} ", "bold")]
    if budget is None:
        # nothing is checked against a count here: tiktoken's is the one worth showing
        size = tokens_text(tokens, tokens_exact) if tokens is not None else f"{estimate:,} {unit}"
        if unknown:
            size = f"{tokens or estimate:,} + ? tokens" if (tokens or estimate) else "? tokens"
        parts.append(f"{size} · {picked} · no budget")
        if note:
            parts.append((f" · {visible(note)}", "$foreground-muted"))
        return Content.assemble(*parts)
    else:
        over = estimate > budget
        ratio = 1.0 if budget <= 0 else estimate / budget
        colour = "$error" if over else ("$success" if ratio < 0.8 else "$warning")
        known = f"{estimate:,} + ?" if unknown else f"{estimate:,}"
        parts += [*_bar(ratio, bar_width, colour), f" {known} / {budget:,} {unit} · {picked}"]
        if over:
            parts.append((" · over budget: the request would fail", "$error"))
    if what and tokens is not None and (tokens != estimate or not tokens_exact):
        parts.append(" · " + tokens_text(tokens, tokens_exact))
    if note:
        parts.append((f" · {visible(note)}", "$foreground-muted"))
    return Content.assemble(*parts)


class SelectedMeter(Widget):
    """The selected-body budget meter (U2): required bodies of the agent plus the selected row's
    body, and under it :attr:`rule`. Attributes down; ``pending`` shows ``computing…``."""

    DEFAULT_CSS = """
    SelectedMeter {
        height: auto;
        width: 1fr;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    label: reactive[str] = reactive("bodies")
    estimate: reactive[int] = reactive(0)
    budget: reactive[int | None] = reactive(0)
    tokens: reactive[int | None] = reactive(None)
    tokens_exact: reactive[bool] = reactive(True)
    required: reactive[int] = reactive(0)
    required_label: reactive[str] = reactive("required")
    #: ``tokens``, or ``bytes`` for a host comparing UTF-8 bytes (Zuno, conformance Z-U)
    unit: reactive[str] = reactive("tokens")
    selected: reactive[str | None] = reactive(None)
    #: the selected body's size is not known (``note`` says why)
    unknown: reactive[bool] = reactive(False)
    note: reactive[str] = reactive("")
    #: the second line: the budget in the host's words; ``""``: none
    rule: reactive[str] = reactive("", layout=True)
    pending: reactive[bool] = reactive(True)
    #: One line only, without the rule (short terminals)
    brief: reactive[bool] = reactive(False, layout=True)

    def render(self) -> Content:
        if self.pending:
            line = Content.assemble((f"{self.label} ", "bold"), ("computing…", "$foreground-muted"))
        else:
            line = selected_meter_text(
                self.label, self.estimate, self.budget, tokens=self.tokens, tokens_exact=self.tokens_exact,
                required=self.required, selected=self.selected, note=self.note, required_label=self.required_label,
                unit=self.unit, unknown=self.unknown,
            )
        return Content("\n").join([line, _rule_line(self.rule)]) if self.rule and not self.brief else line

    @property
    def plain(self) -> str:
        """The rendered lines as plain text (tests)."""
        return self.render().plain
