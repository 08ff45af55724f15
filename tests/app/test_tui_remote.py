"""The TUI never waits for a remote pull: the local catalog is shown at once and the pulled skills
follow; ``q`` while a trickling ``skills.urls`` index is still being pulled stops the pull at
once, so the worker threads — and the process — end."""

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
from test_remote import Server, index, skill_md
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


def _names(generation) -> set[str]:
    return {s.name for s in generation.sources if s.provenance.value != "builtin"}


async def test_the_local_catalog_shows_at_once_and_the_pulled_skills_follow(tmp_path):
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".agents" / "skills" / "local").mkdir(parents=True)
    (project / ".agents" / "skills" / "local" / "SKILL.md").write_text("---\nname: local\ndescription: d\n---\n")
    (tmp_path / "home").mkdir()
    routes: dict[str, bytes | int] = {"/index.json": index({"name": "far", "files": ["SKILL.md"]}),
                                      "/far/SKILL.md": skill_md("far", "pulled")}
    with Server(routes, delay=1.0) as srv:  # every answer takes a second: the pull takes two
        env = Environment.from_mapping({"HOME": str(tmp_path / "home"), "XDG_CACHE_HOME": str(tmp_path / "cache"),
                                        "ZUNO_CONFIG_CONTENT": json.dumps({"skills": {"urls": [srv.url]}})})
        app = tui_app(lambda: Catalog.open(str(project), env=env, cancel=app.quitting, defer_pull=True),
                      host="zuno", cwd_display="~/p")
        async with app.run_test(size=(120, 40)) as pilot:
            main = app.main_screen
            for _ in range(200):
                if main.generation is not None:
                    break
                await pilot.pause(0.01)
            assert _names(main.generation) == {"local"}  # shown before the pull has answered
            assert len(srv.requests) <= 1
            await pilot.pause()
            assert main._status == "pulling remote skills…"
            for _ in range(400):
                if main.generation is not None and "far" in _names(main.generation):
                    break
                await pilot.pause(0.02)
            assert _names(main.generation) == {"local", "far"}, (srv.requests, _names(main.catalog.current), main.catalog.current.warnings)
            assert srv.requests == ["/index.json", "/far/SKILL.md"]
            await pilot.pause()
            assert main._status == ""
