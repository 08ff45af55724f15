"""The skillshelf TUI: :class:`SkillshelfApp` and the ``run_tui`` entry used by ``app/cli.py``.

The app takes an injected catalog factory (memray style) so tests pass their own catalogs;
``run_tui`` builds the real one from the command line (SPEC C: ``skillshelf [COMMON] [--demo]
[--no-watch]``).

Live (SPEC H2–H4): with ``watch=True`` the app runs
:meth:`skillshelf.core.watch.CatalogWatcher.run` in a thread worker (group ``watcher``) over the
catalog the main screen opened; each generation it makes the catalog publish reaches the screen
through ``Catalog.subscribe``. The worker stops when its event is set (on a host switch, on
unmount and on quit). ``h`` cycles the registered hosts (:mod:`skillshelf.core.hosts`); keys and
screens a host has no use for are hidden (:class:`~skillshelf.core.hosts.base.Feature`). ``q``
quits from the main screen; every modal screen binds ``q`` to close itself instead.
"""

from __future__ import annotations

from skillshelf.app import startup  # first: the collector is off while the rest is imported

# isort: split
import gc
import shutil
import subprocess
import sys
import threading
from argparse import Namespace
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, on, work
from textual.actions import ActionParseResult
from textual.app import App, ScreenError, ScreenStackError
from textual.binding import Binding
from textual.content import Content
from textual.css.query import NoMatches
from textual.dom import DOMNode, NoScreen
from textual.notifications import Notify
from textual.screen import Screen

from skillshelf.app import ahead
from skillshelf.app.collector import pause, resume
from skillshelf.app.keptpage import KeptPage, page_file, read_page
from skillshelf.app.memory import limit_malloc_arenas
from skillshelf.app.screens.start import StartScreen
from skillshelf.app.session_budget import NO_WHAT_IF, SessionBudget
from skillshelf.app.timings import DEFAULT_TIMINGS, Timings
from skillshelf.app.worker_errors import ReportsWorkerErrors
from skillshelf.core.hosts import DEFAULT_HOST_NAME, HOSTS, get_host, next_host
from skillshelf.core.hosts.base import Feature, Host
from skillshelf.core.model import Generation, Severity
from skillshelf.core.paths import working_directory
from skillshelf.core.textsafe import visible
from skillshelf.widgets.notice_line import NoticeLine

if TYPE_CHECKING:  # imported where used: the first frame waits for nothing it does not show
    from textual.command import Provider

    from skillshelf.app.catalog_protocol import AppCatalog
    from skillshelf.app.live import LiveWatch
    from skillshelf.app.screens.main import CatalogOpened, MainScreen
    from skillshelf.app.screens.picker import AmbiguityPicker
    from skillshelf.app.screens.whatif import WhatIfScreen
    from skillshelf.app.undo import Journal
    from skillshelf.core.catalog import Catalog
    from skillshelf.core.configwrite import WriteResult
    from skillshelf.core.watch import CatalogWatcher

__all__ = ["SkillshelfApp", "app_for", "display_path", "run_tui"]


def _action_provider() -> type[Provider]:
    """The palette's actions (its module is imported when the palette first opens)."""
    from skillshelf.app.screens.palette import ActionProvider

    return ActionProvider


def _skill_provider() -> type[Provider]:
    """The palette's skills (imported when the palette first opens)."""
    from skillshelf.app.screens.palette import SkillProvider

    return SkillProvider


