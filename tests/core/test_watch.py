"""Watching (SPEC H2, H4; conformance §6 Z148, Z152–Z156, Z168): the relevance predicate, the
watch plan, and the live watcher over real directories. Live tests wait on the published
generation with a deadline; they never assert on elapsed time."""

from __future__ import annotations

import os
import random
import shutil
import threading
import time

import pytest
from test_catalog import Tree, _soak, skill, user, write

from skillshelf.core.catalog import Catalog
from skillshelf.core.hosts.zuno.build import RELEVANT_COMPONENTS, RELEVANT_NAMES, SIDECAR_NAMES
from skillshelf.core.model import Provenance, Status
from skillshelf.core.paths import Environment
from skillshelf.core.watch import CatalogWatcher, WatchSpec, is_relevant, watch_changes, watch_failed, watch_plan

#: Cap on a wait for a generation, seconds: it only turns a hang into a failure (a loaded CI
#: machine can take seconds to deliver a file event).
DEADLINE = 60.0


def wait_for(cat: Catalog, predicate, deadline: float = DEADLINE):
    """Wait until the published generation satisfies ``predicate``; return it (fail at the deadline)."""
    cond = threading.Condition()
    cat.subscribe(lambda gen: _notify(cond))
    end = time.monotonic() + deadline
    with cond:
        while True:
            gen = cat.current
            if predicate(gen):
                return gen
            left = end - time.monotonic()
            if left <= 0:
                pytest.fail(f"no matching generation within {deadline} s; last: {names(gen)} {gen.warnings}")
            cond.wait(min(left, 0.1))


def _notify(cond):
    with cond:
        cond.notify_all()


def names(gen) -> set[str]:
    return {s.name for s in gen.sources if s.provenance is not Provenance.BUILTIN}


def watcher(cat, **kw) -> CatalogWatcher:
    kw.setdefault("poll_interval", 0.2)
    return CatalogWatcher(cat, step=20, debounce=200, **kw)


# ---------------------------------------------------------------- predicate

def test_z148_watcher_overflow_always_requires_a_complete_rescan():
    assert is_relevant(None, overflow=True) is True
    assert is_relevant(None) is False


@pytest.mark.parametrize(
    "path, expected",
    [
        ("/w/pkg/SKILL.md", True),
        ("/w/.agents/x/readme.txt", True),
        ("/w/.zuno/anything", True),
        ("/home/u/.config/zuno/skill/a/notes.md", True),
        ("/w/thing/skills/x", True),
        ("/w/a/agents/openai.yaml", True),
        ("/w/a/agents/zuno.yaml", True),
        ("/w/zuno.jsonc", True),
        ("/w/src/main.rs", False),
        ("/w/a/zuno.yaml", False),
        ("/w/skill.md", False),
        ("/w/my-skills/x", False),
    ],
)
def test_relevance_predicate(path, expected):
    assert is_relevant(path, names=RELEVANT_NAMES, components=RELEVANT_COMPONENTS, sidecars=SIDECAR_NAMES) is expected


def test_relevance_counts_paths_at_below_or_above_a_root():
    assert is_relevant("/ext/shared/pdf", roots=["/ext/shared"]) is True
    assert is_relevant("/ext", roots=["/ext/shared"]) is True
    assert is_relevant("/ext/other", roots=["/ext/shared"]) is False
    assert is_relevant("/etc/extra.json", config_files=["/etc/extra.json"]) is True


# ---------------------------------------------------------------- plan

def z_tree(tmp_path, **env):
    t = os.path.realpath(str(tmp_path))
    os.makedirs(f"{t}/project/.git")
    os.makedirs(f"{t}/home")
    values = {"HOME": f"{t}/home", **{k: v.format(t=t) for k, v in env.items()}}
    return t, Environment.from_mapping(values)


def roots_of(plan):
    return [s.requested for s in plan if s.kind == "root"]


def test_z153_a_missing_user_root_is_watched_through_its_nearest_ancestor(tmp_path):
    t, env = z_tree(tmp_path, XDG_CONFIG_HOME="{t}/config")
    cat = Catalog.open(f"{t}/project", env=env, pull_remote=False)
    plan = watch_plan(cat)
    assert WatchSpec(f"{t}/config/zuno/skill", t, False) in plan
    assert WatchSpec(f"{t}/project", f"{t}/project", True) in plan
    os.makedirs(f"{t}/config/zuno")
    assert WatchSpec(f"{t}/config/zuno/skill", f"{t}/config/zuno", False) in watch_plan(cat)
    os.makedirs(f"{t}/config/zuno/skill")
    assert WatchSpec(f"{t}/config/zuno/skill", f"{t}/config/zuno/skill", True) in watch_plan(cat)


