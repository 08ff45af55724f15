"""Remote skill indexes: the ``skills.urls[]`` pull (SPEC R1–R3, conformance §5 Z128–Z147).

For each configured URL, in order (SPEC R1):

1. ``GET <url>/index.json`` (a missing trailing ``/`` is added to the base first, Z139/Z141)
   with ``Accept: application/json`` and a per-request time limit (5 s by default). The document
   is ``{"skills": [{"name", "files": [...], "version"?}]}``; unknown keys are ignored (Z146).
2. Entries are checked in order: the name must be one safe directory segment (SPEC R2, Z144,
   warning ``UnsafeIndexName``), then ``files`` must list exactly ``"SKILL.md"`` (Z128, warning
   ``EntryMissingSkillMd``). Neither kind of entry downloads anything.
3. File paths that are absolute, contain ``:`` or climb out with ``..`` are dropped with an
   ``UnsafeIndexPath`` warning (Z142, Z143, Z145).
4. A surviving entry downloads ``<url>/<name>/<file>`` into ``<cache>/<name>/<file>`` (SPEC R3).
   With no ``version``, or a cached ``.zuno-version`` equal to it, missing files are downloaded
   in place and an existing file is never re-downloaded (Z130). Otherwise the skill is staged in
   the sibling ``<name>.tmp-<uuid>``, which must collect no warning and hold a ``SKILL.md``; the
   stamp ``.zuno-version`` (the version, no newline) is written into it, the current directory is
   renamed aside to ``<name>.old-<uuid>``, staging is renamed into place and the old copy is
   deleted; when the second rename fails the old copy is renamed back. The staging directory is
   always removed (Z129, Z147).
5. A pulled directory counts only when ``<cache>/<name>/SKILL.md`` exists.

Concurrency: 4 skills per index, 8 files per skill (Z135); URLs are processed one after the
other and a dead URL never stops the next one (Z138). Every failure is a
:class:`~skillshelf.core.model.CatalogWarning` with Zuno's variant name as ``kind`` and Zuno's
display text (conformance §0.3); nothing here raises for bad remote input, so the catalog
always loads.

Hardening beyond Zuno (the index is untrusted input, SPEC X1). None of it changes what a
well-formed index produces:

- No file or directory is ever created outside ``cache_dir``: every destination is built from
  validated segments and checked component-wise against the normalised cache directory, and a
  symlink found at any component *inside* the cache (the skill directory, a sub-directory or the
  file itself) is refused with a ``DownloadFailed`` warning instead of being followed. Files are
  opened with ``O_EXCL | O_NOFOLLOW``. (Symlinks *above* ``cache_dir`` are the user's business
  and are followed.)
- Downloads are size-bounded: :data:`MAX_FILE_BYTES` per file and for the index document, and
  :data:`MAX_PULL_BYTES` / :data:`MAX_PULL_FILES` for one :func:`pull` call, so a hostile server
  cannot fill the disk.
- The time limit is a wall-clock deadline for the whole request (connection, headers and body,
  :data:`REMOTE_TIMEOUT`): a server that trickles its headers or its body is abandoned when it
  passes. The whole :func:`pull` has a deadline too (:data:`PULL_DEADLINE`), after which every
  unfinished index is abandoned with a ``PullDeadline`` warning; :func:`pull` can be cancelled
  (``cancel``) and runs in its own daemon thread, so nothing waits on it past its deadline and a
  process can always exit.
- One index yields at most :data:`MAX_INDEX_ENTRIES` skills and :data:`MAX_INDEX_FILES` files
  (the rest: one ``IndexTruncated`` warning); more than :data:`WARNINGS_SHOWN` warnings of one
  kind from one index are folded into one that says how many were left out.
- ``\\`` in a file path is read as a separator (like the URL parser Zuno uses for the request),
  so ``a\\..\\..\\x`` climbs out and is refused; NUL characters are refused in names and files;
  a file path that names nothing (``a/..``) is refused.
- File requests percent-encode the name and path, so ``#`` or ``?`` in a name cannot change the
  request target; duplicate file spellings (``SKILL.md`` / ``./SKILL.md``) download once.
- In-place downloads are written to a ``.part-<uuid>`` file and hard-linked into place, so an
  interrupted download never leaves a truncated file that would then never be re-fetched.
- A skill directory that is itself a symlink is never reported as pulled.

Units: sizes are bytes, times are seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import stat
import threading
import time
import types
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from skillshelf.core import serdejson
from skillshelf.core.fileread import read_regular
from skillshelf.core.model import CatalogWarning

if TYPE_CHECKING:
    import httpx

log = logging.getLogger(__name__)


def _httpx() -> types.ModuleType:
    """httpx, imported on first use: importing it pulls in rich/click through its CLI module, which
    the pure core must not load unless a remote pull actually happens."""
    import httpx

    return httpx


#: The stamp file recording the ``version`` a cached skill was built from (Z140).
VERSION_MARKER = ".zuno-version"
#: The file an index entry must list to be usable (Z128).
SKILL_FILENAME = "SKILL.md"
#: Skills of one index refreshed at once (Z135).
SKILL_CONCURRENCY = 4
#: Files of one skill downloaded at once (Z135).
FILE_CONCURRENCY = 8
#: Default per-request time limit in seconds (Z134).
REMOTE_TIMEOUT = 5.0
#: Largest accepted index document or skill file, in bytes (4 MiB, Zuno's document maximum).
MAX_FILE_BYTES = 4 * 1024 * 1024
#: Total bytes one :func:`pull` call may download (index documents included).
MAX_PULL_BYTES = 64 * 1024 * 1024
#: Total files one :func:`pull` call may download.
MAX_PULL_FILES = 4096
#: Longest one :func:`pull` call may take, in seconds (skillshelf's limit; Zuno has only the
#: per-request one): after it, unfinished indexes are abandoned with a ``PullDeadline`` warning.
PULL_DEADLINE = 30.0
#: Skills pulled from one index at most (skillshelf's limit): the rest is one ``IndexTruncated`` warning.
MAX_INDEX_ENTRIES = 1000
#: Files pulled from one index at most (skillshelf's limit), counted over its skills in index order.
MAX_INDEX_FILES = 2000
#: Warnings of one kind kept per index; the rest are folded into one that counts them.
WARNINGS_SHOWN = 20
#: How often a running pull checks its ``cancel`` event, in seconds.
CANCEL_CHECK = 0.05

_CHUNK = 64 * 1024
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)


# --------------------------------------------------------------------------------------------
# Public result type
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RemotePull:
    """What :func:`pull` produced (SPEC R1–R3).

    ``roots``: absolute skill directories ``<cache_dir>/<name>`` that hold a ``SKILL.md``, one
    per pulled skill, in URL order then index order, without duplicates. Discovery scans each as
    ``**/SKILL.md`` with provenance ``remote`` (D1 row 6). Per-skill directories (not the cache
    root) so that stale skills left in the cache by an older index are not picked up.
    ``warnings``: every failure, in URL order, then index order (see :func:`pull`).
    ``origins``: skill directory → ``(configured url, index version or None)`` for every entry
    in ``roots``; when two URLs list the same name, the later pull wins.
    """

    roots: tuple[str, ...] = ()
    warnings: tuple[CatalogWarning, ...] = ()
    origins: Mapping[str, tuple[str, str | None]] = field(
        default_factory=lambda: types.MappingProxyType({}), compare=False, hash=False
    )


@dataclass(frozen=True)
class IndexEntry:
    """One ``skills[]`` entry of an ``index.json`` (Z146): ``name``, ``files`` and optional ``version``."""

    name: str
    files: tuple[str, ...]
    version: str | None = None


class IndexDecodeError(ValueError):
    """Raised by :func:`parse_index` with a description of what is wrong with the document."""


# --------------------------------------------------------------------------------------------
# Pure rules
# --------------------------------------------------------------------------------------------


def cache_root(xdg_cache_home: str) -> str:
    """The remote cache root (SPEC R3, Z031): ``<xdg_cache_home>/zuno/skills``. Pass
    :attr:`Environment.xdg_cache_home <skillshelf.core.paths.Environment.xdg_cache_home>`
    (``$XDG_CACHE_HOME``, else ``$HOME/.cache``): Zuno uses that on every OS (conformance Z-T),
    not the platform's cache folder."""
    return os.path.join(xdg_cache_home, "zuno", "skills")


