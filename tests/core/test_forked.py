"""Work handed to a forked child (core/forked.py): the same results as in one process, a child
that fails changes nothing, and a cold build made with a forked reader and a forked cache write
is the build made without them — on the corpus, the bug-report cases, and files with sidecars."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable

import pytest
from test_catalog import SHARED, same, skill, write
from test_parsecache import WINDOW, settle_clock, short_racy_window  # noqa: F401  (the fixture)

from skillshelf.core import forked, parsecache
from skillshelf.core.catalog import Catalog, finish_saves
from skillshelf.core.hosts.zuno import build as zuno_build
from skillshelf.core.hosts.zuno.proof import dir_keys, dir_keys_stat
from skillshelf.core.paths import Environment
from skillshelf.core.sidecar import sidecar_paths

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forks on Linux only")


@pytest.fixture
def forking(monkeypatch):
    """Forking allowed whatever the test process looks like, for lists of any length."""
    monkeypatch.setattr(forked, "ENABLED", True)
    monkeypatch.setattr(forked, "available", lambda: True)
    monkeypatch.setattr(forked, "MIN_ITEMS", 1)


def _both_take_part(tmp_path, fn):
    """``fn`` made so that this process's first item waits until the child has made one (each
    process then surely computes some of the items)."""
    parent = os.getpid()

    def wrapped(x, **kw):
        if os.getpid() != parent:
            (tmp_path / f"child-{id(x)}").touch()
        elif not (tmp_path / "parent-waited").exists():
            (tmp_path / "parent-waited").touch()
            deadline = time.monotonic() + 30
            while not list(tmp_path.glob("child-*")) and time.monotonic() < deadline:
                time.sleep(0.002)
        return fn(x, **kw)

    return wrapped


def test_chunk_map_gives_each_result_once_and_hands_the_childs_state_over_before_its_chunk(forking, monkeypatch,
                                                                                         tmp_path):
    monkeypatch.setattr(forked, "CHUNK", 3)
    parent = os.getpid()
    log: list[tuple] = []
    made = {"n": 0}

    def extra():  # (in the child: what it made since the last call)
        n, made["n"] = made["n"], 0
        return ("state", n)

    def fn(x):
        if os.getpid() != parent:
            made["n"] += 1
        return (x * x, os.getpid() != parent)

    forked.chunk_map(_both_take_part(tmp_path, fn), list(range(101)),
                     lambda i, r: log.append(("each", i, r)), extra=extra, adopt=lambda s: log.append(s))
    results = {e[1]: e[2] for e in log if e[0] == "each"}
    assert len([e for e in log if e[0] == "each"]) == 101 == len(results)  # each index once
    assert results == {x: (x * x, results[x][1]) for x in range(101)}
    in_child = sorted(i for i, (_, child) in results.items() if child)
    assert in_child and len(in_child) < 101
    # every chunk the child made is announced by its state, then its 3 (or fewer) results follow
    states = [k for k, e in enumerate(log) if e[0] == "state"]
    assert states and all(log[k] == ("state", len(run)) for k, run in
                          ((k, [e for e in log[k + 1:k + 4] if e[0] == "each" and e[2][1]]) for k in states))
    assert sum(e[1] for e in log if e[0] == "state") == len(in_child)
    assert [e[1] for e in log if e[0] == "each" and not e[2][1]] == sorted(
        e[1] for e in log if e[0] == "each" and not e[2][1])  # (this process's own in order)


def test_chunk_map_a_failing_child_changes_nothing(forking, monkeypatch):
    monkeypatch.setattr(forked, "CHUNK", 2)
    parent = os.getpid()

    def fn(x: int) -> int:
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        time.sleep(0.002)
        return x + 1

    adopted: list[object] = []
    got: dict[int, int] = {}
    forked.chunk_map(fn, list(range(40)), got.__setitem__, extra=lambda: 1, adopt=adopted.append)
    assert got == {x: x + 1 for x in range(40)} and adopted == []


def test_chunk_map_a_child_killed_part_way_keeps_what_it_sent(forking, monkeypatch, tmp_path):
    monkeypatch.setattr(forked, "CHUNK", 2)
    parent = os.getpid()

    def dying(x: int) -> int:
        if os.getpid() != parent and len(list(tmp_path.glob("child-*"))) >= 5:
            os.kill(os.getpid(), signal.SIGKILL)  # (killed with a chunk taken and not sent)
        time.sleep(0.002)
        return -x

    got: dict[int, int] = {}
    adopted: list[object] = []
    forked.chunk_map(_both_take_part(tmp_path, dying), list(range(40)), got.__setitem__, extra=lambda: "s",
                     adopt=adopted.append)
    assert got == {x: -x for x in range(40)}
    assert adopted == ["s", "s"]  # the child's two whole chunks before it died (its fifth item) are not made again


_REFUSED_FRAME = textwrap.dedent("""
    import os, sys, time
    from skillshelf.core import forked
    forked.ENABLED = True
    forked.may_fork = lambda: True
    forked.MIN_ITEMS, forked.CHUNK = 10, 10
    PARENT = os.getpid()

    def boom():
        raise ValueError("does not unpickle here")

    class Odd:  # pickles in the child, fails to unpickle in the parent
        def __reduce__(self):
            return (boom, ())

    seen = [0]

    def fn(x):
        if os.getpid() != PARENT:
            seen[0] += 1
            if seen[0] == 1:
                return Odd()
            if sys.argv[1] == "stop" and seen[0] == 30:
                os.kill(os.getpid(), 19)  # (SIGSTOP: a child stopped after the refused frame)
            return "y" * 200_000  # (more than the pipe holds: the child blocks writing)
        time.sleep(0.002)  # (the child takes chunks meanwhile)
        return x

    got = {}
    forked.chunk_map(fn, list(range(400)), got.__setitem__)
    assert sorted(got) == list(range(400)) and all(v == i or v == "y" * 200_000 for i, v in got.items())
    print("done")
