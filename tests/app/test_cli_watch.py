"""``skillshelf watch`` (SPEC C, H1–H4): one line per published generation, --json, --exit-after,
Ctrl-C → exit 0. Runs the real command in a subprocess; waits on output lines with a deadline."""

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

CMD = "import sys; from skillshelf.app.cli import main; sys.exit(main(sys.argv[1:]))"
SKILL = "---\nname: {0}\ndescription: Edit {0}\n---\nbody\n"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


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
    return subprocess.Popen(
        [sys.executable, "-c", CMD, "watch", "--cwd", f"{t}/project", "--step", "20", "--debounce", "200", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )


def readline(proc, deadline=15.0) -> str:
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
    assert proc.wait(15) == 0
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
    assert proc.wait(15) == 0
    assert second["generation"] > first["generation"]
    assert second["added"] == [loc] and second["changed"] == [] and second["removed"] == []


def test_watch_text_lines_and_ctrl_c_exits_0(project):
    proc = start(project)
    first = readline(proc)
    assert first.startswith("generation 1  +0 ~0 -0  (") and first.rstrip().endswith(")")
    os.remove(f"{project}/project/.agents/skills/sheet/SKILL.md")
    second = readline(proc)
    assert " +0 ~0 -1  (" in second and second.rstrip().endswith("-spreadsheet")
    proc.send_signal(signal.SIGINT)
    assert proc.wait(15) == 0


def test_watch_rejects_exit_after_zero(project):
    proc = start(project, "--exit-after", "0")
    assert proc.wait(15) == 2
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
