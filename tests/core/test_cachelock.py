"""The cache's writer lock (core/cachelock.py): a command's forked writers hold it after the
command has ended, a run started meanwhile waits for them before it reads a cache file, and
the ``skillshelf`` console script ends before its writers do without the next run losing
their cache."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import textwrap
import time

import pytest

from skillshelf.core import cachelock, parsecache

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="flock and fork on Linux")

# A command that takes the lock, forks a writer that runs until `go` exists, lets go of its own
# descriptor and ends (as cli._end does), printing the writer's pid.
_COMMAND = textwrap.dedent("""
    import os, sys, time
    from skillshelf.core import cachelock
    directory, go = sys.argv[1], sys.argv[2]
    assert cachelock.hold(directory)
    pid = os.fork()
    if pid == 0:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        deadline = time.monotonic() + 30
        while not os.path.exists(go) and time.monotonic() < deadline:
            time.sleep(0.01)
        os._exit(0)
    cachelock.release()
    print(pid, flush=True)
""")


def _gone(pid: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} still running")


def test_a_reader_waits_for_the_writers_a_finished_command_left_running(tmp_path):
    directory, go = str(tmp_path / "cache"), str(tmp_path / "go")
    out = subprocess.run([sys.executable, "-c", _COMMAND, directory, go], capture_output=True, text=True, check=True)
    writer = int(out.stdout)
    assert cachelock.await_writers(directory, timeout=0.05, again=True) is False  # the command is gone, its writer is not
    assert cachelock.hold(directory) is False  # nor does a second command wait to take it
    open(go, "w").close()
    _gone(writer)
    assert cachelock.await_writers(directory, timeout=0.05, again=True) is True
    assert cachelock.hold(directory) is True
    cachelock.release()


def test_a_process_waits_once_per_cache_directory_and_never_for_a_fifo(tmp_path):
    directory, go = str(tmp_path / "cache"), str(tmp_path / "go")
    writer = int(subprocess.run([sys.executable, "-c", _COMMAND, directory, go], capture_output=True, text=True,
                                check=True).stdout)
    try:
        assert cachelock.await_writers(directory, timeout=0.05) is False  # the first read waits (here: in vain)
        started = time.monotonic()
        assert cachelock.await_writers(directory, timeout=5.0) is True  # later reads do not wait again
        assert time.monotonic() - started < 1.0
    finally:
        open(go, "w").close()
        _gone(writer)
    fifo = tmp_path / "fifo-cache"
    fifo.mkdir()
    os.mkfifo(fifo / cachelock.LOCK_NAME)  # (opening a FIFO blocks until a writer comes: never done)
    assert cachelock.await_writers(str(fifo), timeout=5.0, again=True) is True
    assert cachelock.hold(str(fifo)) is False


def test_the_holder_never_waits_for_itself_and_no_lock_file_means_no_wait(tmp_path):
    assert cachelock.await_writers(str(tmp_path / "never-written"), timeout=0.0, again=True) is True
    directory = str(tmp_path / "cache")
    assert cachelock.hold(directory) is True
    assert cachelock.hold(directory) is True  # (held already: the same descriptor)
    assert cachelock.await_writers(directory, timeout=0.0, again=True) is True
    assert os.stat(os.path.join(directory, cachelock.LOCK_NAME)).st_mode & 0o777 == 0o600
    cachelock.release()
    assert cachelock.await_writers(directory, timeout=0.0, again=True) is True


# `skillshelf index` as the console script runs it, forking allowed; its forked cache writer
# waits for `go` before it writes, and every SKILL.md parse is counted on stderr.
_CONSOLE = textwrap.dedent("""
    import os, sys, time
    from skillshelf.core import forked, parsecache, frontmatter
    forked.may_fork = lambda: True
    parsecache.RACY_NS = 30_000_000  # (the test's files are 30 ms old or more when read)
    go = os.environ["TEST_GO"]
    write_file = parsecache._write_file
    def slow_write(*args):
        if os.getpid() != PARENT:
            deadline = time.monotonic() + 30
            while not os.path.exists(go) and time.monotonic() < deadline:
                time.sleep(0.01)
        write_file(*args)
    PARENT = os.getpid()
    parsecache._write_file = slow_write
    parse = frontmatter.parse_skill_file
    count = [0]
    def counted(*a, **k):
        count[0] += 1
        return parse(*a, **k)
    frontmatter.parse_skill_file = counted
    import atexit
    atexit.register(lambda: print("parsed", count[0], file=sys.stderr))
    from skillshelf.app.cli import console
    sys.argv = ["skillshelf", *sys.argv[1:]]
    console()