""")


@pytest.mark.parametrize("how", ["full-pipe", "stop"])
def test_chunk_map_a_refused_frame_stops_the_child_and_the_rest_is_made_here(how):
    out = subprocess.run([sys.executable, "-c", _REFUSED_FRAME, how], capture_output=True, text=True, timeout=60)
    assert (out.returncode, out.stdout) == (0, "done\n"), out.stderr


def test_chunk_map_a_stuck_child_is_not_waited_for(forking, monkeypatch):
    monkeypatch.setattr(forked, "PATIENCE_S", 0.2)
    monkeypatch.setattr(forked, "CHUNK", 2)
    parent = os.getpid()

    def fn(x: int) -> int:
        if os.getpid() != parent:
            time.sleep(60)
        return -x

    t0 = time.monotonic()
    got: dict[int, int] = {}
    forked.chunk_map(fn, list(range(20)), got.__setitem__)
    assert got == {x: -x for x in range(20)}
    assert time.monotonic() - t0 < 10


def test_chunk_map_an_unpicklable_result_is_made_in_the_parent(forking, monkeypatch, tmp_path):
    monkeypatch.setattr(forked, "CHUNK", 2)
    parent = os.getpid()
    got: dict[int, object] = {}
    fn = _both_take_part(tmp_path, lambda x: (lambda: x) if os.getpid() != parent else x)
    forked.chunk_map(fn, list(range(10)), got.__setitem__)
    assert got == {x: x for x in range(10)}


def test_chunk_map_an_error_here_propagates_and_ends_the_child(forking, monkeypatch, tmp_path):
    monkeypatch.setattr(forked, "CHUNK", 1)
    parent = os.getpid()

    def fn(x: int) -> int:
        if os.getpid() != parent:
            (tmp_path / "child-pid").write_text(str(os.getpid()))
            time.sleep(60)
        return x

    def each(i: int, r: int) -> None:
        deadline = time.monotonic() + 30
        while not (tmp_path / "child-pid").exists() and time.monotonic() < deadline:
            time.sleep(0.002)
        raise ValueError("each fails")

    with pytest.raises(ValueError, match="each fails"):
        forked.chunk_map(fn, list(range(10)), each)
    with pytest.raises(ProcessLookupError):
        os.kill(int((tmp_path / "child-pid").read_text()), 0)  # killed and reaped


def test_chunk_map_off_runs_in_this_process_in_order(monkeypatch):
    monkeypatch.setattr(forked, "ENABLED", False)
    parent = os.getpid()
    log: list[tuple[int, bool]] = []
    forked.chunk_map(lambda x: os.getpid() == parent, list(range(5000)), lambda i, r: log.append((i, r)))
    assert log == [(i, True) for i in range(5000)]
    assert not forked.available()


def test_claim_map_equals_map_each_item_once_and_a_long_item_leaves_the_rest_to_the_other(forking, monkeypatch,
                                                                                         tmp_path):
    monkeypatch.setattr(forked, "PATIENCE_S", 0.1)  # (never applies: a child at work is waited for)
    parent = os.getpid()

    def fn(x: int) -> tuple[int, bool]:
        pid = os.getpid()
        first = not list(tmp_path.glob(f"took-*-{pid}"))
        (tmp_path / f"took-{x}-{pid}").touch()
        if pid != parent and first:  # the child's first item lasts until every other one is taken
            deadline = time.monotonic() + 30
            while len(list(tmp_path.glob("took-*"))) < 40 and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.3)  # (and well past the parent's part)
        elif pid == parent and first:  # (the parent's first item waits for the child to take one)
            deadline = time.monotonic() + 30
            while len(list(tmp_path.glob("took-*"))) < 2 and time.monotonic() < deadline:
                time.sleep(0.001)
        return x * 3, pid != parent

    out = forked.claim_map(fn, list(range(40)))
    assert [v for v, _ in out] == [x * 3 for x in range(40)]
    assert len(list(tmp_path.glob("took-*"))) == 40  # each item made once: none made again here
    assert sum(in_child for _, in_child in out) == 1  # the child's long item; the parent took the rest
    assert forked.claim_map(fn, [7]) == [(21, False)]  # (one item: no fork)


def test_claim_map_runs_meanwhile_here_once_before_taking_items(forking, tmp_path):
    parent = os.getpid()
    log: list[tuple[str, int]] = []

    def meanwhile() -> None:
        log.append(("meanwhile", os.getpid()))
        deadline = time.monotonic() + 30  # (the child is at work meanwhile: it takes the first item)
        while not list(tmp_path.glob("took-*")) and time.monotonic() < deadline:
            time.sleep(0.002)

    def fn(x: int) -> tuple[int, bool]:
        (tmp_path / f"took-{x}").touch()
        if os.getpid() == parent:
            log.append(("item", x))
        return x * 2, os.getpid() != parent

    out = forked.claim_map(fn, list(range(12)), meanwhile=meanwhile)
    assert [v for v, _ in out] == [x * 2 for x in range(12)] and any(child for _, child in out)
    assert log[0] == ("meanwhile", parent) and [e for e in log if e[0] == "meanwhile"] == [log[0]]
    log.clear()
    assert forked.claim_map(fn, [5], meanwhile=meanwhile) == [(10, False)]  # (no fork: still run, first)
    assert log == [("meanwhile", parent), ("item", 5)]


def test_claim_map_a_failing_or_dying_child_changes_nothing(forking):
    parent = os.getpid()

    def failing(x: int) -> int:
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        time.sleep(0.01)
        return x + 1

    assert forked.claim_map(failing, list(range(30))) == list(range(1, 31))

    def dying(x: int) -> int:
        if os.getpid() != parent and x > 3:
            os.kill(os.getpid(), signal.SIGKILL)  # (killed with items taken and not answered)
        time.sleep(0.01)
        return -x

    assert forked.claim_map(dying, list(range(20))) == [-x for x in range(20)]


def test_spawn_runs_the_work_and_wait_waits_for_it(forking, tmp_path):
    target = tmp_path / "written"
    assert forked.spawn(lambda: target.write_text("done"))
    assert forked.wait(None)
    assert target.read_text() == "done"
    assert forked.wait(0)  # none left


def test_spawn_forks_when_the_command_is_done_in_one_child_and_runs_here_beside_a_thread(forking, tmp_path,
                                                                                          monkeypatch):
    parent = os.getpid()
    for name in ("first", "second"):
        assert forked.spawn(lambda name=name: (tmp_path / name).write_text(str(os.getpid())))
    assert not forked._children and not list(tmp_path.iterdir())  # nothing forked nor written yet
    assert forked.start_pending()
    assert forked.wait(None)
    pids = {(tmp_path / n).read_text() for n in ("first", "second")}
    assert len(pids) == 1 and pids != {str(parent)}  # one child wrote both, in order
    assert forked.start_pending()  # (nothing left)
    monkeypatch.setattr(forked.threading, "active_count", lambda: 2)  # another thread: no fork
    assert forked.spawn(lambda: (tmp_path / "third").write_text(str(os.getpid())))
    assert forked.start_pending() and (tmp_path / "third").read_text() == str(parent)


def test_the_writer_leaves_the_command_s_session_and_holds_no_pipe_it_inherited(forking, tmp_path):
    go, seen = tmp_path / "go", tmp_path / "seen"
    r, w = os.pipe()  # (a pipe the caller of the command reads to its end, as fd 3 of a harness)

    def work() -> None:
        seen.write_text(f"{os.getpid()} {os.getsid(0)} {os.getpgrp()}")
        deadline = time.monotonic() + 30
        while not go.exists() and time.monotonic() < deadline:
            time.sleep(0.01)

    try:
        assert forked.spawn(work) and forked.start_pending()
        os.close(w)
        w = -1
        t0 = time.monotonic()
        assert os.read(r, 1) == b""  # the end of the pipe at once: the writer, still waiting, closed its copy
        assert time.monotonic() - t0 < 10
        deadline = time.monotonic() + 30
        while not seen.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        pid, sid, pgrp = map(int, seen.read_text().split())
        # a session of its own: Ctrl-C in the command's terminal (its process group) never reaches it
        assert sid == pid == pgrp and sid != os.getsid(0)
    finally:
        go.touch()
        os.close(r)
        if w >= 0:
            os.close(w)
    assert forked.wait(30)


def test_a_busy_machine_forks_nothing(monkeypatch):
    monkeypatch.setattr(forked, "ENABLED", True)
    monkeypatch.setattr(forked.threading, "active_count", lambda: 1)
    monkeypatch.setattr(forked.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(forked.os, "getloadavg", lambda: (1.8, 0.0, 0.0))
    assert not forked.available()
    monkeypatch.setattr(forked.os, "getloadavg", lambda: (1.7, 9.0, 9.0))
    assert forked.available() == sys.platform.startswith("linux")
    monkeypatch.setattr(forked.os, "cpu_count", lambda: 1)
    assert not forked.available()


def test_spawn_off_runs_nothing(monkeypatch):
    monkeypatch.setattr(forked, "ENABLED", False)
    assert not forked.spawn(lambda: None)


@pytest.fixture
def fork_now(monkeypatch):
    """:func:`forked.ahead` forks whatever the test process looks like (threads, load)."""
    monkeypatch.setattr(forked, "may_fork", lambda: True)


def test_ahead_hands_the_childs_value_over_once(fork_now):
    parent = os.getpid()
    pending = forked.ahead(lambda: {"pid": os.getpid(), "in_child": os.getpid() != parent})
    assert pending is not None
    value = pending.take(30)
    assert isinstance(value, dict) and value["in_child"] is True and value["pid"] != parent
    with pytest.raises(ChildProcessError):
        os.waitpid(value["pid"], os.WNOHANG)  # reaped
    assert pending.take(30) is None  # a value is of its moment: taken once


def test_ahead_a_failing_or_unpicklable_child_gives_none(fork_now):
    def fails() -> object:
        raise RuntimeError("the child fails")

    failing = forked.ahead(fails)
    assert failing is not None and failing.take(30) is None
    unpicklable = forked.ahead(lambda: (lambda: 1))
    assert unpicklable is not None and unpicklable.take(30) is None


def _sleeping_child(pid_file) -> tuple[forked.Ahead, int]:
    """A child started with :func:`forked.ahead` that sleeps a minute, once it runs; its pid."""
    def sleeps() -> int:
        pid_file.write_text(str(os.getpid()))
        time.sleep(60)
        return 1

    pending = forked.ahead(sleeps)
    assert pending is not None
    deadline = time.monotonic() + 30
    while not pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return pending, int(pid_file.read_text())


def test_ahead_a_late_child_is_not_waited_for_and_is_killed(fork_now, tmp_path):
    pending, pid = _sleeping_child(tmp_path / "pid")
    t0 = time.monotonic()
    assert pending.take(0.2) is None
    assert time.monotonic() - t0 < 10
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # killed and reaped


def test_ahead_the_child_writes_nothing_to_the_terminal(fork_now, capfd):
    def noisy() -> str:
        print("from the child")
        os.write(2, b"to stderr\n")
        return "quiet"

    pending = forked.ahead(noisy)
    assert pending is not None and pending.take(30) == "quiet"
    assert capfd.readouterr() == ("", "")


def test_ahead_ctrl_c_ends_the_child_silently(fork_now, tmp_path, capfd):
    pending, pid = _sleeping_child(tmp_path / "pid")
    os.kill(pid, signal.SIGINT)  # (what a Ctrl-C before the TUI starts sends it)
    t0 = time.monotonic()
    assert pending.take(30) is None
    assert time.monotonic() - t0 < 10
    assert capfd.readouterr() == ("", "")  # no traceback


def test_ahead_cancel_stops_the_child(fork_now):
    pending = forked.ahead(lambda: time.sleep(60))
    assert pending is not None
    pending.cancel()
    assert pending.take(1) is None


def _parts_then(parts: list[object], value: object) -> Callable[[], object]:
    def work() -> object:
        for part in parts:
            assert forked.ahead_part(part)
        return value

    return work


def test_ahead_parts_come_in_order_before_the_value(fork_now):
    big = "x" * (3 * forked.PIPE_BYTES)  # (more than the pipe holds: the child never waits for it)
    pending = forked.ahead(_parts_then([1, big, {"three": 3}], "the value"))
    assert pending is not None
    assert [pending.part(30) for _ in range(4)] == [(True, 1), (True, big), (True, {"three": 3}), (False, None)]
    assert pending.part(30) == (False, None)
    assert pending.take(30) == "the value"
    dropped = forked.ahead(_parts_then([1, 2], "only the value"))
    assert dropped is not None and dropped.take(30) == "only the value"  # (parts not taken are dropped)
    assert not forked.ahead_part("nowhere")  # (not in a child of ahead(): nothing is sent)


def _one_part_then_sleeps(pid_file) -> Callable[[], int]:
    """A child's work: one part ("first"), its pid written to ``pid_file``, then a minute asleep."""
    def work() -> int:
        forked.ahead_part("first")
        pid_file.write_text(str(os.getpid()))
        time.sleep(60)
        return 1

    return work


