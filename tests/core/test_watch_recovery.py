"""The watcher never stops publishing silently (SPEC H2, H4): a rebuild that fails under churn is
retried and shown when it keeps failing, an error of the watcher itself is survived, a folder
whose events were lost is rescanned, a watch that cannot start is one warning and its folder is
still followed, and only real changes are published."""

from __future__ import annotations

import os
import threading
import time

from test_catalog import Tree, skill, write
from test_watch import DEADLINE, names, wait_for, watcher

from skillshelf.core import paths as core_paths
from skillshelf.core.catalog import Catalog
from skillshelf.core.paths import canonical
from skillshelf.core.watch import CatalogWatcher, watch_changes

# ---------------------------------------------------------------- realpath under churn

def test_canonical_retries_a_symlink_that_changes_while_it_is_resolved(tmp_path, monkeypatch):
    """``os.path.realpath`` raises ``FileNotFoundError`` when a link vanishes between its
    ``lstat`` and ``readlink``; the retry sees the new state."""
    target = tmp_path / "target"
    target.mkdir()
    real = os.path.realpath
    calls = []

    def racy(path, strict=False):
        calls.append(path)
        if len(calls) == 1:
            raise FileNotFoundError(2, "No such file or directory", path)
        return real(path, strict=strict)

    monkeypatch.setattr(core_paths.os.path, "realpath", racy)
    assert canonical(str(target)) == real(str(target))
    assert len(calls) == 2


def test_canonical_settles_for_the_lexical_form_when_resolving_keeps_failing(monkeypatch):
    def broken(path, strict=False):
        raise FileNotFoundError(2, "No such file or directory", path)

    monkeypatch.setattr(core_paths.os.path, "realpath", broken)
    assert canonical("/a/b/../c") == "/a/c"


# ---------------------------------------------------------------- failed rebuilds

def _failing_build(cat: Catalog, failures: int | None):
    """Make the session's build raise ``FileNotFoundError`` ``failures`` times (None: until
    ``ok`` is set); returns ``(calls, ok)``."""
    session = cat.session
    real_build = session.build
    calls: list[int] = []
    ok = threading.Event()

    def build(previous, changed, watch_warnings=()):
        calls.append(1)
        if not ok.is_set() and (failures is None or len(calls) <= failures):
            raise FileNotFoundError(2, "No such file or directory", "/vanished/link")
        return real_build(previous, changed, watch_warnings)

    session.build = build
    return calls, ok


def test_a_rebuild_that_fails_under_churn_is_retried_without_new_events(tmp_path):
    tree = Tree(tmp_path)
    cat = tree.open()
    calls, _ = _failing_build(cat, 2)
    seen = []
    with watcher(cat, on_generation=seen.append):
        write(f"{tree.agents}/sheet/SKILL.md", skill("spreadsheet"))
        wait_for(cat, lambda g: "spreadsheet" in names(g))
    assert len(calls) >= 3
    assert not any(w.kind == "RebuildFailed" for g in seen for w in g.warnings)  # retried, not shown


def test_a_rebuild_that_keeps_failing_is_shown_once_and_recovers_by_itself(tmp_path):
    tree = Tree(tmp_path)
    cat = tree.open()
    calls, ok = _failing_build(cat, None)
    seen = []
    with watcher(cat, on_generation=seen.append):
        write(f"{tree.agents}/sheet/SKILL.md", skill("spreadsheet"))
        gen = wait_for(cat, lambda g: any(w.kind == "RebuildFailed" for w in g.warnings))
        [failed] = [w for w in gen.warnings if w.kind == "RebuildFailed"]
        assert failed.message == ("rebuilding the skill catalog failed (FileNotFoundError: [Errno 2] No such file "
                                  f"or directory: '/vanished/link'); showing generation {gen.number - 1}")
        time.sleep(0.6)  # three more poll intervals of retries: none of them is published
        assert [g.number for g in seen] == [gen.number]
        ok.set()  # no new file event: the periodic retry alone brings the change in
        gen = wait_for(cat, lambda g: "spreadsheet" in names(g))
    assert not any(w.kind == "RebuildFailed" for w in gen.warnings)
    assert len(calls) >= 6


def test_an_error_inside_the_watcher_itself_does_not_stop_it(tmp_path, caplog):
    tree = Tree(tmp_path)
    cat = tree.open()
    real = cat.watch_targets
    broken = threading.Event()

    def watch_targets():
        if broken.is_set():
            broken.clear()
            raise FileNotFoundError(2, "No such file or directory", "/gone")
        return real()

    cat.watch_targets = watch_targets  # type: ignore[method-assign]
    with caplog.at_level("ERROR", logger="skillshelf.core.watch"), watcher(cat):
        broken.set()
        write(f"{tree.agents}/sheet/SKILL.md", skill("spreadsheet"))
        wait_for(cat, lambda g: "spreadsheet" in names(g))
        write(f"{tree.agents}/pdf/SKILL.md", skill("pdf"))
        wait_for(cat, lambda g: "pdf" in names(g))
    assert "the skill watcher hit an unexpected error" in caplog.text


