"""Generate a synthetic skill tree for the catalog benchmarks (not part of the test suite).

``generate(root, n, seed)`` writes ``n`` ``SKILL.md`` files under ``root`` spread over the six
zuno root kinds (SPEC D1 rows 1–6):

======================  =====================================================  ======
root kind               directory (relative to ``root``)                        share
======================  =====================================================  ======
project-zuno            ``project/.zuno/skill``                                 20 %
project-agents          ``project/.agents/skills``                              20 %
global-zuno             ``home/.config/zuno/skill``                             15 %
global-agents           ``home/.agents/skills``                                 20 %
configured-path         ``shared-skills`` (pass it in ``paths``)                15 %
remote                  ``home/.cache/zuno/skills/<name>`` (fake pulled cache)  10 %
======================  =====================================================  ======

About half of the non-remote skills sit in nested category folders (``cat-07/<name>/``).
Faults are mixed in deterministically (``random.Random(seed)``):

- ~1 % symlink aliases: an extra directory symlink in another root pointing at an existing
  skill directory (same canonical file; counted once, as an alias — SPEC D5). Not part of ``n``.
- ~2 % same names: a skill whose folder and ``name`` repeat an earlier skill's in another root
  (SPEC D6 ambiguity).
- ~1 % broken files, rotating over: an unquoted ``: `` in the description (the host accepts it
  after the sanitize retry, F3), a missing ``name`` (rejected, ``MissingName``) and bytes that
  are not UTF-8 (rejected, ``Unreadable``).

A ``project/.git`` marker file makes ``project/`` the worktree, and ``project/.zuno/zuno.json``
holds a few ``skills.config`` rules (search-only, explicit, disabled) so rule matching is
exercised too.

Run directly to inspect a tree: ``python benchmarks/gen_tree.py /tmp/tree 1000`` (prints the
mapping below). To open it as the benchmarks do, run skillshelf in ``ROOT/project`` with
``HOME``, ``XDG_CONFIG_HOME`` and ``XDG_CACHE_HOME`` set as ``env`` gives them and each of
``paths`` plus ``ROOT/home/.cache/zuno/skills`` (the fake pulled cache) as a ``--path``::

    cd /tmp/tree/project && HOME=/tmp/tree/home XDG_CONFIG_HOME=/tmp/tree/home/.config \
        XDG_CACHE_HOME=/tmp/tree/home/.cache skillshelf --path /tmp/tree/shared-skills \
        --path /tmp/tree/home/.cache/zuno/skills
"""

from __future__ import annotations

import json
import os
import random
import sys

ROOT_KINDS: tuple[tuple[str, str, float], ...] = (
    ("project-zuno", "project/.zuno/skill", 0.20),
    ("project-agents", "project/.agents/skills", 0.20),
    ("global-zuno", "home/.config/zuno/skill", 0.15),
    ("global-agents", "home/.agents/skills", 0.20),
    ("configured-path", "shared-skills", 0.15),
    ("remote", "home/.cache/zuno/skills", 0.10),
)

_WORDS = ["analyze", "audit", "build", "cache", "check", "clean", "compose", "convert", "debug", "deploy", "design", "diff", "document", "draft", "export", "extract", "format", "generate", "index", "inspect", "lint", "migrate", "monitor", "optimize", "parse", "plan", "profile", "refactor", "release", "render", "review", "scan", "schedule", "search", "test", "trace", "translate", "validate", "verify", "api", "changelog", "commit", "container", "csv", "database", "docker", "docs", "dataset", "email", "excel", "form", "git", "graph", "image", "invoice", "json", "kubernetes", "log", "markdown", "metric", "migration", "notebook", "pdf", "pipeline", "query", "queue", "report", "schema", "script", "secret", "service", "slide", "spreadsheet", "sql", "terraform", "ticket", "token", "upload", "webhook", "workflow", "yaml"]

_BODY_LINES = (
    "1. Read the relevant files before changing anything.",
    "2. Run the project's checks and note the failures.",
    "3. Make the smallest change that fixes the problem.",
    "4. Explain what changed and why, citing file and line.",
    "- Never write outside the working tree.",
    "- Ask before running anything destructive.",
    "See `references/notes.md` for the long version.",
    "Prefer scripts over prose for deterministic steps.",
)


def _name(rng: random.Random, i: int) -> str:
    return f"{rng.choice(_WORDS)}-{rng.choice(_WORDS)}-{i:05d}"


def _description(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 60))]
    text = " ".join(words).capitalize()
    return f"{text}. Use when the user asks to {rng.choice(_WORDS)} {rng.choice(_WORDS)}."


def _body(rng: random.Random, name: str) -> str:
    lines = [f"# {name}", ""]
    lines.extend(rng.choice(_BODY_LINES) for _ in range(rng.randint(5, 40)))
    return "\n".join(lines) + "\n"


def _skill_bytes(rng: random.Random, name: str, fault: str | None) -> bytes:
    desc = _description(rng)
    body = _body(rng, name)
    if fault == "unquoted-colon":
        front = f"name: {name}\ndescription: Note: {desc}\n"
    elif fault == "missing-name":
        front = f"description: {json.dumps(desc)}\n"
    else:
        front = f"name: {name}\ndescription: {json.dumps(desc)}\n"
    data = f"---\n{front}---\n\n{body}".encode()
    if fault == "not-utf8":
        data = data.replace(b"# ", b"# \xff\xfe ", 1)
    return data


def _write(path: str, data: bytes) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(data)


