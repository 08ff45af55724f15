"""The compiled methods of dataclasses kept between runs (app/codecache.py): classes made with the
kept code behave exactly as classes made without it, the file is read once, written whole and
private, a damaged file is ignored and replaced, and ``--no-cache`` turns it off."""

from __future__ import annotations

import dataclasses
import marshal
import os
import stat
import subprocess
import sys
import textwrap
import zlib

import pytest

from skillshelf.app import codecache

_CLASSES = textwrap.dedent('''
    import dataclasses
    from typing import Any

    @dataclasses.dataclass(frozen=True, order=True)
    class Point:
        x: int
        y: int = 2
        tags: tuple[str, ...] = ()
        extra: Any = dataclasses.field(default=None, compare=False, repr=False)

    @dataclasses.dataclass
    class Bag:
        items: list[int] = dataclasses.field(default_factory=list)
''')


def _file_bytes(entries: object) -> bytes:
    """A code file as :meth:`codecache._Codes.save` writes it (mark, CRC-32, marshalled entries)."""
    payload = marshal.dumps(entries)
    return codecache._MAGIC + zlib.crc32(payload).to_bytes(4, "little") + payload


def _entries(path) -> dict:
    data = path.read_bytes()
    assert data.startswith(codecache._MAGIC)
    return marshal.loads(data[len(codecache._MAGIC) + 4:])


def _make(exec_fn=None) -> dict:
    """The classes of :data:`_CLASSES`, made with ``exec_fn`` as :mod:`dataclasses`' ``exec``."""
    ns: dict = {}
    if exec_fn is None:
        exec(_CLASSES, ns)
        return ns
    dataclasses.exec = exec_fn  # type: ignore[attr-defined]
    try:
        exec(_CLASSES, ns)
    finally:
        del dataclasses.exec  # type: ignore[attr-defined]
    return ns


def _behaviour(ns: dict) -> list:
    Point, Bag = ns["Point"], ns["Bag"]
    p = Point(1, tags=("a",), extra=object())
    out = [repr(p), p == Point(1, tags=("a",)), hash(p) == hash(Point(1, tags=("a",))), p < Point(2),
           sorted([Point(3), Point(1, 5), Point(1)]) == [Point(1), Point(1, 5), Point(3)],
           dataclasses.astuple(Point(4)), dataclasses.replace(p, y=9).y, repr(Bag()), Bag() == Bag([]),
           Bag().items is not Bag().items, Point.__match_args__]
    try:
        p.x = 5  # type: ignore[misc]
    except dataclasses.FrozenInstanceError as exc:
        out.append(("frozen", str(exc)))
    try:
        Point()  # type: ignore[call-arg]
    except TypeError as exc:
        out.append(("missing", str(exc)))
    return out


def test_classes_made_with_kept_code_are_the_classes_made_without(tmp_path):
    file = str(tmp_path / "cache" / "skillshelf" / "code" / "dataclasses.marshal")
    plain = _behaviour(_make())
    first = codecache._Codes(file)
    assert _behaviour(_make(first.exec)) == plain
    assert first.new and first.codes
    first.save()
    assert os.path.exists(file)
    second = codecache._Codes(file)  # another run: every text found, nothing compiled
    assert _behaviour(_make(second.exec)) == plain
    assert not second.new and set(second.codes) == set(first.codes) == set(second.stored or {})
    second.save()  # (nothing new: the file is not written again)
    kept = _entries(tmp_path / "cache" / "skillshelf" / "code" / "dataclasses.marshal")
    assert set(kept) == set(first.codes)
    assert all(marshal.loads(kept[k]).co_code == first.codes[k].co_code for k in kept)


