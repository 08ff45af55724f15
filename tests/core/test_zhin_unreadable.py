"""Zhin discovery (SPEC Z1) never drops an unreadable folder silently: it becomes an
``unreadable`` warning, as in the Zuno walk (SPEC D4). Permission errors are simulated with a
patched ``os.scandir`` (the tests may run as root, where chmod does not deny reads)."""

from __future__ import annotations

import errno
import os

import pytest

from skillshelf.core.hosts import zhin
from skillshelf.core.hosts.zhin.skills import discover_zhin, zhin_roots


def _skill(directory, name: str) -> str:
    d = directory / name
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\n", encoding="utf-8")
    return str(d / "SKILL.md")


@pytest.fixture
def deny(monkeypatch):
    """Make ``os.scandir`` of the given paths fail with EACCES."""
    denied: set[str] = set()
    real = os.scandir

    def scandir(path="."):
        if os.fspath(path) in denied:
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(zhin.os, "scandir", scandir)
    return denied


def test_z1_unreadable_skills_folder_is_a_warning(tmp_path, deny):
    _skill(tmp_path / "skills", "ok")
    skills = str(tmp_path / "skills")
    deny.add(skills)
    disc = discover_zhin(str(tmp_path))
    assert disc.candidates == ()
    assert [(w.kind, w.source, w.message) for w in disc.warnings] == [
        ("unreadable", skills, f"cannot read {skills}: Permission denied")]


def test_z1_unreadable_agents_folder_is_a_warning_once(tmp_path, deny):
    _skill(tmp_path / "agents" / "helper" / "skills", "x")
    agents = str(tmp_path / "agents")
    deny.add(agents)
    _roots, warnings = zhin_roots(str(tmp_path))
    assert [(w.kind, w.message) for w in warnings] == [("unreadable", f"cannot read {agents}: Permission denied")]
    disc = discover_zhin(str(tmp_path))
    assert [(w.kind, w.source) for w in disc.warnings] == [("unreadable", agents)]


def test_z1_missing_folders_stay_silent(tmp_path):
    disc = discover_zhin(str(tmp_path))  # no skills/, no agents/: an empty plugin, not a fault
    assert disc.warnings == () and disc.candidates == ()