def test_ahead_a_child_that_stops_sending_parts_is_killed(fork_now, tmp_path):
    pending = forked.ahead(_one_part_then_sleeps(tmp_path / "pid"))
    assert pending is not None
    assert pending.part(30) == (True, "first")
    t0 = time.monotonic()
    assert pending.part(0.2) == (False, None)
    assert time.monotonic() - t0 < 10
    with pytest.raises(ProcessLookupError):
        os.kill(int((tmp_path / "pid").read_text()), 0)  # killed and reaped
    assert pending.take(1) is None
    failing = forked.ahead(lambda: forked.ahead_part("part") and 1 / 0)
    assert failing is not None
    assert [failing.part(30), failing.part(30)] == [(True, "part"), (False, None)]
    assert failing.take(1) is None  # (the child failed: no value)


def test_ahead_a_part_waited_for_ends_when_its_cancel_is_set(fork_now, tmp_path):
    pending = forked.ahead(_one_part_then_sleeps(tmp_path / "pid"))
    assert pending is not None
    cancel = threading.Event()
    assert pending.part(30, cancel) == (True, "first")
    threading.Timer(0.3, cancel.set).start()  # (the TUI quitting while a row waits on the child)
    t0 = time.monotonic()
    assert pending.part(30, cancel) == (False, None)
    assert 0.25 <= time.monotonic() - t0 < 3  # (not the 30 s it would wait otherwise)
    with pytest.raises(ProcessLookupError):
        os.kill(int((tmp_path / "pid").read_text()), 0)  # killed and reaped
    assert pending.part(30, cancel) == (False, None)


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (gone, or a zombie left for init to reap)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_ahead_cancel_stops_what_the_child_forked_too(fork_now, tmp_path):
    def forks_a_reader() -> int:
        pid = os.fork()
        if pid == 0:  # (a reader of the child's: chunk_map's, claim_map's)
            time.sleep(60)
            os._exit(0)
        (tmp_path / "pid").write_text(str(pid))
        time.sleep(60)
        return 1

    pending = forked.ahead(forks_a_reader)
    assert pending is not None
    deadline = time.monotonic() + 30
    while not (tmp_path / "pid").exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    reader = int((tmp_path / "pid").read_text())
    assert not _gone(reader)
    pending.cancel()
    deadline = time.monotonic() + 10
    while not _gone(reader) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _gone(reader)


