"""``skillshelf watch`` (SPEC C, H1–H4): one line per published generation, --json, --exit-after,
Ctrl-C → exit 0. Runs the real command in a subprocess; the waits for its output (60 s) only
guard against a hang."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading

import pytest

from skillshelf.app.commands.watch import format_line
from skillshelf.core.catalog import Catalog
from skillshelf.core.paths import Environment

# The child handles SIGINT as a terminal's foreground process does, whatever this process
# inherited: a test runner started in the background (CI) has SIGINT ignored, and an ignored
# signal stays ignored across exec, so Ctrl-C would never reach `watch`.
CMD = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
       "from skillshelf.app.cli import main; sys.exit(main(sys.argv[1:]))")
SKILL = "---\nname: {0}\ndescription: Edit {0}\n---\nbody\n"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


@pytest.fixture(autouse=True)
def _no_orphans():
    """Every `watch` a test started is gone after it, also when the test failed."""
    yield
    for proc in _started:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    _started.clear()


_started: list[subprocess.Popen] = []


@pytest.fixture
def project(tmp_path):
    t = os.path.realpath(str(tmp_path))
    os.makedirs(f"{t}/project/.git")
    os.makedirs(f"{t}/home")
    write(f"{t}/project/.agents/skills/sheet/SKILL.md", SKILL.format("spreadsheet"))
    return t


def start(t, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZUNO_", "XDG_"))}
    env["HOME"] = f"{t}/home"
    proc = subprocess.Popen(
        [sys.executable, "-c", CMD, "watch", "--cwd", f"{t}/project", "--step", "20", "--debounce", "200", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    _started.append(proc)
    return proc


def readline(proc, deadline=60.0) -> str:
    out: list[str] = []
    reader = threading.Thread(target=lambda: out.append(proc.stdout.readline()))
    reader.start()
    reader.join(deadline)
    if not out:
        proc.kill()
        pytest.fail("no output line within the deadline")
    return out[0]


def test_watch_json_first_line_is_the_initial_generation(project):
    proc = start(project, "--json", "--exit-after", "1")
    line = json.loads(readline(proc))
    assert proc.wait(60) == 0
    assert line["generation"] == 1
    assert (line["added"], line["changed"], line["removed"]) == ([], [], [])
    assert line["sources"] == 12  # Zuno's eleven built-ins and spreadsheet
    assert len(line["digest"]) == 64 and line["warnings"] == []


def test_watch_json_reports_an_added_skill_then_exits_after_two(project):
    proc = start(project, "--json", "--exit-after", "2")
    first = json.loads(readline(proc))
    loc = f"{project}/project/.agents/skills/pdf/SKILL.md"
    write(loc, SKILL.format("pdf"))
    second = json.loads(readline(proc))
    assert proc.wait(60) == 0
    assert second["generation"] > first["generation"]
    assert second["added"] == [loc] and second["changed"] == [] and second["removed"] == []


def test_watch_text_lines_and_ctrl_c_exits_0(project):
    proc = start(project)
    first = readline(proc)
    assert first.startswith("generation 1  +0 ~0 -0  (") and first.rstrip().endswith(")")
    os.remove(f"{project}/project/.agents/skills/sheet/SKILL.md")
    second = readline(proc)
    if " ~1 -0  (" in second:  # (a build that walked before the removal and read after it: kept-last-valid,
        second = readline(proc)  # H3; the removal's own generation follows)
    assert " +0 ~0 -1  (" in second and second.rstrip().endswith("-spreadsheet")
    proc.send_signal(signal.SIGINT)
    assert proc.wait(60) == 0


def test_watch_rejects_exit_after_zero(project):
    proc = start(project, "--exit-after", "0")
    assert proc.wait(60) == 2
    assert "--exit-after must be at least 1" in proc.stderr.read()


def test_format_line_text_and_json_for_a_change(project):
    env = Environment.from_mapping({"HOME": f"{project}/home"})
    cat = Catalog.open(f"{project}/project", env=env, pull_remote=False)
    old = cat.current
    write(f"{project}/project/.agents/skills/sheet/SKILL.md", SKILL.format("spreadsheet").replace("body", "new body"))
    new = cat.refresh()
    assert format_line(old, new, as_json=False) == f"generation 2  +0 ~1 -0  ({new.digest[:16]})  ~spreadsheet"
    doc = json.loads(format_line(old, new, as_json=True))
    assert doc["changed"] == [f"{project}/project/.agents/skills/sheet/SKILL.md"]