""")


def test_the_console_script_ends_before_its_writers_and_the_next_run_still_finds_their_cache(tmp_path):
    home, proj = tmp_path / "home", tmp_path / "proj"
    for i in range(3):
        d = proj / ".agents" / "skills" / f"s{i}"
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(f"---\nname: s{i}\ndescription: skill {i}\n---\nbody\n")
    (proj / ".git").mkdir()
    time.sleep(0.05)
    go = tmp_path / "go"
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"),
           "XDG_CONFIG_HOME": str(home / ".config"), "TEST_GO": str(go)}
    cache = str(home / ".cache" / "skillshelf")

    # (pipes: the command's reader gets their end when the command ends, not when its writer does)
    first = subprocess.run([sys.executable, "-c", _CONSOLE, "index"], cwd=proj, env=env, capture_output=True,
                           text=True, timeout=25)
    assert first.returncode == 0 and "s0" in first.stdout and "parsed 3" in first.stderr
    # the command has ended (within the writer's 30 s), its writer has not written yet
    assert cachelock.await_writers(cache, timeout=0.0, again=True) is False
    assert not os.path.exists(os.path.join(cache, "parse")) or not [
        f for f in os.listdir(os.path.join(cache, "parse")) if f.endswith(".pickle")]

    # another command (not the kept output of the first) started now waits for the writer
    second = subprocess.Popen([sys.executable, "-c", _CONSOLE, "index", "--budget", "5000"], cwd=proj, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.3)
    go.touch()
    out, err = second.communicate(timeout=30)
    assert second.returncode == 0 and "s0" in out
    assert "parsed 0" in err  # every parse came from the cache the first command's writer wrote


@pytest.mark.parametrize("command", [["debug", "skill"], ["index"]])
def test_a_command_whose_reader_has_gone_still_writes_its_cache(tmp_path, command):
    home, proj = tmp_path / "home", tmp_path / "proj"
    for i in range(40):
        d = proj / ".agents" / "skills" / f"s{i}"
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(f"---\nname: s{i}\ndescription: skill {i}\n---\n" + "body\n" * 50)
    (proj / ".git").mkdir()
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"),
           "XDG_CONFIG_HOME": str(home / ".config")}
    cache = str(home / ".cache" / "skillshelf")
    # `skillshelf … | true`: the reader is gone before the output is written
    gone = subprocess.Popen([sys.executable, "-m", "skillshelf.app.entry", *command], cwd=proj, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert gone.stdout is not None
    gone.stdout.close()
    assert gone.wait(timeout=60) == 0
    assert cachelock.await_writers(cache, timeout=30, again=True)
    parse = os.path.join(cache, "parse")
    assert any("-state-" in f for f in os.listdir(parse))  # the writer ran: the kept build is there


def test_the_console_script_ends_with_the_commands_code_and_says_when_its_output_could_not_be_written(tmp_path):
    home, proj = tmp_path / "home", tmp_path / "proj"
    d = proj / ".agents" / "skills" / "bad"
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text("---\nname: bad\ndescription: [unclosed\n---\nbody\n")
    (proj / ".git").mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # (as people run it: buffered)
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), XDG_CONFIG_HOME=str(home / ".config"))
    run = [sys.executable, "-m", "skillshelf.app.cli"]
    lint = subprocess.run([*run, "lint", str(d)], cwd=proj, env=env, capture_output=True, text=True, timeout=60)
    assert lint.returncode == 1 and "error[yaml-error]" in lint.stdout
    with open(os.devnull, "w") as null:
        assert subprocess.run([*run, "index"], cwd=proj, env=env, stdout=null, timeout=60).returncode == 0
    with open("/dev/full", "w") as full:
        failed = subprocess.run([*run, "index"], cwd=proj, env=env, stdout=full, stderr=subprocess.PIPE, text=True,
                                timeout=60)
    assert failed.returncode == 120
    assert "skillshelf: writing the output failed: [Errno 28] No space left on device" in failed.stderr



def _one_skill_project(tmp_path, monkeypatch):
    """A worktree ``proj`` with one skill, HOME and XDG folders under ``home`` (set in the
    environment), forking allowed whatever the test process looks like; ``(home, proj)``."""
    from skillshelf.core import forked

    home, proj = tmp_path / "home", tmp_path / "proj"
    d = proj / ".agents" / "skills" / "one"
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text("---\nname: one\ndescription: a skill\n---\nbody\n")
    (proj / ".git").mkdir()
    for key, value in (("HOME", home), ("XDG_CACHE_HOME", home / ".cache"), ("XDG_CONFIG_HOME", home / ".config")):
        monkeypatch.setenv(key, str(value))
    monkeypatch.setattr(forked, "may_fork", lambda: True)
    return home, proj


def test_a_command_run_in_process_lets_go_of_the_lock_however_it_ends(tmp_path, monkeypatch):
    from skillshelf.app.cli import main
    from skillshelf.core import forked

    home, proj = _one_skill_project(tmp_path, monkeypatch)  # (its cache writer is forked: the lock is taken)

    class GoneReader:  # a reader that has gone (`| head`): the command returns 0 early
        def write(self, text: str) -> int:
            raise BrokenPipeError

        def flush(self) -> None:
            pass

        def isatty(self) -> bool:
            return False

    cache = str(home / ".cache" / "skillshelf")
    probes = tmp_path / "probes"
    real_write = parsecache._write_file

    def probing_write(file: str, namespace: str, entries: object) -> None:
        # (in the writer: is the lock held, as another process's reader would see it?)
        fd = os.open(os.path.join(cache, cachelock.LOCK_NAME), os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            held = "free"
        except BlockingIOError:
            held = "held"
        finally:
            os.close(fd)
        with open(probes, "a") as fh:
            fh.write(f"{os.path.basename(file)} {held}\n")
        real_write(file, namespace, entries)

    monkeypatch.setattr(parsecache, "_write_file", probing_write)
    real_stdout = sys.stdout
    monkeypatch.setattr(sys, "stdout", GoneReader())
    assert main(["index", "--cwd", str(proj)]) == 0
    assert not forked._pending  # the writes were started, not dropped
    assert forked.wait(30)
    written = probes.read_text().splitlines()
    assert len(written) >= 2 and all(line.endswith(" held") for line in written)  # (the kept build, its check)
    assert os.path.exists(os.path.join(cache, cachelock.LOCK_NAME))  # (the lock was taken)
    other = subprocess.run([sys.executable, "-c", "import sys; from skillshelf.core import cachelock; "
                            "print(cachelock.await_writers(sys.argv[1], timeout=0.05))", cache],
                           capture_output=True, text=True, check=True)
    assert other.stdout.strip() == "True"
    # a command that ends normally: written when main() returns, by a writer holding the lock too
    monkeypatch.setattr(sys, "stdout", real_stdout)
    shutil.rmtree(cache)
    probes.unlink()
    assert main(["index", "--cwd", str(proj)]) == 0
    assert not forked._pending and not forked._children
    written = probes.read_text().splitlines()
    assert len(written) >= 2 and all(line.endswith(" held") for line in written)


def test_every_cache_folder_a_writer_makes_is_private_and_so_is_the_tui_page(tmp_path):
    from skillshelf.app.keptpage import KeptPage, read_page, write_page
    from skillshelf.core import keptoutput, parsecache

    def mode(path) -> int:
        return os.stat(path).st_mode & 0o777

    old = os.umask(0o022)  # (a usual umask: folders 0755 and files 0644 unless made private)
    try:
        cache = tmp_path / "a" / "cache" / "skillshelf"
        parsecache._write_file(str(cache / "parse" / "x.pickle"), "ns", {})
        assert [mode(p) for p in (tmp_path / "a", tmp_path / "a" / "cache", cache, cache / "parse")] == [0o700] * 4
        assert keptoutput.keep(str(tmp_path / "b" / "skillshelf" / "output" / "y.kept"),
                               ("code", ("index",), "/", {}, ()), keptoutput.KeptOutput([(1, "out\n")], 0, "zuno", None))
        assert [mode(tmp_path / "b"), mode(tmp_path / "b" / "skillshelf"), mode(tmp_path / "b" / "skillshelf" / "output")
                ] == [0o700] * 3
        page = tmp_path / "c" / "skillshelf" / "tui" / "page.json"
        assert write_page(str(page), KeptPage("title", ("a row",)))
        assert (mode(tmp_path / "c" / "skillshelf"), mode(page.parent), mode(page)) == (0o700, 0o700, 0o600)
        assert read_page(str(page)) == KeptPage("title", ("a row",))
        assert cachelock.hold(str(tmp_path / "d" / "skillshelf")) and mode(tmp_path / "d") == 0o700
        cachelock.release()
        existing = tmp_path / "e"
        existing.mkdir(mode=0o755)
        parsecache._write_file(str(existing / "skillshelf" / "parse" / "x.pickle"), "ns", {})
        assert mode(existing) == 0o755 and mode(existing / "skillshelf") == 0o700  # (what exists is left as it is)
        # the clients' small caches (what an installed Claude Code or Codex binary holds): private too
        from skillshelf.core.hosts.claude import installed
        from skillshelf.core.hosts.codex import prose
        from skillshelf.core.paths import write_private

        installed._save_cache(str(tmp_path / "f" / "skillshelf" / "claude-builtins.json"), {"k": 1})
        assert (mode(tmp_path / "f"), mode(tmp_path / "f" / "skillshelf" / "claude-builtins.json")) == (0o700, 0o600)
        assert prose.write_private is write_private
        victim = tmp_path / "victim"
        victim.write_text("precious")
        target = tmp_path / "g" / "x.json"
        target.parent.mkdir()
        for pid in range(os.getpid() - 2, os.getpid() + 3):  # (links where a guessable name would be)
            os.symlink(victim, f"{target}.{pid}.tmp")
        write_private(str(target), b"{}")
        assert (target.read_bytes(), mode(target), victim.read_text()) == (b"{}", 0o600, "precious")
    finally:
        os.umask(old)


def test_an_output_kept_with_nothing_else_to_write_is_written_holding_the_lock(tmp_path, monkeypatch):
    from skillshelf.app.cli import main
    from skillshelf.core import forked

    monkeypatch.setattr(parsecache, "RACY_NS", 10_000_000)
    home, proj = _one_skill_project(tmp_path, monkeypatch)
    time.sleep(0.05)
    assert main(["index", "--cwd", str(proj)]) == 0  # (the kept build, the parse cache, its output)
    seen: list[tuple[int, set[str]]] = []
    real = forked.start_pending

    def recording() -> bool:
        seen.append((len(forked._pending), set(cachelock._held)))
        return real()

    monkeypatch.setattr(forked, "start_pending", recording)
    # another command line over the unchanged tree: the kept build serves, only its output is new
    assert main(["index", "--cwd", str(proj), "--budget", "5000"]) == 0
    cache = str(home / ".cache" / "skillshelf")
    assert seen[0] == (1, {cache})  # the writer of that output alone still holds the lock
    assert len(os.listdir(os.path.join(cache, "output"))) == 2


def test_a_proof_that_cannot_be_made_keeps_no_output_and_fails_no_command(tmp_path, monkeypatch):
    from skillshelf.app.cli import main
    from skillshelf.core import forked
    from skillshelf.core.hosts.zuno import build

    home, proj = _one_skill_project(tmp_path, monkeypatch)
    monkeypatch.setattr(forked, "may_fork", lambda: False)  # (the output kept here, in this process)

    def broken(*args: object) -> None:
        raise RuntimeError("a bug in the proof")

    monkeypatch.setattr(build, "_output_proof", broken)
    assert main(["index", "--cwd", str(proj)]) == 0
    assert not (home / ".cache" / "skillshelf" / "output").exists()