def test_ahead_forks_nothing_where_it_may_not(monkeypatch):
    monkeypatch.setattr(forked.threading, "active_count", lambda: 2)  # another thread runs
    ran: list[int] = []
    assert forked.ahead(lambda: ran.append(1)) is None
    assert ran == []
    assert not forked.may_fork()


def _tree(root: str) -> str:
    """Skills with every kind of sidecar and file the keyed read looks at."""
    skills = os.path.join(root, "skills")
    write(f"{skills}/plain/SKILL.md", skill("plain", "A plain skill"))
    write(f"{skills}/shared-side/SKILL.md", skill("shared-side", "With the shared sidecar"))
    write(f"{skills}/shared-side/agents/openai.yaml", "interface:\n  short_description: Short one\n")
    write(f"{skills}/native-side/SKILL.md", skill("native-side", "With the native sidecar"))
    write(f"{skills}/native-side/agents/zuno.yaml", "policy:\n  exposure: search\n")
    write(f"{skills}/bad-side/SKILL.md", skill("bad-side", "A malformed sidecar"))
    write(f"{skills}/bad-side/agents/zuno.yaml", "policy: [\n")
    write(f"{skills}/empty-agents/SKILL.md", skill("empty-agents", "An empty agents folder"))
    os.makedirs(f"{skills}/empty-agents/agents")
    write(f"{skills}/broken/SKILL.md", "---\nname: broken\ndescription: a: b: c\n---\n")
    write(f"{skills}/no-name/SKILL.md", "---\ndescription: nameless\n---\nbody\n")
    os.makedirs(f"{skills}/not-utf8")
    with open(f"{skills}/not-utf8/SKILL.md", "wb") as fh:
        fh.write(b"---\nname: x\xff\n---\n")
    os.makedirs(f"{skills}/a-directory/SKILL.md")
    return skills


