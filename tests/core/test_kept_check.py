"""Zuno's kept first build checked ahead (:meth:`ZunoSession.check_ahead`, the TUI's second core):
a first build that adopts the check makes neither the proofs nor the keys itself and equals the
build without a cache; a check of another state, or none, changes nothing."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from test_catalog import Tree, same, skill, write
from test_parsecache import WINDOW, opened, session_cache, settle_clock, short_racy_window  # noqa: F401

from skillshelf.core.catalog import Catalog, check_ahead
from skillshelf.core.hosts.zuno import build
from skillshelf.core.scanproof import ScanProof


class Handed:
    """An :class:`~skillshelf.core.forked.Ahead` whose value was made in this process."""

    def __init__(self, value: object, parts: tuple[object, ...] = (), end_after: float = 0.0) -> None:
        self.value = value
        self.parts = list(parts)
        self.end_after = end_after  # (seconds before it says no more parts will come)
        self.waits: list[float] = []
        self.pulled = 0
        self.cancelled = False
        self.cancels: list[object] = []  # (the event each wait for a part was given)

    def handed(self) -> Handed:
        return self

    def part(self, timeout: float, cancel: object = None) -> tuple[bool, object]:
        self.pulled += 1
        self.cancels.append(cancel)
        if self.parts:
            return True, self.parts.pop(0)
        time.sleep(self.end_after)
        return False, None

    def take(self, timeout: float) -> object:
        self.waits.append(timeout)
        value, self.value = self.value, None
        return value

    def cancel(self) -> None:
        self.cancelled = True


def _tree(tmp_path) -> tuple[Tree, str, dict[str, str]]:
    tree = Tree(tmp_path)
    files = {
        "edit": write(f"{tree.agents}/edit/SKILL.md", skill("edit", "Before the edit")),
        "keep": write(f"{tree.agents}/keep/SKILL.md", skill("keep", "Never changes")),
        "side": write(f"{tree.zuno}/side/SKILL.md", skill("side", "Has a sidecar")),
        "sidecar": write(f"{tree.zuno}/side/agents/zuno.yaml", "policy:\n  exposure: search\n"),
        "home": write(f"{tree.home}/.agents/skills/home-one/SKILL.md", skill("home-one", "Home copy")),
    }
    cache_dir = str(tmp_path / "cache")
    settle_clock()
    opened(tree, cache_dir).save_cache()  # the first build is kept
    return tree, cache_dir, files


def _check(tree: Tree, cache_dir: str) -> build.KeptCheck:
    check = check_ahead(tree.project, env=tree.env, host="zuno", cache_dir=cache_dir)
    assert isinstance(check, build.KeptCheck)
    return check


def _open(tree: Tree, cache_dir: str, ahead: object) -> Catalog:
    return Catalog.open(tree.project, env=tree.env, pull_remote=False, cache_dir=cache_dir,
                        ahead=ahead)  # type: ignore[arg-type]


def _forbid_checking(monkeypatch) -> None:
    """The build may not check the kept build itself: it has the check."""
    def refuse(*_a, **_k):
        raise AssertionError("checked again")

    monkeypatch.setattr(ScanProof, "holds", refuse)
    monkeypatch.setattr(build, "_dir_keys", refuse)


def test_an_unchanged_tree_adopted_check_makes_no_stat_and_equals_no_cache(tmp_path, monkeypatch):
    tree, cache_dir, _ = _tree(tmp_path)
    check = _check(tree, cache_dir)
    assert check.holds == (True,) * len(check.holds) and len(check.holds) >= 3
    assert check.changed == {}
    handed = Handed(check)
    with monkeypatch.context() as m:
        _forbid_checking(m)
        cat = _open(tree, cache_dir, handed)
        assert len(handed.waits) == 1  # (taken by the build; then cancelled by the catalog: a no-op once taken)
        assert session_cache(cat).state_hits == 1 and session_cache(cat).misses == 0
    same(cat.current, opened(tree, None).current)


def test_an_edit_seen_by_the_check_is_read_again(tmp_path, monkeypatch):
    tree, cache_dir, files = _tree(tmp_path)
    write(files["edit"], skill("edit", "After the edit, longer"))
    settle_clock()
    check = _check(tree, cache_dir)
    assert all(check.holds)  # no listing changed
    assert check.changed is not None and list(check.changed) == [files["edit"]]
    with monkeypatch.context() as m:
        _forbid_checking(m)
        cat = _open(tree, cache_dir, Handed(check))
    assert session_cache(cat).misses == 1
    edited = cat.current.by_location(files["edit"])
    assert edited is not None and edited.description == "After the edit, longer"
    same(cat.current, opened(tree, None).current)


def test_a_root_whose_proof_failed_is_walked_and_the_keys_taken_by_the_build(tmp_path, monkeypatch):
    tree, cache_dir, _ = _tree(tmp_path)
    added = write(f"{tree.agents}/added/SKILL.md", skill("added", "New here"))
    settle_clock()
    check = _check(tree, cache_dir)
    assert check.holds.count(False) == 1 and check.changed is None
    walked: list[str] = []
    real_scan = build.scan

    def counting(scan_dir, **kw):
        walked.append(scan_dir)
        return real_scan(scan_dir, **kw)

    def refuse(*_a, **_k):
        raise AssertionError("proved again")

    with monkeypatch.context() as m:
        m.setattr(build, "scan", counting)
        m.setattr(ScanProof, "holds", refuse)  # the check's verdicts are used
        cat = _open(tree, cache_dir, Handed(check))
    assert walked == [tree.agents]
    assert cat.current.by_location(added) is not None
    same(cat.current, opened(tree, None).current)


def test_a_check_of_another_kept_state_is_not_adopted(tmp_path, monkeypatch):
    tree, cache_dir, files = _tree(tmp_path)
    stale = _check(tree, cache_dir)
    write(files["edit"], skill("edit", "Edited after the check"))
    settle_clock()
    opened(tree, cache_dir).save_cache()  # another first build is kept: another state
    assert _check(tree, cache_dir).token != stale.token
    proved: list[str] = []
    real_holds = ScanProof.holds

    def counting(self):
        proved.append(self.scan_dir)
        return real_holds(self)

    with monkeypatch.context() as m:
        m.setattr(ScanProof, "holds", counting)
        cat = _open(tree, cache_dir, Handed(stale))
    assert len(proved) == len(stale.holds)  # checked by the build itself
    same(cat.current, opened(tree, None).current)


def test_without_a_kept_build_there_is_nothing_to_check_and_the_child_is_stopped(tmp_path):
    tree = Tree(tmp_path)
    write(f"{tree.agents}/one/SKILL.md", skill("one", "One"))
    cache_dir = str(tmp_path / "cache")
    assert check_ahead(tree.project, env=tree.env, host="zuno", cache_dir=cache_dir) is None
    assert check_ahead(tree.project, env=tree.env, host="zuno", cache_dir=None) is None
    handed = Handed("never used")
    cat = _open(tree, cache_dir, handed)
    # (what the child read ahead is asked for, at the first file: it sent nothing)
    assert handed.waits == [] and handed.pulled == 1
    same(cat.current, opened(tree, None).current)


def test_the_wait_for_what_the_child_reads_ahead_ends_when_the_catalog_is_cancelled(tmp_path):
    tree = Tree(tmp_path)
    write(f"{tree.agents}/one/SKILL.md", skill("one", "One"))
    quitting = threading.Event()  # (the TUI's, set on quit: a row waiting on the child stops waiting)
    handed = Handed("never used")
    cat = Catalog.open(tree.project, env=tree.env, pull_remote=False, cache_dir=str(tmp_path / "cache"),
                       ahead=handed, cancel=quitting)  # type: ignore[arg-type]
    assert handed.pulled == 1 and handed.cancels == [quitting]
    same(cat.current, opened(tree, None).current)


def test_without_a_kept_build_the_first_build_takes_the_files_the_child_read_ahead_then_their_lint(
        tmp_path, monkeypatch):
    from skillshelf.core import forked, hostlint
    from skillshelf.core.lint import Target, lint_file

    tree = Tree(tmp_path)
    for i in range(12):
        write(f"{tree.agents}/s{i:02}/SKILL.md", skill(f"s{i:02}", f"Skill {i}"))
    write(f"{tree.zuno}/side/SKILL.md", skill("side", "Has a sidecar"))
    write(f"{tree.zuno}/side/agents/zuno.yaml", "policy:\n  exposure: search\n")
    write(f"{tree.agents}/broken/SKILL.md", "---\nname: [unclosed\n---\nbody\n")
    write(f"{tree.agents}/Bad_Name/SKILL.md", skill("Bad_Name", "Lint finds its name"))
    settle_clock()
    cache_dir = str(tmp_path / "cache")
    made_here: list[str] = []  # (what the child makes is appended to its own copy)
    real_read, real_draft = build._read_skill, hostlint._file_draft
    monkeypatch.setattr(build, "_read_skill", lambda location: made_here.append(location) or real_read(location))
    monkeypatch.setattr(hostlint, "_file_draft", lambda path, *a: made_here.append(path) or real_draft(path, *a))
    monkeypatch.setattr(forked, "may_fork", lambda: True)
    monkeypatch.setattr(forked, "CHUNK", 4)  # (parts of four files)

    def work() -> object:
        forked.ENABLED = True
        return check_ahead(tree.project, env=tree.env, host="zuno", cache_dir=cache_dir, read_ahead=True,
                           lint_target="spec")

    pending = forked.ahead(work)
    assert pending is not None
    cat = Catalog.open(tree.project, env=tree.env, pull_remote=False, cache_dir=cache_dir, lint_target="spec",
                       ahead=pending)
    assert made_here == []  # every file came from the child, the sidecar too
    same(cat.current, opened(tree, None).current)
    made_here.clear()  # (the build without a cache it was compared with read every file)
    cache = session_cache(cat)
    assert (cache.hits, cache.misses) == (0, 16)  # (15 files and the sidecar, each read once: by the child)
    linted = [*cat.current.sources[len(cat.session.builtins.sources):], *cat.current.rejected]
    assert len(linted) == 15
    deadline = time.monotonic() + 30
    while cache._feed is not None and time.monotonic() < deadline:  # (taken in the background to its end)
        time.sleep(0.01)
    assert cache._feed is None
    for item in linted:  # the lint the child went on to make, taken meanwhile
        assert hostlint.cached_lint(item.location, item.canonical, "spec", cache) == lint_file(
            item.location, target=Target.SPEC)
    assert made_here == []
    assert pending.take(1) is None  # (taken over by the build: the child answered the one that took it)


@pytest.mark.parametrize("host", ["claude", "codex", "opencode", "gemini", "zhin"])
def test_hosts_without_a_kept_build_check_nothing(tmp_path, host):
    tree, cache_dir, _ = _tree(tmp_path)
    opened(tree, cache_dir, host).save_cache()
    assert check_ahead(tree.project, env=tree.env, host=host, cache_dir=cache_dir) is None


def test_the_wait_is_the_time_the_build_took_to_load_plus_the_slack(tmp_path, monkeypatch):
    tree, cache_dir, _ = _tree(tmp_path)
    check = _check(tree, cache_dir)
    real_kept = build.ZunoSession._kept

    def slow(self, roots):
        time.sleep(0.2)
        return real_kept(self, roots)

    monkeypatch.setattr(build.ZunoSession, "_kept", slow)
    handed = Handed(check)
    _open(tree, cache_dir, handed)
    assert len(handed.waits) == 1
    assert 0.2 + build.AHEAD_SLACK_S <= handed.waits[0] < 1.0 + build.AHEAD_SLACK_S


def _check_file(cache_dir: str) -> str:
    folder = os.path.join(cache_dir, "parse")
    [name] = [f for f in os.listdir(folder) if f.endswith("-state-zuno_first_build_check.pickle")]
    return os.path.join(folder, name)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty", "missing"])
def test_a_damaged_check_state_checks_nothing_ahead(tmp_path, damage):
    tree, cache_dir, _ = _tree(tmp_path)
    file = _check_file(cache_dir)
    data = Path(file).read_bytes()
    if damage == "missing":
        os.remove(file)
    else:
        with open(file, "wb") as fh:
            fh.write({"garbage": b"\x00\xffnot a state" * 9, "truncated": data[: len(data) // 2], "empty": b""}[damage])
    assert check_ahead(tree.project, env=tree.env, host="zuno", cache_dir=cache_dir) is None
    same(opened(tree, cache_dir).current, opened(tree, None).current)


def test_the_check_state_of_an_older_kept_build_is_not_adopted(tmp_path, monkeypatch):
    tree, cache_dir, files = _tree(tmp_path)
    file = _check_file(cache_dir)
    older = Path(file).read_bytes()
    write(files["edit"], skill("edit", "Edited, then the old check state put back"))
    settle_clock()
    opened(tree, cache_dir).save_cache()  # a new kept build and its check state
    with open(file, "wb") as fh:
        fh.write(older)  # (the new kept build's check state lost, an older one in its place)
    check = _check(tree, cache_dir)
    proved: list[str] = []
    real_holds = ScanProof.holds
    with monkeypatch.context() as m:
        m.setattr(ScanProof, "holds", lambda self: proved.append(self.scan_dir) or real_holds(self))
        cat = _open(tree, cache_dir, Handed(check))
    assert len(proved) == len(check.holds)
    assert cat.current.by_location(files["edit"]).description == "Edited, then the old check state put back"
    same(cat.current, opened(tree, None).current)
    cat.save_cache()  # the pair is made whole again: the next start adopts its check
    repaired = _check(tree, cache_dir)
    assert repaired.token != check.token and repaired.changed == {}
    with monkeypatch.context() as m:
        _forbid_checking(m)
        adopted = _open(tree, cache_dir, Handed(repaired))
    same(adopted.current, opened(tree, None).current)


def test_a_lost_check_state_is_kept_again_when_the_child_has_no_answer(tmp_path):
    tree, cache_dir, _ = _tree(tmp_path)
    os.remove(_check_file(cache_dir))
    cat = _open(tree, cache_dir, Handed(None))
    cat.save_cache()
    assert _check(tree, cache_dir).changed == {}


# ---------------------------------------------------------------- looked at again (the watcher)


def test_what_the_build_kept_on_the_checks_word_is_looked_at_again(tmp_path):
    tree, cache_dir, files = _tree(tmp_path)
    write(files["edit"], skill("edit", "Edited before the check"))  # read by the build itself
    settle_clock()
    check = _check(tree, cache_dir)
    assert check.changed is not None and list(check.changed) == [files["edit"]]
    write(files["keep"], skill("keep", "Edited after the check"))  # the build keeps it on the check's word
    write(files["sidecar"], "policy:\n  exposure: index\n")
    settle_clock()
    cat = _open(tree, cache_dir, Handed(check))
    assert cat.current.by_location(files["keep"]).description == "Never changes"  # (as the check saw it)
    since = cat.changed_since_ahead()
    assert since == frozenset({os.path.dirname(files["keep"]), os.path.dirname(files["side"])})
    assert cat.changed_since_ahead() == frozenset()  # once
    cat.refresh_paths(since)
    assert cat.current.by_location(files["keep"]).description == "Edited after the check"
    fresh = opened(tree, None)
    assert cat.current.sources == fresh.current.sources and cat.current.digest == fresh.current.digest


def test_a_listing_changed_after_the_check_asks_for_everything(tmp_path):
    tree, cache_dir, _ = _tree(tmp_path)
    check = _check(tree, cache_dir)
    write(f"{tree.agents}/late/SKILL.md", skill("late", "Added after the check"))
    settle_clock()
    cat = _open(tree, cache_dir, Handed(check))
    assert cat.current.by_location(f"{tree.agents}/late/SKILL.md") is None
    assert cat.changed_since_ahead() is None


def test_nothing_changed_or_nothing_adopted_asks_for_nothing(tmp_path):
    tree, cache_dir, _ = _tree(tmp_path)
    cat = _open(tree, cache_dir, Handed(_check(tree, cache_dir)))
    assert cat.changed_since_ahead() == frozenset()
    assert opened(tree, cache_dir).changed_since_ahead() == frozenset()  # (checked by the build itself)
    for host in ("claude", "zhin"):
        assert opened(tree, cache_dir, host).changed_since_ahead() == frozenset()


def _edited_after_check(tmp_path, text: str) -> tuple[Tree, str, dict[str, str], Catalog]:
    """A first build that adopted a check made before ``keep`` was edited to ``text``."""
    tree, cache_dir, files = _tree(tmp_path)
    check = _check(tree, cache_dir)
    write(files["keep"], skill("keep", text))
    settle_clock()
    return tree, cache_dir, files, _open(tree, cache_dir, Handed(check))


def test_the_watcher_shows_an_edit_made_between_the_check_and_its_watches(tmp_path):
    from test_watch import wait_for, watcher

    tree, _, files, cat = _edited_after_check(tmp_path, "Edited while the TUI started")
    assert cat.current.by_location(files["keep"]).description == "Never changes"
    w = watcher(cat).start()
    try:
        gen = wait_for(cat, lambda g: g.by_location(files["keep"]).description == "Edited while the TUI started")
    finally:
        w.stop()
    fresh = opened(tree, None).current
    assert gen.sources == fresh.sources and gen.digest == fresh.digest


def _kept_anew(tmp_path, home_text: str) -> tuple[Tree, str, dict[str, str], Catalog]:
    """A first build that adopted a check which saw an edit, so kept a new kept build (saved),
    then ``home-one`` edited."""
    tree, cache_dir, files = _tree(tmp_path)
    write(files["edit"], skill("edit", "Edited before the check"))
    settle_clock()
    cat = _open(tree, cache_dir, Handed(_check(tree, cache_dir)))
    cat.save_cache()  # (as it would soon by itself)
    write(files["home"], skill("home-one", home_text))
    settle_clock()
    return tree, cache_dir, files, cat


def test_looked_at_again_after_the_first_build_rewrote_the_kept_build(tmp_path):
    _, _, files, cat = _kept_anew(tmp_path, "Edited after the first build was kept")
    assert cat.changed_since_ahead() == frozenset({os.path.dirname(files["home"])})


def test_a_kept_build_written_by_another_run_meanwhile_asks_for_everything(tmp_path):
    tree, cache_dir, _, cat = _kept_anew(tmp_path, "Edited, then seen by another run")
    opened(tree, cache_dir).save_cache()  # another run keeps its own first build
    assert cat.changed_since_ahead() is None


def test_an_incremental_rebuild_keeps_what_is_to_be_looked_at_again_a_full_rescan_does_not(tmp_path):
    tree, cache_dir, files, cat = _edited_after_check(tmp_path, "Edited after the check")
    cat.refresh_paths([os.path.dirname(files["home"])])  # (another folder reported meanwhile)
    assert cat.changed_since_ahead() == frozenset({os.path.dirname(files["keep"])})
    again = _open(tree, cache_dir, Handed(_check(tree, cache_dir)))
    again.refresh()  # everything looked at again: nothing left to look at
    assert again.changed_since_ahead() == frozenset()
    assert again.current.by_location(files["keep"]).description == "Edited after the check"


def test_a_root_that_is_never_proved_asks_for_nothing_more_than_its_proved_roots(tmp_path):
    tree, cache_dir, files = _tree(tmp_path)
    os.makedirs(f"{tree.zuno}/.drafts")  # (a dot folder, counted: that root's walk is never proved)
    settle_clock()
    opened(tree, cache_dir).save_cache()
    write(files["keep"], skill("keep", "Edited since the last run"))
    settle_clock()
    check = _check(tree, cache_dir)
    assert False in check.holds and check.changed is None
    cat = _open(tree, cache_dir, Handed(check))
    cat.save_cache()  # (its own kept build: the keys changed)
    assert cat.changed_since_ahead() == frozenset()


def test_a_folder_the_build_read_itself_is_looked_at_again_too(tmp_path, monkeypatch):
    tree, cache_dir, files = _tree(tmp_path)
    write(files["edit"], skill("edit", "Edited before the check"))
    settle_clock()
    check = _check(tree, cache_dir)
    monkeypatch.setattr(Catalog, "_save_cache_soon", lambda self: None)  # (the state checked stays on disk)
    cat = _open(tree, cache_dir, Handed(check))
    write(files["edit"], skill("edit", "Edited again after the build read it"))
    settle_clock()
    assert cat.changed_since_ahead() == frozenset({os.path.dirname(files["edit"])})


def test_a_full_rescan_that_fails_leaves_what_is_to_be_looked_at_again(tmp_path, monkeypatch):
    _, _, files, cat = _edited_after_check(tmp_path, "Edited after the check")

    def fails(*_a, **_k):
        raise OSError("the tree changed under the scan")

    with monkeypatch.context() as m:
        m.setattr(build, "scan", fails)
        with pytest.raises(OSError):
            cat.refresh()
    assert cat.changed_since_ahead() == frozenset({os.path.dirname(files["keep"])})


def _parts_of_read_ahead(tree: Tree, cache_dir: str, monkeypatch) -> list[object]:
    """What the child reading ahead sends (:meth:`build.ZunoSession.read_ahead`), made here."""
    from skillshelf.core import forked

    parts: list[object] = []
    monkeypatch.setattr(forked, "ahead_part", lambda value: parts.append(value) or True)
    check = check_ahead(tree.project, env=tree.env, host="zuno", cache_dir=cache_dir, read_ahead=True)
    assert check is None or isinstance(check, build.KeptCheck)
    return parts


def test_the_child_reads_ahead_only_with_no_first_build_kept(tmp_path, monkeypatch):
    tree, cache_dir, files = _tree(tmp_path)  # (a first build kept)
    for name in os.listdir(os.path.join(cache_dir, "parse")):
        if "state-zuno_first_build_check" in name:  # (its check state gone: nothing to check)
            os.remove(os.path.join(cache_dir, "parse", name))
    assert _parts_of_read_ahead(tree, cache_dir, monkeypatch) == []  # (the first build checks the kept one itself)
    scope, *changes = _parts_of_read_ahead(tree, str(tmp_path / "empty-cache"), monkeypatch)
    locations = [files["edit"], files["keep"], files["side"], files["home"]]
    assert files["sidecar"] in build.sidecar_paths(os.path.join(tree.zuno, "side"))
    assert scope == frozenset([*(os.path.realpath(p) for p in locations), *build.sidecar_paths(
        os.path.join(tree.zuno, "side"))])
    came = {ident[1] for part in changes for ident in part[0]}  # type: ignore[index]
    assert came == scope


def test_a_skill_or_sidecar_the_child_never_saw_is_read_by_the_build_itself(tmp_path, monkeypatch):
    tree = Tree(tmp_path)
    for i in range(6):
        write(f"{tree.agents}/s{i}/SKILL.md", skill(f"s{i}", f"Skill {i}"))
    settle_clock()
    cache_dir = str(tmp_path / "cache")
    parts = _parts_of_read_ahead(tree, cache_dir, monkeypatch)
    added = write(f"{tree.agents}/a-new/SKILL.md", skill("a-new", "Made after the child walked"))
    write(f"{tree.agents}/s0/agents/zuno.yaml", "policy:\n  exposure: search\n")
    settle_clock()
    read_here: list[str] = []
    real = build._read_skill
    monkeypatch.setattr(build, "_read_skill", lambda location: read_here.append(location) or real(location))
    handed = Handed(None, tuple(parts), end_after=5.0)  # (a child still at work: its last part is late)
    started = time.monotonic()
    cat = _open(tree, cache_dir, handed)
    assert time.monotonic() - started < 4.0  # (the build never waited for what the child never looks up)
    assert read_here == [added]
    assert not handed.parts
    same(cat.current, opened(tree, None).current)


def test_a_first_build_with_no_check_is_looked_at_again_against_its_own_walks_and_keys(tmp_path):
    tree = Tree(tmp_path)
    files = {name: write(f"{tree.agents}/{name}/SKILL.md", skill(name, f"The {name} skill"))
             for name in ("one", "two", "three")}
    settle_clock()
    cache_dir = str(tmp_path / "cache")
    cat = opened(tree, cache_dir)  # (nothing kept: it reads every file itself)
    assert cat.changed_since_ahead() == frozenset()  # (nothing changed since)
    assert cat.changed_since_ahead() == frozenset()  # (once)
    cat = Catalog.open(tree.project, env=tree.env, pull_remote=False, cache_dir=str(tmp_path / "other-cache"))
    write(files["two"], skill("two", "Edited while the TUI started, before its watches"))
    settle_clock()
    assert cat.changed_since_ahead() == frozenset([os.path.dirname(files["two"])])
    cat = Catalog.open(tree.project, env=tree.env, pull_remote=False, cache_dir=str(tmp_path / "third-cache"))
    write(f"{tree.agents}/four/SKILL.md", skill("four", "Made while the TUI started"))
    settle_clock()
    assert cat.changed_since_ahead() == frozenset([tree.agents])  # (its walk's proof no longer holds: walked again)
    assert opened(tree, None).changed_since_ahead() == frozenset()  # (no cache: no keys taken, nothing looked at)


def test_keys_a_first_build_could_not_take_are_never_taken_as_unchanged(tmp_path, monkeypatch):
    from skillshelf.core import parsecache

    tree = Tree(tmp_path)
    one = write(f"{tree.agents}/one/SKILL.md", skill("one", "Saved just before the start"))
    monkeypatch.setattr(parsecache, "RACY_NS", int(60e9))  # (every file and folder still within the racy window)
    cat = Catalog.open(tree.project, env=tree.env, pull_remote=False, cache_dir=str(tmp_path / "cache"))
    since = cat.changed_since_ahead()
    assert since is not None and os.path.dirname(one) in since and tree.agents in since
