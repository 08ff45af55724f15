"""The cyclic collector is off while a catalog loads, then what is alive is frozen."""

from __future__ import annotations

import gc
import threading
import weakref

from skillshelf.app.collector import collector_paused, thaw


def test_the_collector_is_off_inside_on_after_and_what_lived_is_frozen_until_thawed():
    thaw()
    assert gc.isenabled() and gc.get_freeze_count() == 0
    kept = [object() for _ in range(3)]
    with collector_paused():
        assert not gc.isenabled()
        inner_done = threading.Event()

        def other() -> None:  # another worker opening a catalog at the same time
            with collector_paused():
                assert not gc.isenabled()
            inner_done.set()

        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert inner_done.is_set() and not gc.isenabled()  # still off: the outer section runs
        assert gc.get_freeze_count() == 0
    assert gc.isenabled() and gc.get_freeze_count() > 0
    assert all(o is not None for o in kept)
    thaw()
    assert gc.get_freeze_count() == 0


def test_a_collector_off_before_stays_off_and_a_failure_inside_still_restores_it():
    thaw()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
        thaw()
    try:
        with collector_paused():
            raise ValueError("the open failed")
    except ValueError:
        pass
    assert gc.isenabled()
    thaw()


class _Node:
    """An object that can sit in a reference cycle and be watched through a weak reference."""

    me: _Node | None = None


def test_a_cycle_dropped_during_the_pause_is_collected_not_frozen():
    thaw()
    with collector_paused():
        node = _Node()
        node.me = node  # a reference cycle, dropped before the pause ends
        gone = weakref.ref(node)
        del node
        kept = _Node()
        kept.me = kept
    assert gone() is None  # collected when the pause ended
    assert kept.me is kept
    thaw()