def test_dir_keys_stat_gives_the_keys_dir_keys_gives(tmp_path):
    skills = _tree(os.path.realpath(str(tmp_path)))
    settle_clock()
    now = __import__("time").time_ns()
    for name in sorted(os.listdir(skills)):
        loc = f"{skills}/{name}/SKILL.md"
        keys, st, agents = dir_keys_stat(loc, loc, sidecar_paths, now)
        assert keys == dir_keys(loc, loc, sidecar_paths, now), name
        assert (st is None) == (not os.path.exists(loc)), name
        if keys is not None:
            assert agents == os.path.lexists(f"{skills}/{name}/agents"), name
    write(f"{skills}/fresh/SKILL.md", skill("fresh", "Just written"))  # racy: no keys, but its stat
    loc = f"{skills}/fresh/SKILL.md"
    assert dir_keys_stat(loc, loc, sidecar_paths, __import__("time").time_ns())[:2] == (None, os.stat(loc))
    assert dir_keys_stat(f"{skills}/gone/SKILL.md", f"{skills}/gone/SKILL.md", sidecar_paths, now) == (None, None, None)


def _cold_builds(monkeypatch, project: str, env: Environment, paths: list[str], cache_root: str):
    """The same cold first build three ways: forking allowed (reader and cache write in children),
    not allowed, and without any cache; each with its cache files as written."""
    out = []

    def counting(real, seen: list):
        def call(*args):
            seen.append(real(*args))
            return seen[-1]
        return call

    for label, allow in (("forked", True), ("plain", False)):
        with monkeypatch.context() as m:
            m.setattr(forked, "ENABLED", allow)
            m.setattr(forked, "available", (lambda: True) if allow else (lambda: False))
            m.setattr(forked, "MIN_ITEMS", 1)
            m.setattr(forked, "CHUNK", 1)
            marks = os.path.join(cache_root, f"marks-{label}")
            os.makedirs(marks)
            m.setattr(zuno_build, "_keyed_read", _both_take_part(pathlib.Path(marks), zuno_build._keyed_read))
            adopted: list[bool] = []
            m.setattr(parsecache.ParseCache, "adopt", counting(parsecache.ParseCache.adopt, adopted))
            spawned: list[bool] = []
            m.setattr(forked, "spawn", counting(forked.spawn, spawned))
            cache_dir = os.path.join(cache_root, label)
            cat = Catalog.open(project, env=env, paths=paths, pull_remote=False, cache_dir=cache_dir)
            assert finish_saves(None)
            # the children did it: part of the reads (each chunk's cache entries adopted), the parse
            # cache once read, the whole-build state at the end
            assert (bool(adopted) and all(adopted), spawned) == ((True, [True, True]) if allow else (False, []))
            files = {}
            parse_dir = os.path.join(cache_dir, "parse")
            for name in sorted(os.listdir(parse_dir)):
                store = cat.context.cache
                assert store is not None
                cache = store.for_host(cat.host.name, cat.host.version)
                kind, cls = ((zuno_build._KEPT_CHECK, zuno_build._CheckState) if name.endswith("_check.pickle")
                             else (zuno_build._KEPT, zuno_build._Kept))
                namespace = cache.namespace + (f"|state:{kind}" if "-state-" in name else "")
                files[name] = parsecache._read_file(os.path.join(parse_dir, name), namespace,
                                                    kind=cls if "-state-" in name else dict)
            out.append((cat, files))
    plain = Catalog.open(project, env=env, paths=paths, pull_remote=False).current
    return out, plain