def test_z154_default_watch_roots_exclude_legacy_zuno_and_remote_cache(tmp_path):
    t, env = z_tree(tmp_path)
    for d in ("home/.zuno/skills", "home/.cache/zuno/skills/x", "home/.config/zuno/skills"):
        os.makedirs(f"{t}/{d}")
    cat = Catalog.open(f"{t}/project", env=env, pull_remote=False)
    roots = roots_of(watch_plan(cat))
    assert f"{t}/project" in roots and f"{t}/home/.config/zuno/skill" in roots
    for excluded in ("home/.zuno", "home/.cache/zuno/skills", "home/.config/zuno/skills"):
        assert not any(r == f"{t}/{excluded}" or r.startswith(f"{t}/{excluded}/") for r in roots)
    actives = [s.active for s in watch_plan(cat)]
    assert not any(a.startswith(f"{t}/home/.cache") for a in actives)


def test_z155_shared_agent_skills_are_watched_only_when_they_exist(tmp_path):
    t, env = z_tree(tmp_path)
    cat = Catalog.open(f"{t}/project", env=env, pull_remote=False)
    assert f"{t}/home/.agents/skills" not in roots_of(watch_plan(cat))
    os.makedirs(f"{t}/home/.agents/skills")
    assert f"{t}/home/.agents/skills" in roots_of(watch_plan(cat))
    # a running watcher decides at start: absent then → never watched (H4)
    assert cat.watch_targets().start_only == (f"{t}/home/.agents/skills",)
    assert f"{t}/home/.agents/skills" not in roots_of(watch_plan(cat, exclude=cat.watch_targets().start_only))


def test_z156_a_rule_for_a_future_skill_watches_its_exact_parent(tmp_path):
    t, env = z_tree(tmp_path)
    os.makedirs(f"{t}/external")
    os.makedirs(f"{t}/home/.config/zuno")
    write(f"{t}/home/.config/zuno/zuno.json",
          '{"skills": {"config": [{"path": "' + t + '/external/future/SKILL.md", "enabled": true, "exposure": "search"}]}}')
    cat = Catalog.open(f"{t}/project", env=env, pull_remote=False)
    plan = watch_plan(cat)
    assert WatchSpec(f"{t}/external/future", f"{t}/external", False) in plan
    assert f"{t}/external" not in roots_of(plan)
    assert not any(s.active == f"{t}/external" and s.recursive for s in plan)


# ---------------------------------------------------------------- live watcher

def test_z152_a_skill_installed_after_start_is_published(tmp_path):
    t, env = z_tree(tmp_path)
    cat = Catalog.open(f"{t}/project", env=env, pull_remote=False)
    seen = []
    with watcher(cat, on_generation=seen.append):
        write(f"{t}/project/.agents/skills/sheet/SKILL.md", skill("spreadsheet"))
        gen = wait_for(cat, lambda g: "spreadsheet" in names(g))
    assert gen.number > 1 and seen


def test_z153_z168_a_missing_root_two_levels_deep_goes_live(tmp_path):
    t, env = z_tree(tmp_path, XDG_CONFIG_HOME="{t}/config")
    cat = Catalog.open(f"{t}/project", env=env, pull_remote=False)
    with watcher(cat) as w:
        assert WatchSpec(f"{t}/config/zuno/skill", t, False) in w.plan
        write(f"{t}/config/zuno/skill/sheet/SKILL.md", skill("global-sheet"))
        wait_for(cat, lambda g: "global-sheet" in names(g))
        # now watched recursively at the exact root: a nested write is picked up
        write(f"{t}/config/zuno/skill/nested/deeper/SKILL.md", skill("nested"))
        wait_for(cat, lambda g: "nested" in names(g))
        assert WatchSpec(f"{t}/config/zuno/skill", f"{t}/config/zuno/skill", True) in w.plan


