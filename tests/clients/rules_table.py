"""One fixture per row of the rules table in ``notes/real-clients.md`` ("Empirical rules"), built
for one client: the workspace every client's agreement test runs as ``table-<variant>``.

:data:`ROWS` maps each row's label, exactly as the table's first column spells it, to the
function that places its fixture; :func:`build` lays every row out for one client and one
variant. Files that exercise the parser and the layout go into the client's own project root
(:data:`MAIN_ROOT`), so that no other root's copy races or shadows them; the rows about roots
place files in every folder any client reads or skips. Variants:

``git``
    a git repository ``R``, cwd ``R/sub``, ``HOME`` = ``H`` (the table's own setting);
``nogit``
    no repository, cwd ``H/work/proj/sub`` inside ``HOME``, plus folders above it and above ``HOME``;
``env``
    the ``git`` layout with every client's user folder moved by its environment variable
    (``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``, ``XDG_CONFIG_HOME``, ``GEMINI_CLI_HOME``);
``budget``
    160 skills with 400-character descriptions in the client's root: over every budget seen.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

VARIANTS = ("git", "nogit", "env", "budget")

#: The project root each client reads, where the parser and layout rows are placed.
MAIN_ROOT = {"claude": ".claude/skills", "codex": ".agents/skills", "opencode": ".opencode/skills",
             "gemini": ".gemini/skills"}

PROJECT_KINDS = (".claude/skills", ".agents/skills", ".codex/skills", ".gemini/skills", ".opencode/skill",
                 ".opencode/skills")
USER_KINDS = (".claude/skills", ".agents/skills", ".codex/skills", ".gemini/skills", ".config/opencode/skill",
              ".config/opencode/skills", ".opencode/skills")


@dataclass
class Layout:
    """Where one build puts things: ``base`` (the test's folder), ``home``, ``repo`` (the project
    root, a git repository unless ``nogit``), ``cwd``, ``main`` (the client's project root in the
    cwd), ``env`` (variables for both sides) and the ``client``."""

    base: Path
    home: Path
    repo: Path
    cwd: Path
    main: Path
    env: dict[str, str]
    client: str


def write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def fm(name: str | None, description: str | None, extra: str = "", body: str = "Body.\n") -> str:
    lines = ["---"] + ([f"name: {name}"] if name is not None else []) + (
        [f"description: {description}"] if description is not None else [])
    if extra:
        lines.append(extra.rstrip("\n"))
    return "\n".join([*lines, "---"]) + "\n" + body


def skill(folder: Path, name: str, description: str | None = None) -> Path:
    return write(folder / "SKILL.md", fm(name, description if description is not None else f"about {name}"))


def user_root(lay: Layout, kind: str) -> Path:
    """Where ``kind`` (a :data:`USER_KINDS` entry) is for this build: moved by the client's
    environment variable in the ``env`` variant."""
    env = lay.env
    if kind == ".claude/skills" and "CLAUDE_CONFIG_DIR" in env:
        return Path(env["CLAUDE_CONFIG_DIR"]) / "skills"
    if kind == ".codex/skills" and "CODEX_HOME" in env:
        return Path(env["CODEX_HOME"]) / "skills"
    if kind.startswith(".config/") and "XDG_CONFIG_HOME" in env:
        return Path(env["XDG_CONFIG_HOME"]) / kind[len(".config/"):]
    if kind in (".gemini/skills", ".agents/skills") and "GEMINI_CLI_HOME" in env:
        return lay.home / kind  # placed twice: see _user_roots
    return lay.home / kind


def _tag(kind: str) -> str:
    return re.sub(r"[^a-z]+", "-", kind).strip("-")


# ----------------------------------------------------------------------------------- rows


def _project_roots(lay: Layout) -> None:
    for kind in PROJECT_KINDS:
        skill(lay.cwd / kind / f"pr-cwd-{_tag(kind)}", f"pr-cwd-{_tag(kind)}")
        skill(lay.repo / kind / f"pr-top-{_tag(kind)}", f"pr-top-{_tag(kind)}")


def _user_roots(lay: Layout) -> None:
    for kind in USER_KINDS:
        skill(user_root(lay, kind) / f"ur-{_tag(kind)}", f"ur-{_tag(kind)}")
    if "GEMINI_CLI_HOME" in lay.env:  # Gemini CLI's user folders move; the others stay in HOME
        gh = Path(lay.env["GEMINI_CLI_HOME"])
        skill(gh / ".gemini/skills/ur-moved-gemini", "ur-moved-gemini")
        skill(gh / ".agents/skills/ur-moved-agents", "ur-moved-agents")
    if "CLAUDE_CONFIG_DIR" in lay.env:  # the default folder is no longer read
        skill(lay.home / ".claude/skills/ur-unmoved-claude", "ur-unmoved-claude")
    if "CODEX_HOME" in lay.env:
        skill(lay.home / ".codex/skills/ur-unmoved-codex", "ur-unmoved-codex")
    if "XDG_CONFIG_HOME" in lay.env:
        skill(lay.home / ".config/opencode/skills/ur-unmoved-opencode", "ur-unmoved-opencode")


def _not_read(lay: Layout) -> None:
    skill(lay.home / ".config/agents/skills/nr-config-agents", "nr-config-agents")
    skill(lay.cwd / "deeper/.claude/skills/nr-below-claude", "nr-below-claude")
    skill(lay.cwd / "deeper/.agents/skills/nr-below-agents", "nr-below-agents")
    skill(lay.cwd / "deeper/.gemini/skills/nr-below-gemini", "nr-below-gemini")
    skill(lay.cwd / ".github/skills/nr-github", "nr-github")
    skill(lay.cwd / "skills/nr-bare", "nr-bare")


def _without_git(lay: Layout) -> None:
    """Above the project: read by a walk that does not stop at the project (no repository)."""
    above = lay.repo.parent
    for kind in (".claude/skills", ".agents/skills", ".opencode/skills"):
        skill(above / kind / f"ng-above-{_tag(kind)}", f"ng-above-{_tag(kind)}")
    if lay.home in lay.repo.parents:  # above HOME as well
        for kind in (".claude/skills", ".agents/skills"):
            skill(lay.home.parent / kind / f"ng-above-home-{_tag(kind)}", f"ng-above-home-{_tag(kind)}")


def _same_name(lay: Layout) -> None:
    for where, root in (("user", user_root(lay, ".claude/skills")), ("top", lay.repo / ".claude/skills"),
                        ("cwd", lay.cwd / ".claude/skills")):
        skill(root / "same-dir", "same-dir", f"the {where} copy")
    for where, root in (("user-agents", user_root(lay, ".agents/skills")), ("cwd-agents", lay.cwd / ".agents/skills"),
                        ("cwd-gemini", lay.cwd / ".gemini/skills"), ("cwd-opencode", lay.cwd / ".opencode/skills"),
                        ("user-gemini", user_root(lay, ".gemini/skills"))):
        skill(root / f"same-{where}", "same-fm", f"the {where} copy")
    skill(lay.main / "same-in-one-a", "same-in-one", "first folder")
    skill(lay.main / "same-in-one-b", "same-in-one", "second folder")


def _name_source(lay: Layout) -> None:
    skill(lay.main / "dir-key", "fm-key", "folder and frontmatter names differ")


def _missing_name(lay: Layout) -> None:
    write(lay.main / "no-name/SKILL.md", fm(None, "no name field"))


def _missing_description(lay: Layout) -> None:
    write(lay.main / "no-desc/SKILL.md", fm("no-desc", None, body="\nFirst paragraph\nof the body.\n\nSecond.\n"))
    write(lay.main / "empty-desc/SKILL.md", fm("empty-desc", '""', body="Body paragraph.\n"))


def _colon(lay: Layout) -> None:
    write(lay.main / "colon/SKILL.md", fm("colon", "Use when: the user asks"))


def _block_scalars(lay: Layout) -> None:
    write(lay.main / "folded/SKILL.md", "---\nname: folded\ndescription: >-\n  folded one\n  folded two\n---\n")
    write(lay.main / "literal/SKILL.md", "---\nname: literal\ndescription: |\n  line one\n  line two\n---\n")


def _bom(lay: Layout) -> None:
    write(lay.main / "bom/SKILL.md", "\ufeff" + fm("bom", "starts with a BOM"))


def _crlf(lay: Layout) -> None:
    write(lay.main / "crlf/SKILL.md", fm("crlf", "windows line ends").replace("\n", "\r\n"))


def _frontmatter_block(lay: Layout) -> None:
    write(lay.main / "lead-blank/SKILL.md", "\n" + fm("lead-blank", "a blank line first"))
    write(lay.main / "unclosed/SKILL.md", "---\nname: unclosed\ndescription: never closed\nBody\n")
    write(lay.main / "no-fm/SKILL.md", "Title line\n\nText.\n")


def _trailing_space(lay: Layout) -> None:
    write(lay.main / "trail-space/SKILL.md", "--- \nname: trail-space\ndescription: space after the dashes\n---\n")


def _invalid_yaml(lay: Layout) -> None:
    write(lay.main / "tab-yaml/SKILL.md", "---\nname: tab-yaml\n\tdescription: tab indented\n---\nBody\n")
    write(lay.main / "dup-key/SKILL.md", "---\nname: dup-key\ndescription: one\ndescription: two\n---\n")


def _numbers(lay: Layout) -> None:
    write(lay.main / "num-name/SKILL.md", fm("123", "a numeric name"))
    write(lay.main / "num-desc/SKILL.md", fm("num-desc", "42"))


def _dashes(lay: Layout) -> None:
    write(lay.main / "dashes/SKILL.md", fm("dashes", "a---b"))


def _long_name(lay: Layout) -> None:
    name = "n" * 70
    write(lay.main / name / "SKILL.md", fm(name, "a 70-character name"))


def _long_description(lay: Layout) -> None:
    write(lay.main / "long-desc/SKILL.md", fm("long-desc", "L" * 1100))


def _name_characters(lay: Layout) -> None:
    for folder, name in (("Upper-Case", "Upper-Case"), ("under_score", "under_score"), ("spaced", "has spaces"),
                         ("slashed", "a/b"), ("coloned", "'c:d'")):
        write(lay.main / folder / "SKILL.md", fm(name, f"the name {name}"))


def _markup(lay: Layout) -> None:
    write(lay.main / "markup/SKILL.md", fm("markup", "'uses <b>tags</b> & \"quotes\" and ''single'''"))


def _dir_symlink(lay: Layout) -> None:
    skill(lay.base / "store/real-dir", "dir-linked", "reached through a folder symlink")
    lay.main.mkdir(parents=True, exist_ok=True)
    os.symlink(lay.base / "store/real-dir", lay.main / "dir-link")


def _file_symlink(lay: Layout) -> None:
    write(lay.base / "store/file.md", fm("file-linked", "SKILL.md is a symlink"))
    (lay.main / "file-link").mkdir(parents=True)
    os.symlink(lay.base / "store/file.md", lay.main / "file-link/SKILL.md")


def _root_symlink(lay: Layout) -> None:
    """The project roots at the top of the project and two user roots are symlinks to folders
    elsewhere (the ``pr-top-*`` skills live there)."""
    for kind in PROJECT_KINDS:
        target = lay.base / "linked-roots" / _tag(kind)
        target.mkdir(parents=True)
        (lay.repo / kind).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, lay.repo / kind)
    for kind in (".gemini/skills", ".codex/skills"):
        target = lay.base / "linked-roots" / f"user-{_tag(kind)}"
        skill(target / f"rl-{_tag(kind)}", f"rl-{_tag(kind)}", "in a symlinked user root")
        link = user_root(lay, kind)
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, link)


def _nested(lay: Layout) -> None:
    skill(lay.main / "group/nested", "nested", "two folders down")
    path = lay.main
    for i in range(1, 8):
        path = path / f"d{i}"
    skill(path, "deep-seven", "seven folders down")


def _root_file(lay: Layout) -> None:
    write(lay.main / "SKILL.md", fm("in-root", "a SKILL.md in the root itself"))


def _dot_dir(lay: Layout) -> None:
    skill(lay.main / ".dot-dir", "dot-dir", "in a dot folder")


def _node_modules(lay: Layout) -> None:
    skill(lay.main / "node_modules/nm", "nm", "inside node_modules")


def _lowercase(lay: Layout) -> None:
    write(lay.main / "lower/skill.md", fm("lower", "a lower-case file name"))


def _hidden(lay: Layout) -> None:
    write(lay.main / "hide-dmi/SKILL.md", fm("hide-dmi", "the model may not invoke it", "disable-model-invocation: true"))
    skill(lay.main / "hide-policy", "hide-policy", "implicit invocation off")
    write(lay.main / "hide-policy/agents/openai.yaml", "policy:\n  allow_implicit_invocation: false\n")
    skill(lay.main / "hide-perm", "hide-perm", "denied by the skill permission")
    write(lay.cwd / "opencode.json", '{"permission": {"skill": {"hide-perm": "deny"}}}\n')
    skill(lay.main / "hide-off", "hide-off", "disabled in the settings")
    write(lay.cwd / ".gemini/settings.json", '{"skills": {"disabled": ["hide-off"]}}\n')


def _order(lay: Layout) -> None:
    for name in ("Order-B", "order-a", "order_c", "order10", "order9", "Ärger", "zeta", "Zeta-2"):
        skill(lay.main / f"o-{name}", name, f"order {name}")


def _entry_cap(lay: Layout) -> None:
    write(lay.main / "cap-1600/SKILL.md", fm("cap-1600", "c" * 1600))
    write(lay.main / "cap-3000/SKILL.md", fm("cap-3000", "d" * 3000))


def _budget(lay: Layout) -> None:
    """Placed only in the ``budget`` variant (see :func:`build`)."""


#: Every row of the rules table (first column, as written there) → its fixture.
ROWS: dict[str, Callable[[Layout], None]] = {
    "project roots": _project_roots,
    "user roots": _user_roots,
    "not read": _not_read,
    "without `.git`": _without_git,
    "same name": _same_name,
    "name source in listing": _name_source,
    "missing name": _missing_name,
    "missing/empty description": _missing_description,
    "unquoted `: `": _colon,
    "`>-` / `|`": _block_scalars,
    "BOM": _bom,
    "CRLF": _crlf,
    "leading blank line / unclosed / no frontmatter": _frontmatter_block,
    "`--- ` (trailing space)": _trailing_space,
    "invalid YAML (tab, duplicate key)": _invalid_yaml,
    "`name: 123`, `description: 42`": _numbers,
    "`description: a---b`": _dashes,
    "name > 64": _long_name,
    "desc > 1024": _long_description,
    "Upper-case, `_`, spaces, `/`, `:` in name": _name_characters,
    "`<b>&\"'` in description": _markup,
    "dir symlink": _dir_symlink,
    "SKILL.md file symlink": _file_symlink,
    "skills root itself a symlink": _root_symlink,
    "nested `skills/a/b/SKILL.md`": _nested,
    "`skills/SKILL.md` (in the root itself)": _root_file,
    "dot dir `skills/.x/`": _dot_dir,
    "`skills/node_modules/x/`": _node_modules,
    "lowercase `skill.md`": _lowercase,
    "hidden from the model": _hidden,
    "order (list)": _order,
    "order (model catalog)": _order,
    "per-entry cap": _entry_cap,
    "total budget": _budget,
}


def table_rows(notes: Path) -> list[str]:
    """The first column of the rules table in ``notes`` (``real-clients.md``), header excluded."""
    text = notes.read_text(encoding="utf-8")
    section = text.split("## Empirical rules", 1)[1]
    rows = []
    for line in section.splitlines():
        if not line.startswith("| ") or line.startswith(("| |", "|---")):
            continue
        rows.append(line.split(" | ")[0][2:].strip().replace("\\|", "|"))
    return rows


def build(base: Path, client: str, variant: str) -> tuple[Path, Path, dict[str, str]]:
    """Lay out every row for ``client`` in ``base`` → (cwd, home, environment variables)."""
    home = base / "H"
    home.mkdir(parents=True)
    if variant == "nogit":
        repo = home / "work" / "proj"
        repo.mkdir(parents=True)
    else:
        repo = base / "R"
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True, capture_output=True)
    cwd = repo / "sub"
    cwd.mkdir()
    env: dict[str, str] = {}
    if variant == "env":
        env = {"CLAUDE_CONFIG_DIR": str(base / "claude-config"), "CODEX_HOME": str(base / "codex-home"),
               "XDG_CONFIG_HOME": str(base / "xdg"), "GEMINI_CLI_HOME": str(base / "gemini-home")}
    lay = Layout(base, home, repo, cwd, cwd / MAIN_ROOT[client], env, client)
    if variant == "budget":
        for i in range(160):
            skill(lay.main / f"b{i:03d}", f"b{i:03d}", f"budget {i:03d} " + "x" * 390)
        skill(user_root(lay, ".claude/skills") / "b-user", "b-user", "a user skill " + "u" * 300)
        return cwd, home, env
    _root_symlink(lay)  # before the project roots: their top-level folders are the links
    for fixture in dict.fromkeys(f for f in ROWS.values() if f is not _root_symlink):
        fixture(lay)
    return cwd, home, env
