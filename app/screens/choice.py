"""Small modal pickers of the main screen: the agent view (``g``) and a file of the skill folder (``R``).

Both are a :class:`ChoiceScreen`: a titled ``OptionList`` that dismisses with the chosen option id
(or ``None`` on ``esc``). Labels are built from plain ``Content`` (skill-derived text made
visible, SPEC X1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from skillshelf.app.screens.moves import step_cursor
from skillshelf.core.textsafe import visible
from skillshelf.widgets.notice_line import NoticeLine

__all__ = ["BODY_CHOICE", "NO_AGENT", "AgentChoice", "ChoiceScreen", "agent_options", "resource_options"]

#: Option id of "(no agent)" in the agent picker.
NO_AGENT = "\0no-agent"


class ChoiceScreen(ModalScreen[str | None]):
    """Modal list of options; ``j`` / ``k`` or the arrows move, ``enter`` dismisses with the
    option id, ``esc`` / ``q`` with ``None``.

    ``options``: ``(id, label)`` pairs; ``current`` is highlighted first when present.
    """

    DEFAULT_CSS = """
    ChoiceScreen { align: center middle; }
    ChoiceScreen > Vertical {
        width: 90; max-width: 95%; height: auto; max-height: 80%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    ChoiceScreen #choice-title { height: auto; margin-bottom: 1; }
    ChoiceScreen OptionList { height: auto; max-height: 30; border: none; }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="choice.cancel"),
        Binding("q", "cancel", "Cancel", show=False, id="choice.cancel-q"),
        Binding("j", "move(1)", "Down", show=False, id="choice.down"),
        Binding("k", "move(-1)", "Up", show=False, id="choice.up"),
    ]

    def __init__(self, title: str, options: Sequence[tuple[str, Content | str]], current: str | None = None,
                 *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.title_text = title
        self.choices = list(options)
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content(self.title_text), id="choice-title", markup=False)
            yield OptionList(*(Option(label, id=oid) for oid, label in self.choices), id="choice-list", markup=False)
            yield NoticeLine()
        yield Footer()

    def on_mount(self) -> None:
        lst = self.query_one(OptionList)
        ids = [oid for oid, _ in self.choices]
        if self.current in ids:
            lst.highlighted = ids.index(self.current)
        lst.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_move(self, step: int) -> None:
        """``j`` / ``k``: the next / previous option, as the arrows (and the other lists' j/k) do."""
        step_cursor(self.query_one(OptionList), step)


@dataclass(frozen=True)
class AgentChoice:
    """One agent row of the picker: ``name``, ``ok`` (would start), ``problems`` sentences,
    ``hidden`` built-ins it cannot see."""

    name: str
    ok: bool
    problems: tuple[str, ...] = ()
    hidden: int = 0


def agent_options(choices: Sequence[AgentChoice]) -> list[tuple[str, Content]]:
    """``(no agent)`` then one line per configured agent: ``✓ NAME  would start`` or
    ``✗ NAME  would not start: first problem`` (SPEC S2, U3, G2)."""
    out: list[tuple[str, Content]] = [(NO_AGENT, Content.assemble(("  (no agent)", "bold"), ("  every source, no filter", "$foreground-muted")))]
    for c in choices:
        mark = ("✓ ", "$success") if c.ok else ("✗ ", "$error")
        what = "would start" if c.ok else "would not start: " + (c.problems[0] if c.problems else "?")
        extra = f" · hides {c.hidden} built-in{'s' if c.hidden != 1 else ''}" if c.hidden else ""
        out.append((c.name, Content.assemble(mark, (visible(c.name), "bold"), ("  " + visible(what) + extra, "$foreground-muted"))))
    return out


#: Option id of "the skill body" in the resource picker.
BODY_CHOICE = "\0body"


def resource_options(resources: Sequence[tuple[str, int]], cut: bool) -> list[tuple[str, Content]]:
    """``SKILL.md body`` then one line per resource ``path  size``; a last muted line when the
    listing was capped is not selectable (it is omitted; the title says so)."""
    out: list[tuple[str, Content]] = [(BODY_CHOICE, Content.assemble(("SKILL.md", "bold"), ("  the skill body", "$foreground-muted")))]
    for path, size in resources:
        size_text = "?" if size < 0 else f"{size:,} B"
        out.append((path, Content.assemble(visible(path), ("  " + size_text, "$foreground-muted"))))
    return out
