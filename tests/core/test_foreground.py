"""Background work giving way to the foreground (core/foreground.py) and the filter index's
preparation calling it between its parts."""

from __future__ import annotations

import threading
import time

from test_filter import src

from skillshelf.core.filter import FilterIndex
from skillshelf.core.foreground import Foreground


def test_a_touch_makes_it_busy_for_quiet_seconds():
    fg = Foreground(quiet=60.0)
    assert not fg.busy()  # never touched (monotonic may be below 60 s on a fresh machine)
    fg.touch()
    assert fg.busy()
    fg.touched_at = time.monotonic() - 61.0
    assert not fg.busy()


def test_quiet_zero_never_waits():
    fg = Foreground(quiet=0.0)
    fg.touch()
    assert not fg.busy()
    fg.pause()  # returns at once (a hang here fails the run)


def test_pause_returns_once_quiet_and_not_before():
    fg = Foreground(quiet=0.15)
    fg.touch()
    touched = fg.touched_at
    fg.pause(step=0.01)
    assert time.monotonic() - touched >= 0.15
    assert not fg.busy()


def test_pause_returns_when_cancelled_though_still_busy():
    fg = Foreground(quiet=3600.0)
    fg.touch()
    calls = []

    def cancelled() -> bool:
        calls.append(1)
        return len(calls) >= 3

    fg.pause(cancelled, step=0.001)
    assert fg.busy() and len(calls) == 3


def test_pause_waits_for_every_touch_in_a_burst():
    fg = Foreground(quiet=0.1)
    fg.touch()
    done = threading.Event()

    def background() -> None:
        fg.pause(step=0.005)
        done.set()

    worker = threading.Thread(target=background)
    worker.start()
    for _ in range(4):  # keystrokes 50 ms apart: the background never finds 100 ms of quiet
        time.sleep(0.05)
        assert not done.is_set()
        fg.touch()
    last = fg.touched_at
    worker.join(5)
    assert done.is_set() and time.monotonic() - last >= 0.1


def test_prepare_pauses_before_each_part_with_no_part_lock_held():
    index = FilterIndex([src("deploy-app"), src("pdf-sql", "query tables"), src("review")])
    seen: list[tuple[bool, bool, bool, bool, bool]] = []

    def pause() -> None:
        free = []
        for lock in (index._building_parts, index._building_vocabulary, index._building_words):
            got = lock.acquire(blocking=False)
            free.append(got)
            if got:
                lock.release()
        seen.append((*free, index._parts is not None, index._vocabulary_by_length is not None))

    index.prepare(pause)
    assert [s[:3] for s in seen] == [(True, True, True)] * 3
    # before the name parts, before the vocabulary, before the word texts
    assert [s[3:] for s in seen] == [(False, False), (True, False), (True, True)]
    assert index._words is not None
    assert [h.index for h in index.search("depoly")] == [0]  # (prepared: the same answers)