def with_trailing_slash(base: str) -> str:
    """``base`` with one trailing ``/`` (added only when missing, Z139)."""
    return base if base.endswith("/") else base + "/"


def index_url(base: str) -> str:
    """The index document URL for a configured ``base`` URL: ``<base>/index.json`` (Z141)."""
    return with_trailing_slash(base) + "index.json"


def _quote_segment(segment: str) -> str:
    return quote(segment, safe="!$&'()*+,;=@~-._")


def file_url(base: str, name: str, file: str) -> str:
    """The URL of ``file`` of skill ``name`` under ``base``: ``<base>/<name>/<file>`` (Z141).

    ``file`` is normalised first (``./`` and ``a/../`` resolved, ``\\`` read as ``/``), and every
    segment is percent-encoded so the request names exactly the file written to disk.
    ``base`` is used as given (apart from the trailing slash). Raises :class:`ValueError` when
    ``file`` is not :func:`safe_file`.
    """
    parts = _file_parts(file)
    if parts is None:
        raise ValueError(f"unsafe index file path: {file!r}")
    return with_trailing_slash(base) + "/".join(_quote_segment(p) for p in (name, *parts))


def _encodable(text: str) -> bool:
    """False for strings holding lone surrogates (possible from JSON ``\\ud800`` escapes)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def safe_name(name: object) -> bool:
    """Whether an index entry ``name`` is exactly one safe directory segment (SPEC R2, Z144).

    Rejected: anything that is not a string, ``""``, ``.``, ``..``, any ``/``, ``\\``, ``:`` or
    NUL character, lone surrogates. Accepted examples: ``alpha``, ``with space``, ``a.b``, ``..hidden``.
    """
    if not isinstance(name, str) or name in ("", ".", "..") or not _encodable(name):
        return False
    return not any(ch in name for ch in "/\\:\x00")


def _file_parts(path: object) -> tuple[str, ...] | None:
    """The normalised segments of an index file path, or ``None`` when it is unsafe."""
    if not isinstance(path, str) or ":" in path or "\x00" in path or not _encodable(path):
        return None
    text = path.replace("\\", "/")
    if text.startswith("/"):
        return None
    parts: list[str] = []
    for segment in text.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if not parts:
                return None  # depth would go below 0: climbs out of the skill directory
            parts.pop()
            continue
        parts.append(segment)
    if not parts:
        return None  # names the skill directory itself, not a file
    return tuple(parts)


def safe_file(path: object) -> bool:
    """Whether an index file path stays inside its skill directory (SPEC R2, Z142, Z143).

    Rejected: absolute paths, any ``:`` (drive prefixes and stream names on every platform), a
    ``..`` that takes the depth below 0 (``\\`` counts as a separator), NUL, and a path that
    names no file (``""``, ``.``, ``a/..``). Accepted: ``SKILL.md``, ``./SKILL.md``,
    ``scripts/run.sh``, ``a/../b.md``.
    """
    return _file_parts(path) is not None


def sibling(root: str, suffix: str) -> str:
    """``root`` with ``suffix`` appended to its last segment: the staging / backup path (Z147).

    ``sibling("/cache/skills/alpha", ".tmp-1") == "/cache/skills/alpha.tmp-1"``.
    """
    head, tail = os.path.split(root.rstrip("/") or root)
    return os.path.join(head, tail + suffix)


#: Zuno's ``IndexDocument { skills: Vec<IndexEntry> }`` and ``IndexEntry { name: String,
#: files: Vec<String>, #[serde(default)] version: Option<String> }`` (both ``derive(Deserialize)``,
#: unknown fields ignored), as :mod:`~skillshelf.core.serdejson` reads them.
INDEX_SCHEMA = serdejson.Struct(
    "IndexDocument",
    (
        serdejson.Field(
            "skills",
            serdejson.Vec(
                serdejson.Struct(
                    "IndexEntry",
                    (
                        serdejson.Field("name", serdejson.Str()),
                        serdejson.Field("files", serdejson.Vec(serdejson.Str())),
                        serdejson.Field("version", serdejson.Opt(serdejson.Str()), default=True),
                    ),
                )
            ),
        ),
    ),
)


def index_text(body: bytes) -> str:
    """The ``index.json`` body as text, as Zuno's ``response.text()`` makes it (reqwest decoding
    with encoding_rs): a UTF-8, UTF-16LE or UTF-16BE byte-order mark picks that encoding and is
    dropped; otherwise UTF-8. Malformed sequences become U+FFFD. (A ``charset`` in the
    response's Content-Type, which reqwest also honours, is not looked at: skillshelf keeps
    only the body.)"""
    for bom, codec in ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if body.startswith(bom):
            return body[len(bom) :].decode(codec, errors="replace")
    return body.decode("utf-8", errors="replace")


def parse_index(text: str) -> tuple[IndexEntry, ...]:
    """Parse an ``index.json`` document into its entries, in document order (SPEC R1, Z146).

    Read exactly as Zuno's ``serde_json::from_str::<IndexDocument>`` reads it
    (:data:`INDEX_SCHEMA`): unknown keys are ignored, ``version`` may be absent or ``null``, an
    array of the fields in order is accepted for either struct. Raises :class:`IndexDecodeError`
    whose message is serde_json's error text, position included (``invalid type: string "x",
    expected a sequence at line 1 column 24``); never anything else.
    """
    try:
        doc = serdejson.from_str(text, INDEX_SCHEMA)
    except serdejson.SerdeJsonError as exc:
        raise IndexDecodeError(str(exc)) from None
    return tuple(
        IndexEntry(name=item["name"], files=tuple(item["files"]), version=item["version"])
        for item in doc["skills"]
    )


# --------------------------------------------------------------------------------------------
# Warnings (conformance §0.3 display strings)
# --------------------------------------------------------------------------------------------


def _w_index_unreachable(src: str, detail: str) -> CatalogWarning:
    return CatalogWarning("IndexUnreachable", src, f"failed to fetch index {src}: {detail}")


def _w_timeout(src: str, timeout: float) -> CatalogWarning:
    return CatalogWarning("IndexTimeout", src, f"failed to fetch {src}: exceeded {timeout:g}s")


def _w_status(src: str, status: int) -> CatalogWarning:
    return CatalogWarning("IndexStatus", src, f"failed to fetch index {src}: HTTP {status}")


def _w_malformed(src: str, detail: str) -> CatalogWarning:
    return CatalogWarning("IndexMalformed", src, f"failed to decode index {src}: {detail}")


def _w_missing_skill_md(src: str, skill: str) -> CatalogWarning:
    return CatalogWarning(
        "EntryMissingSkillMd", src, f"skill entry missing SKILL.md: `{skill}` in {src}"
    )


def _w_not_a_file(skill: str, file: str) -> CatalogWarning:
    # skillshelf's own kind (Zuno has none): an index `files` entry that names a directory.
    return CatalogWarning(
        "IndexPathNotAFile",
        skill,
        f"skill entry `{skill}` lists a directory, not a file: {file}; list the files inside it",
    )


def _w_unsafe_path(skill: str, file: str) -> CatalogWarning:
    # Zuno uses the entry name as the source of this warning.
    return CatalogWarning(
        "UnsafeIndexPath",
        skill,
        f"skill entry `{skill}` lists a file outside its cache directory: {file}",
    )


def _w_unsafe_name(src: str, skill: str) -> CatalogWarning:
    # Zuno's display text for this variant is not published; same style as its siblings.
    return CatalogWarning(
        "UnsafeIndexName",
        src,
        f"skill entry name `{skill}` is not a single safe directory name in {src}",
    )


def _w_download(src: str, detail: str) -> CatalogWarning:
    return CatalogWarning("DownloadFailed", src, f"failed to download {src}: {detail}")


def _os_detail(exc: OSError) -> str:
    if exc.strerror and exc.errno is not None:
        return f"{exc.strerror} (os error {exc.errno})"
    return str(exc) or type(exc).__name__


def _http_detail(url: str, exc: BaseException) -> str:
    cause = str(exc) or type(exc).__name__
    return f"error sending request for url ({url}): {cause}"


# --------------------------------------------------------------------------------------------
# HTTP
# --------------------------------------------------------------------------------------------


class _Timeout(Exception):
    pass


class _FetchFailed(Exception):
    """A transport or status failure; ``detail`` is the warning detail, ``status`` set for HTTP status."""

    def __init__(self, detail: str, status: int | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.status = status


class _Budget:
    """Thread-safe byte and file allowance for one :func:`pull` call."""

    def __init__(self, max_bytes: int, max_files: int) -> None:
        self._lock = threading.Lock()
        self.bytes_left = max_bytes
        self.files_left = max_files
        self.max_bytes = max_bytes
        self.max_files = max_files

    def take_file(self) -> bool:
        with self._lock:
            if self.files_left <= 0:
                return False
            self.files_left -= 1
            return True

    def take_bytes(self, n: int) -> bool:
        with self._lock:
            if n > self.bytes_left:
                self.bytes_left = 0
                return False
            self.bytes_left -= n
            return True


class _PullDeadline(Exception):
    """The whole pull's deadline passed during a request."""