class SkillshelfApp(ReportsWorkerErrors, App[int]):
    """One main screen (:class:`MainScreen`) over the catalog ``open_catalog()`` returns.

    ``open_catalog`` runs in a worker thread (it may take ~1 s on 10k skills). ``host`` and
    ``cwd_display`` are shown in the header. ``watch``: keep the catalog live with a
    :class:`~skillshelf.core.watch.CatalogWatcher` (only a :class:`~skillshelf.core.catalog.Catalog`
    can be watched); off by default so tests and screenshots are deterministic — ``run_tui``
    turns it on unless ``--no-watch``. ``timings``: every delay (tests pass zero debounces).
    ``open_host(host)`` opens the same inputs under another host for ``h``; ``None`` uses
    :meth:`Catalog.reopen` on the open catalog.
    """

    CSS_PATH = "app.tcss"
    TITLE = "skillshelf"
    #: Under this many rows (``-short``) or columns (``-narrow``) the dialogs take the whole
    #: screen (app.tcss): at 80×24 their margins cost the lines their text needs.
    SHORT_BELOW, NARROW_BELOW = 30, 100
    COMMANDS = App.COMMANDS | {_action_provider, _skill_provider}
    #: Keys of every screen. The main screen's own keys (``a`` ``i`` ``w`` ``e`` ``h`` ``x``, and
    #: ``?`` ``q`` again) are bound by :class:`MainScreen` so its footer lists them in its order.
    BINDINGS = [
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("ctrl+p", "command_palette", "Palette", show=False, id="app.palette"),
        Binding("ctrl+z", "undo_write", "Undo write", show=False, id="app.undo-write"),
        Binding("U", "undo_list", "Undo list", show=False, id="app.undo-list"),
        # reached only when the action above is off for this host: they say why (never a dead key)
        Binding("a", "unavailable('resolve')", show=False, id="app.resolve-unavailable"),
        Binding("ctrl+z", "unavailable('undo_write')", show=False, id="app.undo-write-unavailable"),
        Binding("U", "unavailable('undo_list')", show=False, id="app.undo-list-unavailable"),
    ]

    #: Actions that only make sense over the main screen (not inside a modal or another screen).
    MAIN_ONLY_ACTIONS = frozenset({"resolve", "index_preview", "whatif", "undo_write", "undo_list", "switch_host",
                                   "problems", "compare"})
    #: Actions that apply only to hosts with a feature (the picker writes ``skills.config``).
    ACTION_FEATURES = {"resolve": Feature.CONFIG, "undo_write": Feature.CONFIG, "undo_list": Feature.CONFIG}
    #: What a key of :attr:`ACTION_FEATURES` says under a host without the feature.
    UNAVAILABLE = {
        "resolve": ("a: {client} has no configuration skillshelf writes a resolution to: it settles same-name "
                    "copies itself (↓ shadowed, ⇄ either may win). Press h for a host with skills.config."),
        "undo_write": "ctrl+z: {client} has no configuration skillshelf writes, so there is nothing to undo here.",
        "undo_list": "U: {client} has no configuration skillshelf writes, so there is no write to list here.",
    }

    def __init__(
        self,
        open_catalog: Callable[[], AppCatalog],
        *,
        host: Host | str = DEFAULT_HOST_NAME,
        cwd_display: str = "",
        watch: bool = False,
        timings: Timings = DEFAULT_TIMINGS,
        open_host: Callable[[Host], AppCatalog] | None = None,
        quitting: threading.Event | None = None,
        start_screen: bool = False,
        page_file: str | None = None,
        home: str | None = None,
    ) -> None:
        super().__init__()
        self._open_catalog = open_catalog
        self.host: Host = get_host(host) if isinstance(host, str) else host
        self.cwd_display = cwd_display
        #: Keep the catalog live (``watch`` argument; named ``live`` because ``App.watch`` exists).
        self.live = watch
        self.timings = timings
        self._open_host = open_host
        #: What-if values applied to this session (``enter`` on the what-if screen).
        self.budget = NO_WHAT_IF
        #: The last config write made from the ambiguity picker (``ctrl+z`` undoes it), or ``None``.
        self.last_write: WriteResult | None = None
        #: The catalog being watched, its watcher and its generations, or ``None``.
        self.live_watch: LiveWatch | None = None
        #: Set once the app is exiting: no key, click or action is handled any more.
        self.closing = False
        #: Set when the app exits, for the threads it started (a remote pull stops on it).
        self.quitting = quitting if quitting is not None else threading.Event()
        self._switched = False  # (a host switch was asked for: the catalog opening is another host's)
        #: The collector was paused for the first frame (:func:`app_for`); resumed once the main
        #: screen is up.
        self.paused_until_ready = False
        #: The first frame is a :class:`~skillshelf.app.screens.start.StartScreen`, replaced by the
        #: main screen once drawn (``start_screen`` argument; :func:`app_for` sets it).
        self.start_screen = start_screen
        self._main_requested = False
        #: Where the first page of the list is kept between runs (``page_file``; ``None``: not kept).
        self.page_file = page_file
        #: The page the last run kept, shown until the list has rows (read with the first screen).
        self.kept_page: KeptPage | None = None
        #: The home folder the catalog is opened with (``home`` argument), shown as ``~`` in the
        #: rows before the catalog is open (``None``: known once it is).
        self.home = home

    def on_ready(self) -> None:
        """The first frame is drawn. With a start screen, the main screen replaces it now (its
        modules are imported here); then what the start made is frozen and the collector paused
        for it (:func:`app_for`) is resumed."""
        if self.start_screen and isinstance(self.screen, StartScreen):
            if not self._main_requested:
                self._main_requested = True
                self.call_later(self._show_main)
        else:
            self._started()

    async def _show_main(self) -> None:
        if not self.closing:
            # pushed over the start screen (the default screen cannot be switched away: Textual
            # keeps no result callback for it); nothing pops the main screen, so it stays hidden
            await self.push_screen(self._main_screen())
        self._started()

    def _started(self) -> None:
        if self.paused_until_ready:
            self.paused_until_ready = False
            gc.freeze()
            resume()

    def on_resize(self, event: events.Resize) -> None:
        """``-short`` / ``-narrow`` classes for the dialogs' full-screen layout (app.tcss)."""
        self.set_class(event.size.height < self.SHORT_BELOW, "-short")
        self.set_class(event.size.width < self.NARROW_BELOW, "-narrow")

    def get_default_screen(self) -> Screen[None]:
        self.kept_page = read_page(self.page_file)
        if self.start_screen:
            return StartScreen(self.host, self.cwd_display, self.kept_page)
        return self._main_screen()

    def _main_screen(self) -> MainScreen:
        from skillshelf.app.screens.main import MainScreen

        return MainScreen(self._open_catalog, host=self.host, cwd_display=self.cwd_display, timings=self.timings,
                          generation_after_write=self.generation_after_write, run_editor=lambda argv: self.run_editor(argv),
                          kept_page=self.kept_page, page_file=self.page_file, home=self.home)

    @property
    def main_screen(self) -> MainScreen:
        """The catalog screen (the bottom of the stack, or right above the start screen). Raises
        ``LookupError`` before it is made (the start screen is shown)."""
        cls = _main_screen_class()
        for screen in self.screen_stack:
            if cls is not None and isinstance(screen, cls):
                return screen
        raise LookupError("main screen not mounted")

    # ------------------------------------------------------------------ teardown safety
    def exit(self, result: int | None = None, return_code: int = 0, message: object | None = None) -> None:
        """Exit (``q``, the palette …): from here on input is dropped (:meth:`on_event`)."""
        self.closing = True
        self.quitting.set()
        self.stop_watching()
        super().exit(result, return_code, message)  # type: ignore[arg-type]

    async def on_event(self, event: events.Event) -> None:
        """Input that arrives while the app is exiting (``q`` then ``e`` typed together) is
        dropped: a screen pushed during teardown would mount without its children."""
        if self.closing and isinstance(event, events.InputEvent):
            event.stop()
            return
        await super().on_event(event)

    async def run_action(self, action: str | ActionParseResult, default_namespace: DOMNode | None = None,
                         namespaces: object = None) -> bool:
        """Every binding, palette command and link goes through here, so every action is safe
        as a class while screens close: none runs once the app is exiting; one bound to a
        screen that is no longer shown (dismissed or replaced, its key already queued) is
        skipped; and when a screen goes away *while* the action runs (its widgets are gone:
        ``NoMatches``, or it can no longer be dismissed: ``ScreenError``) the action is
        abandoned and logged, not a crash. On a screen still shown those errors are real
        bugs and propagate."""
        if self.closing:
            return False
        screen = _screen_of(default_namespace)
        if screen is not None and screen is not self.screen:
            self.log.warning("skipped an action bound to a closing screen:", action, screen)
            return False
        try:
            return await super().run_action(action, default_namespace, namespaces)  # type: ignore[arg-type]
        except (NoMatches, ScreenError) as exc:
            if self.closing or (screen is not None and (screen is not self.screen or not screen.is_attached)):
                self.log.warning("abandoned an action while its screen was closing:", action, exc)
                return False
            raise

    # ------------------------------------------------------------------ session budget
    @property
    def session_context_window(self) -> int | None:
        """The context window (tokens) applied from the what-if screen, ``None`` = the catalog's."""
        return self.budget.context_window

    @session_context_window.setter
    def session_context_window(self, window: int | None) -> None:
        b = self.budget
        self.apply_session_budget(SessionBudget(window, b.max_context_tokens, b.replaces_max_context_tokens))

    @property
    def session_max_context_tokens(self) -> int | None:
        """The ``maxContextTokens`` applied from the what-if screen (``None`` = unset, or not
        replaced: see :attr:`SessionBudget.replaces_max_context_tokens`)."""
        return self.budget.max_context_tokens

    def apply_session_budget(self, budget: SessionBudget) -> None:
        """Use ``budget`` for this session (SPEC U1–U2): the main screen's meters, the index
        preview and the next what-if start from it."""
        self.budget = budget
        self.main_screen.apply_budget(budget)

    def on_what_if_screen_applied(self, event: WhatIfScreen.Applied) -> None:
        """``enter`` on the what-if screen: its values apply to this session."""
        self.apply_session_budget(event.budget)

    # ------------------------------------------------------------------ live watching
    @property
    def watcher(self) -> CatalogWatcher | None:
        """The running watcher, or ``None``."""
        return self.live_watch.watcher if self.live_watch is not None else None

    @property
    def watched(self) -> Catalog | None:
        """The catalog being watched, or ``None``."""
        return self.live_watch.catalog if self.live_watch is not None else None

    def on_catalog_opened(self, event: CatalogOpened) -> None:
        """The main screen opened a catalog: watch it; pull its remote indexes when deferred."""
        from skillshelf.core.catalog import Catalog  # (imported by the worker that opened it)

        catalog = event.catalog
        if self.live and isinstance(catalog, Catalog):
            self.start_watching(catalog)
        if isinstance(catalog, Catalog) and catalog.context.defer_pull and catalog.config.urls \
                and Feature.REMOTE in catalog.host.features and catalog.context.pull_remote:
            # the local catalog is shown; the remote indexes are pulled now, in a worker (``p``)
            self.main_screen.pull_now(catalog)

    def start_watching(self, catalog: Catalog) -> None:
        """Watch ``catalog`` (stopping the watcher of a previous one)."""
        from skillshelf.app.live import GenerationFeed, LiveWatch
        from skillshelf.core.watch import CatalogWatcher

        self.stop_watching()
        watcher = CatalogWatcher(catalog, step=self.timings.watch_step, debounce=self.timings.watch_debounce)
        self.live_watch = LiveWatch(catalog, watcher, GenerationFeed(catalog))
        self.run_watcher(self.live_watch)

    def stop_watching(self) -> None:
        """Stop the running watcher, if any (returns at once; its thread ends within one poll)."""
        if self.live_watch is not None:
            self.live_watch.stop.set()
        self.live_watch = None

    @work(thread=True, exclusive=True, group="watcher", exit_on_error=False, description="watch skills")
    def run_watcher(self, live: LiveWatch) -> None:
        """``CatalogWatcher.run`` until ``live.stop``; generations arrive via ``Catalog.subscribe``."""
        live.watcher.run(live.stop)

    def on_unmount(self) -> None:
        self.quitting.set()
        self.stop_watching()

    async def action_quit(self) -> None:
        self.closing = True
        self.quitting.set()
        self.stop_watching()
        await super().action_quit()

    def run_editor(self, argv: list[str]) -> None:
        """Run ``argv`` (an editor and a file) with the terminal handed over: the app is suspended
        until it exits. Raises ``SuspendNotSupported`` where the terminal cannot be handed over
        and ``OSError`` when the program cannot be started."""
        with self.suspend():
            subprocess.run(argv, check=False)

    def generation_after_write(self, catalog: AppCatalog, before: int) -> Generation:
        """The generation that shows a config write (or undo) just made to ``catalog``, whose
        generation number was ``before`` (SPEC H2). Runs in a worker thread.

        One visible generation step per user action: when the live watcher watches ``catalog``
        it publishes the change itself, so this waits (at most ``Timings.watcher_wait`` s) for
        that generation instead of also rescanning (a refresh always publishes, so two rescans
        of one change would be two generations). Otherwise, or when none arrives in time, it
        calls ``catalog.refresh()``."""
        live = self.live_watch
        watched = live is not None and live.catalog is catalog and live.ready
        if watched and live is not None and live.feed.wait_past(before, self.timings.watcher_wait):
            return catalog.current
        return catalog.refresh()

    # ------------------------------------------------------------------ notifications
    @on(Notify)
    def _notice_in_dialog(self, event: Notify) -> None:
        """Every notice goes to the :class:`~skillshelf.widgets.notice_line.NoticeLine` of the
        screen on top (the main screen's sits above its meters), so a toast never covers rows
        or a dialog's text (``App.notify`` is unchanged: the same message, handled here first);
        a plain toast only before a screen exists or on a screen without one."""
        line = self._notice_line()
        if line is None:
            return
        event.prevent_default()
        n = event.notification
        content = Content.from_markup(n.message) if n.markup else Content(n.message)
        if n.title:
            content = Content.assemble((n.title + ": ", "bold"), content)
        line.show_notice(content, n.severity, n.timeout)

    def _notice_line(self) -> NoticeLine | None:
        """The notice line of the screen on top (``None``: no screen yet, or it has none)."""
        try:
            screen = self.screen
        except ScreenStackError:  # no screen yet (startup) or the app is closing: a plain toast
            return None
        found = screen.query(NoticeLine)
        return found.first() if found else None

    # ------------------------------------------------------------------ availability
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The main-screen actions (``a`` ``i`` ``w`` ``e`` ``h`` ``ctrl+z``) are off while another
        screen is on top; ``a`` and ``ctrl+z`` only for hosts with a configuration."""
        on_main = _is_main(self.screen)
        if not on_main and action != "quit" and self._on_start_screen():
            return False  # the start screen: only q until the main screen is up
        if action in self.MAIN_ONLY_ACTIONS and not on_main:
            return False
        if action == "unavailable":
            feature = self.ACTION_FEATURES.get(str(parameters[0])) if parameters else None
            return on_main and feature is not None and feature not in self.host.features
        feature = self.ACTION_FEATURES.get(action)
        return feature is None or feature in self.host.features

    def _on_start_screen(self) -> bool:
        try:
            return isinstance(self.screen, StartScreen)
        except ScreenStackError:
            return False

    def action_unavailable(self, action: str) -> None:
        """A key whose action this host does not have: say so (:attr:`UNAVAILABLE`) on the main
        screen's notice line (the only screen where these keys apply), not over its rows."""
        self.main_screen.show_notice(self.UNAVAILABLE[action].format(client=self.host.describe()), timeout=6)

    def _loaded_main(self) -> MainScreen | None:
        main = self.main_screen
        if main.catalog is None or main.generation is None:
            self.notify("The catalog is still loading.", timeout=3)
            return None
        return main

    def action_help(self) -> None:
        from skillshelf.app.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.host))

    def action_switch_host(self) -> None:
        """``h``: re-open the catalog under the next registered host, same inputs, in a worker.
        Pressed again while a host is still opening, it goes on to the next one (``h h`` moves two
        hosts on); while the first catalog loads, it says so."""
        main = self.main_screen if self._switched and self.main_screen.catalog is None else self._loaded_main()
        if main is None:
            return
        from skillshelf.core.catalog import Catalog

        host = next_host(main.host)
        old = main.catalog
        opener = self._open_host
        if opener is None and not isinstance(old, Catalog):
            self.notify("This catalog cannot be re-opened for another host.", timeout=4)
            return

        def open_catalog() -> AppCatalog:
            if opener is not None:
                return opener(host)
            assert isinstance(old, Catalog)
            return old.reopen(host)

        self.stop_watching()
        self.host = host
        self._switched = True
        main.switch_host(host, open_catalog)
        self.refresh_bindings()

    def action_resolve(self) -> None:
        """``a``: open the picker on the selected row's name (SPEC K4–K5): any skill, conflict or
        not; a rejected file says why not."""
        main = self._loaded_main()
        if main is None or main.catalog is None or main.generation is None:
            return
        row = main.selected_row()
        if row is None:
            self.notify("No row selected.", timeout=3)
            return
        gen = main.generation
        if row.rejected or not any(s.name == row.name for s in gen.sources):
            self.notify(f"`{visible(row.name)}` is a rejected file: skills.config cannot decide it until it "
                        "parses.", timeout=4, markup=False)
            return
        if all(s.location.startswith("builtin://") for s in gen.sources if s.name == row.name):
            self.notify(f"`{visible(row.name)}` is built into the host: skills.config entries name files, so "
                        "none can decide it.", timeout=5, markup=False)
            return
        from skillshelf.app.screens.picker import AmbiguityPicker

        catalog = main.catalog
        self.push_screen(AmbiguityPicker(catalog, gen, row.name, keep=row.location,
                                         after_write=lambda before: self.generation_after_write(catalog, before)))

    def on_ambiguity_picker_written(self, event: AmbiguityPicker.Written) -> None:
        """The picker wrote ``skills.config`` (``ctrl+z`` undoes it)."""
        self.last_write = event.result

    def action_index_preview(self) -> None:
        """``i``: the exact catalog text for the current host and budget (SPEC P)."""
        main = self._loaded_main()
        if main is not None and main.catalog is not None and main.generation is not None:
            from skillshelf.app.screens.index_preview import IndexPreviewScreen

            catalog = main.catalog
            self.push_screen(IndexPreviewScreen(catalog, main.generation, budget=self.budget,
                                                after_write=lambda before: self.generation_after_write(catalog, before)))

    def action_whatif(self) -> None:
        """``w``: what-if on the context window / ``maxContextTokens`` (SPEC U1–U2); writes nothing."""
        main = self._loaded_main()
        if main is not None and main.catalog is not None and main.generation is not None:
            from skillshelf.app.screens.whatif import WhatIfScreen

            self.push_screen(WhatIfScreen(main.catalog, main.generation, budget=self.budget, timings=self.timings))

    def action_problems(self) -> None:
        """``e``: the Problems screen — warnings, catalog diagnostics and rejected files of the
        shown generation; ``enter`` on an entry naming a skill file moves the cursor there."""
        from skillshelf.app.problems import Problem
        from skillshelf.app.screens.problems import ProblemsScreen

        main = self._loaded_main()
        if main is None or main.generation is None:
            return

        def chosen(location: str | None) -> None:
            if location is not None:
                main.jump_to_location(location)

        found = main.problems
        view = main.view
        if view is not None and view.agent is not None and view.problems:
            # the one-line banner under the header is cut; the whole sentences are here
            found = tuple(Problem(Severity.ERROR, "agent-would-not-start", p, f"agents.{view.agent}")
                          for p in view.problems) + found
        self.push_screen(ProblemsScreen(found, main.generation.number), chosen)

    def action_compare(self) -> None:
        """``x``: the same workspace under every registered host side by side (SPEC N4);
        ``enter`` on a row moves the catalog cursor to that file when this host lists it."""
        main = self._loaded_main()
        if main is None or main.catalog is None:
            return

        def chosen(location: str | None) -> None:
            if location is not None:
                main.jump_to_location(location)

        from skillshelf.app.screens.compare import CompareScreen

        self.push_screen(CompareScreen(main.catalog.context, list(HOSTS.values())), chosen)

    def _journal(self) -> Journal | None:
        from skillshelf.app.undo import Journal

        catalog = self.main_screen.catalog
        return Journal.for_env(catalog.context.env) if catalog is not None else None

    def action_undo_write(self, entry_id: int | None = None) -> None:
        """``ctrl+z``: undo the last config write skillshelf made — this session's or an earlier
        one's, from the CLI or the TUI (the journal) — byte for byte, and rescan."""
        from skillshelf.app.undo import undo_words
        from skillshelf.core import configwrite
        from skillshelf.core.configwrite import ConfigWriteError

        journal = self._journal()
        catalog = self.main_screen.catalog
        before = catalog.current.number if catalog is not None else 0
        try:
            if journal is None:
                raise ConfigWriteError("the catalog is still loading")
            entry = journal.find(entry_id) if entry_id is not None else None
            if entry_id is not None and entry is None:
                raise ConfigWriteError(f"write #{entry_id} is no longer in the journal")
            done = journal.undo(entry)
            result = journal.result_of(done)
        except ConfigWriteError as exc:
            if self.last_write is None or entry_id is not None or "nothing to undo" not in str(exc):
                text = "Nothing to undo." if "nothing to undo" in str(exc) else f"Not undone: {exc}"
                self.notify(visible(text, multiline=True), severity="information" if text.startswith("Nothing")
                            else "error", timeout=8, markup=False)
                return
            result = self.last_write  # no journal here: this session's last write
            try:
                configwrite.undo(result)
            except ConfigWriteError as err:
                self.notify(visible(f"Not undone: {err}", multiline=True), severity="error", timeout=8, markup=False)
                return
            done = None
        self.last_write = None
        label = f" #{done.id}" if done is not None else ""
        self.notify(visible(f"Undone{label}: {undo_words(result)}.", multiline=True), timeout=5, markup=False)
        self.main_screen.rescan_after_write(before)

    def action_undo_list(self) -> None:
        """``U``: the journal of config writes (newest first); ``enter`` undoes the selected one."""
        main = self._loaded_main()
        journal = self._journal()
        if main is None or journal is None:
            return
        entries = list(reversed(journal.entries()))
        states = [journal.state(e) for e in entries]
        home = main.catalog.context.env.home if main.catalog is not None else None

        def chosen(entry_id: int | None) -> None:
            if entry_id is not None:
                self.action_undo_write(entry_id)

        from skillshelf.app.screens.undo_list import UndoListScreen

        self.push_screen(UndoListScreen(entries, states, home), chosen)
        if journal.problem is not None:  # an empty list would hide the damage
            self.notify(visible(f"The undo journal {journal.problem}; it is started anew (and kept as "
                                "journal.json.damaged) at the next write.", multiline=True),
                        severity="warning", timeout=10, markup=False)


