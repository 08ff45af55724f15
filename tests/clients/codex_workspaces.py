"""Workspaces that exercise every Codex rule (roots, walk, parser, sidecar, config, budget),
written by these tests (never copied from the corpus). Each builder returns ``(ws, home, env)``."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

Built = tuple[str, str, dict[str, str]]


def write(path: str, data: str | bytes) -> str:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def skill(root: str, rel: str, name: str | None = None, desc: str | None = "A description",
          raw: str | bytes | None = None) -> str:
    """``root/rel/SKILL.md`` with a frontmatter of ``name`` and ``desc`` (or ``raw`` bytes)."""
    if raw is None:
        lines = ["---"]
        if name is not None:
            lines.append(f"name: {name}")
        if desc is not None:
            lines.append(f"description: {desc}")
        raw = "\n".join(lines) + "\n---\nBody of " + rel + "\n"
    return write(os.path.join(root, rel, "SKILL.md"), raw)


def git_init(path: str) -> None:
    os.makedirs(path, exist_ok=True)
    subprocess.run(["git", "init", "-q", path], check=True)


#: Parser cases: folder → file text (bytes where the case needs them).
PARSER_CASES: dict[str, str | bytes] = {
    "plain": "---\nname: plain\ndescription: Plain description\n---\nbody\n",
    "bom": "\ufeff---\nname: bom\ndescription: has a BOM\n---\nbody\n",
    "crlf": "---\r\nname: crlf\r\ndescription: CRLF file\r\n---\r\nbody\r\n",
    "blank-first": "\n---\nname: blank-first\ndescription: starts blank\n---\nbody\n",
    "unclosed": "---\nname: unclosed\ndescription: never closed\nbody\n",
    "no-frontmatter": "# Title\n\nJust a body.\n",
    "empty-block": "---\n---\nbody\n",
    "fence-space": "--- \nname: fence-space\ndescription: fence with a trailing space\n--- \nbody\n",
    "colon": "---\nname: colon\ndescription: Use when: you need colons\n---\nbody\n",
    "flow-broken": "---\nname: flow-broken\ndescription: [unclosed\n---\nbody\n",
    "quoted-colon": '---\nname: quoted-colon\ndescription: "quoted" then: colon\n---\nbody\n',
    "tab": "---\nname: tab\ndescription: >\n\tTabbed\n---\nbody\n",
    "dup-key": "---\nname: dup-key\nname: again\ndescription: duplicate\n---\nbody\n",
    "name-list": "---\nname: [a, b]\ndescription: list name\n---\nbody\n",
    "name-int": "---\nname: 123\ndescription: 42\n---\nbody\n",
    "no-name": "---\ndescription: named after the folder\n---\nbody\n",
    "long-name": "---\nname: " + "n" * 70 + "\ndescription: too long a name\n---\nbody\n",
    "no-desc": "---\nname: no-desc\n---\nFirst paragraph.\n",
    "empty-desc": '---\nname: empty-desc\ndescription: ""\n---\nbody\n',
    "folded": "---\nname: folded\ndescription: >-\n  Folded one\n  two\n---\nbody\n",
    "literal": "---\nname: literal\ndescription: |\n  Literal one\n  two\n---\nbody\n",
    "dashes": "---\nname: dashes\ndescription: a---b\n---\nbody\n",
    "short": "---\nname: short\ndescription: With a short one\nmetadata:\n  short-description: Shorter\n---\nbody\n",
    "meta-string": "---\nname: meta-string\ndescription: bad metadata\nmetadata: hello\n---\nbody\n",
    "two-docs": "---\nname: two-docs\ndescription: x\n...\nmore: 1\n---\nbody\n",
    "long-desc": "---\nname: long-desc\ndescription: " + "L" * 1500 + "\n---\nbody\n",
    "xml": "---\nname: xml\ndescription: Use <b>bold</b> & 'q'\n---\nbody\n",
    "not-utf8": b"---\nname: not-utf8\ndescription: bad \xff byte\n---\nbody\n",
}


def rules_workspace(base: str) -> Built:
    """One git repo (cwd = ``repo/a/b``) touching every listing rule."""
    home = os.path.join(base, "home")
    repo = os.path.join(base, "up", "repo")
    cwd = os.path.join(repo, "a", "b")
    git_init(repo)
    os.makedirs(cwd, exist_ok=True)
    for d, tag in ((repo, "top"), (os.path.join(repo, "a"), "mid"), (cwd, "cwd")):
        skill(os.path.join(d, ".agents", "skills"), f"{tag}-agents", desc=f"{tag} agents")
        skill(os.path.join(d, ".codex", "skills"), f"{tag}-codex", desc=f"{tag} codex")
        skill(os.path.join(d, ".claude", "skills"), f"{tag}-claude", desc="not read")
        skill(os.path.join(d, ".agents", "skill"), f"{tag}-singular", desc="not read")
    skill(os.path.join(os.path.dirname(repo), ".agents", "skills"), "above", desc="above the repo")
    skill(os.path.join(home, ".agents", "skills"), "home-agents", desc="home agents")
    skill(os.path.join(home, ".codex", "skills"), "home-codex", desc="home codex")
    skill(os.path.join(home, ".gemini", "skills"), "home-gemini", desc="not read")
    # layout inside the top .agents/skills
    root = os.path.join(repo, ".agents", "skills")
    write(os.path.join(root, "SKILL.md"), "---\nname: root-file\ndescription: in the root itself\n---\nb\n")
    rel = ""
    for depth in range(1, 8):
        rel = os.path.join(rel, f"d{depth}")
        skill(root, rel, f"depth-{depth}", f"depth {depth}")
    skill(root, ".hidden/inner", "hidden", "under a dot folder")
    skill(root, "node_modules/nm", "nm", "inside node_modules")
    skill(root, "outer", "outer", "outer skill")
    skill(root, "outer/inner", "inner", "skill inside a skill")
    target = skill(os.path.join(base, "elsewhere"), "linked-target", "linked", "through a folder symlink")
    os.symlink(os.path.dirname(target), os.path.join(root, "linked"))
    filesrc = skill(os.path.join(base, "elsewhere"), "file-target", "filelink", "a symlinked SKILL.md")
    os.makedirs(os.path.join(root, "filelink"))
    os.symlink(filesrc, os.path.join(root, "filelink", "SKILL.md"))
    os.symlink(os.path.join(base, "nowhere"), os.path.join(root, "dangling"))
    skill(root, "Upper Case", "Upper Case: Name", "odd characters in the name")
    skill(root, "same-a", "same", "first copy of a name")
    skill(os.path.join(home, ".agents", "skills"), "same-b", "same", "second copy of a name")
    for folder, text in PARSER_CASES.items():
        write(os.path.join(root, "parse", folder, "SKILL.md"), text)
    # sidecars
    skill(root, "side-hidden", "side-hidden", "hidden by its sidecar")
    write(os.path.join(root, "side-hidden", "agents", "openai.yaml"),
          "interface:\n  display_name: Side Hidden\npolicy:\n  allow_implicit_invocation: false\n")
    skill(root, "side-atlas", "side-atlas", "for another product only")
    write(os.path.join(root, "side-atlas", "agents", "openai.yaml"), "policy:\n  products: [atlas]\n")
    skill(root, "side-broken", "side-broken", "sidecar that does not parse")
    write(os.path.join(root, "side-broken", "agents", "openai.yaml"), "policy: [unclosed\n")
    # user config: disable one skill by name
    write(os.path.join(home, ".codex", "config.toml"), '[[skills.config]]\nname = "home-codex"\nenabled = false\n')
    return cwd, home, {}


def budget_workspace(base: str, n: int, desc_len: int) -> Built:
    """``n`` skills with ``desc_len``-character descriptions in one repo root."""
    home = os.path.join(base, "home")
    repo = os.path.join(base, "repo")
    git_init(repo)
    rng = random.Random(n * 1000 + desc_len)
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda"]
    for i in range(n):
        text = " ".join(rng.choice(words) for _ in range(desc_len // 4 + 2))[:desc_len]
        skill(os.path.join(repo, ".agents", "skills"), f"s{i:04d}", f"s{i:04d}", text)
    os.makedirs(home, exist_ok=True)
    return repo, home, {}


def corpus_workspace(base: str, corpus: Path, limit: int | None = None, seed: int = 7) -> Built:
    """The corpus skills spread over Codex's project and user roots, with same-name copies,
    folder symlinks and broken files added."""
    home = os.path.join(base, "home")
    repo = os.path.join(base, "repo")
    git_init(repo)
    sub = os.path.join(repo, "pkg")
    roots = [os.path.join(repo, ".agents", "skills"), os.path.join(sub, ".agents", "skills"),
             os.path.join(repo, ".codex", "skills"), os.path.join(home, ".agents", "skills"),
             os.path.join(home, ".codex", "skills")]
    files = sorted(p for p in corpus.rglob("SKILL.md") if p.is_file())
    rng = random.Random(seed)
    if limit is not None:
        files = rng.sample(files, min(limit, len(files)))
    dirs: list[str] = []
    for i, f in enumerate(files):
        dest = os.path.join(roots[i % len(roots)], f"c{i:04d}-{f.parent.name}")
        shutil.copytree(f.parent, dest, symlinks=True, dirs_exist_ok=True)
        dirs.append(dest)
    for j, d in enumerate(rng.sample(dirs, min(20, len(dirs)))):  # same-name copies elsewhere
        shutil.copytree(d, os.path.join(roots[(j + 2) % len(roots)], f"copy-{j:02d}-{os.path.basename(d)}"),
                        symlinks=True)
    for j, d in enumerate(rng.sample(dirs, min(10, len(dirs)))):  # folder symlinks
        os.symlink(d, os.path.join(roots[(j + 1) % len(roots)], f"link-{j:02d}"))
    broken = ["\ufeff---\nname: bom\ndescription: x\n---\n", "---\nname: x\n---\n", "no frontmatter\n",
              "---\nname: tab\ndescription: >\n\tx\n---\n", b"---\nname: bytes\ndescription: \xfe\n---\n"]
    for j, text in enumerate(broken):
        write(os.path.join(roots[j % len(roots)], f"broken-{j}", "SKILL.md"), text)
    sub_dir = os.path.join(sub, "code")
    os.makedirs(sub_dir, exist_ok=True)
    return sub_dir, home, {}
