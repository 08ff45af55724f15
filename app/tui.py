"""The skillshelf TUI: :class:`SkillshelfApp` and the ``run_tui`` entry used by ``app/cli.py``.

The app takes an injected catalog factory (memray style) so tests pass a fake; ``run_tui``
builds the real one from the command line (SPEC C: ``skillshelf [COMMON] [--demo] [--no-watch]``).

Live (SPEC H2–H4, issue 5): with ``watch=True`` the app runs
:meth:`skillshelf.core.watch.CatalogWatcher.run` in a thread worker (group ``watcher``) over the
catalog the main screen opened; each generation the watcher makes the catalog publish reaches the
screen through ``Catalog.subscribe``. The worker stops when its ``threading.Event`` is set (on a
host switch, on unmount and on quit). ``h`` switches the host zuno ↔ zhin (issue 7). ``e`` opens
the Problems screen (:mod:`skillshelf.app.screens.problems`); ``ctrl+p`` finds skills and the
app's actions (:mod:`skillshelf.app.screens.palette`). ``q`` quits from the main screen; every
modal screen binds ``q`` to close itself instead.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen

from skillshelf.app.screens.help import HelpScreen
from skillshelf.app.screens.main import CatalogLike, CatalogOpened, MainScreen
from skillshelf.app.screens.palette import ActionProvider, SkillProvider
from skillshelf.app.sourceinfo import FROM_CONFIG
from skillshelf.core.catalog import Catalog
from skillshelf.core.hosts import DEFAULT_HOST, get_host, next_host
from skillshelf.core.hosts.base import Host
from skillshelf.core.textsafe import visible

__all__ = ["SkillshelfApp", "display_path", "run_tui", "undo_words"]

class SkillshelfApp(App[int]):
    """One main screen (:class:`MainScreen`) over the catalog ``open_catalog()`` returns.

    ``open_catalog`` runs in a worker thread (it may take ~1 s on 10k skills). ``host`` and
    ``cwd_display`` are shown in the header. ``watch``: keep the catalog live with a
    :class:`~skillshelf.core.watch.CatalogWatcher` (``watch_step`` / ``watch_debounce`` in ms,
    watchfiles semantics); off by default so tests and screenshots are deterministic —
    ``run_tui`` turns it on unless ``--no-watch``. ``open_host(host)`` opens the same inputs
    under another host for ``h``; ``None`` uses :meth:`Catalog.reopen` on the open catalog.
    """

    CSS_PATH = "app.tcss"
    TITLE = "skillshelf"
    COMMANDS = App.COMMANDS | {ActionProvider, SkillProvider}
    BINDINGS = [
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("ctrl+p", "command_palette", "Palette", show=False, id="app.palette"),
        Binding("a", "resolve", "Resolve", id="app.resolve"),
        Binding("i", "index_preview", "Index", id="app.index-preview"),
        Binding("w", "whatif", "What-if", id="app.whatif"),
        Binding("ctrl+z", "undo_write", "Undo write", show=False, id="app.undo-write"),
        Binding("h", "switch_host", "Host", id="app.switch-host"),
        Binding("e", "problems", "Problems", id="app.problems"),
    ]

    #: Actions that only make sense over the main screen (not inside a modal or another screen).
    MAIN_ONLY_ACTIONS = frozenset({"resolve", "index_preview", "whatif", "undo_write", "switch_host", "problems"})

    #: Context window (tokens) applied from the what-if screen (``enter``) for this session;
    #: ``None`` = the catalog's own (``--context-window``). Used by the index preview, what-if
    #: and the main screen's meters (SPEC U1–U2).
    session_context_window: reactive[int | None] = reactive(None, init=False)
    #: ``maxContextTokens`` applied from the what-if screen together with the window (tokens;
    #: ``None`` = unset for this session); :data:`~skillshelf.app.sourceinfo.FROM_CONFIG` = the
    #: configuration's own (no session value). Set through :meth:`apply_session_budget`.
    session_max_context_tokens: Any = FROM_CONFIG
    #: Longest wait, seconds, for the live watcher to publish the generation of a config write
    #: before the writer rescans itself (:meth:`generation_after_write`).
    WATCHER_WAIT = 2.0

    def __init__(
        self,
        open_catalog: Callable[[], CatalogLike],
        *,
        host: Host | str = DEFAULT_HOST,
        cwd_display: str = "",
        watch: bool = False,
        watch_step: int = 50,
        watch_debounce: int = 1600,
        open_host: Callable[[Host], CatalogLike] | None = None,
    ) -> None:
        super().__init__()
        self._open_catalog = open_catalog
        self.host: Host = get_host(host) if isinstance(host, str) else host
        self.cwd_display = cwd_display
        #: Keep the catalog live (``watch`` argument; named ``live`` because ``App.watch`` exists).
        self.live = watch
        self.watch_step = watch_step
        self.watch_debounce = watch_debounce
        self._open_host = open_host
        #: The last config write made from the ambiguity picker (``ctrl+z`` undoes it), or ``None``.
        self.last_write: Any = None
        #: The catalog being watched and the event that stops its watcher.
        self.watched: Any = None
        self._watch_stop: threading.Event | None = None
        #: The running :class:`~skillshelf.core.watch.CatalogWatcher` (its ``ready`` event is set
        #: once the first watches are in place), or ``None``.
        self.watcher: Any = None

    def get_default_screen(self) -> Screen:
        return MainScreen(self._open_catalog, host=self.host, cwd_display=self.cwd_display)

    @property
    def main_screen(self) -> MainScreen:
        """The catalog screen (bottom of the stack)."""
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        raise LookupError("main screen not mounted")

    # ------------------------------------------------------------------ live watching (issue 5)
    @on(CatalogOpened)
    def _catalog_opened(self, event: CatalogOpened) -> None:
        if self.live:
            self.start_watching(event.catalog)

    def start_watching(self, catalog: Any) -> None:
        """Watch ``catalog`` (stopping the watcher of a previous one). A catalog the watcher
        cannot drive (no ``set_watch_warnings``: a test fake) is not watched."""
        self.stop_watching()
        if not callable(getattr(catalog, "set_watch_warnings", None)):
            return
        self.watched = catalog
        self._watch_stop = threading.Event()
        self.run_watcher(catalog, self._watch_stop)

    def stop_watching(self) -> None:
        """Stop the running watcher, if any (returns at once; the thread ends within ~1 poll)."""
        if self._watch_stop is not None:
            self._watch_stop.set()
        self._watch_stop = None
        self.watched = None
        self.watcher = None

    @work(thread=True, exclusive=True, group="watcher", exit_on_error=False, description="watch skills")
    def run_watcher(self, catalog: Any, stop: threading.Event) -> None:
        """``CatalogWatcher(catalog).run(stop)``; new generations arrive via ``Catalog.subscribe``."""
        from skillshelf.core.watch import CatalogWatcher

        watcher = CatalogWatcher(catalog, step=self.watch_step, debounce=self.watch_debounce)
        self.watcher = watcher
        watcher.run(stop)

    def on_unmount(self) -> None:
        self.stop_watching()

    async def action_quit(self) -> None:
        self.stop_watching()
        await super().action_quit()

    # ------------------------------------------------------------------ host (issue 7)
    def action_switch_host(self) -> None:
        """``h``: re-open the catalog under the next registered host, same inputs, in a worker."""
        main = self._loaded_main()
        if main is None:
            return
        host = next_host(main.host)
        old = main.catalog
        opener = self._open_host
        if opener is None and not isinstance(old, Catalog):
            self.notify("This catalog cannot be re-opened for another host.", timeout=4)
            return

        def open_catalog() -> CatalogLike:
            if opener is not None:
                return opener(host)
            assert isinstance(old, Catalog)
            return old.reopen(host)

        self.stop_watching()
        self.host = host
        main.switch_host(host, open_catalog)

    def apply_session_budget(self, window: int | None, max_context_tokens: Any = FROM_CONFIG) -> None:
        """What-if ``enter``: use ``window`` and ``max_context_tokens`` (tokens; ``None`` = unset,
        :data:`FROM_CONFIG` = the configuration's) for this session (SPEC U1–U2): the main
        screen's meters, the index preview and the next what-if start from both. Recomputes once."""
        self.session_max_context_tokens = max_context_tokens
        if window == self.session_context_window:
            self.watch_session_context_window(window)
        else:
            self.session_context_window = window

    def generation_after_write(self, catalog: Any, before: int) -> Any:
        """The generation that shows a config write (or undo) just made to ``catalog``, whose
        generation number was ``before`` (SPEC H2). Runs in a worker thread.

        One visible generation step per user action: when the live watcher watches ``catalog``
        it will publish the change itself, so this waits (up to :attr:`WATCHER_WAIT` s) for that
        generation instead of also calling ``refresh()`` (core keeps "a refresh always
        publishes", so two rescans of one change would be two generations). Without a watcher, or
        when none arrives in time, it calls ``catalog.refresh()``."""
        import time

        watcher = self.watcher
        if (self.live and catalog is self.watched and watcher is not None
                and getattr(watcher, "ready", None) is not None and watcher.ready.is_set()):
            deadline = time.monotonic() + self.WATCHER_WAIT
            while time.monotonic() < deadline:
                current = catalog.current
                if current.number > before:
                    return current
                time.sleep(0.02)
        return catalog.refresh()

    def watch_session_context_window(self, window: int | None) -> None:
        """What-if ``enter`` set the session window: the main screen recomputes its meters."""
        try:
            main = self.main_screen
        except LookupError:
            return
        main.window_changed()

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    # ------------------------------------------------------------------ K5 / P / U screens
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Disable the main-screen actions (``a`` ``i`` ``w`` ``e`` ``h`` ``ctrl+z``) while another screen is on top."""
        return not (action in self.MAIN_ONLY_ACTIONS and not isinstance(self.screen, MainScreen))

    def _loaded_main(self) -> MainScreen | None:
        main = self.main_screen
        if main.catalog is None or main.generation is None:
            self.notify("The catalog is still loading.", timeout=3)
            return None
        return main

    def action_resolve(self) -> None:
        """``a``: open the ambiguity picker on the selected row's name (SPEC K5), or say why not."""
        from skillshelf.app.screens.picker import AmbiguityPicker

        main = self._loaded_main()
        if main is None:
            return
        row = main.selected_row()
        if row is None:
            self.notify("No row selected.", timeout=3)
            return
        gen = main.generation
        if row.rejected or row.name not in gen.ambiguous_names():
            why = "a rejected file" if row.rejected else "not ambiguous"
            self.notify(f"`{visible(row.name)}` is {why}: nothing to resolve.", timeout=4, markup=False)
            return
        self.push_screen(AmbiguityPicker(main.catalog, gen, row.name, keep=row.location))

    def action_index_preview(self) -> None:
        """``i``: the exact prompt index for the current host and budget (SPEC P)."""
        from skillshelf.app.screens.index_preview import IndexPreviewScreen

        main = self._loaded_main()
        if main is not None:
            self.push_screen(IndexPreviewScreen(main.catalog, main.generation,
                                                context_window=self.session_context_window,
                                                max_context_tokens=self.session_max_context_tokens))

    def action_whatif(self) -> None:
        """``w``: what-if on the context window / ``maxContextTokens`` (SPEC U1–U2); writes nothing."""
        from skillshelf.app.screens.whatif import WhatIfScreen

        main = self._loaded_main()
        if main is not None:
            self.push_screen(WhatIfScreen(main.catalog, main.generation,
                                          context_window=self.session_context_window,
                                          max_context_tokens=self.session_max_context_tokens))

    def action_problems(self) -> None:
        """``e``: the Problems screen — warnings, catalog diagnostics and rejected files of the
        shown generation (SPEC K1, D2, D4, R, H3, F6); ``enter`` on an entry naming a skill file
        moves the catalog cursor to that row."""
        from skillshelf.app.screens.problems import ProblemsScreen

        main = self._loaded_main()
        if main is None:
            return

        def chosen(location: str | None) -> None:
            if location is not None:
                main.jump_to_location(location)

        found = tuple(main.problems)
        view = main.view
        if view is not None and view.agent is not None and view.problems:
            from skillshelf.app.sourceinfo import Problem
            from skillshelf.core.model import Severity

            # the one-line banner under the header is cut; the whole sentences are here
            found = tuple(Problem(Severity.ERROR, "agent-would-not-start", p, f"agents.{view.agent}")
                          for p in view.problems) + found
        self.push_screen(ProblemsScreen(found, main.generation.number), chosen)

    def action_undo_write(self) -> None:
        """``ctrl+z``: undo the last picker write (restores the file byte for byte) and rescan."""
        from skillshelf.core.configwrite import ConfigWriteError, undo

        result = self.last_write
        if result is None:
            self.notify("Nothing to undo.", timeout=3)
            return
        try:
            undo(result)
        except ConfigWriteError as exc:
            self.notify(visible(f"Not undone: {exc}", multiline=True), severity="error", timeout=8, markup=False)
            return
        self.last_write = None
        self.notify(visible(f"Undone: {undo_words(result)}.", multiline=True), timeout=5, markup=False)
        main = self.main_screen
        if main.catalog is not None:
            main.rescan_after_write()


def undo_words(result: Any) -> str:
    """What an undo of the config write ``result`` did: ``/p/zuno.json removed (it did not exist
    before)`` for a file the write created, else ``/p/zuno.json restored``."""
    if getattr(result, "created", False):
        return f"{result.target} removed (it did not exist before)"
    return f"{result.target} restored"


def display_path(path: str, home: str | None) -> str:
    """``path`` with ``home`` shown as ``~`` (for the header)."""
    home = (home or "").rstrip("/")
    if home and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home) :]
    return path


