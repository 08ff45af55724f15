"""Command palette providers: the app's actions by name (:class:`ActionProvider`) and any skill
(or rejected file) by fuzzy name (:class:`SkillProvider`).

Hits are built from plain :class:`~textual.content.Content` (never ``Matcher.highlight``, which
parses markup, nor ``Hit.help``, which the palette renders as markup), so skill names cannot
inject markup (SPEC X1).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.dom import DOMNode

from skillshelf.app.screens.main import MainScreen
from skillshelf.core.hosts import host_names
from skillshelf.core.hosts.base import Feature
from skillshelf.core.textsafe import visible
from skillshelf.widgets.rows import short_location

__all__ = ["PALETTE_ACTIONS", "ActionProvider", "PaletteAction", "SkillProvider"]

_DISCOVER_MAX = 50


@dataclass(frozen=True)
class PaletteAction:
    """One palette entry for an action: ``title`` (what is matched), ``key`` (the binding shown
    beside it), ``help`` (one line), ``owner`` (``"app"`` or ``"main"``: whose ``action_<name>``
    runs), ``action`` (the action name without ``action_``) and its ``args``."""

    title: str
    key: str
    help: str
    owner: str
    action: str
    args: tuple[int, ...] = ()
    #: The host feature the action needs (``None``: every host).
    feature: Feature | None = None

    @property
    def action_string(self) -> str:
        """``next_conflict(1)``: the action as a binding names it."""
        return f"{self.action}({', '.join(map(repr, self.args))})" if self.args else self.action


#: The actions the palette lists, in discovery order. Each runs the same action its key runs; an
#: action the current host has no use for (its ``feature``) is not listed.
PALETTE_ACTIONS: tuple[PaletteAction, ...] = (
    PaletteAction("Decide the selected skill", "a", "picker: enable, disable, expose, resolve a conflict", "app", "resolve",
                  feature=Feature.CONFIG),
    PaletteAction("Index preview", "i", "the exact prompt index for this host and budget", "app", "index_preview"),
    PaletteAction("What-if: context window", "w", "budgets under another window / maxContextTokens", "app", "whatif"),
    PaletteAction("Agent view", "g", "show the catalog as an agent (native or agents.<name>) sees it", "main", "pick_agent",
                  feature=Feature.AGENTS),
    PaletteAction("Switch host (" + " → ".join(host_names()) + ")", "h",
                  "same folder, paths and config under the next host", "app", "switch_host"),
    PaletteAction("Refresh (rescan now)", "r", "rescan every root: a new generation", "main", "refresh"),
    PaletteAction("Pull remote skills now", "p", "fetch the skills.urls indexes and rescan", "main", "pull",
                  feature=Feature.REMOTE),
    PaletteAction("Problems", "e", "warnings, config errors, uncovered folders, rejected files", "app", "problems"),
    PaletteAction("Compare hosts", "x", "this workspace under every host side by side", "app", "compare"),
    PaletteAction("Search bodies too", "ctrl+f", "the filter also finds a query in the skills' bodies", "main",
                  "toggle_bodies"),
    PaletteAction("Edit the selected skill file", "o", "open it in $VISUAL / $EDITOR; a change rescans", "main",
                  "open_editor"),
    PaletteAction("Sort: next order", "s", "catalog, name, provenance, size, tokens", "main", "cycle_sort"),
    PaletteAction("Next conflict", "n", "the next ambiguous name", "main", "next_conflict", (1,)),
    PaletteAction("Undo the last config write", "ctrl+z", "restore skills.config byte for byte (any session)", "app",
                  "undo_write", feature=Feature.CONFIG),
    PaletteAction("Undo list", "U", "every config write skillshelf made; undo one", "app", "undo_list",
                  feature=Feature.CONFIG),
    PaletteAction("Help", "?", "keys and the status glyphs", "app", "help"),
    PaletteAction("Quit", "q", "leave skillshelf", "app", "quit"),
)


def _main_screen(provider: Provider) -> MainScreen | None:
    for screen in (provider.screen, *provider.app.screen_stack):
        if isinstance(screen, MainScreen):
            return screen
    return None


class ActionProvider(Provider):
    """Lists :data:`PALETTE_ACTIONS` with their keys; selecting one runs the same action as the
    key (on the app or on the main screen). The palette closes before the command runs, so the
    action sees the screen the key would have seen."""

    def _runner(self, entry: PaletteAction) -> Callable[[], Awaitable[Any]] | None:
        main = _main_screen(self)
        if main is None or (entry.feature is not None and entry.feature not in main.host.features):
            return None
        target: DOMNode = self.app if entry.owner == "app" else main
        return partial(self.app.run_action, entry.action_string, target)

    @staticmethod
    def _display(entry: PaletteAction) -> Content:
        return Content.assemble((entry.title, "bold"), ("  " + entry.key, "$accent"), "\n",
                                (entry.help, "$foreground-muted"))

    async def discover(self) -> Hits:
        for entry in PALETTE_ACTIONS:
            run = self._runner(entry)
            if run is not None:
                yield DiscoveryHit(self._display(entry), run, text=entry.title)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for entry in PALETTE_ACTIONS:
            score = matcher.match(entry.title)
            run = self._runner(entry) if score > 0 else None
            if run is not None:
                yield Hit(score, self._display(entry), run, text=entry.title)


class SkillProvider(Provider):
    """Finds catalog rows by fuzzy name (``textual.fuzzy`` scoring); selecting one moves the
    catalog cursor to it (clearing a filter that hides it)."""

    def _main(self) -> MainScreen | None:
        return _main_screen(self)

    def _items(self) -> list[tuple[int, str, Content]]:
        main = self._main()
        if main is None:
            return []
        out = []
        for i, row in enumerate(main.rows):
            name = visible(row.name)
            place = visible(row.distinct or short_location(row.item))  # copies of a name told apart
            where = f"{row.state} {row.exposure} · {visible(row.root_label)} · {place}"
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
