"""The standard streams of a real ``skillshelf`` process: output that cannot be written (a full
disk, a closed stdout) ends the command with 120 and one line on stderr, never a traceback, and
is never kept; a closed or full stderr drops the notes and the output is whole; skillshelf's own
folders ignore a relative ``XDG_CACHE_HOME`` / ``XDG_STATE_HOME`` (the XDG specification)."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillshelf.core import cachelock

FULL = "/dev/full"
pytestmark = pytest.mark.skipif(not os.path.exists(FULL), reason="needs /dev/full")

_NOSPACE = "skillshelf: writing the output failed: [Errno 28] No space left on device\n"
_CLOSED = "skillshelf: writing the output failed: [Errno 9] Bad file descriptor\n"


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A worktree with 300 skills (an index of ~20 KB: more than a stream's buffer, so the
    write itself fails, not only the flush at the end) and its own HOME and XDG folders."""
    home, proj = tmp_path / "home", tmp_path / "proj"
    for i in range(300):
        d = proj / ".agents" / "skills" / f"skill-{i:03d}"
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(f"---\nname: skill-{i:03d}\ndescription: what skill {i} does, "
                                    f"in a sentence long enough to fill the index\n---\nbody\n")
    (proj / ".git").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "ZUNO_", "PYTHONUNBUFFERED"))}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), XDG_CONFIG_HOME=str(home / ".config"))
    return proj, env


def _run(argv: list[str], proj: Path, env: dict[str, str], *, stdout: object = subprocess.PIPE,
         stderr: object = subprocess.PIPE, close: tuple[int, ...] = ()) -> subprocess.CompletedProcess[bytes]:
    def closing() -> None:
        for fd in close:
            os.close(fd)

    done = subprocess.run([sys.executable, "-m", "skillshelf.app.entry", *argv], cwd=proj, env=env,
                          stdout=stdout, stderr=stderr, timeout=120, preexec_fn=closing if close else None)
    cachelock.await_writers(os.path.join(env["XDG_CACHE_HOME"], "skillshelf"), timeout=30, again=True)
    return done


def _plain_lines(stderr: bytes) -> str:
    """stderr without the host's notes (``skillshelf: zuno: …``)."""
    return "".join(line for line in stderr.decode().splitlines(keepends=True)
                   if not line.startswith("skillshelf: zuno:"))


@pytest.mark.parametrize("argv", [["index", "--budget", "50000"], ["debug", "skill", "--json"]], ids=["index", "debug"])
def test_a_full_disk_ends_with_120_and_one_line_cold_and_warm_and_nothing_is_kept(project, argv):
    proj, env = project
    expected = _run([*argv, "--no-cache"], proj, env).stdout
    assert len(expected) > 16_384
    with open(FULL, "w") as full:
        cold = _run(argv, proj, env, stdout=full)
    assert (cold.returncode, _plain_lines(cold.stderr)) == (120, _NOSPACE)
    assert _run(argv, proj, env).stdout == expected  # (the failed run kept no output)
    with open(FULL, "w") as full:
        kept = _run(argv, proj, env, stdout=full)  # (the kept output, replayed: the same failure)
    assert (kept.returncode, _plain_lines(kept.stderr)) == (120, _NOSPACE)
    assert _run(argv, proj, env).stdout == expected


@pytest.mark.parametrize("argv", [["index"], ["lint", "."], ["--version"]], ids=["index", "lint", "version"])
def test_a_closed_stdout_is_an_error_and_no_file_takes_its_place(project, argv):
    proj, env = project
    done = _run(argv, proj, env, stdout=None, close=(1,))
    assert (done.returncode, _plain_lines(done.stderr)) == (120, _CLOSED)
    if argv == ["index"]:
        assert _run(argv, proj, env).stdout == _run([*argv, "--no-cache"], proj, env).stdout


@pytest.mark.parametrize("how", ["closed", "full"])
def test_a_closed_or_full_stderr_drops_the_notes_and_the_output_is_whole(project, how):
    proj, env = project
    expected = _run(["index"], proj, env)
    assert expected.returncode == 0 and expected.stderr  # (the host's notes go to stderr)
    if how == "closed":
        done = _run(["index"], proj, env, stderr=None, close=(2,))
    else:
        with open(FULL, "w") as full:
            done = _run(["index"], proj, env, stderr=full)
    assert (done.returncode, done.stdout) == (0, expected.stdout)


def test_in_process_a_failing_stdout_gives_120_and_the_streams_come_back(project, monkeypatch, capsys):
    from skillshelf.app.cli import main

    proj, env = project
    for key, value in env.items():
        monkeypatch.setenv(key, value)

    class Full:
        def write(self, text: str) -> int:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def flush(self) -> None:
            pass

        def isatty(self) -> bool:
            return False

    full = Full()
    monkeypatch.setattr(sys, "stdout", full)
    assert main(["index", "--cwd", str(proj), "--no-cache"]) == 120
    assert sys.stdout is full
    assert _plain_lines(capsys.readouterr().err.encode()) == _NOSPACE


def test_a_relative_xdg_cache_home_is_ignored_for_skillshelfs_own_cache(project):
    proj, env = project
    env = {**env, "XDG_CACHE_HOME": "relative-cache"}
    done = _run(["index"], proj, env)
    assert done.returncode == 0
    assert not (proj / "relative-cache").exists()
    assert os.listdir(Path(env["HOME"]) / ".cache" / "skillshelf")  # (its place instead)


def test_skillshelfs_folders_fall_back_to_home_for_relative_xdg_values():
    from skillshelf.app.codecache import code_file
    from skillshelf.app.undo import state_dir
    from skillshelf.core.parsecache import default_cache_dir
    from skillshelf.core.paths import Environment

    assert default_cache_dir("rel/cache", "/h") == "/h/.cache/skillshelf"
    assert default_cache_dir("/x/cache", "/h") == "/x/cache/skillshelf"
    code = code_file({"HOME": "/h", "XDG_CACHE_HOME": "rel"})
    assert code is not None and code.startswith("/h/.cache/skillshelf/code/dataclasses-")
    assert state_dir(Environment.from_mapping({"HOME": "/h", "XDG_STATE_HOME": "rel"})) == "/h/.local/state/skillshelf"
    assert state_dir(Environment.from_mapping({"HOME": "/h", "XDG_STATE_HOME": "/s"})) == "/s/skillshelf"
