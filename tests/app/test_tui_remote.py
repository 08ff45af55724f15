"""Quitting never waits for a remote pull: ``q`` while the catalog is still pulling a trickling
``skills.urls`` index stops the pull at once, so the worker threads — and the process — end."""

from __future__ import annotations

import json
import os
import sys
import threading
import time

from conftest import tui_app

from skillshelf.core.catalog import Catalog
from skillshelf.core.paths import Environment

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "core"))
from test_remote_limits import Trickle


def _pulls() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "skillshelf-remote-pull" and t.is_alive()]


async def test_q_during_a_pull_ends_the_pull_at_once(tmp_path):
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (tmp_path / "home").mkdir()
    opened: list[float] = []
    with Trickle("body") as server:
        env = Environment.from_mapping({"HOME": str(tmp_path / "home"),
                                        "ZUNO_CONFIG_CONTENT": json.dumps({"skills": {"urls": [server.url]}})})

        def open_catalog():
            catalog = Catalog.open(str(project), env=env, cancel=app.quitting)
            opened.append(time.monotonic())
            return catalog

        app = tui_app(open_catalog, host="zuno", cwd_display="~/p")
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(100):  # the pull is under way (the server trickles for ever)
                if server.connections:
                    break
                await pilot.pause(0.02)
            assert server.connections == 1 and _pulls()
            quit_at = time.monotonic()
            await pilot.press("q")
        for _ in range(50):
            if opened and not _pulls():
                break
            time.sleep(0.02)
        assert opened and opened[0] - quit_at < 1.0  # the catalog opened without waiting for the 5 s limit
        assert _pulls() == []
    assert app.return_code == 0
