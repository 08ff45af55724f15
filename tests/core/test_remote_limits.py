"""The remote time limits are limits (SPEC R1, Z134 and skillshelf's own bounds): a wall-clock
deadline per request whatever the server trickles, one for the whole pull, cancellation, a
bound on the skills and files taken from one index, and repeated warnings folded. Every server
here is on 127.0.0.1, started by the test, bounded in time."""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import pytest
from test_remote import Server, index, skill_md

from skillshelf.core import remote
from skillshelf.core.model import CatalogWarning
from skillshelf.core.remote import cache_root, fold_warnings, pull


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return Path(cache_root(str(tmp_path / "home" / ".cache")))


class Trickle:
    """A server that answers every request by trickling: ``"headers"`` sends its status line and
    then one header byte every ``every`` seconds; ``"body"`` sends complete headers and then one
    body byte every ``every`` seconds. Never finishes on its own; stops with the test (at most
    ``limit`` seconds per connection)."""

    def __init__(self, mode: str, every: float = 0.2, limit: float = 20.0) -> None:
        self.mode, self.every, self.limit = mode, every, limit
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.listener.settimeout(0.1)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.stop = threading.Event()
        self.connections = 0
        self.threads: list[threading.Thread] = []

    def __enter__(self) -> Trickle:
        accept = threading.Thread(target=self._accept, daemon=True)
        accept.start()
        self.threads.append(accept)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(5)
        self.listener.close()

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                continue
            self.connections += 1
            t = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            t.start()
            self.threads.append(t)

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(65536)
                if self.mode == "headers":
                    conn.sendall(b"HTTP/1.1 200 OK\r\n")
                    drip = b"X-Slow: " + b"a" * 10_000
                else:
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
                    drip = b"{" + b" " * 99_999
                end = time.monotonic() + self.limit
                for byte in drip:
                    if self.stop.wait(self.every) or time.monotonic() > end:
                        return
                    conn.sendall(bytes([byte]))
            except OSError:
                return


@pytest.mark.parametrize("mode", ["headers", "body"])
def test_a_trickling_server_is_abandoned_at_the_request_deadline(cache: Path, mode: str) -> None:
    with Trickle(mode) as server:
        started = time.monotonic()
        result = pull([server.url], str(cache), timeout=1.0)
        elapsed = time.monotonic() - started
    src = f"{server.url}/index.json"
    assert result.warnings == (CatalogWarning("IndexTimeout", src, f"failed to fetch {src}: exceeded 1s"),)
    assert 1.0 <= elapsed < 3.0
    assert result.roots == ()


def test_the_whole_pull_has_a_deadline(cache: Path) -> None:
    """Three trickling indexes at 1 s each would take 3 s; the pull stops at 1.5 s and says
    which indexes it did not finish."""
    with Trickle("body") as a, Trickle("body") as b, Trickle("body") as c:
        started = time.monotonic()
        result = pull([a.url, b.url, c.url], str(cache), timeout=1.0, deadline=1.5)
        elapsed = time.monotonic() - started
    assert elapsed < 2.5
    src = [f"{s.url}/index.json" for s in (a, b, c)]
    assert result.warnings == (
        CatalogWarning("IndexTimeout", src[0], f"failed to fetch {src[0]}: exceeded 1s"),
        CatalogWarning("PullDeadline", src[1],
                       f"stopped pulling {src[1]}: the pull of every index took longer than 1.5s"),
        CatalogWarning("PullDeadline", src[2],
                       f"stopped pulling {src[2]}: the pull of every index took longer than 1.5s"),
    )


def test_a_pull_stops_promptly_when_cancelled(cache: Path) -> None:
    cancel = threading.Event()
    out: list[remote.RemotePull] = []
    with Trickle("body") as server:
        thread = threading.Thread(target=lambda: out.append(pull([server.url], str(cache), cancel=cancel)))
        thread.start()
        time.sleep(0.3)
        cancelled_at = time.monotonic()
        cancel.set()
        thread.join(5)
        stopped_after = time.monotonic() - cancelled_at
    src = f"{server.url}/index.json"
    assert stopped_after < 0.5
    assert out[0].warnings == (CatalogWarning("PullCancelled", src, f"stopped pulling {src}: cancelled"),)


