"""Ask the real Codex CLI what it sees: ``codex app-server`` JSON-RPC ``skills/list`` and
``codex debug prompt-input`` (the model input, whose ``<skills_instructions>`` item is the
catalog). Offline; a fresh HOME per workspace."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from collections.abc import Mapping
from typing import Any

from realclients import clean_env, require, run

#: The native binary below the clients folder (its prose is read by the host at run time).
NATIVE = "codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"


def native_binary() -> str:
    """The native Codex binary (skips when the clients are absent)."""
    launcher = require("codex")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(launcher))))
    return os.path.join(root, NATIVE)


def skills_list(ws: str, home: str, env: Mapping[str, str] | None = None, timeout: float = 60) -> dict[str, Any]:
    """The raw ``skills/list`` result entry for ``ws`` (``{"skills": [...], "errors": [...]}``)."""
    proc = subprocess.Popen([require("codex"), "app-server"], cwd=ws, env=clean_env(home, env),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, bufsize=1)
    assert proc.stdin is not None and proc.stdout is not None

    def send(obj: dict[str, Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(obj) + "\n")
        proc.stdin.flush()

    def receive(want: int, deadline: float) -> dict[str, Any]:
        assert proc.stdout is not None
        while time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            line = proc.stdout.readline()
            if not line:
                break
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if msg.get("id") == want:
                return dict(msg)
        raise RuntimeError(f"codex app-server gave no answer to request {want}")

    try:
        deadline = time.monotonic() + timeout
        send({"id": 0, "method": "initialize", "params": {"clientInfo": {"name": "skillshelf-tests", "version": "0"}}})
        receive(0, deadline)
        send({"method": "initialized"})
        send({"id": 1, "method": "skills/list", "params": {"cwds": [ws], "forceReload": True}})
        answer = receive(1, deadline)
    finally:
        proc.stdin.close()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
    if "error" in answer:
        raise RuntimeError(f"skills/list failed: {answer['error']}")
    return dict(answer["result"]["data"][0])


def _texts(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [t for v in node.values() for t in _texts(v)]
    if isinstance(node, list):
        return [t for v in node for t in _texts(v)]
    return []


def catalog(ws: str, home: str, env: Mapping[str, str] | None = None, args: tuple[str, ...] = ()) -> str:
    """The ``<skills_instructions>`` block of ``codex debug prompt-input`` (``""`` when absent)."""
    code, out, err = run([require("codex"), "debug", "prompt-input", *args], ws, home, env, timeout=120)
    if code != 0:
        raise RuntimeError(f"codex debug prompt-input exited {code}: {err[-500:]}")
    for text in _texts(json.loads(out)):
        if "<skills_instructions>" in text:
            return text[text.find("<skills_instructions>"):]
    return ""


def listing(ws: str, home: str, env: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """Codex's view in the shape every client probe shares: one record per listed file
    (``name, path, description, listed, shadowed_by``); Codex shadows nothing."""
    entry = skills_list(ws, home, env)
    return [{"name": s["name"], "path": s["path"], "description": s["description"], "listed": True,
             "shadowed_by": None, "scope": s["scope"], "enabled": s["enabled"]} for s in entry["skills"]]
