"""Hypothesis strategies for hostile skill files: frontmatter-shaped text built from a grammar of
the things that broke parsers before (explicit YAML tags on odd scalars, anchors and aliases,
duplicate keys, flow and block collections, lone surrogates, C1 controls, BOMs, CRLF, tabs,
non-UTF-8 bytes), plus raw bytes. Imported by the property tests (``from hostile import …``).
"""

from __future__ import annotations

from hypothesis import strategies as st

#: Explicit tags, core and not (``!!bool z`` once raised ``KeyError`` from the 1.2 constructors).
TAGS = (
    "", "", "", "!!bool ", "!!null ", "!!int ", "!!float ", "!!str ", "!!map ", "!!seq ", "!!set ",
    "!!omap ", "!!pairs ", "!!binary ", "!!timestamp ", "!!merge ", "!!value ", "!!python/name:os.system ",
    "!<tag:yaml.org,2002:int> ", "!<tag:yaml.org,2002:bool> ", "!local ", "! ", "!!", "!e!x ",
)

#: Scalars that are empty, ambiguous between types, malformed numbers, or hostile text.
SCALARS = (
    "a", "z", "", '""', "''", "1", "-1", "0x", "0o", "0x1g", ".", "-", "+", "_", "1_0", "1e", "1e3", ".inf",
    "-.INF", ".nan", "~", "null", "Null", "true", "False", "yes", "on", "2001-12-14", "2001-13-45t25:61",
    "a: b", "a---b", "a #c", "'x", '"x', '"\\ud800"', '"\\udc80"', '"\\x9b"', '"\\u009b"', '"\\0"', "\u009b[31m",
    "\u009d0;t\u0007", "\ufeff", "\u202e", "\u2028", "é", "技能", "\t", "\x00", "\x1b[2J", "|", ">", "|-",
    ">+2", "&a x", "*a", "*b", "&a", "[a, b]", "[", "]", "{a: 1}", "{a: 1, a: 2}", "{", "}", "? x", "- x",
    "#c", "%", "@", "`", "a\\", "[*a, *a, *a]", "!!str", "\udc80", "\ud800", "x" * 300,
)

KEYS = (
    "name", "description", "metadata", "allowed-tools", "license", "compatibility", "x", "<<", "? name",
    '"name"', "'description'", "1", "true", "null", "~", "[a]", "{a: b}", "keywords", "tools", "always",
    "scopes", "tags", "platforms", "when_to_use", "disable-model-invocation", "user-invocable", "arguments",
    "argument-hint", "model", "hooks", "paths", "context", "agent", "interface", "policy", "dependencies",
    "display_name", "short_description", "allow_implicit_invocation", "name", "description", "",
)

INDENTS = ("", "", "", "  ", "    ", "\t", " ", "- ", "  - ")
SEPARATORS = (": ", ": ", ":", " : ", ":\t", "")
OPENINGS = ("---\n", "---\n", "---\n", "---\r\n", "---json\n", "---yaml\n", "--- \n", "---x\n", "\ufeff---\n",
            "\n---\n", "----\n", "")
CLOSINGS = ("---\n", "---\n", "---", "--- \n", "---\r\n", "----\n", "---# t\n", "...\n", "")


@st.composite
def _line(draw: st.DrawFn) -> str:
    return (draw(st.sampled_from(INDENTS)) + draw(st.sampled_from(KEYS)) + draw(st.sampled_from(SEPARATORS))
            + draw(st.sampled_from(TAGS)) + draw(st.sampled_from(SCALARS)))


@st.composite
def frontmatter_text(draw: st.DrawFn) -> str:
    """A ``SKILL.md``-shaped text: an opening line, up to 12 YAML-ish lines, a closing line, a body."""
    lines = draw(st.lists(st.one_of(_line(), st.sampled_from(SCALARS)), max_size=12))
    eol = draw(st.sampled_from(("\n", "\n", "\r\n")))
    body = draw(st.sampled_from(("", "body\n", "# T\n\nsee [x](x.md)\n", "\u009b\x1b\ud800\n")))
    return draw(st.sampled_from(OPENINGS)) + eol.join(lines) + eol + draw(st.sampled_from(CLOSINGS)) + body


def _encode(text: str) -> bytes:
    # lone surrogates become the bytes a broken encoder writes (invalid UTF-8), as on disk
    return text.encode("utf-8", "surrogatepass")


