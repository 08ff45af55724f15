"""Ask the real opencode 1.18.33 what it sees: ``opencode debug skill`` and, for the catalog, one
``opencode run`` against a loopback mock model.

:func:`listing` runs ``opencode debug skill --print-logs --log-level WARN`` in the workspace and
returns one record per skill file opencode reports::

    {"name", "path", "description", "listed", "shadowed_by"}

``listed`` records come from the JSON on stdout (``description`` ``None`` when the key is
absent). Copies opencode overwrote come from its ``WARN duplicate skill name`` lines
(``existing=`` is the copy overwritten): ``listed`` False, ``shadowed_by`` the copy that holds
the name at the end. Files it failed to load (``ERROR failed to load skill``) come with
``listed`` False and an ``error`` key. The built-in is left out unless ``builtin=True``.

Every run is guarded: an address-space limit (``RLIMIT_AS``) and a timeout, because a tree with
two symlink loops makes opencode walk without end and eat all memory (never build one). One
client process runs at a time; stdout and stderr go through files.
"""

from __future__ import annotations

import json
import re
import resource
import socket
import subprocess
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import realclients

#: Address-space limit of one client process (bytes): ``debug skill`` runs in under 4 GiB of
#: address space, a whole ``run`` session needs more (the JavaScript heap reserves it).
MEMORY_LIMIT = 8 * 1024 ** 3
#: Seconds one client process may run.
TIMEOUT = 90

_LOCK = threading.Lock()


@dataclass(frozen=True)
class Run:
    """One client process: exit code, stdout, stderr."""

    rc: int
    stdout: str
    stderr: str


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run(args: list[str], ws: str, home: str, env: Mapping[str, str] | None = None,
        timeout: float = TIMEOUT) -> Run:
    """``opencode ARGS`` in ``ws`` with ``HOME`` = ``home``, the scrubbed environment plus
    ``env``, output through files, memory-limited."""
    exe = realclients.require("opencode")
    with _LOCK, tempfile.TemporaryFile("w+", encoding="utf-8") as out, \
            tempfile.TemporaryFile("w+", encoding="utf-8") as err:
        proc = subprocess.run([exe, *args], cwd=ws, env=realclients.clean_env(home, env), stdout=out, stderr=err,
                              stdin=subprocess.DEVNULL, text=True, timeout=timeout, preexec_fn=_limit,
                              check=False)
        out.seek(0)
        err.seek(0)
        return Run(proc.returncode, out.read(), err.read())


_FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S*)')


def logfmt(line: str) -> dict[str, str]:
    """One opencode log line as key → value (quoted values unquoted)."""
    out: dict[str, str] = {}
    for key, value in _FIELD.findall(line):
        if value.startswith('"'):
            try:
                value = json.loads(value)
            except ValueError:
                value = value[1:-1]
        out[key] = value
    return out


def debug_skill(ws: str, home: str, env: Mapping[str, str] | None = None) -> Run:
    """The raw ``opencode debug skill --print-logs --log-level WARN`` run."""
    return run(["debug", "skill", "--print-logs", "--log-level", "WARN"], ws, home, env)


def records(result: Run, builtin: bool = False) -> list[dict[str, Any]]:
    """:func:`listing`'s records from one run (empty when opencode exited non-zero)."""
    if result.rc != 0:
        return []
    skills = json.loads(result.stdout)
    out: list[dict[str, Any]] = []
    holder: dict[str, str] = {}
    for s in skills:
        holder[s["name"]] = s["location"]
        if s["location"] == "<built-in>" and not builtin:
            continue
        out.append({"name": s["name"], "path": s["location"], "description": s.get("description"),
                    "listed": True, "shadowed_by": None})
    seen = {r["path"] for r in out}
    for line in result.stderr.splitlines():
        if "level=" not in line:
            continue
        f = logfmt(line)
        if f.get("message") == "duplicate skill name":
            existing = f.get("existing", "")
            if existing in ("undefined", "") or existing in seen or (existing == "<built-in>" and not builtin):
                continue
            seen.add(existing)
            out.append({"name": f.get("name"), "path": existing, "description": None, "listed": False,
                        "shadowed_by": holder.get(f.get("name", ""))})
        elif f.get("message") == "failed to load skill" and f.get("skill"):
            if f["skill"] in seen:
                continue
            seen.add(f["skill"])
            out.append({"name": None, "path": f["skill"], "description": None, "listed": False, "shadowed_by": None,
                        "error": f.get("error", "")})
    return out


