"""Property tests (hypothesis) over generated frontmatters made of the faults agents get wrong:
values cut by a comment, invisible characters beside emoji, numbers and YAML indicators where
text is meant, unclosed brackets, near-miss file names and dot folders. For every one: the
catalog never crashes, every ``SKILL.md`` it reaches is a source or a rejected file with a
diagnostic, and none of these kinds passes silently (a warning or a lint finding names it)."""

from __future__ import annotations

import os
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillshelf.core import yamlload
from skillshelf.core.catalog import Catalog
from skillshelf.core.frontmatter import split_document
from skillshelf.core.lint import lint_file
from skillshelf.core.paths import Environment

_SETTINGS = settings(max_examples=60, deadline=None, database=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

ZWSP = "\u200b"
EMOJI = ("\U0001f9d1\u200d\U0001f4bb", "\u2764\ufe0f", "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f")
words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)

#: (kind, value text as written) — the kind says what must be reported when the block parses.
value = st.one_of(
    st.builds(lambda a, b: ("plain", f"{a} {b}"), words, words),
    st.builds(lambda a, b: ("cut", f"{a} #{b}"), words, words),  # ` #b` is a YAML comment
    st.builds(lambda a: ("plain", f"{a} C# {a}"), words),  # no blank before `#`: not a comment
    st.builds(lambda a, b: ("plain", f'"{a} #{b}"'), words, words),  # quoted: not a comment
    st.builds(lambda a, b: ("invisible", f"{a}{ZWSP}{b}"), words, words),
    st.builds(lambda a, e: ("plain", f"{a} {e}"), words, st.sampled_from(EMOJI)),
    st.sampled_from([("typed", "1.10"), ("typed", "0o17"), ("typed", "true"), ("typed", "~")]),
    st.builds(lambda c, a: ("reserved", f"{c}{a} text"), st.sampled_from("*&!%@`"), words),
    st.builds(lambda a: ("unclosed", f"[{a}, b"), words),
)
keys = st.sampled_from(["name", "description", "license", "compatibility", "x-notes"])
frontmatter = st.dictionaries(keys, value, min_size=1, max_size=4)
file_name = st.sampled_from(["SKILL.md", "SKILL.md", "SKILL.md", "skill.md", "SKILL.MD", "SKILLS.md"])
skill = st.tuples(frontmatter, file_name, st.booleans())  # (frontmatter, file name, inside a dot folder)


def _scalar(text: str) -> object:
    """What YAML reads from the plain value ``text`` (a cut ``null`` outside a text field is no fault)."""
    return yamlload.load(f"v: {text}\n")["v"]


def _text(fm: dict[str, tuple[str, str]]) -> str:
    return "---\n" + "".join(f"{k}: {v}\n" for k, (_, v) in fm.items()) + "---\nBody.\n"


@_SETTINGS
@given(st.lists(skill, min_size=1, max_size=4))
def test_generated_faults_never_crash_and_none_is_silent(skills):
    with tempfile.TemporaryDirectory() as tmp:
        proj, home, repo = (os.path.join(tmp, d) for d in ("proj", "home", "repo"))
        os.makedirs(os.path.join(proj, ".git"))
        os.makedirs(home)
        reached, near, hidden = [], [], set()
        for i, (fm, name, dotted) in enumerate(skills):
            folder = os.path.join(repo, ".hidden" if dotted else "", f"s{i}")
            os.makedirs(folder)
            path = os.path.join(folder, name)
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(_text(fm))
            if dotted:
                if name == "SKILL.md":
                    hidden.add(os.path.join(repo, ".hidden"))
            elif name == "SKILL.md":
                reached.append(path)
            else:
                near.append(path)
        env = Environment.from_mapping({"HOME": home})
        gen = Catalog.open(proj, env=env, paths=[repo], pull_remote=False).current
        sources = {s.location for s in gen.sources}
        rejected = {r.location: r for r in gen.rejected}
        for path in reached:  # exactly once, a source or a rejection with its reason
            assert (path in sources) != (path in rejected), path
            if path in rejected:
                assert rejected[path].diagnostics and all(d.message for d in rejected[path].diagnostics)
        warned = {(w.kind, w.source) for w in gen.warnings}
        for path in near:
            assert ("wrong-file-name", path) in warned
        for folder in hidden:
            assert ("dot-folder-skipped", folder) in warned

        for i, (fm, _name, _dotted) in enumerate(skills):  # the lint names each text fault
            path = next(p for p in (*reached, *near) if os.path.dirname(p).endswith(f"/s{i}")) if not _dotted else None
            if path is None:
                continue
            codes = {(d.code, d.field) for d in lint_file(path).diagnostics}
            kinds = {k for k, _ in fm.values()}
            if "invisible" in kinds:
                assert any(c == "invisible-character" for c, _ in codes)
            try:
                yamlload.load(split_document(_text(fm)).raw)
            except yamlload.YamlError:
                assert any(c in ("yaml-error", "quote-description", "quote-value", "tab-indent") for c, _ in codes)
                continue
            for key, (kind, _v) in fm.items():
                if kind == "cut" and (key != "x-notes" or isinstance(_scalar(_v.split(" #")[0]), str)):
                    assert ("comment-in-value", key) in codes, (key, codes)