def test_pull_works_from_inside_a_running_event_loop(cache: Path) -> None:
    import asyncio

    routes: dict[str, bytes | int] = {"/index.json": index({"name": "a", "files": ["SKILL.md"]}),
                                      "/a/SKILL.md": skill_md("a", "d")}

    async def main() -> remote.RemotePull:
        return pull([srv.url], str(cache))

    with Server(routes) as srv:
        result = asyncio.run(main())
    assert result.roots == (str(cache / "a"),) and result.warnings == ()


def test_the_skills_and_files_taken_from_one_index_are_bounded(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(remote, "MAX_INDEX_ENTRIES", 3)
    names = [f"s{i}" for i in range(8)]
    routes: dict[str, bytes | int] = {"/index.json": index(*({"name": n, "files": ["SKILL.md"]} for n in names))}
    for n in names:
        routes[f"/{n}/SKILL.md"] = skill_md(n, "d")
    with Server(routes) as srv:
        result = pull([srv.url], str(cache))
    src = f"{srv.url}/index.json"
    assert result.roots == tuple(str(cache / n) for n in names[:3])
    assert result.warnings == (CatalogWarning(
        "IndexTruncated", src,
        f"index {src} lists 5 more usable skills than skillshelf pulls from one index (at most 3 skills and "
        "2,000 files); pulled the first 3 (3 files)"),)
    assert len(srv.requests) == 4  # the index and three skills, nothing more


def test_the_file_bound_counts_files_over_the_skills_in_index_order(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(remote, "MAX_INDEX_FILES", 5)
    entries = [{"name": "a", "files": ["SKILL.md", "x.md", "y.md"]}, {"name": "b", "files": ["SKILL.md", "z.md"]},
               {"name": "c", "files": ["SKILL.md"]}]
    routes: dict[str, bytes | int] = {"/index.json": index(*entries)}
    for e in entries:
        for f in e["files"]:
            routes[f"/{e['name']}/{f}"] = skill_md(e["name"], "d") if f == "SKILL.md" else b"x\n"
    with Server(routes) as srv:
        result = pull([srv.url], str(cache))
    assert result.roots == (str(cache / "a"), str(cache / "b"))
    assert [w.kind for w in result.warnings] == ["IndexTruncated"]
    assert result.warnings[0].message.endswith("pulled the first 2 (5 files)")


def test_repeated_warnings_of_one_index_are_folded(cache: Path) -> None:
    bad = [{"name": f"../x{i}", "files": ["SKILL.md"]} for i in range(25)]
    missing = [{"name": f"m{i}", "files": ["README.md"]} for i in range(3)]
    routes: dict[str, bytes | int] = {"/index.json": json.dumps({"skills": bad + missing}).encode()}
    with Server(routes) as srv:
        result = pull([srv.url], str(cache))
    src = f"{srv.url}/index.json"
    kinds = [w.kind for w in result.warnings]
    assert kinds == ["UnsafeIndexName"] * 21 + ["EntryMissingSkillMd"] * 3
    assert result.warnings[20] == CatalogWarning(
        "UnsafeIndexName", src, f"5 more UnsafeIndexName warnings from {src} are not shown")
    assert result.warnings[19].message == f"skill entry name `../x19` is not a single safe directory name in {src}"


def test_fold_warnings_keeps_order_and_counts_per_kind() -> None:
    ws = [CatalogWarning("A", "s", f"a{i}") for i in range(4)] + [CatalogWarning("B", "s", "b")]
    assert fold_warnings(ws, "src", shown=2) == [
        CatalogWarning("A", "s", "a0"), CatalogWarning("A", "s", "a1"),
        CatalogWarning("A", "src", "2 more A warnings from src are not shown"), CatalogWarning("B", "s", "b")]
    assert fold_warnings(ws, "src", shown=4) == ws
