"""read_regular: files named by others are read without ever blocking (SPEC D4, F1, K1, L6)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillshelf.core.fileread import NotRegularFileError, mapped, read_regular

fifo_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs os.mkfifo")


def test_regular_file_bytes_and_limit(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"abcdef")
    assert read_regular(str(path)) == b"abcdef"
    assert read_regular(str(path), max_bytes=2) == b"abc"  # limit + 1, so "too large" is visible


def test_symlink_to_regular_file_is_followed(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"x")
    os.symlink(tmp_path / "f", tmp_path / "link")
    assert read_regular(str(tmp_path / "link")) == b"x"


@fifo_only
def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "p")
    with pytest.raises(NotRegularFileError) as info:
        read_regular(str(tmp_path / "p"))
    assert str(info.value) == "not a regular file (a FIFO)"
    assert info.value.errno is None


def test_character_device_is_refused(tmp_path: Path) -> None:
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    os.symlink("/dev/zero", tmp_path / "SKILL.md")
    with pytest.raises(NotRegularFileError) as info:
        read_regular(str(tmp_path / "SKILL.md"))
    assert str(info.value) == "not a regular file (a character device)"


def test_directory_is_is_a_directory_error(tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError) as info:
        read_regular(str(tmp_path))
    assert info.value.strerror == os.strerror(21) and info.value.errno == 21


def test_missing_file_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_regular(str(tmp_path / "absent"))


def test_reads_whole_files_and_honours_max_bytes_plus_one(tmp_path):
    from skillshelf.core.fileread import read_regular

    small = tmp_path / "s"
    small.write_bytes(b"0123456789")
    assert read_regular(str(small)) == b"0123456789"
    assert read_regular(str(small), max_bytes=4) == b"01234"  # limit + 1: "too large" is visible
    assert read_regular(str(small), max_bytes=20) == b"0123456789"
    big = tmp_path / "b"
    data = bytes(range(256)) * (3 * 4096 + 7)  # > 3 MiB, not a multiple of the chunk size
    big.write_bytes(data)
    assert read_regular(str(big)) == data
    assert read_regular(str(big), max_bytes=len(data)) == data
    assert read_regular(str(big), max_bytes=2_000_000) == data[:2_000_001]
    empty = tmp_path / "e"
    empty.write_bytes(b"")
    assert read_regular(str(empty)) == b""


def test_a_short_read_at_the_fstat_size_ends_the_file_and_any_other_reads_on(tmp_path, monkeypatch):
    import skillshelf.core.fileread as fileread

    f = tmp_path / "s"
    f.write_bytes(b"0123456789")
    real_read, real_fstat = os.read, os.fstat
    reads: list[int] = []

    def counted(fd, n):
        reads.append(n)
        return real_read(fd, n)

    monkeypatch.setattr(fileread.os, "read", counted)
    assert read_regular(str(f)) == b"0123456789" and reads == [11]  # one read: no second one to see the end
    reads.clear()
    assert read_regular(str(tmp_path / "s"), max_bytes=4) == b"01234" and reads == [5]

    class Smaller:  # a size the kernel does not report (procfs) or a file that grew after fstat
        def __init__(self, st, size):
            self._st, self.st_size = st, size

        def __getattr__(self, name):
            return getattr(self._st, name)

    for size in (0, 3, 9):
        monkeypatch.setattr(fileread.os, "fstat", lambda fd, size=size: Smaller(real_fstat(fd), size))
        reads.clear()
        assert read_regular(str(f)) == b"0123456789"
        assert reads[-1] > 0 and len(reads) >= 2

    def short(fd, n):  # an OS that returns less than asked before the end
        reads.append(n)
        return real_read(fd, min(n, 4))

    monkeypatch.setattr(fileread.os, "fstat", real_fstat)
    monkeypatch.setattr(fileread.os, "read", short)
    assert read_regular(str(f)) == b"0123456789"


def test_mapped_maps_a_regular_file_and_refuses_a_fifo(tmp_path):
    f = tmp_path / "binary"
    f.write_bytes(b"\x00head\x00description text\x00")
    with mapped(str(f)) as data:
        assert data.find(b"description") == 6 and len(data) == 23
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFileError) as err, mapped(str(fifo)):
        pass
    assert str(err.value) == "not a regular file (a FIFO)"
    with pytest.raises(IsADirectoryError), mapped(str(tmp_path)):
        pass
