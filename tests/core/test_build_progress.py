"""Builds report the entries made so far (the TUI shows them before the generation is
published): zuno and the shared client pipeline, at growing intervals, only when asked."""

from __future__ import annotations

import json
import shutil
import time

import pytest
from test_catalog import Tree, skill, write

from skillshelf.core.catalog import Catalog
from skillshelf.core.hosts import base
from skillshelf.core.hosts.base import BuildProgress, reporting_progress


class _Always:
    """A throttle that is always due (every file reports)."""

    def __init__(self, first: float = 0.0) -> None:
        pass

    def due(self) -> bool:
        return True


@pytest.mark.parametrize("host", ["zuno", "opencode"])
def test_a_build_reports_the_entries_made_so_far(tmp_path, monkeypatch, host):
    tree = Tree(tmp_path)
    for i in range(5):
        write(f"{tree.agents}/s{i}/SKILL.md", skill(f"s{i}", f"Skill {i}"))
    write(f"{tree.agents}/broken/SKILL.md", "---\ndescription: no name\n---\n")
    import skillshelf.core.hosts.client as client
    import skillshelf.core.hosts.zuno.build as zuno_build

    monkeypatch.setattr(zuno_build, "Throttle", _Always)
    monkeypatch.setattr(client, "Throttle", _Always)
    seen: list[BuildProgress] = []
    with reporting_progress(seen.append):
        cat = Catalog.open(tree.project, env=tree.env, host=host, pull_remote=False)
    gen = cat.current
    files = [s for s in gen.sources if not s.location.startswith("builtin://")]
    total = len(files) + len(gen.rejected)
    assert seen, "no progress reported"
    assert [p.total for p in seen] == [total] * len(seen)
    assert [p.done for p in seen] == sorted(p.done for p in seen) and seen[0].done < total
    last = seen[-1]
    assert {s.location for s in last.sources} <= {s.location for s in files}
    assert all(len(p.sources) + len(p.rejected) == p.done for p in seen)


def test_without_a_sink_nothing_is_reported_and_builds_are_unchanged(tmp_path):
    tree = Tree(tmp_path)
    write(f"{tree.agents}/a/SKILL.md", skill("a"))
    assert base.progress_sink() is None
    seen: list[BuildProgress] = []
    with reporting_progress(seen.append):
        assert base.progress_sink() is not None
    assert base.progress_sink() is None
    plain = Catalog.open(tree.project, env=tree.env, pull_remote=False).current
    with reporting_progress(seen.append):
        reported = Catalog.open(tree.project, env=tree.env, pull_remote=False).current
    assert plain.sources == reported.sources and plain.digest == reported.digest