def listing(ws: str, home: str, env: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """What opencode reports for the workspace (see the module docstring). Raises
    ``RuntimeError`` when opencode exits non-zero (its stderr in the message)."""
    result = debug_skill(ws, home, env)
    if result.rc != 0:
        raise RuntimeError(f"opencode exited {result.rc}: {result.stderr[-2000:]}")
    return records(result)


class _Mock(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    bodies: ClassVar[list[Any]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, code: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._send(200, b'{"data": [], "models": []}')

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            self.bodies.append(json.loads(raw))
        except ValueError:
            self.bodies.append(raw.decode("utf-8", "replace"))
        if "count_tokens" in self.path:
            self._send(200, b'{"input_tokens": 10}')
            return
        if "/messages" not in self.path:
            self._send(404, b'{"error": {"type": "not_found", "message": "mock"}}')
            return
        message = {"id": "msg_mock", "type": "message", "role": "assistant", "model": "mock", "content": [],
                   "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
        events = [("message_start", {"type": "message_start", "message": message}),
                  ("content_block_start", {"type": "content_block_start", "index": 0,
                                           "content_block": {"type": "text", "text": ""}}),
                  ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                           "delta": {"type": "text_delta", "text": "ok"}}),
                  ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                  ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn",
                                                                          "stop_sequence": None},
                                     "usage": {"output_tokens": 1}}),
                  ("message_stop", {"type": "message_stop"})]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for name, data in events:
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return []


HEADER = "Skills provide specialized instructions and workflows for specific tasks."


def capture_catalog(ws: str, home: str, env: Mapping[str, str] | None = None) -> tuple[str | None, dict[str, str]]:
    """The skills section of the system prompt opencode sends for ``ws`` (``None`` when it sends
    none) and the extra environment used (give the same to the host: it adds a config layer)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    handler = type("Mock", (_Mock,), {"bodies": []})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    config = {"autoupdate": False, "share": "disabled", "model": "anthropic/claude-sonnet-4-5",
              "provider": {"anthropic": {"options": {"baseURL": f"http://127.0.0.1:{port}/v1",
                                                     "apiKey": "dummy-not-a-key"}}}}
    extra = {"OPENCODE_CONFIG_CONTENT": json.dumps(config), **(env or {})}
    try:
        result = run(["run", "hi"], ws, home, extra, timeout=120)
    finally:
        server.shutdown()
        server.server_close()
    main = False
    for body in handler.bodies:
        if not isinstance(body, dict) or "system" not in body:
            continue
        main = main or bool(body.get("tools"))
        for text in _texts(body["system"]):
            i = text.find(HEADER)
            if i < 0:
                continue
            end = text.find("</available_skills>", i)
            if end >= 0:
                return text[i:end + len("</available_skills>")], extra
            empty = "No skills are currently available."
            j = text.find(empty, i)
            return (text[i:j + len(empty)] if j >= 0 else text[i:]), extra
    if main:
        return None, extra
    raise RuntimeError(f"opencode run sent no model request (exit {result.rc}): {result.stderr[-2000:]}")


def catalog_entries(text: str) -> list[dict[str, str]]:
    """``[{"name", "description", "location"}]`` of a captured section (location unescaped)."""
    out = []
    for m in re.finditer(r"<skill>\n    <name>([\s\S]*?)</name>\n    <description>([\s\S]*?)</description>\n"
                         r"    <location>([\s\S]*?)</location>\n  </skill>", text):
        loc = (m.group(3).replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
               .replace("&#39;", "'").replace("&amp;", "&"))
        out.append({"name": m.group(1), "description": m.group(2), "location": loc})
    return out


__all__ = ["MEMORY_LIMIT", "Run", "capture_catalog", "catalog_entries", "debug_skill", "listing", "logfmt",
           "records", "run"]