@st.composite
def _mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(_encode(draw(frontmatter_text())))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(data)))
        data[at:at] = draw(st.binary(min_size=1, max_size=4))
    return bytes(data)


#: Any ``SKILL.md`` bytes: grammar-built text (valid UTF-8 or with lone surrogates), the same
#: with random bytes spliced in, or raw bytes.
skill_bytes = st.one_of(
    frontmatter_text().map(_encode),
    _mutated(),
    st.binary(max_size=300),
)


@st.composite
def yaml_text(draw: st.DrawFn) -> str:
    """A YAML document (no delimiters): what a sidecar or a frontmatter block holds."""
    lines = draw(st.lists(st.one_of(_line(), st.sampled_from(SCALARS)), max_size=12))
    return "\n".join(lines) + draw(st.sampled_from(("", "\n")))


#: Any decoded text a YAML loader may be handed (surrogates from ``surrogateescape`` included).
yaml_like = st.one_of(yaml_text(), st.text(max_size=200))


# --------------------------------------------------------------------------- hostile workspaces

#: Every project-level root some registered host reads (zhin: the plugin's ``skills``).
PROJECT_ROOTS = (".agents/skills", ".zuno/skill", ".claude/skills", ".codex/skills", ".opencode/skill",
                 ".opencode/skills", ".gemini/skills", "skills")

#: Explicitly tagged values the 1.2 core constructors could not build.
BAD_TAGS = ("!!bool z", "!!null z", '!!int ""', '!!float ""', '!!bool ""')

#: Folder name → ``SKILL.md`` bytes: every kind of hostile file, and one good skill (``ok``).
HOSTILE_FILES: dict[str, bytes] = {
    **{f"tag{i}": f"---\nname: tag{i}\ndescription: d\nmetadata:\n  x: {t}\n---\nBody.\n".encode()
       for i, t in enumerate(BAD_TAGS)},
    "tagname": b"---\nname: !!bool z\ndescription: d\n---\nBody.\n",
    "surrogate": b'---json\n{"name": "n\\ud800", "description": "d\\udc80"}\n---\nBody.\n',
    "yamlsurrogate": b'---\nname: yamlsurrogate\ndescription: "d\\ud800"\n---\nBody.\n',
    "c1": "---\nname: c1\ndescription: a\u009b31m\u009d0;t\u0007 b\n---\nBody \u009b2J.\n".encode(),
    "dupfast": b"---\nname: dupfast\nname: other\ndescription: d\n---\nBody.\n",
    "dupslow": b"---\nname: dupslow\ndescription: d\ndescription: 'e: f'\nmetadata:\n  a: b\n---\nBody.\n",
    "latin1": b"---\nname: latin1\ndescription: caf\xe9\n---\nBody.\n",
    "bomb": b"---\nname: bomb\na: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
            b"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n---\n",
    "ok": b"---\nname: ok\ndescription: A good skill.\n---\nBody.\n",
}

#: A folder name that is not UTF-8 (as ``os`` hands it over: a lone surrogate).
BAD_FOLDER = b"bad\xffname"


def write_hostile_workspace(project: str) -> None:
    """Write :data:`HOSTILE_FILES` into every root of :data:`PROJECT_ROOTS` under ``project``,
    plus a skill in a non-UTF-8 folder and sidecars with bad tags in each root."""
    import os

    for rel in PROJECT_ROOTS:
        root = os.path.join(project, rel)
        for folder, data in HOSTILE_FILES.items():
            os.makedirs(os.path.join(root, folder), exist_ok=True)
            with open(os.path.join(root, folder, "SKILL.md"), "wb") as fh:
                fh.write(data)
        bad = os.path.join(os.fsencode(root), BAD_FOLDER)
        os.makedirs(bad, exist_ok=True)
        with open(os.path.join(bad, b"SKILL.md"), "wb") as fh:
            fh.write(b"---\nname: badname\ndescription: In a folder that is not UTF-8.\n---\nBody.\n")
        agents = os.path.join(root, "ok", "agents")
        os.makedirs(agents, exist_ok=True)
        for name, text in (("openai.yaml", "interface:\n  display_name: !!bool z\n"),
                           ("zuno.yaml", "policy:\n  allow_implicit_invocation: !!int ''\n")):
            with open(os.path.join(agents, name), "w", encoding="utf-8") as fh:
                fh.write(text)