def test_the_throttle_reports_at_growing_intervals(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(base.time, "monotonic", lambda: now[0])
    t = base.Throttle(first=0.15)
    due = []
    for step in range(40):
        now[0] = 100.0 + step * 0.1
        due.append(round(step * 0.1, 1) if t.due() else None)
    # first at 0.15 s, then each interval 2.5 times the last (at least 0.3 s after the last report)
    assert [d for d in due if d is not None] == [0.2, 0.6, 1.3, 3.2]


def _kept_tree(tmp_path, monkeypatch, skills: int, *, broken: bool = True) -> tuple[Tree, str]:
    """A tree of ``skills`` skills (and one broken file) whose first build is kept in a parse
    cache; the tree and the cache folder."""
    from skillshelf.core import parsecache

    monkeypatch.setattr(parsecache, "RACY_NS", 0)
    tree = Tree(tmp_path)
    for i in range(skills):
        write(f"{tree.agents}/s{i}/SKILL.md", skill(f"s{i}", f"Skill {i}"))
    if broken:
        write(f"{tree.agents}/broken/SKILL.md", "---\ndescription: no name\n---\n")
    cache_dir = str(tmp_path / "cache")
    Catalog.open(tree.project, env=tree.env, pull_remote=False, cache_dir=cache_dir).save_cache()
    return tree, cache_dir


def test_a_kept_first_build_is_reported_whole_before_the_files_are_checked(tmp_path, monkeypatch):
    """With Zuno's kept first build (parse cache), the last run's whole list is reported at once
    (``checking``), before any file is checked; later reports of that build only move the count
    on (the very same ``sources``); the published generation is exactly a fresh build's."""
    import skillshelf.core.hosts.zuno.build as zuno_build

    tree, cache_dir = _kept_tree(tmp_path, monkeypatch, 5)
    write(f"{tree.agents}/s0/SKILL.md", skill("s0", "Changed since"))
    monkeypatch.setattr(zuno_build, "Throttle", _Always)
    seen: list[BuildProgress] = []
    with reporting_progress(seen.append):
        cat = Catalog.open(tree.project, env=tree.env, pull_remote=False, cache_dir=cache_dir)
    first = seen[0]
    assert first.checking and first.done == 0 and first.total == 6
    builtins = [s for s in first.sources if s.location.startswith("builtin://")]
    assert builtins and first.sources[:len(builtins)] == tuple(builtins)  # the built-ins first, as listed
    assert sorted(s.name for s in first.sources[len(builtins):]) == [f"s{i}" for i in range(5)]
    assert len(first.rejected) == 1
    assert next(s for s in first.sources if s.name == "s0").description == "Skill 0"  # the last run's
    assert all(p.checking and p.sources is first.sources for p in seen[1:]) and seen[-1].done == 6
    fresh = Catalog.open(tree.project, env=tree.env, pull_remote=False).current
    assert cat.current.sources == fresh.sources and cat.current.digest == fresh.digest


def test_an_unchanged_kept_build_is_reported_as_the_very_objects_the_generation_lists(tmp_path, monkeypatch):
    """When the check finds nothing changed, the last run's list reported first holds the very
    same entry objects, in the same order, as the published generation (the built-ins too): a
    view can keep what it made of that list."""
    tree, cache_dir = _kept_tree(tmp_path, monkeypatch, 4)
    seen: list[BuildProgress] = []
    with reporting_progress(seen.append):
        gen = Catalog.open(tree.project, env=tree.env, pull_remote=False, cache_dir=cache_dir).current
    first = seen[0]
    assert first.checking and len(gen.sources) == 4 + len([s for s in gen.sources if s.location.startswith("builtin://")])
    assert len(first.sources) == len(gen.sources) and all(a is b for a, b in zip(first.sources, gen.sources, strict=True))
    assert len(first.rejected) == 1 and first.rejected[0] is gen.rejected[0]


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs /bin/sh for the fake zuno")
def test_the_last_runs_list_does_not_wait_for_a_slow_zuno(tmp_path, monkeypatch):
    """An installed Zuno is run for its texts beside the kept build's load: a quick one's
    built-ins head the last run's list reported first; a slow one's do not hold that report
    back (it comes with the built-ins the last run listed; the generation has this run's)."""
    from skillshelf.core.paths import Environment

    tree, cache_dir = _kept_tree(tmp_path, monkeypatch, 3, broken=False)
    for pause, with_builtins in ((0, True), (3, False)):
        zuno = tmp_path / f"zuno-{pause}"
        zuno.write_text(f"#!/bin/sh\nsleep {pause}\necho '{{\"skills\": []}}'\n", encoding="utf-8")
        zuno.chmod(0o755)
        env = Environment.from_mapping({"HOME": tree.home, "SKILLSHELF_ZUNO_BIN": str(zuno)})
        reports: list[tuple[float, BuildProgress]] = []
        start = time.monotonic()
        with reporting_progress(lambda p, reports=reports, start=start: reports.append((time.monotonic() - start, p))):
            gen = Catalog.open(tree.project, env=env, pull_remote=False, cache_dir=cache_dir).current
        builtins = [s for s in gen.sources if s.location.startswith("builtin://")]
        at, first = reports[0]
        assert first.checking and builtins and gen.sources[:len(builtins)] == tuple(builtins)
        if with_builtins:
            assert first.sources == gen.sources and all(a is b for a, b in zip(first.sources, gen.sources, strict=True))
        else:
            last = first.sources[:len(builtins)]
            assert at < 1.5 and [s.name for s in first.sources[len(builtins):]] == ["s0", "s1", "s2"]
            assert [s.location for s in last] == [s.location for s in builtins]  # the last run's
            assert not any(a is b for a, b in zip(last, builtins, strict=True))
            assert time.monotonic() - start >= 3  # (the build itself waits for the texts)


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs /bin/sh for the fake zuno")
def test_the_kept_build_is_kept_again_when_its_built_ins_change(tmp_path, monkeypatch):
    """The built-ins kept with the last run's build are the ones its generation listed: a run
    whose built-ins differ (an installed Zuno's texts now read) keeps the build again, a run
    with the same ones does not."""
    from skillshelf.core.parsecache import ParseCache
    from skillshelf.core.paths import Environment

    tree, cache_dir = _kept_tree(tmp_path, monkeypatch, 2, broken=False)
    listed = [{"name": "codemap", "location": "builtin://zuno-orchestration/0.10.3/codemap", "description": "Maps code."}]
    zuno = tmp_path / "zuno"
    zuno.write_text(f"#!/bin/sh\ncat <<'EOF'\n{json.dumps({'skills': listed})}\nEOF\n", encoding="utf-8")
    zuno.chmod(0o755)
    env = Environment.from_mapping({"HOME": tree.home, "SKILLSHELF_ZUNO_BIN": str(zuno)})
    kept: list[str] = []
    real = ParseCache.keep_state
    monkeypatch.setattr(ParseCache, "keep_state", lambda self, kind, value: (kept.append(kind), real(self, kind, value)))
    for expected in (["zuno-first-build", "zuno-first-build-check"], []):
        kept.clear()
        cat = Catalog.open(tree.project, env=env, pull_remote=False, cache_dir=cache_dir)
        cat.save_cache()
        assert next(s for s in cat.current.sources if s.name == "codemap").description == "Maps code."
        assert kept == expected
