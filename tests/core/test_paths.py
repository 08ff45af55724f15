"""Tests for skillshelf.core.paths (SPEC D1, D3, C1; conformance Z021, Z024)."""

from __future__ import annotations

import os

import pytest

from skillshelf.core.paths import (
    AUTO_WORKTREE,
    Environment,
    canonical,
    expand_path,
    find_worktree,
    is_within,
    project_walk,
    resolve_worktree,
)

# ---- Environment ---------------------------------------------------------------------------

def test_environment_from_mapping_defaults_xdg_under_home():
    env = Environment.from_mapping({"HOME": "/h"})
    assert (env.home, env.xdg_config_home, env.xdg_cache_home) == ("/h", "/h/.config", "/h/.cache")


def test_environment_from_mapping_takes_explicit_xdg():
    env = Environment.from_mapping(
        {"HOME": "/h", "XDG_CONFIG_HOME": "/x/conf", "XDG_CACHE_HOME": "/x/cache", "A": "b"}
    )
    assert (env.xdg_config_home, env.xdg_cache_home) == ("/x/conf", "/x/cache")
    assert env.get("A") == "b"
    assert env.get("MISSING") is None


def test_environment_empty_xdg_falls_back_like_the_host():
    env = Environment.from_mapping({"HOME": "/h", "XDG_CONFIG_HOME": "", "XDG_CACHE_HOME": ""})
    assert (env.xdg_config_home, env.xdg_cache_home) == ("/h/.config", "/h/.cache")


def test_environment_vars_is_a_snapshot_not_the_callers_dict():
    source = {"HOME": "/h", "ZUNO_CONFIG_DIR": "/c"}
    env = Environment.from_mapping(source)
    source["ZUNO_CONFIG_DIR"] = "/changed"
    assert env.get("ZUNO_CONFIG_DIR") == "/c"
    with pytest.raises(TypeError):
        env.vars["X"] = "y"  # type: ignore[index]


def test_environment_from_none_reads_the_process_environment(monkeypatch):
    monkeypatch.setenv("HOME", "/proc-home-for-test")
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("ZUNO_TEST_MARKER", "1")
    env = Environment.from_mapping(None)
    assert env.home == "/proc-home-for-test"
    assert env.xdg_config_home == "/proc-home-for-test/.config"
    assert env.flag("ZUNO_TEST_MARKER") is True


@pytest.mark.parametrize(
    "value, expected",
    [("1", True), ("true", True), ("TRUE", True), ("True", True),
     ("0", False), ("", False), ("yes", False), ("false", False), (" 1", False), ("11", False)],
)
def test_z021_flag_truthiness(value, expected):
    """Z021: flags are truthy for ``1`` / ``true`` (the host lower-cases before comparing)."""
    env = Environment.from_mapping({"HOME": "/h", "ZUNO_DISABLE_EXTERNAL_SKILLS": value})
    assert env.flag("ZUNO_DISABLE_EXTERNAL_SKILLS") is expected


def test_flag_unset_is_false():
    assert Environment.from_mapping({"HOME": "/h"}).flag("ZUNO_DISABLE_PROJECT_CONFIG") is False


# ---- worktree and walk ---------------------------------------------------------------------

def test_find_worktree_nearest_git_dir(tmp_path):
    (tmp_path / "repo/.git").mkdir(parents=True)
    (tmp_path / "repo/a/b").mkdir(parents=True)
    assert find_worktree(str(tmp_path / "repo/a/b")) == str(tmp_path / "repo")
    assert find_worktree(str(tmp_path / "repo")) == str(tmp_path / "repo")


def test_find_worktree_git_file_counts(tmp_path):
    (tmp_path / "wt/sub").mkdir(parents=True)
    (tmp_path / "wt/.git").write_text("gitdir: /elsewhere\n")
    (tmp_path / "wt/sub/inner/.git").mkdir(parents=True)
    assert find_worktree(str(tmp_path / "wt/sub")) == str(tmp_path / "wt")
    assert find_worktree(str(tmp_path / "wt/sub/inner")) == str(tmp_path / "wt/sub/inner")


def test_find_worktree_none_without_git(tmp_path, monkeypatch):
    monkeypatch.setattr(os.path, "lexists", lambda p: False)
    assert find_worktree(str(tmp_path)) is None


