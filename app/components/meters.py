"""The two budget meters under the panes: the catalog text against the host's budget (SPEC U1,
P5–P6) and the bodies one request carries against the selected-body budget (U2–U3).

Attributes down: :meth:`Meters.show_view` with the :class:`~skillshelf.app.catalog_view.CatalogView`
and the host, :meth:`Meters.show_selected` with the selected row and its body cost,
:meth:`Meters.computing` while either is being recomputed.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical

from skillshelf.app.budgets import index_rule_words, selected_rule_words
from skillshelf.app.catalog_view import CatalogView
from skillshelf.app.loaded_text import BodyCost
from skillshelf.core.hosts.base import BUILT_IN_BODY, Host
from skillshelf.widgets.budget_meter import BudgetMeter, SelectedMeter
from skillshelf.widgets.rows import CatalogRow

__all__ = ["Meters"]


class Meters(Vertical):
    """A :class:`~skillshelf.widgets.budget_meter.BudgetMeter` above a
    :class:`~skillshelf.widgets.budget_meter.SelectedMeter`."""

    DEFAULT_CSS = """
    Meters { height: auto; }
    """

    def __init__(self, *, id: str | None = "meters") -> None:
        super().__init__(id=id)
        self._view: CatalogView | None = None
        self._row: CatalogRow | None = None
        self._cost: BodyCost | None = None
        self._host: Host | None = None

    def compose(self) -> ComposeResult:
        yield BudgetMeter(id="meter")
        yield SelectedMeter(id="meter-selected")

    def set_brief(self, brief: bool) -> None:
        """``brief``: each meter on one line (its numbers), without the prompt and rule lines —
        a short terminal keeps its rows for the list; ``w`` (what-if) still gives the rules."""
        self.query_one(BudgetMeter).brief = brief
        self.query_one(SelectedMeter).brief = brief

    def computing(self) -> None:
        """Both meters say ``computing…`` until the next :meth:`show_view`."""
        self.query_one(BudgetMeter).pending = True
        self.query_one(SelectedMeter).pending = True

    def show_view(self, view: CatalogView, host: Host) -> None:
        """The numbers of ``view``, labelled in ``host``'s words (``index`` / ``catalog``,
        ``required`` / ``always``), each meter with its rule in words under it."""
        self._view = view
        self._host = host
        labels = host.labels
        meter = self.query_one(BudgetMeter)
        meter.label = labels.catalog
        index = view.index
        meter.message = ""
        meter.used, meter.limit, meter.unit = index.used, index.budget, index.unit
        meter.tokens, meter.tokens_exact = index.tokens, index.exact
        meter.truncated, meter.omitted = index.truncated, index.omitted
        meter.rule = index_rule_words(host, index.budget, index.rule, view.window)
        meter.prompt, meter.sections = index.prompt, index.sections
        meter.pending = False
        selected = self.query_one(SelectedMeter)
        selected.required_label = labels.selected
        selected.unit = labels.selected_unit
        selected.rule = selected_rule_words(host, view.selected_budget, view.selected_rule, view.window)
        self._show_selected()

    def show_selected(self, row: CatalogRow | None, cost: BodyCost | None) -> None:
        """The selected row and what loading it costs (``None``: unknown yet, or nothing to load)."""
        self._row, self._cost = row, cost
        self._show_selected()

    def _show_selected(self) -> None:
        """Required bodies plus the selected row's body (SPEC U2–U3)."""
        meter = self.query_one(SelectedMeter)
        view = self._view
        if view is None:
            meter.pending = True
            return
        required = view.required
        in_bytes = meter.unit == "bytes"
        estimate = sum((b.size or 0) if in_bytes else b.tokens for b in required)
        exact_parts = [b.exact for b in required]
        selected = None
        note = ""
        cost, row = self._cost, self._row
        unknown = False
        if cost is not None and row is not None and cost.location == row.location:
            if cost.error:
                # the row is selected all the same; what its body costs is not known
                selected, unknown = row.name, True
                note = ("its body is inside the client: size unknown" if cost.error_code == BUILT_IN_BODY
                        else "its body cannot be read: size unknown")
            elif cost.location not in {b.location for b in required}:
                estimate += cost.bytes if in_bytes else cost.tokens
                exact_parts.append(cost.exact)
                selected = row.name
        exact_ok = all(x is not None for x in exact_parts)
        meter.estimate, meter.budget = estimate, view.selected_budget
        meter.tokens = sum(x or 0 for x in exact_parts) if exact_ok else estimate
        meter.tokens_exact = exact_ok
        meter.required, meter.selected, meter.note, meter.unknown = len(required), selected, note, unknown
        meter.pending = False