async def _fetch(
    client: Any,
    url: str,
    *,
    timeout: float,
    budget: _Budget,
    pull_ends: float,
    headers: Mapping[str, str] | None = None,
) -> bytes:
    """GET ``url`` and return its body, bounded in wall-clock time and size.

    The deadline covers everything (connecting, headers, body): ``timeout`` seconds, or less
    when the pull ends first (``pull_ends``, a ``time.monotonic()`` value). Raises
    :class:`_Timeout` when the request's own limit passes, :class:`_PullDeadline` when the
    pull's does, :class:`_FetchFailed` for transport errors, a non-2xx status (``status``
    set), or a body over :data:`MAX_FILE_BYTES` / the budget.
    """
    left = pull_ends - time.monotonic()
    if left <= 0:
        raise _PullDeadline()
    pull_limited = left < timeout
    try:
        async with asyncio.timeout(min(timeout, left)):
            async with client.stream("GET", url, headers=dict(headers or {})) as response:
                status = response.status_code
                if not 200 <= status < 300:
                    raise _FetchFailed(f"HTTP {status}", status=status)
                declared = response.headers.get("content-length")
                if declared is not None and declared.strip().isdigit() and int(declared) > MAX_FILE_BYTES:
                    raise _FetchFailed(f"response body exceeds {MAX_FILE_BYTES} bytes")
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > MAX_FILE_BYTES:
                        raise _FetchFailed(f"response body exceeds {MAX_FILE_BYTES} bytes")
                    if not budget.take_bytes(len(chunk)):
                        raise _FetchFailed(
                            f"download budget of {budget.max_bytes} bytes for this pull is exhausted"
                        )
                    chunks.append(chunk)
                return b"".join(chunks)
    except TimeoutError:
        raise (_PullDeadline() if pull_limited else _Timeout()) from None
    except _httpx().TimeoutException:
        raise _Timeout() from None
    except (_Timeout, _FetchFailed):
        raise
    except (_httpx().HTTPError, _httpx().InvalidURL, OSError, ValueError) as exc:
        raise _FetchFailed(_http_detail(url, exc)) from None


