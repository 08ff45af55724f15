"""Ask the real Codex CLI how it sees a workspace, offline (the oracle of host ``codex``).

Two questions, each in a scrubbed environment (:func:`realclients.clean_env`) with the
workspace's own ``HOME``:

- :func:`skills_list`: ``codex app-server`` over stdio JSON-RPC — ``initialize``,
  ``initialized``, then ``skills/list`` with ``{"cwds": [...], "forceReload": true}``. The
  answer holds, per cwd, the skill records and error records exactly as Codex lists them.
  stdout is a pipe here (the exchange is interactive; Codex writes one JSON message per line).
- :func:`prompt_input`: ``codex debug prompt-input`` run in the workspace (``-c key=value``
  flags passed through); returns the ``<skills_instructions>`` block of the model input, ``""``
  when there is none. Output goes through files (:func:`realclients.run`).

Nothing leaves the machine: neither question calls a model.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import realclients

__all__ = ["ProbeError", "listing", "prompt_input", "skills_block", "skills_list"]


class ProbeError(RuntimeError):
    """The client did not answer as expected (``str(exc)`` says how)."""


def _binary() -> str:
    path = realclients.binary("codex")
    if path is None:
        raise ProbeError("codex is not installed")
    return path


def skills_list(ws: str, home: str, env: Mapping[str, str] | None = None, cwds: Sequence[str] | None = None,
                timeout: float = 90) -> list[dict[str, Any]]:
    """``skills/list`` for ``cwds`` (default ``[ws]``), the app-server started in ``ws``: one
    ``{"cwd", "skills", "errors"}`` entry per cwd. Raises :class:`ProbeError` when the server
    gives no answer in ``timeout`` seconds or answers with an error."""
    proc = subprocess.Popen([_binary(), "app-server"], cwd=ws, env=realclients.clean_env(home, env),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, encoding="utf-8", bufsize=1)
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout
    deadline = time.monotonic() + timeout

    def send(message: Mapping[str, Any]) -> None:
        stdin.write(json.dumps(message) + "\n")
        stdin.flush()

    def answer(want: int) -> dict[str, Any]:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([stdout], [], [], left)[0]:
                raise ProbeError(f"codex app-server: no answer to request {want} in {timeout:.0f} s")
            line = stdout.readline()
            if not line:
                raise ProbeError(f"codex app-server exited before answering request {want}")
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == want:
                return message

    try:
        send({"id": 0, "method": "initialize", "params": {"clientInfo": {"name": "skillshelf-tests", "version": "0"}}})
        answer(0)
        send({"method": "initialized"})
        send({"id": 1, "method": "skills/list", "params": {"cwds": list(cwds or [ws]), "forceReload": True}})
        reply = answer(1)
    finally:
        try:
            stdin.close()
            proc.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        stdout.close()
    if "error" in reply:
        raise ProbeError(f"skills/list failed: {reply['error']}")
    data = reply["result"]["data"]
    assert isinstance(data, list)
    return data


def _texts(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _texts(v)
    elif isinstance(value, list):
        for v in value:
            yield from _texts(v)


def skills_block(items: Any) -> str:
    """The ``<skills_instructions>`` text in a ``prompt-input`` document (``""`` when absent)."""
    for text in _texts(items):
        if text.startswith("<skills_instructions>"):
            return text
    return ""


def prompt_input(ws: str, home: str, env: Mapping[str, str] | None = None, args: Sequence[str] = (),
                 timeout: float = 120) -> str:
    """The skills block Codex puts in the model input for a session in ``ws`` (``args``: extra
    flags such as ``-c model_context_window=20000``). Raises :class:`ProbeError` when Codex
    exits with an error (its stderr's last lines in the message)."""
    code, out, err = realclients.run([_binary(), "debug", "prompt-input", *args], os.path.realpath(ws), home,
                                     env, timeout=timeout)
    if code != 0:
        raise ProbeError(f"codex debug prompt-input exited {code}: {err.strip()[-600:]}")
    return skills_block(json.loads(out))


def listing(ws: str, home: str, env: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """Codex's view in the shape every client probe shares: one record per listed file (``name,
    path, description, listed, shadowed_by`` plus ``scope`` and ``enabled``); Codex shadows
    nothing by name."""
    entry = skills_list(ws, home, env)[0]
    return [{"name": s["name"], "path": s["path"], "description": s["description"], "listed": True,
             "shadowed_by": None, "scope": s["scope"], "enabled": s["enabled"]} for s in entry["skills"]]