def _assert_same_builds(monkeypatch, project: str, env: Environment, paths: list[str], cache_root: str) -> None:
    ((forked_cat, forked_files), (plain_cat, plain_files)), uncached = _cold_builds(
        monkeypatch, project, env, paths, cache_root)
    same(forked_cat.current, plain_cat.current)
    same(forked_cat.current, uncached)
    assert forked_files.keys() == plain_files.keys() and forked_files
    for name, value in forked_files.items():
        if isinstance(value, dict):
            assert value and value == plain_files[name], name  # every parse and sidecar entry, equal
        elif isinstance(value, zuno_build._CheckState):  # (beside its kept build: the same token)
            assert plain_files[name] is not None, name
            assert (value.rows, value.keys, value.proofs) == (plain_files[name].rows, plain_files[name].keys,
                                                              plain_files[name].proofs), name
            kept = forked_files[name.removesuffix("_check.pickle") + ".pickle"]
            assert value.token and value.token == kept.token, name
        else:
            assert value is not None and plain_files[name] is not None, name
            assert value.keys == plain_files[name].keys, name
            assert value.outputs == plain_files[name].outputs, name
            assert value.matches == plain_files[name].matches, name
    stats = [c.context.cache.for_host(c.host.name, c.host.version) for c in (forked_cat, plain_cat)]  # type: ignore[union-attr]
    assert (stats[0].hits, stats[0].misses) == (stats[1].hits, stats[1].misses)