def run_tui(ns: Any) -> int:
    """Run the TUI for parsed options ``ns`` (``cwd``, ``host``, ``context_window``, ``path``,
    ``config``, ``demo``, ``no_watch``); returns the exit code (0, or 2 when the demo workspace cannot be
    prepared). ``--demo`` copies the shipped workspace to a temporary directory (SPEC C3),
    opens the catalog there with its own ``HOME``, and deletes the copy on exit."""
    from skillshelf.core.paths import Environment

    cwd = os.path.abspath(ns.cwd or os.getcwd())
    env_map: Any = None
    demo_root: str | None = None
    if getattr(ns, "demo", False):
        from skillshelf.app.demo import prepare_demo

        try:
            demo = prepare_demo()
        except OSError as exc:
            print(f"skillshelf: cannot prepare the demo workspace: {exc}", file=sys.stderr)
            return 2
        cwd, env_map, demo_root = str(demo.cwd), dict(demo.env), demo.root
    env = Environment.from_mapping(env_map)
    host = get_host(ns.host)

    def open_host(other: Host) -> CatalogLike:
        return Catalog.open(
            cwd,
            env=env,
            host=other,
            paths=tuple(getattr(ns, "path", None) or ()),
            config_files=tuple(getattr(ns, "config", None) or ()),
            context_window=getattr(ns, "context_window", None),
        )

    app = SkillshelfApp(lambda: open_host(host), host=host, cwd_display=display_path(cwd, env.home or str(Path.home())),
                        watch=not getattr(ns, "no_watch", False), open_host=open_host)
    try:
        app.run()
    finally:
        if demo_root is not None:
            shutil.rmtree(demo_root, ignore_errors=True)
    return int(app.return_code or 0)
