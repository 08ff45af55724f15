"""What the TUI needs of a catalog: :class:`AppCatalog`.

:class:`skillshelf.core.catalog.Catalog` satisfies it; tests pass fakes over fixed generations
that implement it too. Host-specific behaviour is reached through :attr:`AppCatalog.host` (its
:class:`~skillshelf.core.hosts.base.Feature` set and labels) and :attr:`AppCatalog.session`
(catalog text, budgets, source facts, loaded pages), never by comparing host names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from skillshelf.core.hosts.base import Host, HostContext, HostSession
from skillshelf.core.model import Generation

if TYPE_CHECKING:  # (the configuration reader is not needed for the TUI's first frame)
    from skillshelf.core.config import Config

__all__ = ["AppCatalog"]


@runtime_checkable
class AppCatalog(Protocol):
    """A live catalog as the TUI reads it.

    ``current``: the published generation; ``host`` and ``session``: whose rules build it and
    the host's per-workspace answers; ``context``: the workspace inputs (cwd, environment,
    context window); ``config``: the merged configuration of the latest build (empty for hosts
    without one); ``remote_origins``: pulled remote skill directory → (URL, version).
    ``refresh`` rescans and publishes (``pull_remote`` pulls ``skills.urls`` first);
    ``subscribe`` calls back, from the publishing thread, after every publish.
    """

    @property
    def current(self) -> Generation: ...

    @property
    def host(self) -> Host: ...

    @property
    def session(self) -> HostSession: ...

    @property
    def context(self) -> HostContext: ...

    @property
    def config(self) -> Config: ...

    @property
    def remote_origins(self) -> Mapping[str, tuple[str, str | None]]: ...

    def refresh(self, *, pull_remote: bool = False) -> Generation: ...

    def subscribe(self, callback: Callable[[Generation], None]) -> None: ...
