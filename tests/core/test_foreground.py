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
    assert fg.pause() is True  # at once (a hang here fails the run)


def test_pause_returns_once_quiet_and_not_before():
    fg = Foreground(quiet=0.15)
    fg.touch()
    touched = fg.touched_at
    assert fg.pause(step=0.01) is True
    assert time.monotonic() - touched >= 0.15
    assert not fg.busy()


def test_pause_returns_when_cancelled_though_still_busy():
    fg = Foreground(quiet=3600.0)
    fg.touch()
    calls = []

    def cancelled() -> bool:
        calls.append(1)
        return len(calls) >= 3

    assert fg.pause(cancelled, step=0.001) is False
    assert fg.busy() and len(calls) == 3


def test_pause_waits_for_every_touch_in_a_burst():
    fg = Foreground(quiet=0.4)
    fg.touch()
    done = threading.Event()

    def background() -> None:
        assert fg.pause(step=0.005)
        done.set()

    worker = threading.Thread(target=background)
    worker.start()
    for _ in range(3):  # keystrokes 0.1 s apart: never 0.4 s of quiet (0.3 s of slack for a slow machine)
        time.sleep(0.1)
        assert not done.is_set()
        fg.touch()
    last = fg.touched_at
    worker.join(10)
    assert done.is_set() and time.monotonic() - last >= 0.4


def _held_elsewhere(lock) -> bool:
    """Whether another thread holds ``lock`` (an ``RLock`` is always free to its owner)."""
    free: list[bool] = []

    def probe() -> None:
        got = lock.acquire(blocking=False)
        free.append(got)
        if got:
            lock.release()

    t = threading.Thread(target=probe)
    t.start()
    t.join()
    return not free[0]


def test_prepare_pauses_before_each_part_with_no_part_lock_held():
    index = FilterIndex([src("deploy-app"), src("pdf-sql", "query tables"), src("review")])
    locks = (index._building_parts, index._building_vocabulary, index._building_words)
    seen: list[tuple[bool, ...]] = []

    def pause() -> bool:
        seen.append((*(_held_elsewhere(lock) for lock in locks), index._words is not None, index._parts is not None,
                     index._vocabulary_by_length is not None))
        return True

    index.prepare(pause)
    assert [s[:3] for s in seen] == [(False, False, False)] * 3
    # before the word texts, before the name parts, before the vocabulary
    assert [s[3:] for s in seen] == [(False, False, False), (True, False, False), (True, True, False)]
    assert index._vocabulary_by_length is not None
    assert [h.index for h in index.search("depoly")] == [0]  # (prepared: the same answers)


def test_prepare_stops_when_pause_says_so():
    index = FilterIndex([src("deploy-app"), src("review")])
    calls: list[int] = []

    def pause() -> bool:
        calls.append(1)
        return len(calls) < 2  # go on once, then the work is cancelled

    index.prepare(pause)
    assert len(calls) == 2
    assert index._words is not None and index._parts is None and index._vocabulary_by_length is None
    assert [h.index for h in index.search("depoly")] == [0]  # the query builds what it needs
