"""Command palette provider: jump to any skill (or rejected file) by fuzzy name.

Hits are built from plain :class:`~textual.content.Content` (never ``Matcher.highlight``, which
parses markup, nor ``Hit.help``, which the palette renders as markup), so skill names cannot
inject markup (SPEC X1).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from skillshelf.core.textsafe import visible
from skillshelf.widgets.rows import short_location

if TYPE_CHECKING:
    from skillshelf.app.screens.main import MainScreen

__all__ = ["SkillProvider"]

_DISCOVER_MAX = 50


class SkillProvider(Provider):
    """Finds catalog rows by fuzzy name (``textual.fuzzy`` scoring); selecting one moves the
    catalog cursor to it (clearing a filter that hides it)."""

    def _main(self) -> "MainScreen | None":
        from skillshelf.app.screens.main import MainScreen

        for screen in (self.screen, *self.app.screen_stack):
            if isinstance(screen, MainScreen):
                return screen
        return None

    def _items(self) -> list[tuple[int, str, Content]]:
        main = self._main()
        if main is None:
            return []
        out = []
        for i, row in enumerate(main.rows):
            name = visible(row.name)
            where = f"{row.state} {row.exposure} · {row.item.provenance.value} · {visible(short_location(row.item))}"
            display = Content.assemble((name, "bold"), "\n", (where, "$foreground-muted"))
            out.append((i, name, display))
        return out

    async def discover(self) -> Hits:
        main = self._main()
        if main is None:
            return
        for i, name, display in self._items()[:_DISCOVER_MAX]:
            yield DiscoveryHit(display, partial(main.jump_to_row, i), text=name)

    async def search(self, query: str) -> Hits:
        main = self._main()
        if main is None:
            return
        matcher = self.matcher(query)
        for i, name, display in self._items():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, display, partial(main.jump_to_row, i), text=name)
