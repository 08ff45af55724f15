"""Ask the real Gemini CLI 0.61.0 what it sees, offline (the oracle of host ``gemini``).

:func:`listing` runs ``gemini skills list --all`` (workspace trusted through
``GEMINI_CLI_TRUST_WORKSPACE=true`` unless ``env`` says otherwise) and reads its stdout and the
conflict lines on stderr. :func:`capture` runs ``gemini -p hi -y`` against a loopback mock of
the Gemini API served from this process and returns the ``# Available Agent Skills`` section
of the system prompt, the tool declarations, and what ``activate_skill`` answered to the calls
the mock asked for. Both use :mod:`tests.clients.realclients` (scrubbed environment, the
workspace's own ``HOME``, output through files).
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import realclients

__all__ = ["Capture", "Listing", "capture", "listing", "parse_catalog", "run_list"]

_BLOCK = re.compile(r"(?P<name>[\s\S]*?) \[(?P<state>Enabled|Disabled)\](?P<bi> \[Built-in\])?\n"
                    r"  Description: (?P<desc>[\s\S]*?)\n  Location:    (?P<loc>[^\n]*)\n\n")
_CONFLICT = re.compile(r'^Skill conflict detected: "(.*)" from "(.*)" is overriding the same skill from "(.*)"\.$', re.MULTILINE)
_OVER_BUILTIN = re.compile(r'^Skill "(.*)" from "(.*)" is overriding the built-in skill\.$', re.MULTILINE)
_READ_ERROR = re.compile(r"^Error parsing skill file (.*?): Error: ", re.MULTILINE)
_ENTRY = re.compile(r"  <skill>\n    <name>([\s\S]*?)</name>\n    <description>([\s\S]*?)</description>\n"
                    r"    <location>([\s\S]*?)</location>\n  </skill>")


@dataclass(frozen=True)
class Listing:
    """One ``skills list --all`` run: exit code, raw output, and the records of :func:`listing`."""

    rc: int
    stdout: str
    stderr: str
    records: list[dict[str, Any]]
    read_errors: list[str]


def _trusted(env: Mapping[str, str | None] | None) -> dict[str, str]:
    """``env`` over ``GEMINI_CLI_TRUST_WORKSPACE=true``; a ``None`` value removes a variable."""
    out: dict[str, str | None] = {"GEMINI_CLI_TRUST_WORKSPACE": "true"}
    out.update(env or {})
    return {k: v for k, v in out.items() if v is not None}


def parse_list(stdout: str, stderr: str) -> list[dict[str, Any]]:
    """Records of a ``skills list`` run: one per listed skill (``listed`` True, in printed
    order), then one per copy a conflict line says was overridden (``listed`` False,
    ``shadowed_by`` the overriding location; a built-in's path is ``None``)."""
    records: list[dict[str, Any]] = []
    body = ""
    if stdout.startswith("Discovered Agent Skills:\n\n"):
        body = stdout[len("Discovered Agent Skills:\n\n"):]
    elif not stdout.startswith("No skills discovered."):
        raise AssertionError(f"unexpected skills list output: {stdout[:300]!r}")
    pos = 0
    while pos < len(body):
        m = _BLOCK.match(body, pos)
        if m is None:
            raise AssertionError(f"cannot parse skills list at {body[pos:pos + 200]!r}")
        records.append({"name": m["name"], "path": m["loc"], "description": m["desc"], "listed": True,
                        "shadowed_by": None, "enabled": m["state"] == "Enabled", "builtin": bool(m["bi"])})
        pos = m.end()
    for m in _CONFLICT.finditer(stderr):
        records.append({"name": m.group(1), "path": m.group(3), "description": None, "listed": False,
                        "shadowed_by": m.group(2), "enabled": None, "builtin": False})
    for m in _OVER_BUILTIN.finditer(stderr):
        records.append({"name": m.group(1), "path": None, "description": None, "listed": False,
                        "shadowed_by": m.group(2), "enabled": None, "builtin": True})
    return records


def run_list(ws: str, home: str, env: Mapping[str, str | None] | None = None) -> Listing:
    """``gemini skills list --all`` in ``ws`` with ``HOME`` = ``home`` (trusted unless ``env``
    sets ``GEMINI_CLI_TRUST_WORKSPACE``)."""
    exe = realclients.require("gemini")
    rc, out, err = realclients.run([exe, "skills", "list", "--all"], ws, home, _trusted(env))
    records = parse_list(out, err) if rc == 0 else []
    return Listing(rc, out, err, records, _READ_ERROR.findall(err))


def listing(ws: str, home: str, env: Mapping[str, str | None] | None = None) -> list[dict[str, Any]]:
    """What Gemini CLI lists: dicts with ``name, path, description, listed, shadowed_by`` (plus
    ``enabled`` and ``builtin``). Raises ``AssertionError`` when the client fails."""
    result = run_list(ws, home, env)
    if result.rc != 0:
        raise AssertionError(f"gemini skills list exited {result.rc}: {result.stderr[-1500:]}")
    return result.records


# --------------------------------------------------------------------------- catalog capture
@dataclass
class _Recorder:
    calls: list[dict[str, Any]]
    bodies: list[dict[str, Any]] = field(default_factory=list)
    answered: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def _handler(rec: _Recorder) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *args: Any) -> None:
            pass

        def _reply(self, code: int, doc: Any, sse: bool = False) -> None:
            data = (f"data: {json.dumps(doc)}\n\n" if sse else json.dumps(doc)).encode()
            self.send_response(code)
            self.send_header("Content-Type", "text/event-stream" if sse else "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._reply(200, {"models": []})

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            path = self.path.lower()
            if "generatecontent" not in path:
                self._reply(200, {"totalTokens": 10} if "counttokens" in path else {})
                return
            try:
                body = json.loads(raw)
            except ValueError:
                body = {}
            with rec.lock:
                rec.bodies.append(body)
                n = rec.answered
                rec.answered += 1
            part: dict[str, Any] = {"functionCall": rec.calls[n]} if n < len(rec.calls) else {"text": "ok"}
            doc = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
                   "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}}
            self._reply(200, doc, sse="stream" in path)

    return Handler


@dataclass(frozen=True)
class Capture:
    """One ``gemini -p`` run: the skills ``section`` of the system prompt (``""`` when absent),
    the whole ``system`` prompt, the ``tools`` declarations, and the ``responses`` sent back to
    the mock's function calls (``{"name", "response"}`` each, in call order)."""

    rc: int
    section: str
    system: str
    tools: list[dict[str, Any]]
    responses: list[dict[str, Any]]
    stderr: str


def capture(ws: str, home: str, env: Mapping[str, str] | None = None,
            calls: list[dict[str, Any]] | None = None) -> Capture:
    """Run ``gemini -p hi -y --output-format json`` against a loopback mock. The auth type must
    come from a settings file, so ``~/.gemini/settings.json`` of the test home (or of
    ``GEMINI_CLI_HOME``) gets ``security.auth.selectedType`` for this run and is restored
    afterwards. ``env`` should set ``GEMINI_MODEL`` (the default ``auto`` router would call a
    classifier first)."""
    exe = realclients.require("gemini")
    rec = _Recorder(list(calls or []))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(rec))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    settings_home = (env or {}).get("GEMINI_CLI_HOME") or home
    sp = os.path.join(settings_home, ".gemini", "settings.json")
    backup = Path(sp).read_text(encoding="utf-8") if os.path.exists(sp) else None
    current = json.loads(backup) if backup else {}
    current.setdefault("security", {}).setdefault("auth", {})["selectedType"] = "gemini-api-key"
    current.setdefault("privacy", {})["usageStatisticsEnabled"] = False
    current.setdefault("telemetry", {})["enabled"] = False
    os.makedirs(os.path.dirname(sp), exist_ok=True)
    with open(sp, "w", encoding="utf-8") as f:
        json.dump(current, f)
    extra = _trusted({"GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}",
                      "GEMINI_API_KEY": "dummy-not-a-key", **(env or {})})
    try:
        rc, _out, err = realclients.run([exe, "-p", "hi", "-y", "--output-format", "json"], ws, home, extra)
    finally:
        server.shutdown()
        server.server_close()
        if backup is None:
            os.remove(sp)
        else:
            with open(sp, "w", encoding="utf-8") as f:
                f.write(backup)
    system, tools = "", []
    for body in rec.bodies:
        parts = (body.get("systemInstruction") or {}).get("parts", [])
        text = "".join(p.get("text", "") for p in parts)
        if "# Available Agent Skills" in text or not system:
            system = text
            tools = [d for t in body.get("tools", []) for d in t.get("functionDeclarations", [])]
            if "# Available Agent Skills" in text:
                break
    section = ""
    i = system.find("<available_skills>")
    if i >= 0:
        start = system.rfind("# Available Agent Skills", 0, i)
        end = system.find("</available_skills>", i) + len("</available_skills>")
        section = system[start:end]
    responses: list[dict[str, Any]] = []
    seen: set[str] = set()
    for body in rec.bodies:
        for content in body.get("contents", []):
            for part in content.get("parts", []):
                fr = part.get("functionResponse")
                if fr is not None:
                    key = json.dumps(fr, sort_keys=True)
                    if key not in seen:
                        seen.add(key)
                        responses.append({"name": fr.get("name"), "response": fr.get("response")})
    return Capture(rc, section, system, tools, responses, err)


def parse_catalog(section: str) -> list[dict[str, str]]:
    """The ``<skill>`` entries of a section: ``name, description, path`` in order."""
    return [{"name": a, "description": b, "path": c} for a, b, c in _ENTRY.findall(section)]