def test_the_file_is_private_whole_and_a_damaged_one_is_replaced(tmp_path):
    file = tmp_path / "c" / "skillshelf" / "code" / "dataclasses.marshal"
    old = os.umask(0o022)
    try:
        codes = codecache._Codes(str(file))
        _make(codes.exec)
        codes.save()
    finally:
        os.umask(old)
    assert stat.S_IMODE(file.stat().st_mode) == 0o600
    for folder in (file.parent, file.parent.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert [p.name for p in file.parent.iterdir()] == [file.name]  # (no temporary file left)
    whole = file.read_bytes()
    good = _entries(file)
    flipped = bytearray(whole)
    flipped[len(whole) // 2] ^= 0x10  # (one bit: the code of some method, its CRC no longer right)
    for damage in (b"", b"\x00garbage", whole[:-7], bytes(flipped), marshal.dumps(good), _file_bytes(["a list"]),
                   _file_bytes({"text": "not code", 1: 2}), _file_bytes(dict.fromkeys(good, b"\x00not marshal")),
                   _file_bytes({k: marshal.dumps("a string") for k in good})):
        file.write_bytes(damage)
        codes = codecache._Codes(str(file))
        assert _behaviour(_make(codes.exec)) == _behaviour(_make())
        assert codes.new  # (every text compiled again: nothing of a damaged file is run)
        codes.save()
        kept = _entries(file)
        assert isinstance(kept, dict) and kept.keys() >= good.keys()
        assert all(isinstance(marshal.loads(kept[k]), type(compile("", "", "exec"))) for k in good)
    file.unlink()
    os.mkfifo(file)  # a FIFO in its place: never read (the run does not block), replaced
    codes = codecache._Codes(str(file))
    assert _behaviour(_make(codes.exec)) == _behaviour(_make()) and codes.new
    codes.save()
    assert _entries(file).keys() >= good.keys()
    victim = tmp_path / "victim"
    victim.write_text("precious")
    for pid in range(os.getpid() - 2, os.getpid() + 3):  # (a link planted where a guessable name would be)
        os.symlink(victim, f"{file}.{pid}.tmp")
    codes = codecache._Codes(str(file))
    codes.codes, codes.new = {"# one\n": compile("# one\n", "<string>", "exec")}, True
    codes.save()
    assert victim.read_text() == "precious" and not file.is_symlink()


def test_past_the_limit_only_the_codes_used_are_written(tmp_path, monkeypatch):
    file = tmp_path / "code.marshal"
    unused = {f"# unused {i}\n": marshal.dumps(compile(f"# unused {i}\n", "<string>", "exec")) for i in range(10)}
    file.write_bytes(_file_bytes(unused))
    codes = codecache._Codes(str(file))
    _make(codes.exec)
    codes.save()
    assert _entries(file).keys() == unused.keys() | codes.codes.keys()  # (within the limit)
    monkeypatch.setattr(codecache, "MAX_CODES", 5)
    file.write_bytes(_file_bytes(unused))
    codes = codecache._Codes(str(file))
    _make(codes.exec)
    codes.save()
    kept = _entries(file)
    assert kept.keys() == codes.codes.keys() and not any(k.startswith("# unused") for k in kept)


def _run(args: list[str], env: dict[str, str], cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "skillshelf.app.entry", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_the_console_script_keeps_the_code_and_no_cache_keeps_nothing(zuno_home):
    home = zuno_home / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "ZUNO_"))}
    env["HOME"] = str(home)
    proj = str(zuno_home / "proj")
    code = home / ".cache" / "skillshelf" / "code"
    off = _run(["index", "--no-cache"], env, proj)
    assert off.returncode == 0, off.stderr
    assert not code.exists()
    first = _run(["index"], env, proj)
    assert first.returncode == 0, first.stderr
    files = list(code.iterdir())
    assert [f.name for f in files] == [f"dataclasses-{sys.implementation.cache_tag}-{sys.hexversion:x}.marshal"]
    written = files[0].stat().st_mtime_ns
    again = _run(["index"], env, proj)
    assert (again.returncode, again.stdout) == (0, first.stdout)
    assert files[0].stat().st_mtime_ns == written  # every method found: not written again
    assert off.stdout == first.stdout


@pytest.mark.parametrize("platform", ["darwin", "win32"])
def test_no_file_where_the_cache_folder_needs_a_library(monkeypatch, platform):
    monkeypatch.setattr(codecache.sys, "platform", platform)
    assert codecache.code_file({"HOME": "/h"}) is None
    assert not codecache.install({"HOME": "/h"}, ["index"])


def test_the_file_follows_xdg_and_home_and_ignores_a_relative_xdg_value():
    tag = f"{sys.implementation.cache_tag}-{sys.hexversion:x}"
    assert codecache.code_file({"HOME": "/h", "XDG_CACHE_HOME": "/x"}) == f"/x/skillshelf/code/dataclasses-{tag}.marshal"
    assert codecache.code_file({"HOME": "/h", "XDG_CACHE_HOME": ""}) == \
        f"/h/.cache/skillshelf/code/dataclasses-{tag}.marshal"
    assert not codecache.install({"HOME": "/h"}, ["index", "--no-c"])
    # no home directory to be found (HOME unset, no passwd entry): never the working directory
    assert codecache.code_file({"HOME": "~"}) is None
    # a relative XDG_CACHE_HOME is ignored (the XDG specification), as for the parse cache
    assert codecache.code_file({"HOME": "/h", "XDG_CACHE_HOME": "relative/cache"}) == \
        f"/h/.cache/skillshelf/code/dataclasses-{tag}.marshal"
    assert codecache.code_file({"HOME": "~", "XDG_CACHE_HOME": "relative/cache"}) is None