def _main_screen_class() -> type[MainScreen] | None:
    """:class:`MainScreen` once its module is imported, else ``None`` (none can exist yet)."""
    module = sys.modules.get("skillshelf.app.screens.main")
    return getattr(module, "MainScreen", None) if module is not None else None


def _is_main(screen: object) -> bool:
    """True when ``screen`` is the main screen (without importing its module)."""
    cls = _main_screen_class()
    return cls is not None and isinstance(screen, cls)


def _screen_of(node: DOMNode | None) -> Screen[object] | None:
    """The screen a binding's namespace belongs to (``None`` for the app itself)."""
    if node is None or isinstance(node, App):
        return None
    if isinstance(node, Screen):
        return node
    try:
        screen = node.screen
    except NoScreen:  # not mounted any more: treat as a closing screen
        return None
    return screen if isinstance(screen, Screen) else None


def display_path(path: str, home: str | None) -> str:
    """``path`` with ``home`` shown as ``~`` (for the header)."""
    home = (home or "").rstrip("/")
    if home and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home):]
    return path


def app_for(ns: Namespace, *, app_class: type[SkillshelfApp] = SkillshelfApp) -> tuple[SkillshelfApp, str | None]:
    """The app ``skillshelf`` runs for parsed options ``ns`` (``cwd``, ``host``,
    ``context_window``, ``path``, ``config``, ``demo``, ``no_watch``, ``no_cache``) as an
    ``app_class``, and the demo workspace to delete once it has run (``None`` without ``--demo``).
    ``--demo`` copies the shipped workspace to a temporary directory (SPEC C3) and opens the
    catalog there with its own ``HOME``. Raises ``OSError`` when the demo cannot be prepared, or
    (without ``--demo``) the working directory is not a directory or no longer exists
    (:func:`~skillshelf.core.paths.working_directory`: its ``str`` is the message).
    For the process that runs the app: what is alive once it is built is frozen (:func:`gc.freeze`)
    and malloc arenas are limited (:func:`~skillshelf.app.memory.limit_malloc_arenas`).
    The first frame is the start screen (:mod:`skillshelf.app.screens.start`): the main screen's
    modules are imported once it is drawn, and the catalog machinery (configuration, YAML, the
    parse cache) by the worker that opens the catalog, after that."""
    from skillshelf.core.parsecache import default_cache_dir, workspace_parts
    from skillshelf.core.paths import Environment

    env_map: dict[str, str] | None = None
    demo_root: str | None = None
    if ns.demo:
        from skillshelf.app.demo import prepare_demo

        demo = prepare_demo()
        cwd, env_map, demo_root = str(demo.cwd), dict(demo.env), demo.root
    else:
        cwd = working_directory(ns.cwd)
    env = Environment.from_mapping(env_map)
    host = get_host(ns.host)
    no_cache = ns.no_cache
    quitting = threading.Event()  # set on quit: a remote pull in progress stops (the process can end)
    # the first catalog's check of the last run's kept build, started before Textual was imported
    checks = [] if ns.demo else [c for c in (ahead.take(host.name),) if c is not None]

    def open_host(other: Host) -> AppCatalog:
        from skillshelf.core.catalog import Catalog
        from skillshelf.core.parsecache import default_cache_dir

        cache_dir = None if no_cache else default_cache_dir(env.xdg_cache_home, env.home)
        check = checks.pop() if checks else None
        if check is not None and other is not host:
            check.cancel()
            check = None
        return Catalog.open(cwd, env=env, host=other, paths=tuple(ns.path or ()), config_files=tuple(ns.config or ()),
                            context_window=ns.context_window, cache_dir=cache_dir, lint_target=other.lint_target,
                            cancel=quitting, defer_pull=True, ahead=check)

    page = None if no_cache else page_file(
        default_cache_dir(env.xdg_cache_home, env.home),
        workspace_parts(cwd, env.home, env.xdg_config_home, env.xdg_cache_home, tuple(ns.path or ()),
                        tuple(ns.config or ())), host.name)
    app = app_class(lambda: open_host(host), host=host, cwd_display=display_path(cwd, env.home or str(Path.home())),
                    watch=not ns.no_watch, open_host=open_host, quitting=quitting, start_screen=True,
                    page_file=page, home=env.home)
    # before any worker thread allocates: each would get a malloc arena of its own (app/memory.py)
    limit_malloc_arenas()
    # What is alive now (modules, classes, the app: ~0.1 M objects) lives as long as the process:
    # kept out of the collector's passes (gc.freeze), which would walk it again during the start.
    gc.freeze()
    # The first frame makes the screen's widgets and styles (long-lived too): the collector is off
    # until it is drawn (on_ready), at most collector.PAUSE_LIMIT seconds.
    pause()
    app.paused_until_ready = True
    return app, demo_root


def run_tui(ns: Namespace) -> int:
    """Run the TUI for parsed options ``ns`` (:func:`app_for`); returns the exit code (0, or 2
    when the demo workspace cannot be prepared). The demo workspace is deleted on exit."""
    try:
        app, demo_root = app_for(ns)
    except OSError as exc:
        what = "cannot prepare the demo workspace: " if ns.demo else ""
        print(f"skillshelf: {what}{exc}", file=sys.stderr)
        return 2
    try:
        app.run()
    finally:
        catalog = sys.modules.get("skillshelf.core.catalog")  # (not imported when none was opened)
        if catalog is not None:
            catalog.finish_saves(0.25)  # `q` never waits long for a cache write (atomic: cut short is harmless)
        if demo_root is not None:
            shutil.rmtree(demo_root, ignore_errors=True)
    return int(app.return_code or 0)


startup.imports_done()
