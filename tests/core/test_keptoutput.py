"""Kept command outputs (``skillshelf.core.keptoutput``) and recorded file-system questions
(``skillshelf.core.fsprobe``): found only for exactly the same command, written atomically,
bounded, and every recorded question asked again."""

from __future__ import annotations

import os
import time

import pytest

from skillshelf.core import fsprobe, keptoutput, parsecache
from skillshelf.core.keptoutput import KeptOutput, keep, kept_file, load

IDENT: keptoutput.Identity = ("code 1", ("index", "--path", "/p"), "/work", {"HOME": "/h", "A": "1"}, (False, False))


def test_a_kept_output_is_found_for_exactly_the_same_command(tmp_path):
    file = kept_file(str(tmp_path), IDENT[1], IDENT[2])
    assert file == kept_file(str(tmp_path), ["index", "--path", "/p"], "/work")
    assert file != kept_file(str(tmp_path), ["index", "--path", "/q"], "/work")
    kept = KeptOutput([(2, "note\n"), (1, "text\n")], 0, "zuno", (1, ("a",)), ("", b"", ()))
    assert keep(file, IDENT, kept)
    back = load(file, IDENT)
    assert back is not None
    assert (back.writes, back.code, back.host, back.proof, back.probes) == (
        ((2, "note\n"), (1, "text\n")), 0, "zuno", (1, ("a",)), ("", b"", ()))
    code, argv, cwd, env, ttys = IDENT
    for other in [("code 2", argv, cwd, env, ttys), (code, ("index",), cwd, env, ttys),
                  (code, argv, "/elsewhere", env, ttys), (code, argv, cwd, {**env, "A": "2"}, ttys),
                  (code, argv, cwd, {**env, "B": ""}, ttys), (code, argv, cwd, env, (True, False))]:
        assert load(file, other) is None
    # the shell's own variables (previous directory, last command) and a new terminal's session
    # identifiers are read by nothing skillshelf runs
    assert load(file, (code, argv, cwd, {**env, "OLDPWD": "/before", "_": "/usr/bin/skillshelf"}, ttys)) is not None
    new_tab = {**env, "SHLVL": "3", "TERM_SESSION_ID": "w0t1p0:5E1", "WINDOWID": "83886087", "TMUX_PANE": "%7",
               "SSH_CONNECTION": "10.0.0.2 51234 10.0.0.1 22", "XDG_SESSION_ID": "c4"}
    assert load(file, (code, argv, cwd, new_tab, ttys)) is not None
    # but anything that may name what is read, or change how it is written, is compared
    for name in ("HOME", "PATH", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "TERM", "LANG", "COLUMNS", "GIT_DIR"):
        assert load(file, (code, argv, cwd, {**env, name: "/other"}, ttys)) is None, name
    assert not [n for n in os.listdir(os.path.dirname(file)) if n.endswith(".tmp")]  # renamed into place


def test_code_stamp_follows_every_source_file(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n")
    before = keptoutput.code_stamp([str(tmp_path / "pkg")])
    assert before == keptoutput.code_stamp([str(tmp_path / "pkg")])
    time.sleep(0.01)
    (tmp_path / "pkg" / "a.py").write_text("x = 22\n")
    assert keptoutput.code_stamp([str(tmp_path / "pkg")]) != before


def test_outputs_beyond_the_count_or_the_size_are_removed_oldest_first(tmp_path, monkeypatch):
    monkeypatch.setattr(keptoutput, "MAX_FILES", 3)
    files = []
    for i in range(5):
        files.append(kept_file(str(tmp_path), [f"index{i}"], "/w"))
        assert keep(files[-1], IDENT, KeptOutput([(1, "x" * 100)], 0, "zuno", None))
        os.utime(files[-1], ns=(i * 10**9, i * 10**9))  # written in this order
    assert sorted(os.listdir(tmp_path / "output")) == sorted(os.path.basename(f) for f in files[2:])
    monkeypatch.setattr(keptoutput, "MAX_BYTES", 1000)
    assert not keep(kept_file(str(tmp_path), ["big"], "/w"), IDENT, KeptOutput([(1, "x" * 2000)], 0, "zuno", None))
    monkeypatch.setattr(keptoutput, "MAX_BYTES", 400)  # one file of ~250 bytes fits, not two
    assert keep(files[0], IDENT, KeptOutput([(1, "y" * 100)], 0, "zuno", None))
    assert len(os.listdir(tmp_path / "output")) == 1


def test_nothing_is_kept_where_the_cache_cannot_be_written(tmp_path):
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro" / "output").write_text("a file where the folder should be")
    assert not keep(kept_file(str(tmp_path / "ro"), ["index"], "/w"), IDENT, KeptOutput([], 0, "zuno", None))


# ---------------------------------------------------------------- recorded questions


@pytest.fixture(autouse=True)
def short_racy_window(monkeypatch):
    monkeypatch.setattr(parsecache, "RACY_NS", 30_000_000)


def test_recorded_questions_hold_until_an_answer_changes(tmp_path):
    d = tmp_path / "d"
    (d / "sub").mkdir(parents=True)
    (d / "f.md").write_text("x")
    time.sleep(0.05)
    with fsprobe.recording() as asked:
        assert fsprobe.exists(str(d / "f.md")) and not fsprobe.exists(str(d / "nope"))
        assert fsprobe.isdir(str(d / "sub")) and fsprobe.isfile(str(d / "f.md"))
        assert fsprobe.listing(str(d)) == {"f.md": False, "sub": True}
        assert fsprobe.same_file(str(d), str(tmp_path / "D")) is None
        fsprobe.file_key(str(d / "f.md"))
    assert fsprobe.exists(str(d)) and len(asked) == 7  # nothing recorded outside the block
    assert fsprobe.provable(asked)
    record = fsprobe.flat(asked)
    assert fsprobe.hold(record)
    (d / "nope").write_text("now it exists")
    assert not fsprobe.hold(record)
    os.remove(d / "nope")
    assert fsprobe.hold(record)
    (d / "f.md").write_text("y")  # the key of a file whose content a finding used
    assert not fsprobe.hold(record)


def test_a_folder_proved_unchanged_answers_for_its_plain_entries_but_not_its_links(tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    os.symlink(tmp_path / "target", d / ".git")  # dangling now
    with fsprobe.recording() as asked:
        assert not fsprobe.exists(str(d / ".git"))
        assert not fsprobe.exists(str(d / "missing"))
    record = fsprobe.flat(asked)
    (tmp_path / "target").mkdir()  # the link resolves now: its folder's listing is the same
    assert not fsprobe.hold(record, {str(d)})
    os.rmdir(tmp_path / "target")
    assert fsprobe.hold(record, {str(d)})
    (d / "missing").mkdir()  # (the caller's proof of the folder would fail now)
    assert fsprobe.hold(record, {str(d)}) and not fsprobe.hold(record)


def test_an_answer_that_changed_while_recording_or_a_racy_file_proves_nothing(tmp_path):
    with fsprobe.recording() as asked:
        fsprobe.exists(str(tmp_path / "x"))
        (tmp_path / "x").write_text("x")
        fsprobe.exists(str(tmp_path / "x"))
    assert not fsprobe.provable(asked)
    with fsprobe.recording() as asked:
        fsprobe.file_key(str(tmp_path / "x"))  # written just now
    assert not fsprobe.provable(asked)
    assert not fsprobe.hold(("", b"", (("key", str(tmp_path / "x"), "racy"),)))
    assert not fsprobe.hold(("a\0b", b"\x00", ()))  # damaged: never an error, never holds
    assert fsprobe.hold(())
