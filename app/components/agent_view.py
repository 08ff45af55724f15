"""The agent view (``g``, SPEC E4, S2, U3): which ``agents.<name>`` entry the catalog is shown for,
the picker that chooses it (each agent marked ✓ would start / ✗ would not) and the one-line
banner when the chosen agent would not start.

Attributes down: :meth:`AgentView.show` with the current :class:`~skillshelf.app.catalog_view.CatalogView`;
:meth:`AgentView.pick` opens the picker (its checks run in a worker). Messages up:
:class:`AgentView.Chosen` with the chosen agent, :class:`AgentView.Progress` while checking.
"""

from __future__ import annotations

import time

from textual import on, work
from textual.content import Content
from textual.message import Message
from textual.widgets import Static
from textual.worker import get_current_worker

from skillshelf.app.budgets import SessionBudget
from skillshelf.app.catalog_protocol import AppCatalog
from skillshelf.app.catalog_view import CatalogView, catalog_view
from skillshelf.app.screens.choice import NO_AGENT, AgentChoice, ChoiceScreen, agent_options
from skillshelf.app.timings import Timings
from skillshelf.app.worker_errors import ReportsWorkerErrors
from skillshelf.core.model import Generation
from skillshelf.core.textsafe import visible

__all__ = ["AgentView"]


class AgentView(ReportsWorkerErrors, Static):
    """The banner line of the agent view; hidden while the agent would start (or none is chosen)."""

    DEFAULT_CSS = """
    AgentView { height: 1; margin: 0 1; color: $error; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    class Chosen(Message):
        """The user chose ``agent`` in the picker (``None``: no agent, every source)."""

        def __init__(self, agent: str | None) -> None:
            super().__init__()
            self.agent = agent

    class Progress(Message):
        """``text``: how far the checks are (``""`` when done)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class _Checked(Message):
        def __init__(self, choices: list[AgentChoice], current: str | None, request: int) -> None:
            super().__init__()
            self.choices = choices
            self.current = current
            self.request = request

    def __init__(self, timings: Timings, *, id: str | None = "agent-warning") -> None:
        super().__init__("", id=id, markup=False)
        self.timings = timings
        #: the latest :meth:`pick` (a check answering an older one is dropped)
        self._request = 0

    def reset(self) -> None:
        """Forget a check in flight: its catalog is gone (the host was switched), so its picker
        must not open and its failure is nobody's business (the worker is cancelled)."""
        self._request += 1
        self.workers.cancel_group(self, "agents")
        self.show(None)

    def on_mount(self) -> None:
        self.display = False

    def show(self, view: CatalogView | None) -> None:
        """``⚠ agent broken would not start (e: full text): …`` for ``view``, or nothing."""
        if view is None or view.agent is None or not view.problems:
            self.update("")
            self.display = False
            return
        self.update(Content.assemble(
            (f"⚠ agent {visible(view.agent)} would not start", "bold $error"),
            (" (e: full text): ", "$foreground-muted"),
            visible(" · ".join(view.problems)),
        ))
        self.display = True

    def pick(self, catalog: AppCatalog, generation: Generation, current: str | None, budget: SessionBudget) -> None:
        """Check every configured agent (worker), then open the picker on ``current``."""
        self._request += 1
        self.check_agents(catalog, generation, current, budget, self._request)

    @work(thread=True, exclusive=True, group="agents", exit_on_error=False, description="check agents")
    def check_agents(self, catalog: AppCatalog, generation: Generation, current: str | None,
                     budget: SessionBudget, request: int) -> None:
        """Each agent's ✓/✗ (would it start, SPEC S2/U3): the host's own agents, then the
        configured ones; stops when cancelled."""
        worker = get_current_worker()
        agents = list(catalog.session.agent_names())
        started = time.monotonic()
        choices: list[AgentChoice] = []
        for i, name in enumerate(agents):
            if worker.is_cancelled:
                return
            if time.monotonic() - started > self.timings.progress_after:
                self.post_message(self.Progress(f"checking agents {i:,} / {len(agents):,}…"))
            view = catalog_view(catalog, generation, name, budget)
            choices.append(AgentChoice(name, view.ok, view.problems, len(view.hidden)))
        self.post_message(self._Checked(choices, current, request))

    @on(_Checked)
    def _checked(self, event: _Checked) -> None:
        self.post_message(self.Progress(""))
        if event.request != self._request:  # asked for another catalog, or replaced since
            return
        title = "Agent view: ✓ would start, ✗ would not"
        if not event.choices:
            title += " · this host has no agents"

        def chosen(choice: str | None) -> None:
            if choice is not None:
                self.post_message(self.Chosen(None if choice == NO_AGENT else choice))

        current = NO_AGENT if event.current is None else event.current
        self.app.push_screen(ChoiceScreen(title, agent_options(event.choices), current, id="agent-picker"), chosen)
