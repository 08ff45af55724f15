"""Shared fixtures and helpers. ``zuno_home`` isolates a test from the real user environment
(SPEC C1); :func:`settle`, :func:`tui_app` and :data:`TEST_TIMINGS` are the TUI tests' helpers
(imported by name: ``from conftest import settle, tui_app``). Test reports travel between
pytest-xdist's processes as UTF-8: :func:`pytest_report_to_serializable` writes the lone
surrogates that hostile-input tests log or print as escapes (``\\ud800``)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.worker import WorkerFailed

from skillshelf.app.catalog_protocol import AppCatalog
from skillshelf.app.timings import Timings
from skillshelf.app.tui import SkillshelfApp


@pytest.hookimpl(wrapper=True)
def pytest_report_to_serializable(config: pytest.Config, report: Any) -> Any:
    """A report as pytest-xdist sends it, every string encodable as UTF-8 (its channel refuses
    a lone surrogate, and the worker would crash instead of reporting)."""
    data = yield
    return _encodable(data)


def _encodable(value: Any) -> Any:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
        return value
    if isinstance(value, dict):
        return {_encodable(k): _encodable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_encodable(v) for v in value)
    return value


#: The shared folder (conformance corpus, bug-report cases, client notes): ``$SKILLSHELF_SHARED``
#: when set (a worktree elsewhere), else ``../shared`` beside the repository; absent on user
#: clones, where the tests that need it skip.
SHARED = Path(os.environ.get("SKILLSHELF_SHARED") or Path(__file__).resolve().parents[1].parent / "shared")


@pytest.fixture
def zuno_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary HOME with XDG config/cache inside it and a project ``proj`` that is a
    worktree (``proj/.git``), so the discovery walk stops there (SPEC D1). Every ``ZUNO_*`` and
    ``XDG_*`` variable of the real environment is removed. Returns ``tmp_path``:
    ``tmp_path/home`` is HOME, ``tmp_path/proj`` the project."""
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    (tmp_path / "proj" / ".git").mkdir(parents=True)
    for key in list(os.environ):
        if key.startswith(("ZUNO_", "XDG_")):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path


# --------------------------------------------------------------------------- TUI helpers

#: The TUI's delays in tests: no debounce (a value set in a box is applied at once); the
#: thresholds and caps (progress after 0.3 s, the watcher wait) stay as shipped.
TEST_TIMINGS = Timings(filter_debounce=0.0, typing_debounce=0.0, typing_quiet=0.0)


async def settle(app: SkillshelfApp, pilot: Any, rounds: int = 4) -> None:
    """Let every worker finish (except the endless live watcher) and its messages land. A worker
    that failed is not raised here: the app reports it (tests assert the notice)."""
    for _ in range(rounds):
        await pilot.pause()
        busy = [w for w in app.workers if w.group != "watcher"]
        if busy:  # an empty list would mean "every worker", the endless watcher included
            # reporting a failed worker is the app's job (tests check its notice), not settle's;
            # a worker that failed may still be listed when this round looked
            with contextlib.suppress(WorkerFailed):
                await app.workers.wait_for_complete(busy)
    await pilot.pause()


def tui_app(open_catalog: Callable[[], AppCatalog], **kwargs: Any) -> SkillshelfApp:
    """A :class:`~skillshelf.app.tui.SkillshelfApp` with :data:`TEST_TIMINGS` (unless given)."""
    kwargs.setdefault("timings", TEST_TIMINGS)
    return SkillshelfApp(open_catalog, **kwargs)


def same_size_same_mtime(path: str, text: str, *, replace: bool) -> None:
    """Put ``text`` (same byte count as now) at ``path`` and set its modification time back:
    by a rename over it (new inode) or written in place (same inode, new ctime)."""
    st = os.stat(path)
    assert len(text.encode()) == st.st_size
    if replace:
        tmp = path + ".new"
        os.makedirs(os.path.dirname(tmp), exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns))
        os.replace(tmp, path)
    else:
        with open(path, "r+", encoding="utf-8") as fh:
            fh.write(text)
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns) == (st.st_size, st.st_mtime_ns)