def test_project_walk_stops_at_worktree_inclusive():
    assert project_walk("/a/b/c", "/a/b") == ["/a/b/c", "/a/b"]
    assert project_walk("/a/b/c", "/a/b/c") == ["/a/b/c"]


def test_project_walk_without_worktree_runs_to_root():
    assert project_walk("/a/b", None) == ["/a/b", "/a", "/"]


def test_project_walk_unrelated_stop_runs_to_root():
    """The stop is string equality, not ancestry (conformance §0.3)."""
    assert project_walk("/a/b", "/x/y") == ["/a/b", "/a", "/"]


def test_project_walk_normalises_spelling():
    assert project_walk("/a/./b/../b/", "/a/") == ["/a/b", "/a"]


def test_resolve_worktree_auto_and_explicit(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "x").mkdir()
    assert resolve_worktree(str(tmp_path / "x"), AUTO_WORKTREE) == str(tmp_path)
    assert resolve_worktree(str(tmp_path / "x"), None) is None
    assert resolve_worktree(str(tmp_path / "x"), "/w") == "/w"


# ---- expansion -----------------------------------------------------------------------------

def test_z024_tilde_slash_expands_against_home():
    assert expand_path("~/tilde", home="/T/home", cwd="/T/proj") == "/T/home/tilde"


def test_relative_entry_joins_cwd_not_worktree():
    assert expand_path("extra", home="/h", cwd="/repo/sub") == "/repo/sub/extra"
    assert expand_path("../x/./y/", home="/h", cwd="/repo/sub") == "/repo/x/y"


def test_absolute_entry_is_normalised_only():
    assert expand_path("/a//b/../c/", home="/h", cwd="/w") == "/a/c"


def test_only_tilde_slash_expands_like_the_host():
    """SPEC D3 / host ``strip_prefix("~/")``: bare ``~`` and ``~user`` stay relative names."""
    assert expand_path("~", home="/h", cwd="/w") == "/w/~"
    assert expand_path("~bob/x", home="/h", cwd="/w") == "/w/~bob/x"


def test_expand_does_not_resolve_symlinks(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert expand_path("link", home="/h", cwd=str(tmp_path)) == str(tmp_path / "link")


# ---- canonical / is_within -----------------------------------------------------------------

def test_canonical_resolves_symlinks(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to("real")
    assert canonical(str(tmp_path / "link")) == os.path.realpath(tmp_path / "real")


def test_canonical_of_missing_path_is_normalised(tmp_path):
    base = os.path.realpath(tmp_path)
    assert canonical(base + "/missing/../gone/") == base + "/gone"


def test_canonical_falls_back_on_error(monkeypatch):
    def boom(path, strict=False):
        raise OSError("nope")

    monkeypatch.setattr(os.path, "realpath", boom)
    assert canonical("/a/./b/../c") == "/a/c"


@pytest.mark.parametrize(
    "path, directory, expected",
    [("/a/b", "/a/b", True), ("/a/b/c", "/a/b", True), ("/a/bc", "/a/b", False),
     ("/a", "/a/b", False), ("/a/b/", "/a/b", True), ("/x", "/", True), ("/a/b/../bc", "/a/b", False)],
)
def test_is_within_is_component_wise(path, directory, expected):
    assert is_within(path, directory) is expected


def test_working_directory_is_cwd_made_absolute_or_the_current_one_and_says_what_is_wrong(tmp_path, monkeypatch):
    from skillshelf.core.paths import working_directory

    monkeypatch.chdir(tmp_path)
    assert working_directory(None) == str(tmp_path)
    (tmp_path / "sub").mkdir()
    assert working_directory("sub") == str(tmp_path / "sub")
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotADirectoryError) as wrong:
        working_directory(str(tmp_path / "file"))
    assert str(wrong.value) == f"--cwd {tmp_path / 'file'}: not a directory"
    monkeypatch.chdir(tmp_path / "sub")
    (tmp_path / "sub").rmdir()
    with pytest.raises(FileNotFoundError) as gone:
        working_directory(None)
    assert str(gone.value) == ("the current directory no longer exists: run skillshelf from an existing directory "
                               "or give --cwd DIR")
    assert working_directory(str(tmp_path)) == str(tmp_path)  # (an absolute --cwd needs no current directory)
