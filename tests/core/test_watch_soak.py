"""Soak of live reload through the real watcher (SPEC H2–H4): random operations on the disk —
moves into freshly created subfolders, across roots, whole folders, symlinks, breaks — and
nothing else; the catalog only hears of them through :class:`CatalogWatcher`. At the end the
published generation must equal a rescan, under every host. The 1,000-operation version is
``benchmarks/bench_soak.py``."""

from __future__ import annotations

import random
import threading
import time

import pytest
from soak_ops import make_workspace, repair, run_operations
from test_watch import wait_for

from skillshelf.core.catalog import Catalog
from skillshelf.core.hosts import HOSTS
from skillshelf.core.watch import CatalogWatcher

#: Operations per host: the seed host gets the full soak, the others a shorter one each.
OPERATIONS = {"zuno": 300}
SHORT = 60


def shows_the_same(a, b) -> bool:
    """Everything but the number is equal."""
    return (a.digest, a.roots, a.sources, a.rejected, a.warnings, a.diagnostics) == (
        b.digest, b.roots, b.sources, b.rejected, b.warnings, b.diagnostics)


def quiet(cat: Catalog, watcher: CatalogWatcher, seconds: float, deadline: float = 30.0):
    """The current generation once the watcher was idle, publishing nothing, for ``seconds``
    (longer than its batching: every event of the operations has been handed over)."""
    end = time.monotonic() + deadline
    last, since = cat.current.number, time.monotonic()
    while time.monotonic() < end:
        time.sleep(0.02)
        if cat.current.number != last or not watcher.idle:
            last, since = cat.current.number, time.monotonic()
        elif time.monotonic() - since >= seconds:
            break
    return cat.current


def _soak(tmp_path, host: str, count: int, seed: int) -> dict[str, int]:
    ws = make_workspace(str(tmp_path), host)

    def fresh() -> Catalog:
        return Catalog.open(ws.project, env=ws.env, host=host, paths=ws.paths, pull_remote=False)

    cat = fresh()
    rng = random.Random(seed)
    published: list[int] = []
    watcher = CatalogWatcher(cat, step=20, debounce=200, poll_interval=0.2,
                             on_generation=lambda g: published.append(g.number))
    with watcher:
        done = run_operations(ws, rng, count, lambda kind: time.sleep(rng.choice((0, 0, 0, 0.005, 0.03))))
        live = quiet(cat, watcher, seconds=1.0)
        # every change seen: a full rescan from the same generation (same kept-last-valid history)
        # shows exactly what the watcher made the catalog show
        assert cat.refresh(publish_unchanged=False) is live
        repair(ws)
        gen = wait_for(cat, lambda g: shows_the_same(g, fresh().current), deadline=30.0)
    # the watcher is stopped: a full rescan from the same generation shows exactly the same
    assert shows_the_same(cat.refresh(), gen)
    assert not any(w.kind in ("RebuildFailed", "WatchFailed") for w in gen.warnings)
    assert published and published == sorted(set(published))
    return done


def test_soak_300_operations_through_the_watcher_ends_equal_to_a_rescan(tmp_path):
    done = _soak(tmp_path, "zuno", OPERATIONS["zuno"], seed=14)
    assert sum(done.values()) == 300
    assert done["move-into-new-subfolder"] >= 20 and done["move-folder-across-roots"] >= 5


@pytest.mark.parametrize("host", sorted(h for h in HOSTS if h != "zuno"))
def test_soak_through_the_watcher_ends_equal_to_a_rescan_under_every_host(tmp_path, host):
    done = _soak(tmp_path, host, SHORT, seed=41)
    assert sum(done.values()) == SHORT


def test_soak_threads_end_with_the_watcher(tmp_path):
    before = {t.name for t in threading.enumerate()}
    _soak(tmp_path, "zuno", 20, seed=3)
    leftover = [t.name for t in threading.enumerate() if t.name.startswith("skillshelf-watch") and t.name not in before]
    assert leftover == []
