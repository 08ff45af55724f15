"""Tests for skillshelf.core.scan (SPEC D4; conformance Z032–Z038; cases B09, B10)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import SHARED

from skillshelf.core.model import CatalogWarning
from skillshelf.core.scan import path_sort_key, scan
from skillshelf.core.walklimits import MAX_WALK_DEPTH


def write(root: Path, relative: str) -> str:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\nname: x\n---\nB\n")
    return str(path)


def rel(root: Path, paths) -> list[str]:
    return [os.path.relpath(p, root) for p in paths]


def kinds(result) -> list[tuple[str, str]]:
    return [(w.kind, w.source) for w in result.warnings]


# ---- conformance ---------------------------------------------------------------------------

def test_z032_double_star_matches_zero_segments(tmp_path):
    at_root = write(tmp_path, "skills/SKILL.md")
    nested = write(tmp_path, "skills/a/b/SKILL.md")
    result = scan(str(tmp_path / "skills"), dot=True)
    assert result.matches == (at_root, nested)
    assert result.warnings == ()


def test_z033_dot_false_prunes_hidden_directories(tmp_path):
    visible = write(tmp_path, "skill/a/SKILL.md")
    write(tmp_path, "skill/.hidden/b/SKILL.md")
    write(tmp_path, "skill/a/.deeper/c/SKILL.md")
    assert scan(str(tmp_path / "skill"), dot=False).matches == (visible,)


def test_z034_dot_true_keeps_hidden_directories(tmp_path):
    write(tmp_path, "skills/a/SKILL.md")
    write(tmp_path, "skills/.hidden/b/SKILL.md")
    result = scan(str(tmp_path / "skills"), dot=True)
    assert rel(tmp_path, result.matches) == ["skills/.hidden/b/SKILL.md", "skills/a/SKILL.md"]


def test_z035_only_the_singular_zuno_prefix_is_scanned(tmp_path):
    singular = write(tmp_path, "skill/a/SKILL.md")
    write(tmp_path, "skills/b/SKILL.md")
    assert scan(str(tmp_path / "skill"), dot=False).matches == (singular,)


def test_z036_missing_root_is_silent(tmp_path):
    result = scan(str(tmp_path / "absent"), dot=False)
    assert result.matches == () and result.warnings == ()


def test_missing_root_below_a_file_is_silent(tmp_path):
    (tmp_path / "file").write_text("x")
    result = scan(str(tmp_path / "file/skills"), dot=False)
    assert result.matches == () and result.warnings == ()


def test_root_that_is_a_file_is_silent(tmp_path):
    (tmp_path / "file").write_text("x")
    assert scan(str(tmp_path / "file"), dot=False) == scan(str(tmp_path / "absent"), dot=False)


def test_z037_symlinked_directories_are_followed_and_reported_by_link_path(tmp_path):
    write(tmp_path, "target/real/SKILL.md")
    (tmp_path / "skills").mkdir()
    (tmp_path / "skills/linked").symlink_to(tmp_path / "target/real")
    result = scan(str(tmp_path / "skills"), dot=True)
    assert result.matches == (str(tmp_path / "skills/linked/SKILL.md"),)
    assert result.canonicals == (os.path.realpath(tmp_path / "target/real/SKILL.md"),)
    assert result.warnings == ()


def test_z038_other_filenames_are_ignored(tmp_path):
    (tmp_path / "skills/a").mkdir(parents=True)
    (tmp_path / "skills/a/README.md").write_text("no")
    (tmp_path / "skills/a/skill.md").write_text("no")
    (tmp_path / "skills/a/SKILL.MD").write_text("no")
    (tmp_path / "skills/a/SKILL.md.bak").write_text("no")
    result = scan(str(tmp_path / "skills"), dot=True)
    # not read (Z038); the near-miss names are said so (skillshelf's wrong-file-name warnings)
    assert result.matches == ()
    a = tmp_path / "skills/a"
    assert [(w.kind, w.source) for w in result.warnings] == [
        ("wrong-file-name", str(a / "SKILL.MD")), ("wrong-file-name", str(a / "skill.md"))]


# ---- dot rule details ----------------------------------------------------------------------

def test_hidden_scan_dir_itself_is_walked_with_dot_false(tmp_path):
    """Only directories *below* the scan dir are pruned (``~/.agents/skills`` style roots)."""
    found = write(tmp_path, ".hidden-root/a/SKILL.md")
    assert scan(str(tmp_path / ".hidden-root"), dot=False).matches == (found,)


def test_hidden_files_are_not_matches_and_not_warned(tmp_path):
    write(tmp_path, "s/a/SKILL.md")
    (tmp_path / "s/a/.SKILL.md").write_text("x")
    result = scan(str(tmp_path / "s"), dot=False)
    assert rel(tmp_path, result.matches) == ["s/a/SKILL.md"]
    assert result.warnings == ()


# ---- order ---------------------------------------------------------------------------------

def test_matches_sorted_component_wise_by_bytes(tmp_path):
    """Host order (``BTreeSet<PathBuf>``): ``a/b`` before ``a-b`` though ``-`` < ``/``."""
    for d in ["a-b", "a/b", "B", "a", "é", "z"]:
        write(tmp_path, f"s/{d}/SKILL.md")
    result = scan(str(tmp_path / "s"), dot=False)
    assert rel(tmp_path / "s", result.matches) == [
        "B/SKILL.md", "a/SKILL.md", "a/b/SKILL.md", "a-b/SKILL.md", "z/SKILL.md", "é/SKILL.md"
    ]


def test_path_sort_key_components():
    assert path_sort_key("/a/b-c/SKILL.md") == b"\0a\0b-c\0SKILL.md"
    assert sorted(["/a-b/x", "/a/b/x"], key=path_sort_key) == ["/a/b/x", "/a-b/x"]


def test_canonicals_are_parallel_to_matches(tmp_path):
    write(tmp_path, "s/b/SKILL.md")
    write(tmp_path, "store/real/SKILL.md")
    (tmp_path / "s/a").symlink_to(tmp_path / "store/real")
    result = scan(str(tmp_path / "s"), dot=False)
    real = os.path.realpath(tmp_path)
    assert rel(tmp_path, result.matches) == ["s/a/SKILL.md", "s/b/SKILL.md"]
    assert result.canonicals == (real + "/store/real/SKILL.md", real + "/s/b/SKILL.md")


# ---- case B10: depths and nesting ----------------------------------------------------------

def test_b10_depths_and_nested_skill_all_match(tmp_path):
    for d in ["top-level", "category-a/nested-one", "category-a/group/deep-two",
              "top-level/extras/inner"]:
        write(tmp_path, f"skills/{d}/SKILL.md")
    (tmp_path / "skills/top-level/references").mkdir()
    (tmp_path / "skills/top-level/references/guide.md").write_text("guide")
    result = scan(str(tmp_path / "skills"), dot=False)
    assert rel(tmp_path / "skills", result.matches) == [
        "category-a/group/deep-two/SKILL.md",
        "category-a/nested-one/SKILL.md",
        "top-level/SKILL.md",
        "top-level/extras/inner/SKILL.md",
    ]
    assert result.warnings == ()


# ---- case B09: symlinks --------------------------------------------------------------------

def build_b09(base: Path) -> None:
    write(base, "skills/plain/SKILL.md")
    write(base, "store/linked-skill/SKILL.md")
    (base / "skills/linked-skill").symlink_to("../store/linked-skill")
    (base / "skills/dangling").symlink_to("../store/does-not-exist")
    (base / "skills/loop").symlink_to("../skills")


def test_b09_relative_link_followed_dangling_warned_loop_finishes(tmp_path):
    build_b09(tmp_path)
    skills = tmp_path / "skills"
    result = scan(str(skills), dot=False)
    assert rel(skills, result.matches) == ["linked-skill/SKILL.md", "plain/SKILL.md"]
    assert result.warnings == (  # Z-T: the loop is Zuno's ScanFailed, the dangling link skillshelf's own
        CatalogWarning("broken-symlink", str(skills / "dangling"),
                       f"skillshelf: broken symlink {skills / 'dangling'} -> ../store/does-not-exist "
                       "(Zuno skips it silently)"),
        CatalogWarning("ScanFailed", str(skills / "loop"),
                       f"failed to scan skills in {skills / 'loop'}: other error"),
        CatalogWarning("symlink-loop", str(skills / "loop"),
                       f"skillshelf: {skills / 'loop'} is a symlink loop (-> {skills}): Zuno reports it as "
                       "`other error` and skips it"),
    )


def test_loop_to_an_ancestor_deep_in_the_tree(tmp_path):
    write(tmp_path, "s/a/b/c/SKILL.md")
    (tmp_path / "s/a/b/c/up").symlink_to("../../..")  # -> s
    (tmp_path / "s/a/b/c/mid").symlink_to("../..")  # -> s/a
    result = scan(str(tmp_path / "s"), dot=False)
    assert rel(tmp_path, result.matches) == ["s/a/b/c/SKILL.md"]
    assert [(k, os.path.relpath(s, tmp_path)) for k, s in kinds(result)] == [
        ("ScanFailed", "s/a/b/c/mid"), ("symlink-loop", "s/a/b/c/mid"),
        ("ScanFailed", "s/a/b/c/up"), ("symlink-loop", "s/a/b/c/up")]


def test_loop_through_a_chain_of_links_between_two_trees(tmp_path):
    """s/x -> t, t/y -> u, u/z -> t : t and u are entered once, the way back is a loop."""
    write(tmp_path, "t/SKILL.md")
    write(tmp_path, "u/SKILL.md")
    (tmp_path / "s").mkdir()
    (tmp_path / "s/x").symlink_to(tmp_path / "t")
    (tmp_path / "t/y").symlink_to(tmp_path / "u")
    (tmp_path / "u/z").symlink_to(tmp_path / "t")
    result = scan(str(tmp_path / "s"), dot=False)
    assert rel(tmp_path, result.matches) == ["s/x/SKILL.md", "s/x/y/SKILL.md"]
    assert [(k, os.path.relpath(s, tmp_path)) for k, s in kinds(result)] == [
        ("ScanFailed", "s/x/y/z"), ("symlink-loop", "s/x/y/z")]


def test_self_referential_symlinks_warn_and_finish(tmp_path):
    write(tmp_path, "s/ok/SKILL.md")
    (tmp_path / "s/self").symlink_to("self")
    (tmp_path / "s/ping").symlink_to("pong")
    (tmp_path / "s/pong").symlink_to("ping")
    result = scan(str(tmp_path / "s"), dot=False)
    assert rel(tmp_path, result.matches) == ["s/ok/SKILL.md"]
    assert [(k, os.path.basename(s)) for k, s in kinds(result)] == [
        ("ScanFailed", "ping"), ("symlink-loop", "ping"), ("ScanFailed", "pong"), ("symlink-loop", "pong"),
        ("ScanFailed", "self"), ("symlink-loop", "self")]
    assert result.warnings[0].message.endswith(": other error")
    self_link = str(tmp_path / "s/self")
    assert result.warnings[5].message == (f"skillshelf: {self_link} is a symlink loop: Zuno reports it as "
                                          "`other error` and skips it")


def test_two_links_to_one_directory_report_both_spellings_walk_it_once(tmp_path, monkeypatch):
    """A symlink DAG: every spelling is reported (for discovery's aliases), each dir read once."""
    write(tmp_path, "store/pkg/SKILL.md")
    write(tmp_path, "store/pkg/sub/SKILL.md")
    (tmp_path / "s").mkdir()
    (tmp_path / "s/one").symlink_to(tmp_path / "store/pkg")
    (tmp_path / "s/two").symlink_to(tmp_path / "store/pkg")
    calls: list[str] = []
    real_scandir = os.scandir

    def counting(path):
        calls.append(os.path.relpath(path, tmp_path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", counting)
    result = scan(str(tmp_path / "s"), dot=False)
    assert rel(tmp_path, result.matches) == [
        "s/one/SKILL.md", "s/one/sub/SKILL.md", "s/two/SKILL.md", "s/two/sub/SKILL.md"]
    real = os.path.realpath(tmp_path)
    assert result.canonicals == (real + "/store/pkg/SKILL.md", real + "/store/pkg/sub/SKILL.md") * 2
    assert result.warnings == ()
    assert calls == ["s", "s/one", "s/one/sub"]


def test_exponential_symlink_dag_stays_linear(tmp_path, monkeypatch):
    """16 levels (the walk's depth limit), each with two links to the next: 2**16 spellings would
    hang a naive walk."""
    depth = MAX_WALK_DEPTH
    for i in range(depth):
        (tmp_path / f"d{i}").mkdir()
        for name in ("l", "r"):
            (tmp_path / f"d{i}/{name}").symlink_to(tmp_path / f"d{i + 1}")
    (tmp_path / f"d{depth}").mkdir()
    calls = []
    real_scandir = os.scandir
    monkeypatch.setattr(os, "scandir", lambda p: (calls.append(p), real_scandir(p))[1])
    result = scan(str(tmp_path / "d0"), dot=False)
    assert result.matches == () and result.warnings == ()
    assert len(calls) == depth + 1


def test_symlinked_skill_file_matches(tmp_path):
    write(tmp_path, "store/SKILL.md")
    (tmp_path / "s/a").mkdir(parents=True)
    (tmp_path / "s/a/SKILL.md").symlink_to(tmp_path / "store/SKILL.md")
    result = scan(str(tmp_path / "s"), dot=False)
    assert result.matches == (str(tmp_path / "s/a/SKILL.md"),)
    assert result.canonicals == (os.path.realpath(tmp_path / "store/SKILL.md"),)


def test_dangling_skill_file_link_is_a_broken_symlink(tmp_path):
    (tmp_path / "s/a").mkdir(parents=True)
    (tmp_path / "s/a/SKILL.md").symlink_to(tmp_path / "gone.md")
    result = scan(str(tmp_path / "s"), dot=False)
    assert result.matches == ()
    assert kinds(result) == [("broken-symlink", str(tmp_path / "s/a/SKILL.md"))]


def test_dangling_root_symlink_is_a_broken_symlink(tmp_path):
    (tmp_path / "skills").symlink_to(tmp_path / "nowhere")
    result = scan(str(tmp_path / "skills"), dot=False)
    assert kinds(result) == [("broken-symlink", str(tmp_path / "skills"))]


def test_root_reached_through_a_symlink_is_spelled_as_given(tmp_path):
    write(tmp_path, "real/a/SKILL.md")
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    result = scan(str(tmp_path / "alias"), dot=False)
    assert result.matches == (str(tmp_path / "alias/a/SKILL.md"),)
    assert result.canonicals == (os.path.realpath(tmp_path / "real/a/SKILL.md"),)


def test_hidden_symlinks_are_pruned_with_dot_false(tmp_path):
    write(tmp_path, "store/x/SKILL.md")
    (tmp_path / "s").mkdir()
    (tmp_path / "s/.link").symlink_to(tmp_path / "store")
    (tmp_path / "s/.dangling").symlink_to(tmp_path / "nowhere")
    pruned = scan(str(tmp_path / "s"), dot=False)
    assert pruned.matches == () and pruned.links == ()
    # not scanned, but said so (skillshelf's dot-folder-skipped warning); the dangling link holds nothing
    assert [(w.kind, w.source) for w in pruned.warnings] == [("dot-folder-skipped", str(tmp_path / "s/.link"))]
    assert rel(tmp_path, scan(str(tmp_path / "s"), dot=True).matches) == ["s/.link/x/SKILL.md"]


# ---- non-files named SKILL.md --------------------------------------------------------------

def test_directory_named_skill_md_is_not_a_match_but_is_walked(tmp_path):
    inner = write(tmp_path, "s/a/SKILL.md/b/SKILL.md")
    result = scan(str(tmp_path / "s"), dot=False)
    assert result.matches == (inner,)
    assert result.warnings == (
        CatalogWarning("not-a-file", str(tmp_path / "s/a/SKILL.md"),
                       f"{tmp_path / 's/a/SKILL.md'} is named SKILL.md but is not a regular file"),
    )


def test_fifo_named_skill_md_is_not_a_match(tmp_path):
    (tmp_path / "s/a").mkdir(parents=True)
    os.mkfifo(tmp_path / "s/a/SKILL.md")
    result = scan(str(tmp_path / "s"), dot=False)
    assert result.matches == ()
    assert kinds(result) == [("not-a-file", str(tmp_path / "s/a/SKILL.md"))]


# ---- unreadable ----------------------------------------------------------------------------

def test_unreadable_directory_is_warned_and_the_rest_scanned(tmp_path, monkeypatch):
    good = write(tmp_path, "s/good/SKILL.md")
    write(tmp_path, "s/locked/x/SKILL.md")
    locked = str(tmp_path / "s/locked")
    real_scandir = os.scandir

    def guarded(path):
        if path == locked:
            raise PermissionError(13, "Permission denied", path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", guarded)
    result = scan(str(tmp_path / "s"), dot=False)
    assert result.matches == (good,)
    assert result.warnings == (
        CatalogWarning("ScanFailed", locked, f"failed to scan skills in {locked}: permission denied"),
    )


def test_io_error_on_the_root_is_unreadable(tmp_path, monkeypatch):
    (tmp_path / "s").mkdir()

    def broken(path):
        raise OSError(5, "Input/output error", path)

    monkeypatch.setattr(os, "scandir", broken)
    result = scan(str(tmp_path / "s"), dot=False)
    assert result.warnings == (
        CatalogWarning("ScanFailed", str(tmp_path / "s"),
                       f"failed to scan skills in {tmp_path / 's'}: uncategorized error"),
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_unreadable_directory_real_permissions(tmp_path):
    good = write(tmp_path, "s/good/SKILL.md")
    write(tmp_path, "s/locked/x/SKILL.md")
    (tmp_path / "s/locked").chmod(0)
    try:
        result = scan(str(tmp_path / "s"), dot=False)
    finally:
        (tmp_path / "s/locked").chmod(0o755)
    assert result.matches == (good,)
    assert kinds(result) == [("unreadable", str(tmp_path / "s/locked"))]


# ---- the shared cases and corpus (skipped when absent) -------------------------------------

def test_shared_case_b09(tmp_path):
    case = SHARED / "cases/B09"
    if not case.is_dir():
        pytest.skip("shared cases absent")
    base = tmp_path / "B09"
    shutil.copytree(case, base, symlinks=True)
    # A checkout without symlink support stores each link as a file holding its target.
    for name in ("linked-skill", "dangling", "loop"):
        entry = base / "skills" / name
        if not entry.is_symlink():
            target = entry.read_text().strip()
            entry.chmod(0o644)
            (base / "skills").chmod(0o755)
            entry.unlink()
            entry.symlink_to(target)
    result = scan(str(base / "skills"), dot=False)
    assert rel(base / "skills", result.matches) == ["linked-skill/SKILL.md", "plain/SKILL.md"]
    # Z-T: a loop is Zuno's ScanFailed; the dangling link is skillshelf's own warning
    assert kinds(result) == [("broken-symlink", str(base / "skills/dangling")),
                             ("ScanFailed", str(base / "skills/loop")),
                             ("symlink-loop", str(base / "skills/loop"))]


def test_shared_case_b10():
    skills = SHARED / "cases/B10/skills"
    if not skills.is_dir():
        pytest.skip("shared cases absent")
    result = scan(str(skills), dot=False)
    assert rel(skills, result.matches) == [
        "category-a/group/deep-two/SKILL.md",
        "category-a/nested-one/SKILL.md",
        "top-level/SKILL.md",
        "top-level/extras/inner/SKILL.md",
    ]
    assert result.warnings == ()


def test_shared_corpus_dot_rule():
    corpus = SHARED / "corpus"
    if not corpus.is_dir():
        pytest.skip("shared corpus absent")
    hidden = scan(str(corpus), dot=False)
    everything = scan(str(corpus), dot=True)
    assert len(hidden.matches) == 1100
    assert len(everything.matches) == 1117
    assert not any("/." in os.path.relpath(m, corpus) or os.path.relpath(m, corpus).startswith(".")
                   for m in hidden.matches)
    assert list(hidden.matches) == sorted(hidden.matches, key=path_sort_key)
