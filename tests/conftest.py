"""Shared fixtures. ``zuno_home`` isolates a test from the real user environment (SPEC C1)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

#: ../shared beside the repository (conformance corpus, bug-report cases); absent on user clones.
SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.fixture
def zuno_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary HOME with XDG config/cache inside it and a project ``proj`` that is a
    worktree (``proj/.git``), so the discovery walk stops there (SPEC D1). Every ``ZUNO_*`` and
    ``XDG_*`` variable of the real environment is removed. Returns ``tmp_path``:
    ``tmp_path/home`` is HOME, ``tmp_path/proj`` the project."""
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    (tmp_path / "proj" / ".git").mkdir(parents=True)
    for key in list(os.environ):
        if key.startswith(("ZUNO_", "XDG_")):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path
