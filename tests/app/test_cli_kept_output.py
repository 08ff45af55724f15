"""A kept command output (``skillshelf.core.keptoutput``, ``skillshelf.app.keptrun``) is printed
again only while every input of the command provably holds: after any change of a file, a
folder, the configuration, the environment, the working directory, the options, the Zuno
executable, the model catalog or the worktree, the output equals ``--no-cache``'s, byte for
byte (the must-hold: the cache never makes skillshelf show what the files do not say)."""

from __future__ import annotations

import glob
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Callable

import pytest
from conftest import same_size_same_mtime

from skillshelf.app import keptrun
from skillshelf.app.cli import main
from skillshelf.core import keptoutput, parsecache
from skillshelf.core.hosts.zuno import installed

#: The racy window used here (seconds), as in test_parsecache.
WINDOW = 0.03


def skill(name: str, description: str, body: str = "body\n") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}"


def write(path: str, text: str) -> str:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path


def settle() -> None:
    """Let every file written so far leave the racy window."""
    time.sleep(WINDOW * 1.5)


class Workspace:
    """T/outer/proj (the working directory; T/outer holds a ``.agents`` the walk reaches while
    there is no worktree), T/home (HOME, XDG folders inside), T/shared (``--path``)."""

    def __init__(self, tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.t = os.path.realpath(str(tmp_path))
        self.outer = os.path.join(self.t, "outer")
        self.proj = os.path.join(self.outer, "proj")
        self.home = os.path.join(self.t, "home")
        self.shared = os.path.join(self.t, "shared")
        self.agents = os.path.join(self.proj, ".agents", "skills")
        self.zuno = os.path.join(self.proj, ".zuno", "skill")
        self.bin = os.path.join(self.t, "bin")
        os.makedirs(self.bin)
        os.makedirs(os.path.join(self.home, ".config"))
        for key in list(os.environ):
            if key.startswith(("ZUNO_", "XDG_", "SKILLSHELF_ZUNO")):
                monkeypatch.delenv(key, raising=False)
        monkeypatch.delenv("NO_COLOR", raising=False)
        monkeypatch.setenv("HOME", self.home)
        monkeypatch.setenv("XDG_CONFIG_HOME", os.path.join(self.home, ".config"))
        monkeypatch.setenv("XDG_CACHE_HOME", os.path.join(self.home, ".cache"))
        monkeypatch.setenv("PATH", self.bin + os.pathsep + os.environ.get("PATH", ""))
        self.files = {
            "edit": write(f"{self.agents}/edit/SKILL.md", skill("edit", "Before the edit")),
            "swap": write(f"{self.agents}/swap/SKILL.md", skill("swap", "AAAA version")),
            "inplace": write(f"{self.agents}/inplace/SKILL.md", skill("inplace", "CCCC version")),
            "rename": write(f"{self.agents}/rename/SKILL.md", skill("rename", "Moves")),
            "delete": write(f"{self.agents}/delete/SKILL.md", skill("delete", "Goes away")),
            "keep": write(f"{self.zuno}/keep/SKILL.md", skill("keep", "Never changes")),
            "side": write(f"{self.zuno}/side/SKILL.md", skill("side", "Has a sidecar")),
            "sidecar": write(f"{self.zuno}/side/agents/zuno.yaml", "policy:\n  exposure: index\n"),
            "home": write(f"{self.home}/.agents/skills/home-one/SKILL.md", skill("home-one", "Home copy")),
            "shared": write(f"{self.shared}/shared-one/SKILL.md", skill("shared-one", "Shared copy")),
            "outer": write(f"{self.outer}/.agents/skills/outer-one/SKILL.md", skill("outer-one", "Above the project")),
            "target": write(f"{self.t}/elsewhere/linked/SKILL.md", skill("linked", "Reached through a link")),
            "other": write(f"{self.t}/elsewhere2/linked/SKILL.md", skill("linked", "Other link target")),
        }
        os.symlink(os.path.dirname(self.files["target"]), f"{self.agents}/linked")
        monkeypatch.chdir(self.proj)


@pytest.fixture
def ws(tmp_path, monkeypatch) -> Workspace:
    monkeypatch.setattr(parsecache, "RACY_NS", int(WINDOW * 1e9))
    w = Workspace(tmp_path, monkeypatch)
    settle()
    return w


class Runs:
    """Runs ``skillshelf ARGS`` in this process and says whether the kept output was printed."""

    def __init__(self, capsys, monkeypatch) -> None:
        self.capsys = capsys
        self.replayed: list[bool] = []
        real = keptrun.replay

        def spy(argv):
            code = real(argv)
            self.replayed.append(code is not None)
            return code

        monkeypatch.setattr(keptrun, "replay", spy)

    def __call__(self, *args: str) -> tuple[int, str, str]:
        self.capsys.readouterr()
        code = main(list(args))
        out = self.capsys.readouterr()
        return code, out.out, out.err

    def check(self, *args: str, kept: bool | None = None) -> tuple[int, str, str]:
        """Run ``args`` (with the cache) and compare with ``--no-cache``, byte for byte; ``kept``:
        whether the kept output must (True) or must not (False) have been printed."""
        got = self(*args)
        was_kept = self.replayed[-1]
        plain = self(*args, "--no-cache")
        assert got == plain
        if kept is not None:
            assert was_kept is kept
        return got


@pytest.fixture
def runs(capsys, monkeypatch) -> Runs:
    return Runs(capsys, monkeypatch)




def _folder_time_back(path: str, before: os.stat_result) -> None:
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_a_second_run_prints_the_kept_output_and_equals_no_cache(ws, runs):
    args = ("index", "--path", ws.shared)
    first = runs.check(*args, kept=False)
    assert "Home copy" in first[1] and "Above the project" in first[1] and "Reached through a link" in first[1]
    second = runs.check(*args, kept=True)
    assert second == first
    assert len(glob.glob(os.path.join(ws.home, ".cache", "skillshelf", "output", "*.kept"))) == 1
    options_first = ("--path", ws.shared, "index")  # (the common options before the command)
    assert runs.check(*options_first, kept=False) == first
    assert runs.check(*options_first, kept=True) == first
    assert len(glob.glob(os.path.join(ws.home, ".cache", "skillshelf", "output", "*.kept"))) == 2


def _zuno_script(path: str, status: int) -> None:
    write(path, f"#!/bin/sh\nexit {status}\n")
    os.chmod(path, 0o755)


def _native_zuno(path: str, program: str) -> None:
    """A compiled executable as ``zuno`` (a copy of ``true`` or ``false``: a script is never proved)."""
    found = shutil.which(program)
    if found is None:
        pytest.skip(f"no {program} executable")
    with open(os.path.realpath(found), "rb") as fh:
        if fh.read(2) == b"#!":
            pytest.skip(f"{program} is a script here")
    shutil.copyfile(os.path.realpath(found), path + ".new")
    os.chmod(path + ".new", 0o755)
    os.replace(path + ".new", path)


#: Each change between two runs, and what it does to the files, the environment or the command
#: line. Every one changes the output, so a kept output printed after it would be caught.
CHANGES: list[tuple[str, Callable[[Workspace, pytest.MonkeyPatch], None]]] = [
    ("edit", lambda w, mp: write(w.files["edit"], skill("edit", "After the edit, longer"))),
    ("replace-same-size-same-mtime",
     lambda w, mp: same_size_same_mtime(w.files["swap"], skill("swap", "BBBB version"), replace=True)),
    ("write-in-place-same-size-same-mtime",
     lambda w, mp: same_size_same_mtime(w.files["inplace"], skill("inplace", "DDDD version"), replace=False)),
    ("rename-folder", lambda w, mp: os.rename(os.path.dirname(w.files["rename"]), f"{w.agents}/renamed")),
    ("delete-file", lambda w, mp: os.remove(w.files["delete"])),
    ("new-skill-in-a-walked-folder", lambda w, mp: write(f"{w.zuno}/added/SKILL.md", skill("added", "New one"))),
    ("new-skill-folder-times-set-back", lambda w, mp: _new_skill_hidden_by_times(w)),
    ("sidecar-edit", lambda w, mp: write(w.files["sidecar"], "policy:\n  exposure: search\n")),
    ("sidecar-created", lambda w, mp: write(f"{w.zuno}/keep/agents/zuno.yaml", "policy:\n  exposure: explicit\n")),
    ("symlink-retargeted", lambda w, mp: _retarget(w)),
    ("linked-target-edited", lambda w, mp: write(w.files["target"], skill("linked", "Edited through the link"))),
    ("missing-root-created",
     lambda w, mp: write(f"{w.home}/.config/zuno/skill/global-one/SKILL.md", skill("global-one", "Global now"))),
    ("project-config-created",
     lambda w, mp: write(f"{w.proj}/.zuno/zuno.json",
                         '{"skills": {"config": [{"path": ".zuno/skill/keep", "exposure": "search"}]}}')),
    ("config-layer-above-the-project",
     lambda w, mp: write(f"{w.outer}/zuno.json", '{"skills": {"includeInstructions": false}}')),
    ("global-config-paths", lambda w, mp: write(f"{w.home}/.config/zuno/zuno.json",
                                                '{"skills": {"paths": ["' + w.t + '/elsewhere2"]}}')),
    ("env-var-the-host-reads", lambda w, mp: mp.setenv("ZUNO_DISABLE_EXTERNAL_SKILLS", "1")),
    ("env-config-content",
     lambda w, mp: mp.setenv("ZUNO_CONFIG_CONTENT", '{"skills": {"maxContextTokens": 20}}')),
    ("worktree-appears", lambda w, mp: _git_init(w.proj)),
    ("zuno-on-path", lambda w, mp: _native_zuno(os.path.join(w.bin, "zuno"), "false")),
    ("model-catalog", lambda w, mp: _model_catalog(w)),
]


def _new_skill_hidden_by_times(w: Workspace) -> None:
    """A new skill whose folder times are set back: the parent folder's ctime still changes."""
    parent = w.zuno
    before = os.stat(parent)
    write(f"{parent}/sneaky/SKILL.md", skill("sneaky", "Arrived quietly"))
    _folder_time_back(parent, before)


def _retarget(w: Workspace) -> None:
    link = f"{w.agents}/linked"
    before = os.stat(w.agents)
    os.remove(link)
    os.symlink(os.path.dirname(w.files["other"]), link)
    _folder_time_back(w.agents, before)


def _git_init(path: str) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q", path], check=True, capture_output=True)


def _model_catalog(w: Workspace) -> None:
    """A configured model whose window the model catalog gives, then the catalog changes."""
    write(f"{w.home}/.config/zuno/zuno.json", '{"model": "acme/big"}')
    write(f"{w.home}/.cache/zuno/models.json", '{"acme": {"models": {"big": {"limit": {"context": 1000}}}}}')


@pytest.mark.parametrize("name, change", CHANGES, ids=[c[0] for c in CHANGES])
def test_every_kind_of_change_between_runs_prints_what_no_cache_prints(ws, runs, monkeypatch, name, change):
    # the prompt's index with its notes and window, and the verbose form with every locator
    forms = [("index", "--json", "--path", ws.shared), ("index", "--form", "verbose", "--path", ws.shared)]

    def both(kept: bool | None) -> list[tuple[int, str, str]]:
        return [runs.check(*args, kept=kept) for args in forms]

    before = both(None)
    both(True)
    change(ws, monkeypatch)
    settle()
    after = both(False)
    assert after != before  # the change shows, so a stale kept output could not hide
    both(True)  # kept again, from the run after the change
    if name == "model-catalog":  # the catalog itself changes (same path, same configuration)
        write(f"{ws.home}/.cache/zuno/models.json", '{"acme": {"models": {"big": {"limit": {"context": 99999}}}}}')
        settle()
        assert runs.check(*forms[0], kept=False) != after[0]
    if name == "zuno-on-path":  # the executable itself changes (same path)
        _native_zuno(os.path.join(ws.bin, "zuno"), "true")
        settle()
        assert runs.check(*forms[0], kept=False) != after[0]


def test_options_and_the_working_directory_have_their_own_kept_output(ws, runs, monkeypatch):
    base = ("index", "--path", ws.shared)
    outputs = set()
    for args in [base, (*base, "--budget", "300"), (*base, "--context-window", "2000"), (*base, "--agent", "review"),
                 (*base, "--form", "list"), ("index",), (*base, "--json")]:
        first = runs.check(*args)
        assert runs.check(*args, kept=True) == first
        outputs.add(first)
    assert len(outputs) == 7
    sub = os.path.join(ws.proj, ".zuno")
    monkeypatch.chdir(sub)  # another working directory: another walk, another output
    below = runs.check(*base, kept=False)
    assert runs.check(*base, kept=True) == below
    monkeypatch.chdir(ws.proj)
    runs.check(*base, kept=True)
    assert runs.check("index", "--cwd", sub, "--path", ws.shared, kept=False) == below


def test_terminals_and_code_are_part_of_what_is_kept(ws, runs, monkeypatch):
    args = ("index", "--path", ws.shared)
    runs.check(*args)
    runs.check(*args, kept=True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    runs.check(*args, kept=False)
    monkeypatch.setattr(keptoutput, "code_stamp", lambda folders=(): "another skillshelf")
    runs.check(*args, kept=False)


def test_no_cache_bypasses_a_kept_output(ws, runs):
    """A kept output whose proof holds is printed as kept (the run does not build); ``--no-cache``
    never reads it."""
    args = ("index", "--path", ws.shared)
    runs.check(*args)
    (file,) = glob.glob(os.path.join(ws.home, ".cache", "skillshelf", "output", "*.kept"))
    ident = keptrun._identity(list(args))
    assert ident is not None
    kept = keptoutput.load(file, ident)
    assert kept is not None
    marked = keptoutput.KeptOutput([(1, "marked\n")], 0, kept.host, kept.proof)
    assert keptoutput.keep(file, ident, marked)
    assert runs(*args) == (0, "marked\n", "")
    assert runs(*args, "--no-cache")[1].startswith("[Zuno 0.10.3 skill trigger policy")
    assert runs.replayed[-1] is False


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty", "flip", "foreign-proof"])
def test_a_damaged_kept_output_is_ignored(ws, runs, damage):
    args = ("index", "--path", ws.shared)
    good = runs.check(*args)
    (file,) = glob.glob(os.path.join(ws.home, ".cache", "skillshelf", "output", "*.kept"))
    with open(file, "rb") as fh:
        data = fh.read()
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "garbage":
        data = os.urandom(len(data))
    elif damage == "empty":
        data = b""
    elif damage == "flip":
        data = data[:-10] + bytes([data[-10] ^ 0xFF]) + data[-9:]
    with open(file, "wb") as fh:
        fh.write(data)
    if damage == "foreign-proof":  # a well-formed file whose proof has another shape
        ident = keptrun._identity(list(args))
        assert ident is not None
        keptoutput.keep(file, ident, keptoutput.KeptOutput([(1, "wrong\n")], 0, "zuno", ("not", "a", "proof")))
    assert runs.check(*args, kept=False) == good
    assert runs.check(*args, kept=True) == good


def test_nothing_is_kept_for_a_racy_file_or_a_remote_pull(ws, runs, monkeypatch):
    args = ("index", "--path", ws.shared)
    monkeypatch.setattr(parsecache, "RACY_NS", 3_600 * 10**9)  # every file is too young to trust
    runs.check(*args)
    runs.check(*args, kept=False)
    assert not glob.glob(os.path.join(ws.home, ".cache", "skillshelf", "output", "*.kept"))
    monkeypatch.setattr(parsecache, "RACY_NS", int(WINDOW * 1e9))
    runs.check(*args)
    runs.check(*args, kept=True)
    # skills.urls: a pull (network) is never proved (an unreachable URL: the pull fails fast)
    write(f"{ws.proj}/.zuno/zuno.json", '{"skills": {"urls": ["http://127.0.0.1:9/index.json"]}}')
    settle()
    runs.check(*args, kept=False)
    runs.check(*args, kept=False)


def test_random_operations_between_runs_always_print_what_no_cache_prints(ws, runs):
    """The soak: 40 random file-system operations (create, edit, break, rename, delete, symlink,
    sidecar, hidden folder …), each followed by a kept run compared with ``--no-cache``."""
    rng = random.Random(5)
    roots = [ws.agents, ws.zuno, ws.shared, os.path.join(ws.home, ".agents", "skills")]
    args = ("index", "--json", "--path", ws.shared)
    kept = 0
    for counter in range(40):
        dirs = sorted({os.path.dirname(p) for r in roots for p in glob.glob(f"{r}/**/SKILL.md", recursive=True)})
        op = rng.choice(["create", "edit", "break", "rename", "delete", "symlink", "sidecar", "hidden", "deep"])
        if op in ("create", "hidden", "deep") or not dirs:
            # (a dot folder only where the walk enters them: one it counts is never proved)
            top = os.path.join(rng.choice(roots[::3] if op == "hidden" else roots),
                               (".h" if op == "hidden" else "") + f"s{counter}")
            write(os.path.join(top, "in", "deep", "SKILL.md") if op == "deep" else os.path.join(top, "SKILL.md"),
                  skill(f"n{rng.randint(0, 9)}", f"d{counter}"))
        elif op == "edit":
            write(os.path.join(rng.choice(dirs), "SKILL.md"), skill(f"n{rng.randint(0, 9)}", f"e{counter}"))
        elif op == "break":
            write(os.path.join(rng.choice(dirs), "SKILL.md"), "---\ndescription: nameless\n---\n")
        elif op == "rename":
            d = rng.choice(dirs)
            if not os.path.islink(d):
                os.rename(d, os.path.join(rng.choice(roots), f"r{counter}"))
        elif op == "delete":
            d = rng.choice(dirs)
            os.remove(d) if os.path.islink(d) else shutil.rmtree(d)
        elif op == "symlink":
            os.symlink(os.path.realpath(rng.choice(dirs)), os.path.join(rng.choice(roots), f"l{counter}"))
        elif op == "sidecar":
            write(os.path.join(rng.choice(dirs), "agents", "zuno.yaml"),
                  rng.choice(["policy:\n  exposure: search\n", "interface:\n  display_name: Shown\n"]))
        settle()
        runs.check(*args)
        runs.check(*args)
        kept += runs.replayed[-2]
    assert kept > 30  # the kept output was used (and proved), not bypassed


# ---------------------------------------------------------------- debug skill: the lint looks further


def _debug_forms(w: Workspace) -> list[tuple[str, ...]]:
    return [("debug", "skill", "--json", "--path", w.shared), ("debug", "skill", "--path", w.shared)]


#: Changes only the lint sees (files other than the skill's own, folders above the roots).
LINT_CHANGES: list[tuple[str, Callable[[Workspace], None]]] = [
    ("reference-created", lambda w: write(f"{w.shared}/shared-one/references/notes.md", "notes\n")),
    ("reference-outside-created", lambda w: write(f"{w.t}/outside.md", "outside\n")),
    ("enclosing-skill-removed", lambda w: os.remove(f"{w.t}/SKILL.md")),
    ("git-between-the-root-and-the-enclosing-skill", lambda w: os.makedirs(f"{w.home}/.git")),
    ("enclosing-skill-renamed-same-size-same-mtime", lambda w: same_size_same_mtime(
        f"{w.t}/SKILL.md", skill("OUTERMOST", "Encloses all"), replace=False)),
    # a dot entry the walk does not enter (so its proof does not cover it): a dangling `.git`
    # link in a skill folder whose target appears (the skill is then no longer nested)
    ("git-link-target-created", lambda w: os.makedirs(f"{w.t}/gitdir")),
]


@pytest.fixture
def referencing(ws) -> Workspace:
    """The shared skill references a file of its own (missing) and one outside its folder; a
    skill encloses the whole tree (T/SKILL.md: every skill is nested in it, SPEC F4)."""
    write(ws.files["shared"], skill("shared-one", "Shared copy",
                                    "See [the notes](references/notes.md) and [outside](../../outside.md).\n"))
    write(f"{ws.t}/SKILL.md", skill("outermost", "Encloses all"))
    os.symlink(f"{ws.t}/gitdir", f"{ws.shared}/shared-one/.git")
    settle()
    return ws


@pytest.mark.parametrize("name, change", LINT_CHANGES, ids=[c[0] for c in LINT_CHANGES])
def test_debug_skill_is_kept_and_every_change_its_lint_sees_breaks_it(referencing, runs, name, change):
    ws = referencing
    before = [runs.check(*args) for args in _debug_forms(ws)]
    assert [runs.check(*args, kept=True) for args in _debug_forms(ws)] == before
    change(ws)
    settle()
    after = [runs.check(*args, kept=False) for args in _debug_forms(ws)]
    assert after != before
    assert [runs.check(*args, kept=True) for args in _debug_forms(ws)] == after


def test_debug_skill_options_and_a_clients_lint(ws, runs):
    for args in [("debug", "skill", "--json", "--lint-target", "none"), ("debug", "skill", "--lint-target", "zhin"),
                 ("debug", "skill", "--format", "zuno")]:
        first = runs.check(*args)
        assert runs.check(*args, kept=True) == first
    # a client's own lint reads the files its own way (not recorded): its report is never kept
    runs.check("debug", "skill", "--json", "--lint-target", "claude")
    runs.check("debug", "skill", "--json", "--lint-target", "claude", kept=False)
    # and another host keeps no proof of its build
    runs.check("debug", "skill", "--json", "--host", "claude")
    runs.check("debug", "skill", "--json", "--host", "claude", kept=False)


def test_a_zuno_that_runs_other_files_is_never_proved(ws, runs):
    # `zuno` on PATH is a launcher script (as an npm, version-manager or wrapper install is): what
    # `zuno debug skill --json` prints comes from the program it runs, a file the proof never saw
    real = os.path.join(ws.t, "real", "zuno")
    os.makedirs(os.path.dirname(real))
    _zuno_script(real, 3)
    write(os.path.join(ws.bin, "zuno"), f"#!/bin/sh\nexec {real} \"$@\"\n")
    os.chmod(os.path.join(ws.bin, "zuno"), 0o755)
    settle()
    args = ("index", "--json", "--path", ws.shared)
    first = runs.check(*args)
    assert "exited with status 3" in first[1]
    runs.check(*args, kept=False)
    _zuno_script(real, 4)  # the launcher itself is untouched
    installed._MEMO.clear()  # (a new process reads it again)
    settle()
    after = runs.check(*args)
    assert "exited with status 4" in after[1]



def test_a_cache_folder_that_cannot_be_made_keeps_nothing_and_does_not_fail(ws, runs):
    write(os.path.join(ws.home, ".cache", "skillshelf"), "a file where the cache folder goes\n")
    settle()
    args = ("index", "--path", ws.shared)
    first = runs.check(*args, kept=False)
    assert first[0] == 0 and "Home copy" in first[1]
    assert runs.check(*args, kept=False) == first
