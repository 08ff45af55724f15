"""The details section of the source pane, with the worker that computes what the catalog row does
not carry: lint (SPEC F5), sidecar origins (E3), the remote origin (R), the skill folder's files
(L5) and the host's own facts (:meth:`HostSession.source_facts
<skillshelf.core.hosts.base.HostSession.source_facts>`).

Attributes down: :meth:`DetailsPanel.inspect` with the selected row and the catalog; the screen
sets :attr:`DetailsPanel.lint_cache` (shared with the catalog pane). Messages up:
:class:`DetailsPanel.LintErrors` when the shown row's lint found errors before the pane-wide lint
got to it.
"""

from __future__ import annotations

from textual import on, work
from textual.message import Message

from skillshelf.app.catalog_protocol import AppCatalog
from skillshelf.app.components.catalog_pane import RowKey, row_key
from skillshelf.app.lint_cache import LintCache
from skillshelf.app.resources import list_resources
from skillshelf.app.worker_errors import ReportsWorkerErrors
from skillshelf.core.hosts.base import Fact
from skillshelf.core.model import Provenance, Severity, Source
from skillshelf.widgets.rows import CatalogRow
from skillshelf.widgets.source_pane import SourceDetails, SourceExtras

__all__ = ["DetailsPanel"]


def _slash_fact(catalog: AppCatalog, source: Source) -> tuple[Fact, ...]:
    """The host's note on a skill named like one of its own commands (SPEC S1), as a fact."""
    if source.provenance is Provenance.BUILTIN:  # the host's own skill is that command, no clash
        return ()
    note = catalog.host.slash_note(source.name)
    return (Fact("slash", note, severity=Severity.WARNING),) if note else ()


class DetailsPanel(ReportsWorkerErrors, SourceDetails):
    """:class:`~skillshelf.widgets.source_pane.SourceDetails` that computes its extras in a worker."""

    class LintErrors(Message):
        """The lint of ``location`` (the shown row) found error-severity findings."""

        def __init__(self, location: str) -> None:
            super().__init__()
            self.location = location

    class _Computed(Message):
        def __init__(self, key: RowKey, extras: SourceExtras) -> None:
            super().__init__()
            self.key = key
            self.extras = extras

    def __init__(self, *, id: str | None = "source-details-scroll") -> None:
        super().__init__(id=id)
        #: Lint per file for the host's target (set by the screen).
        self.lint_cache = LintCache()
        #: What the worker computed for the shown row (``SourceExtras()`` while computing).
        self.extras = SourceExtras()
        self._row: CatalogRow | None = None
        #: the worker was started for :attr:`row` (False for a provisional row shown without its catalog)
        self._computing = False

    @property
    def row(self) -> CatalogRow | None:
        """The row shown."""
        return self._row

    def inspect(self, row: CatalogRow | None, catalog: AppCatalog | None) -> None:
        """Show ``row`` (``None``: nothing selected). The same file with the same entry only
        re-renders (its flags or ambiguity may have changed); anything else starts the worker.
        With no ``catalog`` yet (a provisional row, its build under way), what the row carries is
        shown and the rest is computed once the row is shown again with its catalog."""
        old, computing = self._row, self._computing
        self._row = row
        self._computing = row is not None and catalog is not None
        if row is None:
            self.extras = SourceExtras()
            self.show_row(None)
            return
        if computing and old is not None and row_key(old) == row_key(row) and old.item == row.item:
            self.show_row(row, self.extras, keep_scroll=True)
            return
        self.extras = SourceExtras(lint=self.lint_cache.get(row.item), lint_target=self.lint_cache.target)
        self.show_row(row, self.extras)
        if catalog is not None:
            self.compute(row, catalog)

    @work(thread=True, exclusive=True, group="details", exit_on_error=False, description="source details")
    def compute(self, row: CatalogRow, catalog: AppCatalog) -> None:
        """Lint (cached), sidecar and remote origins, the folder's files and the host's facts of ``row``."""
        from skillshelf.app.origins import remote_origin, sidecar_origins  # (YAML: not before the first frame)

        item = row.item
        cache = self.lint_cache
        lint = cache.lint(item)
        if not isinstance(item, Source):
            self.post_message(self._Computed(row_key(row), SourceExtras(lint=lint, lint_target=cache.target)))
            return
        sidecars = sidecar_origins(item)
        resources = None
        cut = False
        if item.directory:
            found, cut = list_resources(item.directory)
            resources = tuple((r.path, r.size) for r in found)
        extras = SourceExtras(
            lint=lint, display_origin=sidecars.display_name, short_origin=sidecars.short_description,
            remote=remote_origin(catalog.remote_origins, item), resources=resources, resources_cut=cut,
            facts=catalog.session.source_facts(item) + _slash_fact(catalog, item), facts_title=catalog.host.name,
            lint_target=cache.target,
        )
        self.post_message(self._Computed(row_key(row), extras))

    @on(_Computed)
    def _computed(self, event: _Computed) -> None:
        row = self._row
        if row is None or row_key(row) != event.key:
            return
        self.extras = event.extras
        self.show_row(row, event.extras, keep_scroll=True)
        if any(d.severity is Severity.ERROR for d in (event.extras.lint or ())):
            self.post_message(self.LintErrors(row.location))