def _default_client(timeout: float) -> httpx.AsyncClient:
    client: httpx.AsyncClient = _httpx().AsyncClient(
        timeout=_httpx().Timeout(timeout),
        follow_redirects=True,
        limits=_httpx().Limits(
            max_connections=SKILL_CONCURRENCY * FILE_CONCURRENCY,
            max_keepalive_connections=SKILL_CONCURRENCY * FILE_CONCURRENCY,
        ),
    )
    return client


# --------------------------------------------------------------------------------------------
# Filesystem (everything stays under cache_dir)
# --------------------------------------------------------------------------------------------


class _Unsafe(Exception):
    pass


def _inside(cache_abs: str, path: str) -> bool:
    """Component-wise: is the normalised ``path`` strictly below ``cache_abs``?"""
    base = PurePath(cache_abs).parts
    parts = PurePath(os.path.normpath(path)).parts
    return len(parts) > len(base) and parts[: len(base)] == base and ".." not in parts


def _lstat(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def _check_components(cache_abs: str, dirs: Sequence[str]) -> None:
    """Every existing directory in ``dirs`` (paths under the cache, top-down) must be a real
    directory, not a symlink. Raises :class:`_Unsafe` or :class:`NotADirectoryError`."""
    for d in dirs:
        if not _inside(cache_abs, d):
            raise _Unsafe(f"refusing to write outside the cache directory: {d}")
        st = _lstat(d)
        if st is None:
            return  # the rest does not exist yet either
        if stat.S_ISLNK(st.st_mode):
            raise _Unsafe(f"refusing to follow a symlink inside the cache: {d}")
        if not stat.S_ISDIR(st.st_mode):
            raise NotADirectoryError(20, "Not a directory", d)


def _make_dirs(cache_abs: str, dirs: Sequence[str]) -> None:
    """Create ``cache_abs`` (and its parents), then each of ``dirs`` top-down, refusing symlinks."""
    os.makedirs(cache_abs, exist_ok=True)
    for d in dirs:
        if not _inside(cache_abs, d):
            raise _Unsafe(f"refusing to write outside the cache directory: {d}")
        with contextlib.suppress(FileExistsError):
            os.mkdir(d, 0o755)
        st = os.lstat(d)
        if stat.S_ISLNK(st.st_mode):
            raise _Unsafe(f"refusing to follow a symlink inside the cache: {d}")
        if not stat.S_ISDIR(st.st_mode):
            raise NotADirectoryError(20, "Not a directory", d)


def _write_new(path: str, data: bytes) -> None:
    """Create ``path`` exclusively (never through a symlink) and write ``data``."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_BINARY, 0o644)
    try:
        with os.fdopen(fd, "wb", closefd=True) as fh:
            fd = -1
            fh.write(data)
    finally:
        if fd != -1:
            os.close(fd)


def _remove_tree(path: str) -> None:
    """Remove ``path`` (a symlink is unlinked, never followed); errors are ignored."""
    st = _lstat(path)
    if st is None:
        return
    try:
        if stat.S_ISDIR(st.st_mode):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    except OSError:
        pass


def _real_dir(path: str) -> bool:
    st = _lstat(path)
    return st is not None and stat.S_ISDIR(st.st_mode)


def _has_skill_md(root: str) -> bool:
    return _real_dir(root) and os.path.isfile(os.path.join(root, SKILL_FILENAME))


def _read_marker(root: str) -> str | None:
    if not _real_dir(root):
        return None
    marker = os.path.join(root, VERSION_MARKER)
    st = _lstat(marker)
    if st is None or not stat.S_ISREG(st.st_mode):
        return None
    try:
        return read_regular(marker, MAX_FILE_BYTES)[:MAX_FILE_BYTES].decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


# --------------------------------------------------------------------------------------------
# The pull
# --------------------------------------------------------------------------------------------


@dataclass
class _Ctx:
    client: Any
    cache_abs: str
    timeout: float
    budget: _Budget
    #: ``time.monotonic()`` when the whole pull must end
    pull_ends: float = float("inf")


async def _download(
    ctx: _Ctx, base: str, name: str, parts: tuple[str, ...], dest_root: str, in_place: bool
) -> CatalogWarning | None:
    """Download one file into ``dest_root/<parts>``; return a warning or ``None``."""
    url = with_trailing_slash(base) + "/".join(_quote_segment(p) for p in (name, *parts))
    dirs = [dest_root]
    for p in parts[:-1]:
        dirs.append(os.path.join(dirs[-1], p))
    dest = os.path.join(dirs[-1], parts[-1])
    try:
        if not _inside(ctx.cache_abs, dest):
            raise _Unsafe(f"refusing to write outside the cache directory: {dest}")
        _check_components(ctx.cache_abs, dirs)
        st = _lstat(dest)
        if st is not None:
            if stat.S_ISLNK(st.st_mode):
                raise _Unsafe(f"refusing to follow a symlink inside the cache: {dest}")
            if in_place:
                return None  # an existing file is never re-downloaded (Z130)
    except _Unsafe as exc:
        return _w_download(url, str(exc))
    except OSError as exc:
        return _w_download(url, _os_detail(exc))

    if not ctx.budget.take_file():
        return _w_download(
            url, f"download budget of {ctx.budget.max_files} files for this pull is exhausted"
        )
    try:
        body = await _fetch(ctx.client, url, timeout=ctx.timeout, budget=ctx.budget, pull_ends=ctx.pull_ends)
    except _Timeout:
        return _w_timeout(url, ctx.timeout)
    except _FetchFailed as exc:
        return _w_download(url, exc.detail)

    try:
        _make_dirs(ctx.cache_abs, dirs)
        if in_place:
            part = f"{dest}.part-{uuid.uuid4()}"
            _write_new(part, body)
            try:
                try:
                    os.link(part, dest)
                except FileExistsError:
                    pass  # appeared meanwhile: the existing file is kept
                except OSError:
                    _write_new(dest, body)  # no hard links on this filesystem
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(part)
        else:
            _write_new(dest, body)
    except _Unsafe as exc:
        return _w_download(url, str(exc))
    except FileExistsError:
        return None if in_place else _w_download(url, "file already exists")
    except OSError as exc:
        return _w_download(url, _os_detail(exc))
    return None


async def _download_all(
    ctx: _Ctx,
    base: str,
    name: str,
    files: Sequence[tuple[str, ...]],
    dest_root: str,
    in_place: bool,
) -> list[CatalogWarning]:
    """Download ``files`` with at most :data:`FILE_CONCURRENCY` in flight; warnings in file order.
    Raises :class:`_PullDeadline` when the pull's deadline passes."""
    if not files:
        return []
    gate = asyncio.Semaphore(FILE_CONCURRENCY)

    async def one(parts: tuple[str, ...]) -> CatalogWarning | None:
        async with gate:
            return await _download(ctx, base, name, parts, dest_root, in_place)

    results = await asyncio.gather(*(one(parts) for parts in files), return_exceptions=True)
    _reraise(results)
    return [w for w in results if isinstance(w, CatalogWarning)]


def _reraise(results: Sequence[object]) -> None:
    """Raise the first exception ``asyncio.gather(..., return_exceptions=True)`` collected
    (every task has ended by then, so nothing is left writing)."""
    for r in results:
        if isinstance(r, BaseException):
            raise r


def _safe_files(name: str, files: Sequence[str]) -> tuple[list[tuple[str, ...]], list[CatalogWarning]]:
    """Drop unsafe paths with a warning each; de-duplicate by normalised path; sorted order."""
    warnings: list[CatalogWarning] = []
    seen: dict[tuple[str, ...], str] = {}
    for file in sorted(set(files)):
        parts = _file_parts(file)
        if parts is None:
            warnings.append(_w_unsafe_path(name, file))
            continue
        if file.endswith(("/", "\\")):
            warnings.append(_w_not_a_file(name, file))
            continue
        seen.setdefault(parts, file)
    return list(seen), warnings


def _swap(staging: str, root: str, backup: str, version: str) -> None:
    """Stamp ``staging`` and rename it over ``root`` via ``backup``; restore ``root`` on failure."""
    marker = os.path.join(staging, VERSION_MARKER)
    st = _lstat(marker)
    if st is not None:
        if not stat.S_ISREG(st.st_mode):
            raise _Unsafe(f"refusing to replace {marker}")
        os.unlink(marker)  # an index listing `.zuno-version` does not get to set it
    _write_new(marker, version.encode("utf-8"))
    cached = _lstat(root) is not None
    if cached:
        os.rename(root, backup)
    try:
        os.rename(staging, root)
    except BaseException:
        if cached:
            with contextlib.suppress(OSError):
                os.rename(backup, root)
        raise
    if cached:
        _remove_tree(backup)


async def _stage_and_swap(
    ctx: _Ctx, base: str, name: str, files: Sequence[tuple[str, ...]], root: str, version: str
) -> list[CatalogWarning]:
    token = str(uuid.uuid4())
    staging = sibling(root, f".tmp-{token}")
    backup = sibling(root, f".old-{token}")
    try:
        warnings = await _download_all(ctx, base, name, files, staging, in_place=False)
        staged_ok = not warnings and os.path.isfile(os.path.join(staging, SKILL_FILENAME))
        if staged_ok:
            try:
                _swap(staging, root, backup, version)
            except _Unsafe as exc:
                warnings.append(_w_download(name, str(exc)))
            except OSError as exc:
                warnings.append(_w_download(name, _os_detail(exc)))
        return warnings
    finally:
        _remove_tree(staging)


async def _refresh(
    ctx: _Ctx, base: str, entry: IndexEntry, lock: asyncio.Lock
) -> tuple[str | None, list[CatalogWarning]]:
    root = os.path.join(ctx.cache_abs, entry.name)
    if not _inside(ctx.cache_abs, root) or os.path.dirname(root) != ctx.cache_abs:
        return None, [_w_download(entry.name, "refusing to write outside the cache directory")]
    files, warnings = _safe_files(entry.name, entry.files)
    if (SKILL_FILENAME,) not in files:
        return None, warnings  # the traversal check removed SKILL.md (Z145)
    async with lock:
        st = _lstat(root)
        if st is not None and stat.S_ISLNK(st.st_mode):
            warnings.append(
                _w_download(entry.name, f"refusing to follow a symlink inside the cache: {root}")
            )
            return None, warnings
        current = _read_marker(root)
        in_place = entry.version is None or current == entry.version
        if in_place:
            warnings.extend(await _download_all(ctx, base, entry.name, files, root, in_place=True))
        else:
            warnings.extend(await _stage_and_swap(ctx, base, entry.name, files, root, entry.version or ""))
        return (root if _has_skill_md(root) else None), warnings


async def _refresh_guarded(
    ctx: _Ctx, base: str, entry: IndexEntry, lock: asyncio.Lock
) -> tuple[str | None, list[CatalogWarning]]:
    """:func:`_refresh`, with any unexpected error turned into a warning (failures are never
    fatal); :class:`_PullDeadline` and cancellation propagate."""
    try:
        return await _refresh(ctx, base, entry, lock)
    except _PullDeadline:
        raise
    except Exception as exc:  # the catalog must always load (SPEC R3): an unforeseen error is logged
        log.exception("refreshing remote skill %r from %s failed unexpectedly", entry.name, base)
        return None, [_w_download(entry.name, str(exc) or type(exc).__name__)]


async def _pull_one(
    ctx: _Ctx,
    url: str,
    roots: list[str],
    warnings: list[CatalogWarning],
    origins: dict[str, tuple[str, str | None]],
) -> None:
    base = with_trailing_slash(url)
    try:
        parsed = _httpx().URL(base)
    except (_httpx().InvalidURL, ValueError, TypeError) as exc:
        warnings.append(_w_malformed(url, str(exc) or "invalid URL"))
        return
    src = index_url(url)
    if parsed.scheme and parsed.scheme not in ("http", "https"):
        warnings.append(_w_index_unreachable(src, f"URL scheme is not allowed: {parsed.scheme} (only http and https)"))
        return
    if not parsed.scheme or not parsed.host:
        warnings.append(_w_malformed(url, "relative URL without a base"))
        return
    try:
        body = await _fetch(
            ctx.client,
            src,
            timeout=ctx.timeout,
            budget=ctx.budget,
            pull_ends=ctx.pull_ends,
            headers={"Accept": "application/json"},
        )
    except _Timeout:
        warnings.append(_w_timeout(src, ctx.timeout))
        return
    except _FetchFailed as exc:
        if exc.status is not None:
            warnings.append(_w_status(src, exc.status))
        else:
            warnings.append(_w_index_unreachable(src, exc.detail))
        return
    try:
        entries = parse_index(index_text(body))
    except IndexDecodeError as exc:
        warnings.append(_w_malformed(src, str(exc)))
        return

    found: list[CatalogWarning] = []
    usable: list[IndexEntry] = []
    files = 0
    cut = 0
    for entry in entries:
        if not safe_name(entry.name):
            found.append(_w_unsafe_name(src, entry.name))
            continue
        if SKILL_FILENAME not in entry.files:
            found.append(_w_missing_skill_md(src, entry.name))
            continue
        if len(usable) >= MAX_INDEX_ENTRIES or files + len(entry.files) > MAX_INDEX_FILES:
            cut += 1
            continue
        usable.append(entry)
        files += len(entry.files)
    if cut:
        found.append(_w_truncated(src, len(usable), files, cut))
    try:
        if not usable:
            return
        locks: dict[str, asyncio.Lock] = {}
        for entry in usable:
            locks.setdefault(entry.name, asyncio.Lock())  # same name twice: one at a time
        gate = asyncio.Semaphore(SKILL_CONCURRENCY)

        async def one(entry: IndexEntry) -> tuple[str | None, list[CatalogWarning]]:
            async with gate:
                return await _refresh_guarded(ctx, base, entry, locks[entry.name])

        results = await asyncio.gather(*(one(e) for e in usable), return_exceptions=True)
        for entry, result in zip(usable, results, strict=True):
            if isinstance(result, BaseException):
                continue
            root, entry_warnings = result
            found.extend(entry_warnings)
            if root is not None:
                if root not in origins:
                    roots.append(root)
                origins[root] = (url, entry.version)
        _reraise(results)
    finally:
        warnings.extend(fold_warnings(found, src))


def _w_truncated(src: str, kept: int, files: int, cut: int) -> CatalogWarning:
    # skillshelf's own kind and limit (Zuno pulls every entry)
    return CatalogWarning(
        "IndexTruncated", src,
        f"index {src} lists {cut:,} more usable skills than skillshelf pulls from one index "
        f"(at most {MAX_INDEX_ENTRIES:,} skills and {MAX_INDEX_FILES:,} files); pulled the first {kept:,} "
        f"({files:,} files)",
    )


def _w_deadline(src: str, deadline: float) -> CatalogWarning:
    # skillshelf's own kind and limit (Zuno has only the per-request time limit)
    return CatalogWarning("PullDeadline", src,
                          f"stopped pulling {src}: the pull of every index took longer than {deadline:g}s")


def _w_cancelled(src: str) -> CatalogWarning:
    return CatalogWarning("PullCancelled", src, f"stopped pulling {src}: cancelled")


def fold_warnings(warnings: Sequence[CatalogWarning], src: str,
                  shown: int | None = None) -> list[CatalogWarning]:
    """``warnings`` with at most ``shown`` (default :data:`WARNINGS_SHOWN`) of each kind; the
    rest of a kind becomes one warning of that kind, placed where the first left-out one was:
    ``N more <kind> warnings from <src> are not shown``. Order is otherwise kept."""
    limit = WARNINGS_SHOWN if shown is None else shown
    counts: dict[str, int] = {}
    for w in warnings:
        counts[w.kind] = counts.get(w.kind, 0) + 1
    seen: dict[str, int] = {}
    out: list[CatalogWarning] = []
    for w in warnings:
        n = seen[w.kind] = seen.get(w.kind, 0) + 1
        if n <= limit:
            out.append(w)
        elif n == limit + 1:
            more = counts[w.kind] - limit
            out.append(CatalogWarning(w.kind, src, f"{more:,} more {w.kind} warnings from {src} are not shown"))
    return out


async def _pull_all(urls: Sequence[str], ctx: _Ctx, deadline: float, cancel: threading.Event | None) -> RemotePull:
    """Every URL in order within the pull's deadline; ``cancel`` set stops it within
    :data:`CANCEL_CHECK` seconds. Unfinished URLs get a ``PullDeadline`` / ``PullCancelled`` warning."""
    roots: list[str] = []
    warnings: list[CatalogWarning] = []
    origins: dict[str, tuple[str, str | None]] = {}
    task = asyncio.current_task()
    cancelled = False

    async def watch_cancel() -> None:
        nonlocal cancelled
        assert cancel is not None and task is not None
        while not cancel.is_set():
            await asyncio.sleep(CANCEL_CHECK)
        cancelled = True
        task.cancel()

    watcher = asyncio.create_task(watch_cancel()) if cancel is not None else None
    done = 0
    try:
        for url in urls:
            try:
                await _pull_one(ctx, url, roots, warnings, origins)
            except _PullDeadline:
                break
            done += 1
    except asyncio.CancelledError:
        if not cancelled:
            raise
    finally:
        if watcher is not None:
            watcher.cancel()
    for url in urls[done:]:
        src = index_url(url)
        warnings.append(_w_cancelled(src) if cancelled else _w_deadline(src, deadline))
    return RemotePull(tuple(roots), tuple(warnings), types.MappingProxyType(dict(origins)))


async def _pull_async(urls: Sequence[str], cache_abs: str, timeout: float, deadline: float,
                      cancel: threading.Event | None, client_factory: Callable[[], Any] | None) -> RemotePull:
    hx = _httpx()
    try:
        client = client_factory() if client_factory is not None else _default_client(timeout)
    except (hx.HTTPError, hx.InvalidURL, OSError, ValueError, TypeError) as exc:  # a broken proxy setting …
        log.warning("cannot make the HTTP client for skills.urls: %s", exc)
        warnings = tuple(_w_index_unreachable(url, str(exc) or type(exc).__name__) for url in urls)
        return RemotePull((), warnings, types.MappingProxyType({}))
    ctx = _Ctx(client, cache_abs, timeout, _Budget(MAX_PULL_BYTES, MAX_PULL_FILES), time.monotonic() + deadline)
    try:
        return await _pull_all(urls, ctx, deadline, cancel)
    finally:
        try:
            await client.aclose()
        except (hx.HTTPError, OSError) as exc:  # the pull is done; only the connection pool is left
            log.warning("closing the HTTP client failed: %s", exc)


def pull(
    urls: Sequence[str],
    cache_dir: str,
    *,
    timeout: float = REMOTE_TIMEOUT,
    deadline: float = PULL_DEADLINE,
    cancel: threading.Event | None = None,
    client_factory: Callable[[], Any] | None = None,
) -> RemotePull:
    """Pull every index in ``urls`` into ``cache_dir`` (SPEC R1–R3, conformance §5).

    ``urls``: the configured ``skills.urls[]`` in order; each is processed after the previous
    one finished, and a failing URL never stops the next (Z138). ``cache_dir``: the cache root
    (:func:`cache_root`), created only when a file is downloaded. ``timeout``: wall-clock
    seconds per request, headers and body included (Z134). ``deadline``: wall-clock seconds for
    the whole pull. ``cancel``: set it to stop the pull (within :data:`CANCEL_CHECK` s).
    ``client_factory``: a zero-argument callable returning an httpx-compatible *async* client
    (``stream("GET", url, headers=...)`` async context manager, ``aclose()``); by default an
    ``httpx.AsyncClient`` with the timeout, redirects followed and the environment's proxy settings.

    Runs in its own daemon thread with its own event loop (callers may be in any thread, an
    event loop's included) and returns at the latest shortly after ``deadline``.

    Never raises for remote input or filesystem trouble: each failure is a
    :class:`CatalogWarning` (kinds ``IndexUnreachable``, ``IndexTimeout``, ``IndexStatus``,
    ``IndexMalformed``, ``UnsafeIndexName``, ``EntryMissingSkillMd``, ``UnsafeIndexPath``,
    ``DownloadFailed``; skillshelf's own ``IndexTruncated``, ``PullDeadline``,
    ``PullCancelled``). Warnings come in URL order; within an URL the index-level ones (name
    and SKILL.md checks, in entry order) come first, then each skill's path warnings and download
    warnings, in entry order, files sorted; more than :data:`WARNINGS_SHOWN` of one kind from
    one index are folded (:func:`fold_warnings`). Sources are the index URL for index-level
    warnings, the entry name for ``UnsafeIndexPath`` and for a failed swap, the file URL for a
    failed file download or a file timeout.
    """
    cache_abs = os.path.normpath(os.path.abspath(cache_dir))
    urls = list(urls)
    if not urls:
        return RemotePull()
    box: list[RemotePull] = []

    def run() -> None:
        try:
            box.append(asyncio.run(_pull_async(urls, cache_abs, timeout, deadline, cancel, client_factory)))
        except Exception as exc:  # the catalog must always load (SPEC R3): an unforeseen error is a warning
            log.exception("pulling remote skills failed unexpectedly")
            detail = str(exc) or type(exc).__name__
            box.append(RemotePull((), tuple(_w_index_unreachable(index_url(u), detail) for u in urls)))

    thread = threading.Thread(target=run, name="skillshelf-remote-pull", daemon=True)
    thread.start()
    # the loop keeps the deadline itself; the margin covers a DNS lookup that cannot be interrupted
    thread.join(deadline + 5.0)
    if not box:
        log.warning("the remote pull did not end within %g s; abandoned", deadline + 5.0)
        result = RemotePull((), tuple(_w_deadline(index_url(u), deadline) for u in urls))
    else:
        result = box[0]
    for w in result.warnings:
        log.warning("remote skills: %s", w.message)
    return result