# ---------------------------------------------------------------- lost events

def test_a_new_folder_is_rescanned_once_more_after_it_appears(tmp_path):
    """The watch of a new folder starts only once its creation was reported: a file written in
    between is never reported. The folder is rescanned ``settle`` seconds later."""
    tree = Tree(tmp_path)
    os.makedirs(tree.agents)
    cat = tree.open()
    lost = f"{tree.agents}/late"

    def factory(request):
        for batch in watch_changes(request):
            yield {(c, p) for c, p in batch if not p.startswith(lost + "/")}  # the folder's own events are lost

    real = cat.refresh_paths
    asked = threading.Event()

    def refresh_paths(changed, **kw):
        if lost in set(changed):
            asked.set()
        return real(changed, **kw)

    cat.refresh_paths = refresh_paths  # type: ignore[method-assign]
    w = CatalogWatcher(cat, step=20, debounce=200, poll_interval=0.2, watch_factory=factory, settle=1.0)
    with w:
        os.makedirs(lost)
        assert asked.wait(DEADLINE)  # the empty folder was looked at: nothing to publish
        write(f"{lost}/SKILL.md", skill("late-skill"))  # its event is lost
        gen = wait_for(cat, lambda g: "late-skill" in names(g))
    assert gen.by_location(f"{lost}/SKILL.md") is not None


# ---------------------------------------------------------------- only real changes

def _count_while(cat: Catalog, seconds: float, action) -> list[int]:
    seen: list[int] = []
    cat.subscribe(lambda g: seen.append(g.number))
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        action()
        time.sleep(0.02)
    return seen


def test_events_that_change_nothing_publish_nothing(tmp_path):
    tree = Tree(tmp_path)
    write(f"{tree.agents}/sheet/SKILL.md", skill("spreadsheet"))
    cat = tree.open()
    with watcher(cat):
        log = f"{tree.project}/build.log"  # inside the watched project, not a skill
        n = 0

        def scribble():
            nonlocal n
            n += 1
            write(log, f"line {n}\n")

        before = cat.current.number
        seen = _count_while(cat, 1.5, scribble)
        assert seen == [] and cat.current.number == before
        write(f"{tree.agents}/pdf/SKILL.md", skill("pdf"))
        gen = wait_for(cat, lambda g: "pdf" in names(g))
    assert gen.number == before + 1


def test_no_feedback_loop_when_the_output_lands_in_a_watched_folder(tmp_path):
    """opencode watches every folder of the project walk up to ``/``, non-recursively: a file
    written beside one of them (``watch > ../log``) is not a change of the catalog."""
    tree = Tree(tmp_path)
    write(f"{tree.project}/.agents/skills/sheet/SKILL.md", skill("spreadsheet"))
    cat = Catalog.open(tree.project, env=tree.env, host="opencode", pull_remote=False)
    with watcher(cat) as w:
        assert any(s.kind == "config" and s.active == tree.t for s in w.plan)
        out = f"{tree.t}/watch.log"
        seen = _count_while(cat, 1.5, lambda: write(out, f"generation {cat.current.number}\n"))
    assert seen == []


# ---------------------------------------------------------------- a watch that cannot start

def test_an_unwatchable_folder_is_one_warning_and_is_still_followed(tmp_path):
    """watchfiles cannot watch a tree holding a directory whose name is not UTF-8: one
    ``WatchFailed`` warning, published once, and the folder is rescanned every poll instead."""
    tree = Tree(tmp_path)
    write(f"{tree.agents}/sheet/SKILL.md", skill("spreadsheet"))
    os.makedirs(os.fsencode(tree.agents) + b"/bad\xff")
    cat = tree.open()
    seen = []
    with watcher(cat, on_generation=seen.append):
        gen = wait_for(cat, lambda g: any(w.kind == "WatchFailed" for w in g.warnings))
        [failed] = [w for w in gen.warnings if w.kind == "WatchFailed"]
        assert failed.source == tree.project
        assert failed.message.startswith(f"failed to watch skills in {tree.project}: ")
        time.sleep(1.0)  # five retries of the watch: nothing new to publish
        assert [g.number for g in seen] == [gen.number]
        write(f"{tree.agents}/pdf/SKILL.md", skill("pdf"))
        gen = wait_for(cat, lambda g: "pdf" in names(g))
    assert [w.kind for w in gen.warnings] == ["WatchFailed"]