def test_a_forked_cold_build_is_the_build_in_one_process(monkeypatch, tmp_path):
    t = os.path.realpath(str(tmp_path))
    skills = _tree(t)
    os.makedirs(os.path.join(t, "proj", ".git"))
    settle_clock()
    env = Environment.from_mapping({"HOME": os.path.join(t, "home")})
    _assert_same_builds(monkeypatch, os.path.join(t, "proj"), env, [skills], os.path.join(t, "cache"))


@pytest.mark.skipif(not os.path.isdir(os.path.join(SHARED, "corpus")), reason="needs ../shared/corpus")
def test_a_forked_cold_build_of_the_corpus_and_the_cases_is_the_build_in_one_process(monkeypatch, tmp_path):
    t = os.path.realpath(str(tmp_path))
    os.makedirs(os.path.join(t, "proj", ".git"))
    env = Environment.from_mapping({"HOME": os.path.join(t, "home")})
    paths = [os.path.realpath(os.path.join(SHARED, "corpus"))]
    cases = os.path.join(SHARED, "cases")
    if os.path.isdir(cases):
        paths += [os.path.realpath(os.path.join(cases, c, "skills")) for c in sorted(os.listdir(cases))
                  if os.path.isdir(os.path.join(cases, c, "skills"))]
    _assert_same_builds(monkeypatch, os.path.join(t, "proj"), env, paths, os.path.join(t, "cache"))


