"""The first catalog's check of the last run's kept build, made by a child forked before the TUI
imports Textual (:mod:`skillshelf.app.ahead`): started only where there is something to check,
taken once, by the host it was made for; end to end, the TUI's first catalog adopts it (no proof
or key taken by the TUI process) and is the catalog made without any cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

from skillshelf.app import ahead
from skillshelf.app.cli import build_parser, merged_options


class Recorded:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


@pytest.fixture
def recorded(monkeypatch):
    """forked.ahead records what it is asked to start, and starts nothing."""
    from skillshelf.core import forked

    started: list[Recorded] = []

    def fake(work):
        started.append(Recorded())
        return started[-1]

    monkeypatch.setattr(forked, "ahead", fake)
    monkeypatch.setattr(ahead, "_pending", {})
    return started


def _ns(*args: str):
    return merged_options(build_parser().parse_args(list(args)))


def test_nothing_is_started_for_the_demo_or_without_a_cache(recorded):
    ahead.start(_ns("--demo"))
    ahead.start(_ns("--no-cache"))
    assert recorded == []
    assert ahead.take("zuno") is None


def test_a_working_directory_gone_starts_nothing(recorded, monkeypatch):
    def gone() -> str:
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setattr(os, "getcwd", gone)
    ahead.start(_ns())  # (no error: the TUI reports it itself)
    assert recorded == []


def test_a_check_is_taken_once_by_its_own_host(recorded):
    ahead.start(_ns())
    ahead.start(_ns())  # (one only)
    assert len(recorded) == 1
    assert ahead.take("zuno") is recorded[0]
    assert ahead.take("zuno") is None
    ahead.start(_ns())
    assert ahead.take("claude") is None and recorded[1].cancelled  # another host's: stopped


@pytest.mark.parametrize("host", ["claude", "codex", "opencode", "gemini", "zhin"])
def test_nothing_is_started_for_a_host_that_keeps_no_first_build(recorded, host):
    ahead.start(_ns("--host", host))
    assert recorded == []


_KEEP = """
import sys
from skillshelf.core import parsecache
parsecache.RACY_NS = 30_000_000
from skillshelf.app.cli import main
raise SystemExit(main(["index"]))
"""

_TUI_OPEN = """
import json, os, sys
os.getloadavg = lambda: (0.0, 0.0, 0.0)  # (a busy or one-CPU test machine forks nothing: forked.may_fork)
os.cpu_count = lambda: 2
from skillshelf.core import parsecache
parsecache.RACY_NS = 30_000_000
from skillshelf.app.cli import build_parser, merged_options
ns = merged_options(build_parser().parse_args(sys.argv[1:]))
from skillshelf.app import ahead
ahead.start(ns)  # as main() does before it imports the TUI
started = bool(ahead._pending)
from skillshelf.core.hosts.zuno import build
from skillshelf.core.scanproof import ScanProof
checked = []
real_holds, real_keys = ScanProof.holds, build._dir_keys
ScanProof.holds = lambda self: checked.append("proof") or real_holds(self)
build._dir_keys = lambda *a, **k: checked.append("keys") or real_keys(*a, **k)
from skillshelf.app import tui
app, _ = tui.app_for(ns)
cat = app._open_catalog()
from skillshelf.core.catalog import Catalog
from skillshelf.core.paths import Environment
plain = Catalog.open(os.getcwd(), env=Environment.from_mapping(None), pull_remote=False)
print(json.dumps({"started": started, "checked_here": len(checked), "sources": len(cat.current.sources),
                  "same": cat.current.sources == plain.current.sources and cat.current.digest == plain.current.digest}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux only")
def test_the_tuis_first_catalog_adopts_the_check_made_by_the_child(tmp_path):
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    for name in ("alpha", "beta", "gamma"):
        d = project / ".agents" / "skills" / name
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: The {name} skill\n---\nBody\n", encoding="utf-8")
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "ZUNO_"))}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(tmp_path / "cache"))

    def run(code: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=project, capture_output=True,
                              text=True, timeout=120)

    time.sleep(0.05)  # out of the (shortened) racy window: the files' keys are kept
    assert run(_KEEP).returncode == 0
    time.sleep(0.05)
    out = run(textwrap.dedent(_TUI_OPEN), "--no-watch")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {"started": True, "checked_here": 0, "sources": result["sources"], "same": True}
    assert result["sources"] >= 3
