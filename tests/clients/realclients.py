"""Ask the real coding clients what they see (the oracle of SPEC N), offline.

The clients are installed by ``../shared/clients/install.sh DIR`` (``.ci/run`` does it into a
cache folder outside the clone); ``SKILLSHELF_CLIENTS_DIR`` names that folder. Tests that need a
client call :func:`require` and skip cleanly when it is absent. Every run uses the workspace's
own ``HOME`` and a scrubbed environment (no ``XDG_*``, ``CODEX_HOME``, ``CLAUDE_CONFIG_DIR``,
``GEMINI_CLI_HOME``, API keys), stdout goes to a file (opencode can cut a piped stdout short),
and nothing leaves the machine (telemetry and update checks off; model calls only to a loopback
mock when a catalog must be captured).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

import pytest
from conftest import SHARED

#: Environment variable naming the folder ``install.sh`` filled.
CLIENTS_ENV = "SKILLSHELF_CLIENTS_DIR"

#: Each client's executable below that folder (the npm packages' bin links).
BINARIES = {
    "claude": "claude/node_modules/.bin/claude",
    "codex": "codex/node_modules/.bin/codex",
    "opencode": "opencode/node_modules/.bin/opencode",
    "gemini": "gemini/node_modules/.bin/gemini",
}



def binary(client: str) -> str | None:
    """The path of ``client``'s executable, or ``None`` when the clients are not installed."""
    root = os.environ.get(CLIENTS_ENV)
    if not root:
        return None
    path = os.path.join(root, BINARIES[client])
    return path if os.access(path, os.X_OK) else None


def require(client: str) -> str:
    """``client``'s executable, or skip the test (the clients are not installed here)."""
    path = binary(client)
    if path is None:
        pytest.skip(f"{client} is not installed (set {CLIENTS_ENV} to a folder filled by "
                    "../shared/clients/install.sh)")
    return path


def require_shared() -> Path:
    """``../shared``, or skip the test (a user's clone has none)."""
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent (set SKILLSHELF_SHARED)")
    return SHARED


def clean_env(home: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A scrubbed environment for one client run with ``HOME`` = ``home``."""
    keep = {"PATH", "LANG", "LC_ALL", "TZ"}
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update({
        "HOME": home, "TERM": "dumb", "NO_COLOR": "1", "CI": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1", "DO_NOT_TRACK": "1",
        "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    })
    env.update(extra or {})
    return env


def run(cmd: list[str], cwd: str, home: str, extra_env: Mapping[str, str] | None = None,
        timeout: float = 120) -> tuple[int, str, str]:
    """Run ``cmd`` in ``cwd`` with :func:`clean_env`; (exit code, stdout, stderr). Output goes
    through files, never pipes."""
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out, tempfile.TemporaryFile("w+", encoding="utf-8") as err:
        proc = subprocess.run(cmd, cwd=cwd, env=clean_env(home, extra_env), stdout=out, stderr=err,
                              stdin=subprocess.DEVNULL, text=True, timeout=timeout)
        out.seek(0)
        err.seek(0)
        return proc.returncode, out.read(), err.read()