def test_the_window_is_short_here():
    assert int(WINDOW * 1e9) == parsecache.RACY_NS


def _slimmed(full):
    from dataclasses import replace

    return replace(full, body="", split=None, host_split=None)


@pytest.mark.skipif(not os.path.isdir(os.path.join(SHARED, "corpus")), reason="needs ../shared/corpus")
def test_a_slim_parse_is_the_full_parse_without_the_text():
    """Every corpus and case file (and a few odd ones): the slim parse a catalog keeps is the full
    parse with no body and no splits, field for field."""
    from skillshelf.core.frontmatter import parse_skill_bytes

    datas: list[tuple[str, bytes]] = [
        ("/odd/a/SKILL.md", b"\xef\xbb\xbf---\nname: a\n---\nbody"),
        ("/odd/b/SKILL.md", b"---\r\nname: b\r\ndescription: crlf\r\n---\r\nbody\r\n"),
        ("/odd/c/SKILL.md", b"---json\n{\"name\": \"c\"}\n---\n"),
        ("/odd/d/SKILL.md", b"---\nname: d\ndescription: a: b\n---\n"),
        ("/odd/e/SKILL.md", b"no frontmatter"),
        ("/odd/f/SKILL.md", b"---\nname: [1]\n---\n"),
    ]
    roots = [os.path.join(SHARED, "corpus"), os.path.join(SHARED, "cases")]
    for root in roots:
        for dirpath, _, files in os.walk(root):
            for name in files:
                if name == "SKILL.md":
                    path = os.path.join(dirpath, name)
                    with open(path, "rb") as fh:
                        datas.append((path, fh.read()))
    assert len(datas) > 100
    for location, data in datas:
        slim = parse_skill_bytes(data, location, slim=True)
        full = parse_skill_bytes(data, location)
        assert slim == _slimmed(full) and slim.frontmatter == full.frontmatter, location
        assert (slim.body, slim.split, slim.host_split, slim.sanitized) == ("", None, None, full.sanitized), location
