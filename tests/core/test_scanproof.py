"""A kept scan is reused only while a walk now would return the same result
(:mod:`skillshelf.core.scanproof`): every change that alters a scan's result makes its proof
fail, and a scan that depended on something a proof cannot see gets no proof."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from skillshelf.core import parsecache
from skillshelf.core.scan import ScanSeen, scan
from skillshelf.core.scanproof import ScanProof, prove

WINDOW = 0.03  # seconds: the racy window here (production: 2 s)


@pytest.fixture(autouse=True)
def short_racy_window(monkeypatch):
    monkeypatch.setattr(parsecache, "RACY_NS", int(WINDOW * 1e9))


def write(path: Path, text: str = "---\nname: x\ndescription: d\n---\nB\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def settle() -> None:
    time.sleep(WINDOW * 1.5)


def proved(scan_dir: Path, *, dot: bool = False) -> tuple[object, ScanProof | None]:
    seen = ScanSeen()
    since = time.time_ns()
    result = scan(str(scan_dir), dot=dot, seen=seen)
    return result, prove(str(scan_dir), seen, since)


def tree(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write(root / "a" / "SKILL.md")
    write(root / "cat" / "b" / "SKILL.md")
    write(root / "cat" / "deep" / "c" / "SKILL.md")
    (tmp_path / "elsewhere" / "linked").mkdir(parents=True)
    write(tmp_path / "elsewhere" / "linked" / "SKILL.md")
    os.symlink(tmp_path / "elsewhere" / "linked", root / "cat" / "link")
    os.symlink(tmp_path / "not-yet", root / "cat" / "dangling")
    return root


def test_an_unchanged_tree_is_proved_and_the_proof_holds(tmp_path):
    root = tree(tmp_path)
    settle()
    result, proof = proved(root)
    assert proof is not None
    assert proof.dirs[0] == str(root) and len(proof.dirs) == 7  # skills, a, cat, b, deep, c, link
    assert [(os.path.basename(p), n) for p, n, _k, _t in proof.links] == [("dangling", "dangling"), ("link", "link")]
    assert proof.holds()
    assert scan(str(root), dot=False) == result


CHANGES: dict[str, Callable[[Path, Path], None]] = {
    "a folder added deep down": lambda tmp, root: write(root / "cat" / "deep" / "new" / "SKILL.md"),
    "a skill file deleted": lambda tmp, root: os.remove(root / "cat" / "b" / "SKILL.md"),
    "a folder renamed": lambda tmp, root: os.rename(root / "cat" / "b", root / "cat" / "b2"),
    "a listing changed and its mtime set back": lambda tmp, root: _set_back(root / "cat", lambda: os.rename(
        root / "cat" / "b", root / "cat" / "bb")),
    "a dangling link's target created": lambda tmp, root: write(tmp / "not-yet" / "SKILL.md"),
    "a linked folder's contents changed": lambda tmp, root: write(tmp / "elsewhere" / "linked" / "more" / "SKILL.md"),
    "a linked folder moved behind a link of the same name": lambda tmp, root: _move_behind_link(tmp),
    "a near-miss file added": lambda tmp, root: write(root / "cat" / "deep" / "skill.md"),
    "a dot folder added": lambda tmp, root: write(root / ".hidden" / "x" / "SKILL.md"),
    "a folder made unreadable": lambda tmp, root: os.chmod(root / "cat" / "deep", 0),
}


def _set_back(folder: Path, change: Callable[[], None]) -> None:
    st = os.stat(folder)
    change()
    os.utime(folder, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(folder).st_mtime_ns == st.st_mtime_ns


def _move_behind_link(tmp: Path) -> None:
    # the walked folders keep their inodes and times; only the canonical path of the link changes
    os.rename(tmp / "elsewhere", tmp / "elsewhere2")
    os.symlink(tmp / "elsewhere2", tmp / "elsewhere")


@pytest.mark.parametrize("change", list(CHANGES))
def test_every_change_that_alters_the_result_breaks_the_proof(tmp_path, change):
    root = tree(tmp_path)
    settle()
    before, proof = proved(root)
    assert proof is not None and proof.holds()
    CHANGES[change](tmp_path, root)
    try:
        settle()
        after = scan(str(root), dot=False)
        if os.geteuid() != 0 or change != "a folder made unreadable":  # root reads any folder
            assert after != before
        assert not proof.holds()
    finally:
        os.chmod(root / "cat" / "deep", 0o755)


def test_a_folder_changed_inside_the_racy_window_gets_no_proof(tmp_path, monkeypatch):
    root = tree(tmp_path)
    monkeypatch.setattr(parsecache, "RACY_NS", 3_600 * 10**9)
    assert proved(root)[1] is None


def test_scans_a_proof_cannot_cover_get_none(tmp_path):
    root = tree(tmp_path)
    write(root / ".hidden" / "x" / "SKILL.md")  # counted for dot-folder-skipped, not listed
    settle()
    assert proved(root)[1] is None
    assert proved(root, dot=True)[1] is not None  # walked (and listed) with dot=True
    (tmp_path / "file").write_text("x")
    assert proved(tmp_path / "file")[1] is None
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling-root")  # a dangling link is an entry (a warning)
    result, proof = proved(tmp_path / "dangling-root")
    assert proof is None and [w.kind for w in result.warnings] == ["broken-symlink"]


def test_a_missing_scan_directory_is_proved_by_its_absence(tmp_path):
    missing = tmp_path / "missing" / "skill"
    result, proof = proved(missing)
    assert result == scan(str(missing), dot=False) and not result.matches and not result.warnings
    assert proof is not None and proof.absent and proof.holds()
    (tmp_path / "missing").mkdir()
    assert proof.holds()  # the parent appearing changes nothing: still no such entry
    os.symlink(tmp_path / "nowhere", missing)
    assert not proof.holds()  # a dangling link now: a scan would warn about it
    os.remove(missing)
    write(missing / "a" / "SKILL.md")
    assert not proof.holds()
    assert scan(str(missing), dot=False).matches


def test_an_unreadable_folder_gives_no_proof(tmp_path, monkeypatch):
    root = tree(tmp_path)
    settle()
    real = os.scandir

    def failing(path):
        if str(path).endswith("/deep"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", failing)
    result, proof = proved(root)
    assert [w.kind for w in result.warnings].count("ScanFailed") == 1
    assert proof is None


def test_seen_changes_nothing_in_the_result(tmp_path):
    root = tree(tmp_path)
    write(root / ".hidden" / "x" / "SKILL.md")
    os.symlink(root, root / "cat" / "loop")
    assert scan(str(root), dot=False, seen=ScanSeen()) == scan(str(root), dot=False)
    assert scan(str(root), dot=True, seen=ScanSeen()) == scan(str(root), dot=True)


def test_a_dot_file_is_proved_past_and_becoming_a_dot_folder_breaks_the_proof(tmp_path):
    root = tree(tmp_path)
    (root / ".gitkeep").write_text("")
    (root / "cat" / ".DS_Store").write_bytes(b"\0\1")
    settle()
    before, proof = proved(root)
    assert proof is not None and proof.holds()  # (never read: only a folder is counted)
    os.remove(root / ".gitkeep")
    write(root / ".gitkeep" / "x" / "SKILL.md")
    settle()
    after = scan(str(root), dot=False)
    assert "dot-folder-skipped" in [w.kind for w in after.warnings] and after != before
    assert not proof.holds()


def test_a_dot_symlink_gets_no_proof(tmp_path):
    root = tree(tmp_path)
    (tmp_path / "plain").write_text("x")
    os.symlink(tmp_path / "plain", root / ".linked")  # may come to name a folder, the listing unchanged
    settle()
    assert proved(root)[1] is None
