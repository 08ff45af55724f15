"""Remote skill indexes (SPEC R1–R3, conformance §5 Z128–Z147).

Every network test runs against a real HTTP server on 127.0.0.1 (stdlib ``http.server`` in a
thread, port 0) started by the test itself; nothing leaves the machine.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from skillshelf.core import remote
from skillshelf.core.model import CatalogWarning
from skillshelf.core.paths import Environment
from skillshelf.core.remote import (
    VERSION_MARKER,
    IndexDecodeError,
    RemotePull,
    cache_root,
    file_url,
    index_url,
    parse_index,
    pull,
    safe_file,
    safe_name,
    sibling,
)

DEAD = "http://127.0.0.1:1"


def skill_md(name: str, desc: str) -> bytes:
    """The remote SKILL.md body used by the conformance fixtures (§5)."""
    return f"---\nname: {name}\ndescription: {desc}\n---\n\nRemote body.\n".encode()


def index(*entries: dict) -> bytes:
    return json.dumps({"skills": list(entries)}).encode()


# ------------------------------------------------------------------------------------------
# A counting HTTP server
# ------------------------------------------------------------------------------------------


class Server:
    """Serves ``routes`` (path → bytes body, or int status); records every request path and the
    peak number of requests in flight. ``delay`` (s) before each answer; ``gate``: every answer
    waits until the test sets it (at most a minute)."""

    def __init__(self, routes: dict[str, bytes | int], delay: float = 0.0,
                 gate: threading.Event | None = None) -> None:
        self.routes = routes
        self.delay = delay
        self.gate = gate
        self.requests: list[str] = []
        self.accepts: list[str] = []
        self.active = 0
        self.peak = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with server._lock:
                    server.requests.append(self.path)
                    server.accepts.append(self.headers.get("Accept", ""))
                    server.active += 1
                    server.peak = max(server.peak, server.active)
                try:
                    if server.gate is not None:
                        server.gate.wait(60)
                    if server.delay:
                        time.sleep(server.delay)
                    route = server.routes.get(self.path, 404)
                    if isinstance(route, int):
                        self.send_response(route)
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                    else:
                        self.send_response(200)
                        self.send_header("Content-Length", str(len(route)))
                        self.end_headers()
                        self.wfile.write(route)
                finally:
                    with server._lock:
                        server.active -= 1

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    """``T/home/.cache/zuno/skills`` (the §5 cache root); not created."""
    return Path(cache_root(str(tmp_path / "home" / ".cache")))


def snapshot(top: Path) -> set[str]:
    """Every path (file, directory, symlink) under ``top``, without following symlinks."""
    out: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        for n in dirnames + filenames:
            out.add(os.path.join(dirpath, n))
    return out


def assert_only_under(new: set[str], cache_dir: Path) -> None:
    """Every new path is ``cache_dir`` itself or below it."""
    base = str(cache_dir) + os.sep
    outside = sorted(p for p in new if not (p + os.sep).startswith(base))
    assert outside == []


def leftovers(cache_dir: Path) -> list[str]:
    return sorted(n for n in os.listdir(cache_dir) if ".tmp-" in n or ".old-" in n)


# ------------------------------------------------------------------------------------------
# §5 scenarios against a local server
# ------------------------------------------------------------------------------------------


def test_z128_an_index_entry_without_skill_md_is_warned_about_and_never_downloaded(cache: Path) -> None:
    routes = {
        "/index.json": index(
            {"name": "usable", "files": ["SKILL.md", "helper.md"]},
            {"name": "unusable", "files": ["README.md"]},
        ),
        "/usable/SKILL.md": skill_md("usable", "remote"),
        "/usable/helper.md": b"helper\n",
        "/unusable/README.md": b"never fetched\n",
    }
    with Server(routes) as srv:
        result = pull([srv.url], str(cache))
    src = f"{srv.url}/index.json"
    assert result.roots == (str(cache / "usable"),)
    assert (cache / "usable" / "SKILL.md").read_bytes() == skill_md("usable", "remote")
    assert (cache / "usable" / "helper.md").read_bytes() == b"helper\n"
    assert not (cache / "unusable").exists()
    assert result.warnings == (
        CatalogWarning("EntryMissingSkillMd", src, f"skill entry missing SKILL.md: `unusable` in {src}"),
    )
    assert dict(result.origins) == {str(cache / "usable"): (srv.url, None)}
    assert sorted(srv.requests) == ["/index.json", "/usable/SKILL.md", "/usable/helper.md"]
    assert srv.accepts[srv.requests.index("/index.json")] == "application/json"
    assert not (cache / "usable" / VERSION_MARKER).exists()


def test_z129_a_version_change_refreshes_the_cache_and_restamps_it(cache: Path) -> None:
    old = cache / "versioned"
    old.mkdir(parents=True)
    (old / "SKILL.md").write_bytes(skill_md("versioned", "the v1 copy"))
    (old / "stale.md").write_bytes(b"only in v1\n")
    (old / VERSION_MARKER).write_text("v1")
    routes = {
        "/index.json": index({"name": "versioned", "files": ["SKILL.md"], "version": "v2"}),
        "/versioned/SKILL.md": skill_md("versioned", "the v2 copy"),
    }
    with Server(routes) as srv:
        result = pull([srv.url], str(cache))
    assert result.warnings == ()
    assert result.roots == (str(old),)
    assert dict(result.origins) == {str(old): (srv.url, "v2")}
    assert (old / "SKILL.md").read_bytes() == skill_md("versioned", "the v2 copy")
    assert (old / VERSION_MARKER).read_bytes() == b"v2"
    assert not (old / "stale.md").exists()
    assert leftovers(cache) == []
    assert sorted(os.listdir(cache)) == ["versioned"]


def test_z129_a_first_versioned_pull_is_staged_and_stamped(cache: Path) -> None:
    routes = {
        "/index.json": index({"name": "fresh", "files": ["SKILL.md", "ref/notes.md"], "version": "1.0"}),
        "/fresh/SKILL.md": skill_md("fresh", "new"),
        "/fresh/ref/notes.md": b"notes\n",
    }
    with Server(routes) as srv:
        result = pull([srv.url], str(cache))
    assert result.warnings == ()
    assert result.roots == (str(cache / "fresh"),)
    assert (cache / "fresh" / VERSION_MARKER).read_bytes() == b"1.0"
    assert (cache / "fresh" / "ref" / "notes.md").read_bytes() == b"notes\n"
    assert sorted(os.listdir(cache)) == ["fresh"]


def test_z130_a_matching_version_leaves_the_cache_alone(cache: Path) -> None:
    pinned = cache / "pinned"
    pinned.mkdir(parents=True)
    (pinned / "SKILL.md").write_bytes(skill_md("pinned", "already here"))
    (pinned / VERSION_MARKER).write_text("v1")
    routes = {"/index.json": index({"name": "pinned", "files": ["SKILL.md"], "version": "v1"})}
    with Server(routes) as srv:
        result = pull([srv.url], str(cache))
    assert srv.requests == ["/index.json"]
    assert result.warnings == ()
    assert result.roots == (str(pinned),)
    assert (pinned / "SKILL.md").read_bytes() == skill_md("pinned", "already here")


def test_unversioned_entries_download_only_missing_files_in_place(cache: Path) -> None:
    skill = cache / "partial"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_bytes(skill_md("partial", "local copy"))
    routes = {
        "/index.json": index({"name": "partial", "files": ["SKILL.md", "./SKILL.md", "more.md"]}),
        "/partial/SKILL.md": skill_md("partial", "server copy"),
        "/partial/more.md": b"more\n",
    }
    with Server(routes) as srv:
        result = pull([srv.url], str(cache))
    assert srv.requests == ["/index.json", "/partial/more.md"]
    assert result.warnings == ()
    assert (skill / "SKILL.md").read_bytes() == skill_md("partial", "local copy")
    assert (skill / "more.md").read_bytes() == b"more\n"
    assert sorted(os.listdir(skill)) == ["SKILL.md", "more.md"]  # no .part- leftovers


def test_z131_a_404_index_is_warned_about_and_the_load_continues(cache: Path) -> None:
    with Server({}) as srv:
        result = pull([srv.url], str(cache))
    src = f"{srv.url}/index.json"
    assert result == RemotePull((), (CatalogWarning("IndexStatus", src, f"failed to fetch index {src}: HTTP 404"),))
    assert not cache.exists()  # created only when something is downloaded


def test_z132_a_malformed_index_is_warned_about(cache: Path) -> None:
    with Server({"/index.json": b'{"skills":"not an array"}'}) as srv:
        result = pull([srv.url], str(cache))
    src = f"{srv.url}/index.json"
    assert result.roots == ()
    assert result.warnings == (
        CatalogWarning(
            "IndexMalformed",
            src,
            f'failed to decode index {src}: invalid type: string "not an array", expected a sequence'
            " at line 1 column 24",
        ),
    )
    assert not cache.exists()


def test_z132_index_that_is_not_json_is_malformed(cache: Path) -> None:
    with Server({"/index.json": b"<html>nope</html>"}) as srv:
        result = pull([srv.url], str(cache))
    src = f"{srv.url}/index.json"
    assert result.warnings == (
        CatalogWarning("IndexMalformed", src, f"failed to decode index {src}: expected value at line 1 column 1"),
    )


def test_z133_an_unreachable_host_is_warned_about(cache: Path) -> None:
    result = pull([DEAD], str(cache))
    src = f"{DEAD}/index.json"
    assert result.roots == ()
    assert [w.kind for w in result.warnings] == ["IndexUnreachable"]
    assert result.warnings[0].source == src
    assert result.warnings[0].message.startswith(f"failed to fetch index {src}: ")
    assert not cache.exists()


def test_z134_a_hanging_index_is_abandoned_at_the_timeout(cache: Path) -> None:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept_and_hang() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            held.append(conn)  # never answered

    thread = threading.Thread(target=accept_and_hang, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    try:
        started = time.monotonic()
        result = pull([url], str(cache))
        elapsed = time.monotonic() - started
    finally:
        stop.set()
        thread.join(5)
        for conn in held:
            conn.close()
        listener.close()
    src = f"{url}/index.json"
    assert len(held) == 1
    assert 5.0 <= elapsed < 15.0
    assert result.warnings == (CatalogWarning("IndexTimeout", src, f"failed to fetch {src}: exceeded 5s"),)
    assert result.roots == ()


def test_z135_file_downloads_are_concurrent_and_bounded(cache: Path) -> None:
    files = ["SKILL.md"] + [f"part{i}.md" for i in range(1, 16)]
    routes: dict[str, bytes | int] = {"/index.json": index({"name": "wide", "files": files})}
    routes["/wide/SKILL.md"] = skill_md("wide", "many parts")
    for f in files[1:]:
        routes[f"/wide/{f}"] = f"{f}\n".encode()
    with Server(routes, delay=0.12) as srv:
        result = pull([srv.url], str(cache))
    assert result.warnings == ()
    assert result.roots == (str(cache / "wide"),)
    assert len(srv.requests) == 17
    assert 1 < srv.peak <= 8
    assert sorted(os.listdir(cache / "wide")) == sorted(files)


def test_skills_of_one_index_refresh_concurrently_but_at_most_four(cache: Path) -> None:
    names = [f"s{i}" for i in range(6)]
    routes: dict[str, bytes | int] = {
        "/index.json": index(*({"name": n, "files": ["SKILL.md"]} for n in names))
    }
    for n in names:
        routes[f"/{n}/SKILL.md"] = skill_md(n, "d")
    with Server(routes, delay=0.12) as srv:
        result = pull([srv.url], str(cache))
    assert result.roots == tuple(str(cache / n) for n in names)  # index order
    assert 1 < srv.peak <= 4


def test_z137_a_url_with_a_path_prefix_resolves_the_index_beneath_it(cache: Path) -> None:
    routes = {
        "/registry/index.json": index({"name": "nested", "files": ["SKILL.md"]}),
        "/registry/nested/SKILL.md": skill_md("nested", "under a prefix"),
    }
    with Server(routes) as srv:
        result = pull([f"{srv.url}/registry"], str(cache))
    assert result.warnings == ()
    assert result.roots == (str(cache / "nested"),)
    assert srv.requests == ["/registry/index.json", "/registry/nested/SKILL.md"]


def test_z138_one_dead_url_does_not_stop_the_next_one(cache: Path) -> None:
    routes = {
        "/index.json": index({"name": "second", "files": ["SKILL.md"]}),
        "/second/SKILL.md": skill_md("second", "after a dead one"),
    }
    with Server(routes) as srv:
        result = pull([DEAD, srv.url], str(cache))
    assert result.roots == (str(cache / "second"),)
    assert [w.kind for w in result.warnings] == ["IndexUnreachable"]
    assert dict(result.origins) == {str(cache / "second"): (srv.url, None)}


def test_a_failed_file_download_is_a_warning_and_the_rest_still_lands(cache: Path) -> None:
    routes = {
        "/index.json": index({"name": "half", "files": ["SKILL.md", "gone.md"]}),
        "/half/SKILL.md": skill_md("half", "d"),
    }
    with Server(routes) as srv:
        result = pull([srv.url], str(cache))
    src = f"{srv.url}/half/gone.md"
    assert result.warnings == (CatalogWarning("DownloadFailed", src, f"failed to download {src}: HTTP 404"),)
    assert result.roots == (str(cache / "half"),)


def test_a_failed_staging_keeps_the_previous_version(cache: Path) -> None:
    old = cache / "keep"
    old.mkdir(parents=True)
    (old / "SKILL.md").write_bytes(skill_md("keep", "v1"))
    (old / VERSION_MARKER).write_text("v1")
    routes = {
        "/index.json": index({"name": "keep", "files": ["SKILL.md", "missing.md"], "version": "v2"}),
        "/keep/SKILL.md": skill_md("keep", "v2"),
    }
    with Server(routes) as srv:
        result = pull([srv.url], str(cache))
    assert [w.kind for w in result.warnings] == ["DownloadFailed"]
    assert (old / "SKILL.md").read_bytes() == skill_md("keep", "v1")
    assert (old / VERSION_MARKER).read_bytes() == b"v1"
    assert result.roots == (str(old),)
    assert leftovers(cache) == []


def test_a_crash_between_the_two_renames_restores_the_previous_version(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = cache / "swapme"
    old.mkdir(parents=True)
    (old / "SKILL.md").write_bytes(skill_md("swapme", "v1"))
    (old / VERSION_MARKER).write_text("v1")
    routes = {
        "/index.json": index({"name": "swapme", "files": ["SKILL.md"], "version": "v2"}),
        "/swapme/SKILL.md": skill_md("swapme", "v2"),
    }
    real_rename = os.rename
    calls: list[tuple[str, str]] = []

    def flaky_rename(src: str, dst: str, *a: object, **kw: object) -> None:
        calls.append((os.path.basename(src), os.path.basename(dst)))
        if len(calls) == 2:
            raise OSError(5, "Input/output error")
        real_rename(src, dst, *a, **kw)

    monkeypatch.setattr(os, "rename", flaky_rename)
    monkeypatch.setattr(os, "replace", flaky_rename)
    with Server(routes) as srv:
        result = pull([srv.url], str(cache))
    monkeypatch.undo()
    assert len(calls) == 3
    assert calls[0][0] == "swapme" and calls[0][1].startswith("swapme.old-")
    assert calls[1][0].startswith("swapme.tmp-") and calls[1][1] == "swapme"
    assert calls[2] == (calls[0][1], "swapme")
    assert result.warnings == (
        CatalogWarning("DownloadFailed", "swapme", "failed to download swapme: Input/output error (os error 5)"),
    )
    assert (old / "SKILL.md").read_bytes() == skill_md("swapme", "v1")
    assert (old / VERSION_MARKER).read_bytes() == b"v1"
    assert result.roots == (str(old),)
    assert leftovers(cache) == []


def test_oversized_files_are_refused_without_writing(cache: Path) -> None:
    routes = {
        "/index.json": index({"name": "big", "files": ["SKILL.md", "huge.bin"]}),
        "/big/SKILL.md": skill_md("big", "d"),
        "/big/huge.bin": b"x" * (remote.MAX_FILE_BYTES + 1),
    }
    with Server(routes) as srv:
        result = pull([srv.url], str(cache))
    src = f"{srv.url}/big/huge.bin"
    assert result.warnings == (
        CatalogWarning(
            "DownloadFailed", src, f"failed to download {src}: response body exceeds {remote.MAX_FILE_BYTES} bytes"
        ),
    )
    assert not (cache / "big" / "huge.bin").exists()
    assert result.roots == (str(cache / "big"),)


def test_the_pull_wide_file_budget_bounds_a_hostile_index(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(remote, "MAX_PULL_FILES", 3)
    files = ["SKILL.md", "a.md", "b.md", "c.md"]
    routes: dict[str, bytes | int] = {"/index.json": index({"name": "many", "files": files})}
    for f in files:
        routes[f"/many/{f}"] = b"x\n"
    with Server(routes) as srv:
        result = pull([srv.url], str(cache))
    assert [w.kind for w in result.warnings] == ["DownloadFailed"]
    assert "download budget of 3 files for this pull is exhausted" in result.warnings[0].message
    assert len(os.listdir(cache / "many")) == 3


# ------------------------------------------------------------------------------------------
# Hostile indexes: nothing is ever written outside the cache
# ------------------------------------------------------------------------------------------


def test_unsafe_names_and_paths_are_refused_and_nothing_lands_outside_the_cache(
    tmp_path: Path, cache: Path
) -> None:
    config = tmp_path / "home" / ".config" / "zuno"
    config.mkdir(parents=True)
    (config / "zuno.json").write_text("{}")
    cache.parent.mkdir(parents=True)
    bad_names = ["..", ".", "", "../escape", "../../../.config/zuno", "/etc/zuno", "C:evil", "a\\b", "x/y"]
    bad_files = ["../../outside.md", "/etc/passwd", "C:evil", "SKILL.md:$DATA", "a\\..\\..\\x.md", "sub/../../y.md", "a/.."]
    entries = [{"name": n, "files": ["SKILL.md"]} for n in bad_names]
    entries.append({"name": "good", "files": ["SKILL.md", *bad_files, "sub/../ok.md"]})
    routes: dict[str, bytes | int] = {"/index.json": index(*entries)}
    routes["/good/SKILL.md"] = skill_md("good", "d")
    routes["/good/ok.md"] = b"ok\n"
    # Serve content where a naive join would fetch it, so a missing check would write something.
    for p in ["/outside.md", "/y.md", "/x.md", "/SKILL.md", "/escape/SKILL.md", "/etc/zuno/SKILL.md"]:
        routes[p] = b"pwned\n"
    before = snapshot(tmp_path)
    with Server(routes) as srv:
        result = pull([srv.url], str(cache))
    after = snapshot(tmp_path)
    src = f"{srv.url}/index.json"
    name_warnings = [
        CatalogWarning("UnsafeIndexName", src, f"skill entry name `{n}` is not a single safe directory name in {src}")
        for n in bad_names
    ]
    path_warnings = [
        CatalogWarning("UnsafeIndexPath", "good", f"skill entry `good` lists a file outside its cache directory: {f}")
        for f in sorted(bad_files)
    ]
    assert result.warnings == tuple(name_warnings + path_warnings)
    assert result.roots == (str(cache / "good"),)
    new = after - before
    assert_only_under(new, cache)
    assert sorted(os.path.relpath(p, cache) for p in new) == [".", "good", "good/SKILL.md", "good/ok.md"]
    assert (config / "zuno.json").read_text() == "{}"
    assert sorted(srv.requests) == ["/good/SKILL.md", "/good/ok.md", "/index.json"]


def test_z145_an_entry_reduced_to_nothing_by_the_traversal_check_is_dropped(cache: Path) -> None:
    files, warnings = remote._safe_files("bad", ["../SKILL.md"])
    assert files == []
    assert warnings == [
        CatalogWarning("UnsafeIndexPath", "bad", "skill entry `bad` lists a file outside its cache directory: ../SKILL.md")
    ]
    # Through the pull, the SKILL.md check on the raw list drops it first: still one warning.
    with Server({"/index.json": index({"name": "bad", "files": ["../SKILL.md"]})}) as srv:
        result = pull([srv.url], str(cache))
    assert [w.kind for w in result.warnings] == ["EntryMissingSkillMd"]
    assert srv.requests == ["/index.json"]
    assert not cache.exists()


def test_a_symlinked_skill_directory_in_the_cache_is_not_followed(tmp_path: Path, cache: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    cache.mkdir(parents=True)
    (cache / "evil").symlink_to(outside, target_is_directory=True)
    routes = {
        "/index.json": index({"name": "evil", "files": ["SKILL.md"]}),
        "/evil/SKILL.md": skill_md("evil", "d"),
    }
    with Server(routes) as srv:
        result = pull([srv.url], str(cache))
    assert os.listdir(outside) == []
    assert result.roots == ()
    assert [(w.kind, w.source) for w in result.warnings] == [("DownloadFailed", "evil")]
    assert "refusing to follow a symlink inside the cache" in result.warnings[0].message
    assert srv.requests == ["/index.json"]


def test_a_symlinked_skill_directory_is_not_swapped_away_by_a_versioned_entry(
    tmp_path: Path, cache: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_text("keep")
    cache.mkdir(parents=True)
    (cache / "evil").symlink_to(outside, target_is_directory=True)
    routes = {
        "/index.json": index({"name": "evil", "files": ["SKILL.md"], "version": "v9"}),
        "/evil/SKILL.md": skill_md("evil", "d"),
    }
    with Server(routes) as srv:
        result = pull([srv.url], str(cache))
    assert sorted(os.listdir(outside)) == ["precious.txt"]
    assert (cache / "evil").is_symlink()
    assert result.roots == ()
    assert [w.kind for w in result.warnings] == ["DownloadFailed"]


def test_symlinked_subdirectories_and_files_in_the_cache_are_not_followed(tmp_path: Path, cache: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    skill = cache / "ok"
    skill.mkdir(parents=True)
    (skill / "sub").symlink_to(outside, target_is_directory=True)
    (skill / "planted.md").symlink_to(outside / "created-through-link.md")  # dangling
    routes = {
        "/index.json": index({"name": "ok", "files": ["SKILL.md", "sub/x.md", "planted.md"]}),
        "/ok/SKILL.md": skill_md("ok", "d"),
        "/ok/sub/x.md": b"x\n",
        "/ok/planted.md": b"p\n",
    }
    before = snapshot(tmp_path)
    with Server(routes) as srv:
        result = pull([srv.url], str(cache))
    new = snapshot(tmp_path) - before
    assert_only_under(new, cache)
    assert os.listdir(outside) == []
    assert [(w.kind, w.source) for w in result.warnings] == [
        ("DownloadFailed", f"{srv.url}/ok/planted.md"),
        ("DownloadFailed", f"{srv.url}/ok/sub/x.md"),
    ]
    assert result.roots == (str(skill),)


# ------------------------------------------------------------------------------------------
# Z139–Z147 and Z031: pure rules
# ------------------------------------------------------------------------------------------


def test_z031_remote_cache_root_follows_xdg_cache_home(tmp_path: Path) -> None:
    assert cache_root(str(tmp_path / "home" / ".cache")) == str(tmp_path / "home" / ".cache" / "zuno" / "skills")


def test_cache_root_is_home_cache_on_every_os_not_the_platform_folder() -> None:
    # Z-T: $XDG_CACHE_HOME/zuno, else $HOME/.cache/zuno, also on macOS and Windows
    env = Environment.from_mapping({"HOME": "/Users/u"})
    assert cache_root(env.xdg_cache_home) == "/Users/u/.cache/zuno/skills"


def test_z139_trailing_slash_is_added_once() -> None:
    assert remote.with_trailing_slash("https://h/sub") == "https://h/sub/"
    assert remote.with_trailing_slash("https://h/sub/") == "https://h/sub/"
    assert index_url("https://h/sub/") == "https://h/sub/index.json"


def test_z140_cached_skill_versions_use_the_zuno_marker() -> None:
    assert VERSION_MARKER == ".zuno-version"


def test_z141_index_url_is_resolved_under_the_base_path() -> None:
    assert index_url("https://h/sub") == "https://h/sub/index.json"
    assert file_url("https://h/sub", "alpha", "SKILL.md") == "https://h/sub/alpha/SKILL.md"
    assert file_url("https://h/sub/", "alpha", "./a/../SKILL.md") == "https://h/sub/alpha/SKILL.md"
    assert file_url("https://h", "with space", "q?#.md") == "https://h/with%20space/q%3F%23.md"
    with pytest.raises(ValueError):
        file_url("https://h", "alpha", "../x")


@pytest.mark.parametrize("path", ["../escape.md", "a/../../escape.md", "/etc/passwd"])
def test_z142_traversal_paths_are_rejected(path: str) -> None:
    assert safe_file(path) is False


@pytest.mark.parametrize("path", ["SKILL.md", "./SKILL.md", "scripts/run.sh", "a/../b.md"])
def test_z142_contained_paths_are_accepted(path: str) -> None:
    assert safe_file(path) is True


@pytest.mark.parametrize("path", ["C:evil", "C:\\Windows\\Temp\\evil", "SKILL.md:$DATA", "nested/a:b"])
def test_z143_drive_prefixed_and_stream_entry_files_are_rejected_on_every_platform(path: str) -> None:
    assert safe_file(path) is False


@pytest.mark.parametrize("path", ["", ".", "a/..", "a\\..\\..\\x", "a\x00b", None, 3])
def test_paths_naming_nothing_or_climbing_through_backslashes_are_rejected(path: object) -> None:
    assert safe_file(path) is False


@pytest.mark.parametrize("name", ["alpha", "with space", "a.b", "..hidden"])
def test_z144_single_segment_names_are_accepted(name: str) -> None:
    assert safe_name(name) is True


@pytest.mark.parametrize(
    "name",
    [
        "",
        ".",
        "..",
        "../escape",
        "../../../.config/zuno",
        "nested/skill",
        "nested\\skill",
        "/etc/zuno",
        "C:evil",
        "C:\\Windows\\Temp",
        "skill:$DATA",
        "nul\x00byte",
        None,
    ],
)
def test_z144_only_a_single_segment_entry_name_is_accepted(name: object) -> None:
    assert safe_name(name) is False


def test_z146_index_document_tolerates_unknown_keys_and_missing_version() -> None:
    entries = parse_index('{"skills":[{"name":"a","files":["SKILL.md"],"extra":1}],"meta":"x"}')
    assert entries == (remote.IndexEntry(name="a", files=("SKILL.md",), version=None),)
    assert parse_index('{"skills":[{"name":"b","files":[],"version":null}]}')[0].version is None
    assert parse_index('{"skills":[{"name":"c","files":["SKILL.md"],"version":"2"}]}')[0].version == "2"


# Every way an index can be malformed, with the exact text Zuno's
# `serde_json::from_str::<IndexDocument>(&body)` gives (serde_json 1.0.150; Zuno locks 1.0.151).
# Each expectation was worked out by hand from the source, not from skillshelf's output, then
# checked against serde_json 1.0.150 / serde 1.0.228 built from source (same text for every row):
# - wording: serde_json src/error.rs 349-387 (`ErrorCode` Display), 405-417 (`<reason> at line L
#   column C`), 440-479 (`invalid type: <unexp>, expected <exp>`; `null`; floats via zmij);
#   serde_core src/de/mod.rs 401-425 (`Unexpected` Display: `string {:?}`, `sequence`, `map`),
#   289-298 (missing / duplicate field), 245-247 (invalid length); serde_derive src/de.rs 451-470
#   (`struct X with N element(s)`), 766-839 (missing field vs default), src/de/struct_.rs 269
#   (duplicate checked before the value), 289 (unknown keys read as IgnoredAny).
# - positions: src/read.rs 421-431 (`position_of_index`: line = 1 + newlines before the line
#   start, column = bytes from the line start), 573-580 (`position` = index, `peek_position` =
#   index + 1 capped at the length); src/de.rs 241-252 (`error` / `peek_error`), 441
#   (`fix_position`: serde's own errors take the index where serde_json sees them), 1737-1764 and
#   1820-1866 (the end `]` / `}` is read before that, even after a failure).
# Columns below count from 0 at the line start to the index the rule names: "after X" is the
# index just past X (`error`), "at X" is X's index + 1 (`peek_error`).
INDEX_ERRORS = [
    # -- syntax: end of input (de.rs 1744, 1941, 1994; read.rs 249) --
    ("empty", "", "EOF while parsing a value at line 1 column 0"),
    ("eof value", '{"skills":', "EOF while parsing a value at line 1 column 10"),
    ("eof value after comma", '{"skills":[],', "EOF while parsing a value at line 1 column 13"),
    ("eof list", '{"skills":[', "EOF while parsing a list at line 1 column 11"),
    ("eof object", '{"skills":[]', "EOF while parsing an object at line 1 column 12"),
    ("eof object in ignored value", '{"skills":[],"x":{"y":1', "EOF while parsing an object at line 1 column 23"),
    ("eof string", '{"sk', "EOF while parsing a string at line 1 column 4"),
    ("eof string in a short \\u", '{"skills":"\\u12', "EOF while parsing a string at line 1 column 15"),
    ("eof after a decimal point", '{"skills":1.', "EOF while parsing a value at line 1 column 12"),
    ("eof inside null", '{"skills":nu', "EOF while parsing a value at line 1 column 12"),
    # -- syntax: unexpected characters --
    ("expected value (not JSON)", "<html>nope</html>", "expected value at line 1 column 1"),
    ("expected value (NaN)", '{"skills":[NaN]}', "expected value at line 1 column 12"),
    ("expected value in ignored value", '{"skills":[],"x":[1,]}', "expected value at line 1 column 21"),
    ("expected ident", '{"skills":nul}', "expected ident at line 1 column 14"),
    ("expected , or ]", '{"skills":[{"name":"a","files":["x" "y"]}]}', "expected `,` or `]` at line 1 column 37"),
    ("expected , or }", '{"skills":[] "x":1}', "expected `,` or `}` at line 1 column 14"),
    ("expected :", '{"skills" []}', "expected `:` at line 1 column 11"),
    ("key must be a string", "{1:2}", "key must be a string at line 1 column 2"),
    ("key must be a string after a comma", '{"skills":[],1}', "key must be a string at line 1 column 14"),
    ("trailing comma in an object", '{"skills":[],}', "trailing comma at line 1 column 14"),
    ("trailing comma in a list", '{"skills":[{"name":"a","files":["x",]}]}', "trailing comma at line 1 column 37"),
    ("trailing characters", '{"skills":[]}x', "trailing characters at line 1 column 14"),
    ("trailing characters after whitespace", '{"skills":[]} {}', "trailing characters at line 1 column 15"),
    # -- syntax: strings (read.rs 218-274 parse_str, 598-619 ignore_str, 874-1023 escapes) --
    ("invalid escape", '{"skills":[{"name":"\\x","files":[]}]}', "invalid escape at line 1 column 22"),
    ("invalid hex escape", '{"skills":[{"name":"\\u12G4","files":[]}]}', "invalid escape at line 1 column 26"),
    ("control character (after it)", '{"skills":[{"name":"a\tb","files":[]}]}',
     "control character (\\u0000-\\u001F) found while parsing a string at line 1 column 22"),
    ("control character newline (next line, column 0)", '{"skills":"a\nb"}',
     "control character (\\u0000-\\u001F) found while parsing a string at line 2 column 0"),
    ("control character in an ignored string (at it)", '{"x":"a\tb","skills":[]}',
     "control character (\\u0000-\\u001F) found while parsing a string at line 1 column 7"),
    ("lone trailing surrogate", '{"skills":[{"name":"\\udc00","files":[]}]}',
     "lone leading surrogate in hex escape at line 1 column 26"),
    ("leading surrogate then no trailing one", '{"skills":[{"name":"\\ud800\\u0041","files":[]}]}',
     "lone leading surrogate in hex escape at line 1 column 32"),
    ("lone surrogate in an unknown key (keys are checked strings)", '{"skills":[],"\\ud800":1}',
     "unexpected end of hex escape at line 1 column 21"),
    ("leading surrogate alone", '{"skills":[{"name":"\\ud800","files":[]}]}',
     "unexpected end of hex escape at line 1 column 27"),
    # -- syntax: numbers (de.rs 462-675) --
    ("invalid number: lone minus", '{"skills":-}', "invalid number at line 1 column 12"),
    ("invalid number: leading zero", '{"skills":01}', "invalid number at line 1 column 12"),
    ("invalid number: no fraction digit", '{"skills":1.}', "invalid number at line 1 column 13"),
    ("invalid number: no exponent digit", '{"skills":1e}', "invalid number at line 1 column 13"),
    ("invalid number in an ignored value", '{"x":-a,"skills":[]}', "invalid number at line 1 column 7"),
    ("number out of range", '{"skills":1e400}', "number out of range at line 1 column 15"),
    ("number out of range by multiplication", '{"skills":1.8e308}', "number out of range at line 1 column 17"),
    # -- type errors: the value read, then positioned after it (de.rs 269-336) --
    ("string", '{"skills":"not an array"}', 'invalid type: string "not an array", expected a sequence at line 1 column 24'),
    ("null", '{"skills":null}', "invalid type: null, expected a sequence at line 1 column 14"),
    ("true", '{"skills":true}', "invalid type: boolean `true`, expected a sequence at line 1 column 14"),
    ("false", '{"skills":false}', "invalid type: boolean `false`, expected a sequence at line 1 column 15"),
    ("integer", '{"skills":5}', "invalid type: integer `5`, expected a sequence at line 1 column 11"),
    ("negative integer", '{"skills":-5}', "invalid type: integer `-5`, expected a sequence at line 1 column 12"),
    ("u64::MAX", '{"skills":18446744073709551615}',
     "invalid type: integer `18446744073709551615`, expected a sequence at line 1 column 30"),
    ("i64::MIN", '{"skills":-9223372036854775808}',
     "invalid type: integer `-9223372036854775808`, expected a sequence at line 1 column 30"),
    ("past u64::MAX: a float", '{"skills":18446744073709551616}',
     "invalid type: floating point `1.8446744073709552e+19`, expected a sequence at line 1 column 30"),
    ("below i64::MIN: a float", '{"skills":-9223372036854775809}',
     "invalid type: floating point `-9.223372036854776e+18`, expected a sequence at line 1 column 30"),
    ("float", '{"skills":2.5}', "invalid type: floating point `2.5`, expected a sequence at line 1 column 13"),
    ("minus zero is a float", '{"skills":-0}', "invalid type: floating point `-0.0`, expected a sequence at line 1 column 12"),
    ("exponent gives a whole float", '{"skills":1e2}', "invalid type: floating point `100.0`, expected a sequence at line 1 column 13"),
    ("float, zmij exponent form", '{"skills":1e16}', "invalid type: floating point `1e+16`, expected a sequence at line 1 column 14"),
    ("float, zmij plain down to 1e-5", '{"skills":0.00001}',
     "invalid type: floating point `0.00001`, expected a sequence at line 1 column 17"),
    ("float, zmij negative exponent", '{"skills":1.5e-7}', "invalid type: floating point `1.5e-7`, expected a sequence at line 1 column 16"),
    ("float underflows to zero", '{"skills":1e-400}', "invalid type: floating point `0.0`, expected a sequence at line 1 column 16"),
    ("map", '{"skills":{}}', "invalid type: map, expected a sequence at line 1 column 10"),
    ("string with Rust Debug escapes", '{"skills":"tab\\there \\u001b \u00e9\\u0301 \'q\' \\"d\\" \\\\"}',
     'invalid type: string "tab\\there \\u{1b} \u00e9\\u{301} \'q\' \\"d\\" \\\\", expected a sequence at line 1 column 50'),
    ("entry not an object", '{"skills":["x"]}', 'invalid type: string "x", expected struct IndexEntry at line 1 column 14'),
    ("name not a string", '{"skills":[{"name":1,"files":[]}]}', "invalid type: integer `1`, expected a string at line 1 column 20"),
    ("file not a string", '{"skills":[{"name":"a","files":[1]}]}', "invalid type: integer `1`, expected a string at line 1 column 33"),
    ("files not a list", '{"skills":[{"name":"a","files":"SKILL.md"}]}',
     'invalid type: string "SKILL.md", expected a sequence at line 1 column 41'),
    ("version not a string", '{"skills":[{"name":"a","files":[],"version":2}]}',
     "invalid type: integer `2`, expected a string at line 1 column 45"),
    ("document not an object", "5", "invalid type: integer `5`, expected struct IndexDocument at line 1 column 1"),
    ("document a string", '"x"', 'invalid type: string "x", expected struct IndexDocument at line 1 column 3'),
    ("line and byte column on a later line", '{\n  "skills": [\n    {"name": 1}\n  ]\n}',
     "invalid type: integer `1`, expected a string at line 3 column 14"),
    ("column counts UTF-8 bytes", '{"\u00e9":0,"skills":5}', "invalid type: integer `5`, expected a sequence at line 1 column 18"),
    # -- serde's own errors: positioned after the closing bracket or the key (fix_position) --
    ("missing skills", "{}", "missing field `skills` at line 1 column 2"),
    ("missing skills, whitespace before }", "{ }", "missing field `skills` at line 1 column 3"),
    ("missing name", '{"skills":[{"files":[]}]}', "missing field `name` at line 1 column 23"),
    ("missing files", '{"skills":[{"name":"a"}]}', "missing field `files` at line 1 column 23"),
    ("missing name before files", '{"skills":[{}]}', "missing field `name` at line 1 column 13"),
    ("duplicate skills", '{"skills":[],"skills":[]}', "duplicate field `skills` at line 1 column 21"),
    ("duplicate skills, whitespace after the key", '{"skills":[],"skills" :[]}', "duplicate field `skills` at line 1 column 22"),
    ("duplicate name", '{"skills":[{"name":"a","name":"b","files":[]}]}', "duplicate field `name` at line 1 column 29"),
    ("duplicate version (null counts)", '{"skills":[{"name":"a","files":[],"version":null,"version":"2"}]}',
     "duplicate field `version` at line 1 column 58"),
    # -- a struct read from an array of its fields (serde_derive visit_seq) --
    ("empty array for the document", "[]", "invalid length 0, expected struct IndexDocument with 1 element at line 1 column 2"),
    ("empty array for an entry", '{"skills":[[]]}', "invalid length 0, expected struct IndexEntry with 3 elements at line 1 column 13"),
    ("one field for an entry", '{"skills":[["a"]]}', "invalid length 1, expected struct IndexEntry with 3 elements at line 1 column 16"),
    ("extra element after the document's field", "[[], 1]", "trailing characters at line 1 column 6"),
    ("trailing comma after the document's field", "[[],]", "trailing comma at line 1 column 5"),
    ("entry field of the wrong type", "[[[1]]]", "invalid type: integer `1`, expected a string at line 1 column 4"),
]


@pytest.mark.parametrize(("text", "message"), [row[1:] for row in INDEX_ERRORS], ids=[row[0] for row in INDEX_ERRORS])
def test_z146_a_malformed_index_is_refused_in_serde_json_s_words(text: str, message: str) -> None:
    with pytest.raises(IndexDecodeError) as info:
        parse_index(text)
    assert str(info.value) == message


E = remote.IndexEntry

INDEX_ACCEPTED = [
    ("whitespace around", ' \t\r\n{"skills":[]}\n', ()),
    ("an entry as an array of its fields", '[[["a",["SKILL.md"]]]]', (E("a", ("SKILL.md",)),)),
    ("an entry array with its version", '{"skills":[["a",["SKILL.md"],"1"]]}', (E("a", ("SKILL.md",), "1"),)),
    ("escapes and a surrogate pair", '{"skills":[{"name":"\\ud83d\\ude00\\n","files":["a\\/b"]}]}',
     (E("\U0001f600\n", ("a/b",)),)),
    # ignored values are only checked for syntax (de.rs 1102-1215): no depth limit, no number
    # range, no surrogate pairing, repeated unknown keys allowed
    ("deeply nested unknown value", '{"x":' + "[" * 1000 + "]" * 1000 + ',"skills":[]}', ()),
    ("unknown value with a lone surrogate", '{"skills":[],"x":"\\ud800"}', ()),
    ("unknown value out of range", '{"skills":[],"x":1e999999999999}', ()),
    ("unknown key twice", '{"x":1,"skills":[],"x":{"y":[true,false,null,-0.5e-3]}}', ()),
]


@pytest.mark.parametrize(("text", "entries"), [row[1:] for row in INDEX_ACCEPTED], ids=[row[0] for row in INDEX_ACCEPTED])
def test_z146_documents_serde_json_accepts_are_read(text: str, entries: tuple[remote.IndexEntry, ...]) -> None:
    assert parse_index(text) == entries


@pytest.mark.parametrize(
    ("body", "text"),
    [
        (b'\xef\xbb\xbf{"skills":[]}', '{"skills":[]}'),
        ('\ufeff{"skills":[]}'.encode("utf-16-le"), '{"skills":[]}'),
        ('\ufeff{"skills":[]}'.encode("utf-16-be"), '{"skills":[]}'),
        (b'{"skills":"\xff"}', '{"skills":"\ufffd"}'),
        (b'{"skills":"\xf0\x9f\x98"}', '{"skills":"\ufffd"}'),
    ],
)
def test_the_index_body_is_decoded_like_reqwest_text(body: bytes, text: str) -> None:
    assert remote.index_text(body) == text


def test_z132_an_index_with_invalid_utf8_is_malformed_at_the_replacement_character(cache: Path) -> None:
    # reqwest's text() turns the bad byte into U+FFFD (3 bytes of UTF-8), then serde_json reads it
    with Server({"/index.json": b'{"skills":"\xff"}'}) as srv:
        result = pull([srv.url], str(cache))
    src = f"{srv.url}/index.json"
    assert result.warnings == (
        CatalogWarning(
            "IndexMalformed", src,
            f'failed to decode index {src}: invalid type: string "\ufffd", expected a sequence at line 1 column 15',
        ),
    )


def test_z146_an_index_with_a_byte_order_mark_is_read(cache: Path) -> None:
    routes = {
        "/index.json": b"\xef\xbb\xbf" + index({"name": "bom", "files": ["SKILL.md"]}),
        "/bom/SKILL.md": skill_md("bom", "Behind a byte-order mark."),
    }
    with Server(routes) as srv:
        result = pull([srv.url], str(cache))
    assert result.warnings == ()
    assert result.roots == (str(cache / "bom"),)


def test_z147_staging_and_backup_are_siblings_of_the_root() -> None:
    assert sibling("/cache/skills/alpha", ".tmp-1") == "/cache/skills/alpha.tmp-1"
    assert sibling("/cache/skills/alpha", ".old-1") == "/cache/skills/alpha.old-1"


def test_no_urls_means_no_work(cache: Path) -> None:
    assert pull([], str(cache)) == RemotePull()
    assert not cache.exists()


def test_a_url_that_is_not_a_url_is_malformed(cache: Path) -> None:
    result = pull(["not a url", "ftp://h/x"], str(cache))
    assert result.warnings == (
        CatalogWarning("IndexMalformed", "not a url", "failed to decode index not a url: relative URL without a base"),
        CatalogWarning(
            "IndexUnreachable",
            "ftp://h/x/index.json",
            "failed to fetch index ftp://h/x/index.json: URL scheme is not allowed: ftp (only http and https)",
        ),
    )


def test_lone_surrogates_in_names_and_files_make_the_whole_index_malformed(cache: Path) -> None:
    # serde_json refuses an unpaired \\u escape in any string it reads into a String (read.rs 900-960)
    doc = (
        b'{"skills":[{"name":"odd","files":["SKILL.md","x\\udc80"]},'
        b'{"name":"\\udc80","files":["SKILL.md"]}]}'
    )
    routes = {"/index.json": doc, "/odd/SKILL.md": skill_md("odd", "d")}
    with Server(routes) as srv:
        result = pull([srv.url], str(cache))
    src = f"{srv.url}/index.json"
    assert result == RemotePull((), (
        CatalogWarning("IndexMalformed", src,
                       f"failed to decode index {src}: lone leading surrogate in hex escape at line 1 column 53"),
    ))
    assert not cache.exists()


def test_a_lone_surrogate_passed_as_text_is_still_an_unsafe_name() -> None:
    # parse_index takes any str; one holding a lone surrogate never reaches the disk
    assert parse_index('{"skills":[{"name":"\udc80","files":["SKILL.md"]}]}') == (
        remote.IndexEntry("\udc80", ("SKILL.md",)),
    )
    assert safe_name("\udc80") is False


def test_a_file_url_is_refused_as_an_unsupported_scheme(cache: Path) -> None:
    res = pull(["file:///etc"], str(cache))
    assert [(w.kind, w.message) for w in res.warnings] == [
        ("IndexUnreachable", "failed to fetch index file:///etc/index.json: URL scheme is not allowed: file (only http and https)")
    ]
    assert not cache.exists()


def test_a_directory_entry_in_files_is_warned_about_not_dropped(cache: Path) -> None:
    routes = {
        "/index.json": index({"name": "d", "files": ["SKILL.md", "refs/"]}),
        "/d/SKILL.md": skill_md("d", "x"),
    }
    with Server(routes) as srv:
        res = pull([srv.url], str(cache))
    assert [(w.kind, w.source, w.message) for w in res.warnings] == [
        ("IndexPathNotAFile", "d", "skill entry `d` lists a directory, not a file: refs/; list the files inside it")
    ]
    assert (cache / "d" / "SKILL.md").is_file()
