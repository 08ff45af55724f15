"""Failures never vanish in the TUI: a worker of any part of the screen that fails is shown as an
error notice (and logged), the app keeps running."""

from __future__ import annotations

from conftest import settle, tui_app
from textual.notifications import Notify
from tui_fixtures import FakeCatalog

from skillshelf.app.screens.main import MainScreen


def _notes(messages: list) -> list[tuple[str, str]]:
    return [(m.notification.message, m.notification.severity) for m in messages if isinstance(m, Notify)]


class _Broken:
    """Wraps a host session; ``load_page`` and ``source_facts`` raise (a host bug)."""

    def __init__(self, session) -> None:
        self._session = session

    def __getattr__(self, name):
        return getattr(self._session, name)

    def load_page(self, source, cursor=None, *, resource=None):
        raise RuntimeError(f"no page for {source.name}")

    def source_facts(self, source):
        raise RuntimeError("no facts")


async def test_failing_host_session_is_shown_not_swallowed(tmp_path):
    catalog = FakeCatalog(tmp_path)
    catalog.session = _Broken(catalog.session)
    messages: list = []
    app = tui_app(lambda: catalog, host="zuno", cwd_display="~/w")
    async with app.run_test(size=(120, 40), message_hook=messages.append) as pilot:
        await settle(app, pilot)
        notes = _notes(messages)
        assert ("read body failed: no page for docx", "error") in notes
        assert ("source details failed: no facts", "error") in notes
        assert ("body cost failed: no page for docx", "error") in notes
        assert isinstance(app.screen, MainScreen) and app.is_running


class _Buggy(_Broken):
    """A host session whose ``source_facts`` hits a bug (an empty ``AssertionError``)."""

    def source_facts(self, source):
        raise AssertionError


async def test_an_internal_error_is_named_never_shown_raw(tmp_path):
    catalog = FakeCatalog(tmp_path)
    catalog.session = _Buggy(catalog.session)
    messages: list = []
    app = tui_app(lambda: catalog, host="zuno", cwd_display="~/w")
    async with app.run_test(size=(120, 40), message_hook=messages.append) as pilot:
        await settle(app, pilot)
        shown = [m for m, severity in _notes(messages) if severity == "error" and m.startswith("source details")]
        assert shown == ["source details failed: an internal error in skillshelf (AssertionError), written to the "
                         "log; try again, and please report it if it keeps happening"]
        assert app.is_running
