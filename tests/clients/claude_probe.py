"""Ask the real Claude Code 2.1.332 how it sees a workspace, offline.

One client run answers everything: ``claude -p --input-format stream-json --output-format
stream-json`` gets the control requests ``initialize``, ``get_context_usage`` (what the model
listing holds: ``skills.skillFrontmatter``) and ``get_skills_dialog`` (every loaded skill,
shadowed copies included), then one user message; the model it calls is :class:`MockModel`, a
loopback HTTP server that answers every Messages request with ``ok`` and keeps each request,
so the listing text Claude puts in the prompt is read from the first one.

Public helpers: :func:`ask` (raw answers and the listing text), :func:`listing` (one dict per
loaded skill, shaped for the all-clients tests) and :func:`catalog_lines`.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from realclients import clean_env, require

__all__ = ["HEADER", "Answer", "MockModel", "ask", "catalog_lines", "listing"]

HEADER = "The following skills are available for use with the Skill tool:\n\n"
SOURCES = {"userSettings": "user", "projectSettings": "project", "policySettings": "managed",
           "localSettings": "project"}


class MockModel:
    """A loopback stand-in for the Anthropic Messages API (context manager). ``bodies`` holds
    every JSON body POSTed to ``/v1/messages`` (not ``count_tokens``), in arrival order."""

    def __init__(self) -> None:
        self.bodies: list[Any] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, code: int, body: bytes, kind: str = "application/json") -> None:
                self.send_response(code)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                self._send(200, b'{"data": []}')

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if "count_tokens" in self.path:
                    self._send(200, b'{"input_tokens": 10}')
                    return
                if "/messages" not in self.path:
                    self._send(404, b'{"type":"error","error":{"type":"not_found_error","message":"mock"}}')
                    return
                try:
                    owner.bodies.append(json.loads(raw))
                except ValueError:
                    owner.bodies.append(raw.decode("utf-8", "replace"))
                msg = {"id": "msg_mock", "type": "message", "role": "assistant", "model": "mock", "content": [],
                       "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
                events = [
                    ("message_start", {"type": "message_start", "message": msg}),
                    ("content_block_start", {"type": "content_block_start", "index": 0,
                                             "content_block": {"type": "text", "text": ""}}),
                    ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                             "delta": {"type": "text_delta", "text": "ok"}}),
                    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                    ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn",
                                       "stop_sequence": None}, "usage": {"output_tokens": 1}}),
                    ("message_stop", {"type": "message_stop"}),
                ]
                data = b"".join(f"event: {ev}\ndata: {json.dumps(d)}\n\n".encode() for ev, d in events)
                self._send(200, data, "text/event-stream")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _texts(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _texts(v)
    elif isinstance(value, dict):
        if isinstance(value.get("text"), str):
            yield value["text"]
        for k in ("content", "system", "messages"):
            if k in value:
                yield from _texts(value[k])


def _listing_text(bodies: Sequence[Any]) -> str | None:
    """The listing from the first request holding one: the header and every entry up to the
    blank line or the end of the block (entries never hold a blank line)."""
    for body in bodies:
        if not isinstance(body, dict):
            continue
        for t in _texts(body.get("messages")):
            i = t.find(HEADER)
            if i < 0:
                continue
            rest = t[i + len(HEADER):]
            ends = [k for k in (rest.find("\n\n"), rest.find("\n</system-reminder>")) if k >= 0]
            return HEADER + (rest[:min(ends)] if ends else rest)
    return None


@dataclass
class Answer:
    """The client's answers: raw control ``responses`` by subtype, the listing ``text`` (header
    included; ``None`` when the model saw none) and the request ``bodies`` the mock received."""

    responses: dict[str, Any] = field(default_factory=dict)
    text: str | None = None
    bodies: list[Any] = field(default_factory=list)

    @property
    def frontmatter(self) -> list[dict[str, Any]]:
        """``get_context_usage`` ``skills.skillFrontmatter`` (built-ins included)."""
        r = self.responses.get("get_context_usage", {}).get("response", {})
        return list((r.get("skills") or {}).get("skillFrontmatter") or [])

    @property
    def dialog(self) -> list[dict[str, Any]]:
        """``get_skills_dialog`` rows."""
        return list(self.responses.get("get_skills_dialog", {}).get("response", {}).get("skills") or [])


def ask(ws: str, home: str, env: Mapping[str, str] | None = None, args: Sequence[str] = (),
        catalog: bool = True, timeout: float = 90) -> Answer:
    """Run the client once in ``ws`` with ``HOME`` = ``home`` (scrubbed environment plus
    ``env``): the control requests, then (``catalog``) one message to the mock model."""
    exe = require("claude")
    out = Answer()
    with MockModel() as mock:
        extra = {"ANTHROPIC_BASE_URL": mock.url, "ANTHROPIC_API_KEY": "dummy-not-a-real-key", **(env or {})}
        cmd = [exe, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", *args]
        proc = subprocess.Popen(cmd, cwd=ws, env=clean_env(home, extra), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        assert proc.stdin is not None and proc.stdout is not None
        deadline = time.time() + timeout
        try:
            for i, subtype in enumerate(("initialize", "get_context_usage", "get_skills_dialog")):
                rid = f"r{i}"
                proc.stdin.write(json.dumps({"type": "control_request", "request_id": rid,
                                             "request": {"subtype": subtype}}) + "\n")
                proc.stdin.flush()
                for line in _lines(proc, deadline):
                    o = _json(line)
                    if o.get("type") == "control_response" and o.get("response", {}).get("request_id") == rid:
                        out.responses[subtype] = o["response"]
                        break
            if catalog:
                proc.stdin.write(json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}}) + "\n")
                proc.stdin.flush()
                for line in _lines(proc, deadline):
                    if _json(line).get("type") == "result":
                        break
        finally:
            try:
                proc.stdin.close()
                proc.wait(15)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
        out.bodies = list(mock.bodies)
    out.text = _listing_text(out.bodies)
    return out


def _lines(proc: subprocess.Popen[str], deadline: float) -> Iterator[str]:
    assert proc.stdout is not None
    while time.time() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.time()))
        if not ready:
            return
        line = proc.stdout.readline()
        if not line:
            return
        yield line


def _json(line: str) -> dict[str, Any]:
    try:
        o = json.loads(line)
    except ValueError:
        return {}
    return o if isinstance(o, dict) else {}


def catalog_lines(text: str | None) -> list[str]:
    """The entries of a listing text (``- ...`` lines; a built-in description may hold line
    breaks, which stay inside its entry)."""
    if not text:
        return []
    body = text.removeprefix(HEADER)
    out: list[str] = []
    for line in body.split("\n"):
        if line.startswith("- ") or not out:
            out.append(line)
        else:
            out[-1] += "\n" + line
    return out


# ------------------------------------------------------------------------------------- listing()

def _candidate_roots(ws: str, home: str, env: Mapping[str, str]) -> dict[str, list[str]]:
    """The folders each dialog source label can come from, in the client's precedence order:
    ``get_skills_dialog`` rows carry no path, so a copy the model listing does not hold is
    found by its key under these."""
    cfg = env.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude")
    cwd = os.path.realpath(ws)
    project: list[str] = []
    here = cwd
    top = None
    probe = cwd
    while True:
        if os.path.lexists(os.path.join(probe, ".git")):
            top = probe
            break
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    while here.rstrip("/") != os.path.abspath(home).rstrip("/"):
        project.append(os.path.join(here, ".claude", "skills"))
        if here == top or os.path.dirname(here) == here:
            break
        here = os.path.dirname(here)
    return {"managed": ["/etc/claude-code/.claude/skills"],
            "user": [os.path.join(os.path.join(cwd, cfg), "skills")], "project": project}


def _spellings(root: str, key: str) -> list[str]:
    """Where a skill keyed ``key`` can sit for a skills root: ``root/key/SKILL.md``, then the
    legacy commands beside it (``ns:leaf`` → ``commands/ns/leaf.md`` or ``…/leaf/SKILL.md``)."""
    out = [os.path.join(root, key, "SKILL.md")]
    commands = os.path.join(os.path.dirname(root), "commands")
    sub = key.replace(":", os.sep)
    out.append(os.path.join(commands, sub + ".md"))
    folder = os.path.join(commands, sub)
    try:
        out += [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.lower() == "skill.md"]
    except OSError:
        pass
    return out


def listing(ws: str, home: str, env: Mapping[str, str] | None = None,
            answer: Answer | None = None) -> list[dict[str, Any]]:
    """One dict per skill the client loaded (built-ins left out): ``name`` (the key),
    ``path`` (``SKILL.md``; for a copy the model listing does not hold, found under the roots
    of its source), ``description`` (as ``/skills`` shows it), ``listed`` (the model listing
    holds it), ``shadowed_by`` (the path of the listed copy of the same key, for a copy that is
    neither listed nor hidden), plus ``display_name``, ``source``, ``state``, ``advertised``."""
    env = dict(env or {})
    a = answer or ask(ws, home, env, catalog=False)
    fm = [s for s in a.frontmatter if s.get("source") not in ("built-in", "bundled", "plugin")]
    dialog = [d for d in a.dialog if d.get("source") not in ("built-in", "bundled", "plugin")]
    used: set[int] = set()
    out: list[dict[str, Any]] = []
    listed_path: dict[str, str] = {}
    for s in fm:
        path = s.get("path")
        key = os.path.basename(os.path.dirname(path)) if path else None
        src = SOURCES.get(s.get("source", ""), s.get("source"))
        cands = [j for j, d in enumerate(dialog) if j not in used and d.get("source") == src
                 and d.get("display_name") == s.get("name")]
        best = ([j for j in cands if dialog[j].get("name") == key and dialog[j].get("advertised")]
                or [j for j in cands if dialog[j].get("name") == key] or cands)
        d = dialog[best[0]] if best else {}
        if best:
            used.add(best[0])
        name = d.get("name") or key
        if name is not None and path:
            listed_path.setdefault(name, path)
        out.append({"name": name, "path": path, "description": d.get("description"), "listed": True,
                    "shadowed_by": None, "display_name": s.get("name"), "source": src,
                    "state": d.get("state"), "advertised": d.get("advertised")})
    roots = _candidate_roots(ws, home, env)
    taken = {r["path"] for r in out if r["path"]}
    for j, d in enumerate(dialog):
        if j in used:
            continue
        path = None
        # skill folders in root order first, then the legacy commands (they come last)
        spellings = [s for root in roots.get(d.get("source", ""), []) for s in _spellings(root, d["name"])[:1]]
        spellings += [s for root in roots.get(d.get("source", ""), []) for s in _spellings(root, d["name"])[1:]]
        for p in spellings:
            if p not in taken and os.path.isfile(p):
                path = p
                taken.add(p)
                break
        hidden = d.get("state") in ("user-invocable-only", "off")
        out.append({"name": d.get("name"), "path": path, "description": d.get("description"), "listed": False,
                    "shadowed_by": None if hidden else listed_path.get(d.get("name", "")),
                    "display_name": d.get("display_name"), "source": d.get("source"),
                    "state": d.get("state"), "advertised": d.get("advertised")})
    return out
