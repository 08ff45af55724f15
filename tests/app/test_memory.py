"""The malloc arena limit of the TUI process (app/memory.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from skillshelf.app import memory


def test_the_limit_is_taken_by_glibc_and_never_raises(monkeypatch):
    code = "from skillshelf.app.memory import limit_malloc_arenas; print(limit_malloc_arenas())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    import platform

    if sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc":
        assert out == "True"
    else:
        assert out == "False"


@pytest.mark.parametrize("error", [OSError("no libc"), AttributeError("mallopt")])
def test_without_mallopt_nothing_happens(monkeypatch, error):
    import ctypes

    def broken(*_a, **_k):
        raise error

    monkeypatch.setattr(ctypes, "CDLL", broken)
    monkeypatch.setattr(memory.sys, "platform", "linux")
    assert memory.limit_malloc_arenas() is False


def test_other_systems_are_left_alone(monkeypatch):
    monkeypatch.setattr(memory.sys, "platform", "darwin")
    assert memory.limit_malloc_arenas() is False