def test_broken_edit_then_fix_live(tmp_path):
    tree = Tree(tmp_path)
    loc = write(f"{tree.agents}/sheet/SKILL.md", skill("spreadsheet"))
    cat = tree.open()
    with watcher(cat):
        write(loc, "---\nname: spreadsheet\ndescription: [broken\n---\n")
        gen = wait_for(cat, lambda g: any(w.kind == "kept-last-valid" for w in g.warnings))
        assert user(gen)[0].status is Status.KEPT_LAST_VALID and user(gen)[0].description == "Edit sheets"
        write(loc, skill("spreadsheet", "Fixed"))
        gen = wait_for(cat, lambda g: user(g) and user(g)[0].description == "Fixed")
        assert gen.warnings == ()


def test_rename_delete_and_symlinked_directory_live(tmp_path):
    tree = Tree(tmp_path)
    write(f"{tree.agents}/sheet/SKILL.md", skill("spreadsheet"))
    write(f"{tree.shared}/pdf/SKILL.md", skill("pdf"))
    cat = tree.open()
    with watcher(cat):
        os.rename(f"{tree.agents}/sheet", f"{tree.agents}/sheets")
        wait_for(cat, lambda g: g.by_location(f"{tree.agents}/sheets/SKILL.md") is not None
                 and g.by_location(f"{tree.agents}/sheet/SKILL.md") is None)
        os.symlink(f"{tree.shared}/pdf", f"{tree.agents}/pdf")
        wait_for(cat, lambda g: g.by_location(f"{tree.agents}/pdf/SKILL.md") is not None)
        shutil.rmtree(f"{tree.agents}/sheets")
        wait_for(cat, lambda g: "spreadsheet" not in names(g))


def test_a_vanished_root_is_watched_again_when_it_returns(tmp_path):
    tree = Tree(tmp_path)
    write(f"{tree.shared}/a/SKILL.md", skill("first"))
    cat = tree.open(paths=[tree.shared])
    with watcher(cat):
        shutil.rmtree(tree.shared)
        wait_for(cat, lambda g: "first" not in names(g))
        write(f"{tree.shared}/b/SKILL.md", skill("second"))
        wait_for(cat, lambda g: "second" in names(g))
        write(f"{tree.shared}/c/SKILL.md", skill("third"))
        wait_for(cat, lambda g: "third" in names(g))


def test_h4_a_watch_failure_is_a_warning_that_clears_on_recovery(tmp_path):
    tree = Tree(tmp_path)
    fail = threading.Event()
    fail.set()

    def factory(request):
        if fail.is_set() and request.path == tree.project:
            raise OSError(28, "inotify watch limit reached")
        return watch_changes(request)

    cat = tree.open()
    with watcher(cat, watch_factory=factory):
        gen = wait_for(cat, lambda g: any(w.kind == "WatchFailed" for w in g.warnings))
        assert [w for w in gen.warnings if w.kind == "WatchFailed"] == [
            watch_failed(tree.project, "[Errno 28] inotify watch limit reached")
        ]
        assert gen.warnings[-1].message == (
            f"failed to watch skills in {tree.project}: [Errno 28] inotify watch limit reached")
        fail.clear()
        wait_for(cat, lambda g: not any(w.kind == "WatchFailed" for w in g.warnings))
        write(f"{tree.agents}/sheet/SKILL.md", skill("spreadsheet"))
        wait_for(cat, lambda g: "spreadsheet" in names(g))


def test_soak_with_the_real_watcher_settles_on_a_fresh_scan(tmp_path):
    tree = Tree(tmp_path)
    home_skills = os.path.join(tree.home, ".agents", "skills")
    for i in range(8):
        write(f"{[tree.agents, tree.zuno, tree.shared, home_skills][i % 4]}/seed{i}/SKILL.md", skill(f"n{i}"))
    cat = tree.open(paths=[tree.shared])  # ~/.agents/skills exists at start, so it is watched
    rng = random.Random(7)
    with watcher(cat):
        _soak(tree, rng, 40, lambda changed: time.sleep(rng.choice([0, 0, 0.01, 0.05])))
        # repair everything so a fresh scan has no history to differ on
        for base in (tree.agents, tree.zuno, tree.shared, home_skills):
            for dirpath, _, files in os.walk(base):
                if "SKILL.md" in files:
                    write(os.path.join(dirpath, "SKILL.md"), skill(os.path.basename(dirpath)))
                if os.path.basename(dirpath) == "agents":
                    shutil.rmtree(dirpath)

        def settled(gen):
            fresh = tree.open(paths=[tree.shared]).current
            return gen.sources == fresh.sources and gen.warnings == fresh.warnings and gen.digest == fresh.digest

        wait_for(cat, settled)


