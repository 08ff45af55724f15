"""The standard streams of a real ``skillshelf`` process: output that cannot be written (a full
disk, a closed stdout) ends the command with 120 and one line on stderr, never a traceback, and
is never kept; a closed or full stderr drops the notes and the output is whole; skillshelf's own
folders ignore a relative ``XDG_CACHE_HOME`` / ``XDG_STATE_HOME`` (the XDG specification)."""

from __future__ import annotations

import errno
import os
import resource
import subprocess
import sys
import time
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
    _settle()
    with open(FULL, "w") as full:
        cold = _run(argv, proj, env, stdout=full)
    assert (cold.returncode, _plain_lines(cold.stderr)) == (120, _NOSPACE)
    assert _kept_outputs(env) == []  # (the failed run kept no output)
    assert _run(argv, proj, env).stdout == expected
    assert _kept_outputs(env) != []
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


def _settle() -> None:
    """Wait out the window in which a file just written is never trusted unchanged (2 s): from
    here on a command's output is kept."""
    time.sleep(2.2)


def _kept_outputs(env: dict[str, str]) -> list[str]:
    folder = os.path.join(env["XDG_CACHE_HOME"], "skillshelf", "output")
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


def test_a_small_output_that_fails_at_the_last_flush_is_not_kept(tmp_path):
    home, proj = tmp_path / "home", tmp_path / "proj"
    d = proj / ".agents" / "skills" / "one"
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text("---\nname: one\ndescription: a skill\n---\nbody\n")
    (proj / ".git").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "ZUNO_", "PYTHONUNBUFFERED"))}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), XDG_CONFIG_HOME=str(home / ".config"))
    _settle()
    with open(FULL, "w") as full:
        failed = _run(["index"], proj, env, stdout=full)  # (a few hundred bytes: still in the buffer)
    assert (failed.returncode, _plain_lines(failed.stderr)) == (120, _NOSPACE)
    assert _kept_outputs(env) == []  # (what could not be written is never replayed as written)
    done = _run(["index"], proj, env)
    assert (done.returncode, done.stdout) == (0, _run(["index", "--no-cache"], proj, env).stdout)
    assert _kept_outputs(env) != []  # (this one was written: kept)


def test_a_full_stderr_changes_no_exit_code_for_a_replay_or_a_usage_error(project):
    proj, env = project
    _settle()
    first = _run(["index"], proj, env)
    assert _run(["index"], proj, env).stdout == first.stdout  # (kept from here on)
    assert _kept_outputs(env) != []
    with open(FULL, "w") as full:
        replayed = _run(["index"], proj, env, stderr=full)
        usage = _run(["index", "--no-such-option"], proj, env, stderr=full)
    assert (replayed.returncode, replayed.stdout) == (0, first.stdout)
    assert usage.returncode == 2


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["lint", "--help"]], ids=["version", "help", "lint-help"])
def test_version_and_help_say_when_they_cannot_write_and_not_when_the_reader_has_gone(project, argv):
    proj, env = project
    with open(FULL, "w") as full:
        failed = _run(argv, proj, env, stdout=full)
    assert (failed.returncode, failed.stderr.decode()) == (120, _NOSPACE)
    for unbuffered in ("", "1"):
        gone = subprocess.Popen([sys.executable, "-m", "skillshelf.app.entry", *argv], cwd=proj,
                                env={**env, "PYTHONUNBUFFERED": unbuffered} if unbuffered else env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert gone.stdout is not None and gone.stderr is not None
        gone.stdout.close()  # (`skillshelf --version | true`)
        assert (gone.wait(timeout=60), gone.stderr.read()) == (0, b"")
        gone.stderr.close()


def _watch(proj: Path, env: dict[str, str], **kwargs: object) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "skillshelf.app.entry", "watch", "--no-cache", "--debounce", "50"],
                            cwd=proj, env=env, **kwargs)  # type: ignore[call-overload]


def _edit_until_ended(proc: subprocess.Popen[bytes], skill: Path) -> int:
    """Edit ``skill`` now and then until ``proc`` ends (its next line is written on each)."""
    deadline = time.monotonic() + 60
    n = 0
    while proc.poll() is None and time.monotonic() < deadline:
        n += 1
        skill.write_text(f"---\nname: skill-000\ndescription: edited {n}\n---\nbody\n")
        time.sleep(0.5)
    if proc.poll() is None:
        proc.kill()
    return proc.wait(timeout=30)


def test_watch_ends_when_its_reader_has_gone_after_the_first_line(project):
    proj, env = project
    proc = _watch(proj, env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    assert proc.stdout.readline().startswith(b"generation 1")  # (then `| head -1` goes away)
    proc.stdout.close()
    assert _edit_until_ended(proc, proj / ".agents" / "skills" / "skill-000" / "SKILL.md") == 0


def test_watch_ends_with_120_when_a_later_line_cannot_be_written(project, tmp_path):
    proj, env = project
    out = tmp_path / "watch.out"

    def small_files() -> None:  # (`ulimit -f 1`: a write past 1,024 bytes fails, EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    with open(out, "wb") as fh:
        proc = _watch(proj, env, stdout=fh, stderr=subprocess.PIPE, preexec_fn=small_files)
        deadline = time.monotonic() + 60
        while out.stat().st_size == 0 and time.monotonic() < deadline:  # (the first line was written)
            time.sleep(0.05)
        assert proc.stderr is not None
        code = _edit_until_ended(proc, proj / ".agents" / "skills" / "skill-000" / "SKILL.md")
        err = proc.stderr.read().decode()
        proc.stderr.close()
    assert code == 120
    assert "skillshelf: writing the output failed: [Errno 27] File too large\n" in err
    assert "Traceback" not in err


def test_closed_standard_descriptors_are_given_to_programs_run_from_here(tmp_path):
    check = ("from skillshelf.app.output import standard_streams; standard_streams(); import os, subprocess; "
             "print(os.get_inheritable(0), subprocess.run(['sh', '-c', 'test -e /proc/self/fd/0 && echo open'], "
             "capture_output=True, text=True).stdout.strip())")
    done = subprocess.run([sys.executable, "-c", check], stdin=None, capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: os.close(0))
    assert done.stdout.split() == ["True", "open"], done.stderr


def test_the_claude_builtin_texts_cache_and_a_relative_home_stay_out_of_the_working_directory():
    import pwd

    from skillshelf.core.hosts.claude.installed import _cache_path
    from skillshelf.core.parsecache import default_cache_dir
    from skillshelf.core.paths import Environment, own_home

    env = Environment.from_mapping({"HOME": "/h", "XDG_CACHE_HOME": "relative"})
    assert os.path.dirname(_cache_path(env)) == "/h/.cache/skillshelf"
    account = pwd.getpwuid(os.getuid()).pw_dir
    assert own_home("relative-home") == account and own_home("/h") == "/h"
    assert default_cache_dir("relative", "relative-home") == os.path.join(account, ".cache", "skillshelf")