def generate(root: str, n: int, seed: int = 0) -> dict:
    """Write a tree of ``n`` ``SKILL.md`` files under ``root`` (created if missing).

    Returns a mapping:

    - ``root``, ``cwd`` (``root/project``), ``env`` (``HOME``, ``XDG_CONFIG_HOME``,
      ``XDG_CACHE_HOME`` inside ``root``, ``PATH`` copied, no ``ZUNO_*``),
    - ``paths``: the configured-path entries to pass as ``skills.paths`` / ``--path``,
    - ``remote_dirs``: the per-skill remote cache directories (what a pull would return),
    - ``counts``: files written per root kind, ``aliases``, ``same_names``, ``broken`` (per
      fault kind) and ``expected_rejected`` (missing name + not UTF-8).

    Deterministic for a given ``(n, seed)`` apart from ``root`` itself. Raises ``OSError`` when
    ``root`` is not writable; symlinks are skipped (and not counted) where the OS refuses them.
    """
    rng = random.Random(seed)
    root = os.path.realpath(root)
    os.makedirs(root, exist_ok=True)
    project = os.path.join(root, "project")
    os.makedirs(project, exist_ok=True)
    with open(os.path.join(project, ".git"), "w", encoding="utf-8") as fh:
        fh.write("gitdir: nowhere\n")

    # how many skills go to each root kind (the remainder goes to the first kinds)
    shares = [int(n * share) for _, _, share in ROOT_KINDS]
    for k in range(n - sum(shares)):
        shares[k % len(shares)] += 1

    counts = {kind: 0 for kind, _, _ in ROOT_KINDS}
    broken = {"unquoted-colon": 0, "missing-name": 0, "not-utf8": 0}
    fault_cycle = ("unquoted-colon", "missing-name", "not-utf8")
    placed: list[tuple[str, str, str]] = []  # (kind, skill dir, name) of written skills
    remote_dirs: list[str] = []
    same_names = 0
    index = 0
    for (kind, rel, _), count in zip(ROOT_KINDS, shares, strict=True):
        base = os.path.join(root, rel)
        for _ in range(count):
            index += 1
            if placed and rng.random() < 0.02:
                # same name as an earlier skill in another root kind (D6)
                earlier = [p for p in placed if p[0] != kind]
                name = rng.choice(earlier)[2] if earlier else _name(rng, index)
                same_names += 1 if earlier else 0
            else:
                name = _name(rng, index)
            if kind == "remote":
                skill_dir = os.path.join(base, name)
                if skill_dir in remote_dirs:  # a repeated name cannot share a cache folder
                    name = _name(rng, index)
                    skill_dir = os.path.join(base, name)
                    same_names -= 1
                remote_dirs.append(skill_dir)
            elif rng.random() < 0.5:
                skill_dir = os.path.join(base, f"cat-{rng.randint(0, 19):02d}", name)
            else:
                skill_dir = os.path.join(base, name)
            if os.path.exists(os.path.join(skill_dir, "SKILL.md")):
                name = _name(rng, index)
                skill_dir = os.path.join(os.path.dirname(skill_dir), name)
            fault = None
            if rng.random() < 0.01:
                fault = fault_cycle[sum(broken.values()) % 3]
                broken[fault] += 1
            _write(os.path.join(skill_dir, "SKILL.md"), _skill_bytes(rng, name, fault))
            counts[kind] += 1
            placed.append((kind, skill_dir, name))

    # ~1 % symlink aliases, placed in the global-agents root (scanned, never a remote dir)
    aliases = 0
    alias_base = os.path.join(root, "home/.agents/skills/aliases")
    for k in range(max(1, n // 100) if n else 0):
        kind, target, name = rng.choice(placed)
        if kind == "remote":
            continue
        link = os.path.join(alias_base, f"alias-{k:04d}-{name}")
        os.makedirs(alias_base, exist_ok=True)
        try:
            os.symlink(target, link, target_is_directory=True)
        except OSError:
            continue
        aliases += 1

    # a few skills.config rules (SPEC K3–K4) over the project roots
    rules = [
        {"path": ".agents/skills/cat-01", "recursive": True, "exposure": "search"},
        {"path": ".zuno/skill/cat-02", "recursive": True, "exposure": "explicit"},
        {"path": "~/.agents/skills/cat-03", "recursive": True, "enabled": False},
    ]
    for kind, skill_dir, _ in placed[:7]:
        if kind.startswith("project"):
            rules.append({"path": os.path.join(skill_dir, "SKILL.md"), "exposure": "search"})
    _write(
        os.path.join(project, ".zuno", "zuno.json"),
        json.dumps({"skills": {"config": rules}}, indent=2).encode("utf-8"),
    )

    home = os.path.join(root, "home")
    env = {
        "HOME": home,
        "XDG_CONFIG_HOME": os.path.join(home, ".config"),
        "XDG_CACHE_HOME": os.path.join(home, ".cache"),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }
    return {
        "root": root,
        "cwd": project,
        "env": env,
        "paths": [os.path.join(root, "shared-skills")],
        "remote_dirs": remote_dirs,
        "counts": counts,
        "files": sum(counts.values()),
        "aliases": aliases,
        "same_names": same_names,
        "broken": broken,
        "expected_rejected": broken["missing-name"] + broken["not-utf8"],
    }


if __name__ == "__main__":
    if len(sys.argv) < 3:
        print("usage: python benchmarks/gen_tree.py ROOT N [SEED]", file=sys.stderr)
        raise SystemExit(2)
    info = generate(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 0)
    info.pop("remote_dirs")
    print(json.dumps(info, indent=2))