def test_stop_event_ends_run_promptly_whatever_the_poll_interval(tmp_path):
    """The TUI sets the event on quit / host switch and the process waits for the worker thread:
    ``run`` must not sit out a long ``poll_interval`` (here 30 s) nor close pumps one by one."""
    tree = Tree(tmp_path)
    write(f"{tree.agents}/a/SKILL.md", skill("first"))
    cat = tree.open(paths=[tree.shared])
    w = CatalogWatcher(cat, step=50, debounce=1600, poll_interval=30.0)
    stop = threading.Event()
    thread = threading.Thread(target=w.run, args=(stop,), daemon=True)
    thread.start()
    assert w.ready.wait(DEADLINE)
    pumps = [p for p, _ in w._pumps.values()]
    assert pumps  # the project and the configured path are watched
    stop.set()
    thread.join(timeout=15)  # half the poll interval: a hang guard that still tells the two apart
    assert not thread.is_alive()
    assert [p.path for p in pumps if p.thread.is_alive()] == []


def test_stop_before_the_watches_are_set_up_starts_no_more_of_them(tmp_path):
    tree = Tree(tmp_path)
    cat = tree.open(paths=[tree.shared])
    stop = threading.Event()
    made = []

    def factory(request):
        made.append(request.path)
        stop.set()  # the stop request arrives while the first watch is being set up
        return watch_changes(request)

    w = CatalogWatcher(cat, step=50, poll_interval=30.0, watch_factory=factory)
    thread = threading.Thread(target=w.run, args=(stop,), daemon=True)
    thread.start()
    thread.join(timeout=15)  # half the poll interval
    assert not thread.is_alive()
    assert len(made) == 1
    assert not any(w.kind == "WatchFailed" for w in cat.current.warnings)


def test_h4_a_watch_that_cannot_start_in_its_thread_is_a_warning(tmp_path):
    """watchfiles raises only when the watch starts (first ``next()``, in the pump thread): that
    failure is still reported as a WatchFailed warning, naming the directory."""
    tree = Tree(tmp_path)

    def refuse():
        raise OSError(28, "inotify watch limit reached")
        yield set()  # a generator, like watchfiles.watch

    def factory(request):
        return refuse() if request.path == tree.project else watch_changes(request)

    cat = tree.open()
    with watcher(cat, watch_factory=factory):
        gen = wait_for(cat, lambda g: any(w.kind == "WatchFailed" for w in g.warnings))
    [failed] = [w for w in gen.warnings if w.kind == "WatchFailed"]
    assert failed.source == tree.project
    assert failed == watch_failed(tree.project, "[Errno 28] inotify watch limit reached")


def test_a_failed_rebuild_is_published_as_a_warning_and_the_watcher_goes_on(tmp_path, caplog):
    tree = Tree(tmp_path)
    cat = tree.open()
    session = cat.session
    real_build = session.build
    broken = threading.Event()
    broken.set()

    def build(previous, changed, watch_warnings=()):
        if broken.is_set():
            raise RuntimeError("disk on fire")
        return real_build(previous, changed, watch_warnings)

    session.build = build
    with caplog.at_level("ERROR", logger="skillshelf.core.watch"), watcher(cat):
        write(f"{tree.agents}/sheet/SKILL.md", skill("spreadsheet"))
        gen = wait_for(cat, lambda g: any(w.kind == "RebuildFailed" for w in g.warnings))
        [failed] = [w for w in gen.warnings if w.kind == "RebuildFailed"]
        assert failed.message == ("rebuilding the skill catalog failed (RuntimeError: disk on fire); "
                                  f"showing generation {gen.number - 1}")
        broken.clear()
        write(f"{tree.agents}/pdf/SKILL.md", skill("pdf"))
        gen = wait_for(cat, lambda g: "pdf" in names(g))
    assert not any(w.kind == "RebuildFailed" for w in gen.warnings)
    assert "rebuilding the catalog after file changes failed" in caplog.text
