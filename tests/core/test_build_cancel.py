"""A first build stops between files once its context's ``cancel`` is set (the TUI quitting
while it still reads a large tree): :class:`BuildCancelled`, for Zuno and the client hosts, with
or without a cache; later builds and one-shot builds are not cut short."""

from __future__ import annotations

import threading

import pytest
from test_catalog import Tree, skill, write

from skillshelf.core.catalog import Catalog
from skillshelf.core.hosts.base import BuildCancelled, BuildProgress, reporting_progress


def _tree(tmp_path) -> Tree:
    tree = Tree(tmp_path)
    for i in range(30):
        write(f"{tree.agents}/s{i:02}/SKILL.md", skill(f"s{i:02}", f"Skill {i}"))
        write(f"{tree.project}/.claude/skills/s{i:02}/SKILL.md", skill(f"s{i:02}", f"Skill {i}"))
        write(f"{tree.home}/.gemini/skills/s{i:02}/SKILL.md", skill(f"s{i:02}", f"Skill {i}"))
    return tree


class _CancelAfter:
    """A read counter that sets ``cancel`` once ``n`` skill files were read."""

    def __init__(self, n: int, cancel: threading.Event) -> None:
        self.n, self.cancel, self.reads = n, cancel, 0

    def __call__(self, *args: object, **kwargs: object) -> None:
        self.reads += 1
        if self.reads == self.n:
            self.cancel.set()


#: host → (module, the function that reads one skill file for it)
_READERS = {
    "zuno": ("skillshelf.core.hosts.zuno.build", "_read_skill"),
    "claude": ("skillshelf.core.hosts.claude", "_judge"),
    "codex": ("skillshelf.core.hosts.codex", "_parse_file"),
    "opencode": ("skillshelf.core.hosts.client", "_judge"),
    "gemini": ("skillshelf.core.hosts.gemini", "_judge"),
}


@pytest.mark.parametrize("host", list(_READERS))
@pytest.mark.parametrize("cached", [False, True], ids=["no-cache", "cache"])
def test_a_first_build_stops_between_files_once_cancelled(tmp_path, monkeypatch, host, cached):
    import importlib

    tree = _tree(tmp_path)
    cancel = threading.Event()
    counter = _CancelAfter(5, cancel)
    module, name = _READERS[host]
    mod = importlib.import_module(module)
    real = getattr(mod, name)
    monkeypatch.setattr(mod, name, lambda *a, **k: counter() or real(*a, **k))
    reports: list[BuildProgress] = []
    with reporting_progress(reports.append), pytest.raises(BuildCancelled):
        Catalog.open(tree.project, env=tree.env, host=host, pull_remote=False, cancel=cancel,
                      cache_dir=str(tmp_path / "cache") if cached else None)
    assert counter.reads == 5  # (the file read when it was set is the last one)


@pytest.mark.parametrize("host", list(_READERS))
def test_without_cancel_set_the_build_and_a_later_one_run_to_the_end(tmp_path, host):
    tree = _tree(tmp_path)
    cancel = threading.Event()
    with reporting_progress(lambda _p: None):
        cat = Catalog.open(tree.project, env=tree.env, host=host, pull_remote=False, cancel=cancel)
    assert sorted({s.name for s in cat.current.sources if s.location.startswith(tree.t)}) == \
        [f"s{i:02}" for i in range(30)]
    cancel.set()  # (a refresh is never cut short: only a first build has nothing to show yet)
    write(f"{tree.agents}/s00/SKILL.md", skill("s00", "Changed"))
    write(f"{tree.project}/.claude/skills/s00/SKILL.md", skill("s00", "Changed"))
    write(f"{tree.home}/.gemini/skills/s00/SKILL.md", skill("s00", "Changed"))
    assert {s.description for s in cat.refresh().sources if s.name == "s00"} == {"Changed"}
