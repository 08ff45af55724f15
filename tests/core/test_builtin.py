"""First-party skills shipped in the package (SPEC B1, E4; conformance §7 Z231–Z237)."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from importlib import resources

import pytest

from skillshelf import __version__
from skillshelf.core import builtin
from skillshelf.core.builtin import (
    PACK_ORDER,
    builtin_locator,
    builtin_skills,
    builtin_sources,
    is_builtin_locator,
    parse_builtin_locator,
    visible_to_agent,
)
from skillshelf.core.frontmatter import parse_skill_bytes
from skillshelf.core.model import Exposure, Provenance, Source

NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def _packaged_bytes(name: str) -> bytes:
    return resources.files(builtin).joinpath("skills", name, "SKILL.md").read_bytes()


def _body_after_frontmatter(data: bytes) -> str:
    """Independent SPEC F2 split: body = text after the closing ``---`` line and its newline."""
    text = data.decode("utf-8")
    lines = text.split("\n")
    assert lines[0] == "---"
    close = lines.index("---", 1)
    return "\n".join(lines[close + 1 :])


def test_pack_has_the_three_required_skills_in_order():
    assert PACK_ORDER == ("writing-skills", "reviewing-skills", "tuning-skill-budget")
    assert tuple(s.name for s in builtin_skills()) == PACK_ORDER


def test_every_packaged_folder_is_in_the_pack():
    folders = sorted(
        p.name for p in resources.files(builtin).joinpath("skills").iterdir() if p.is_dir()
    )
    assert folders == sorted(PACK_ORDER)


def test_z232_one_entry_per_descriptor_with_original_bodies():
    """Z232 analogue: unique names, stable locators, body exactly the file body, sha256 of it."""
    skills = builtin_skills()
    sources = builtin_sources(__version__)
    assert len(sources) == len(skills) == len(PACK_ORDER)
    assert len({s.name for s in sources}) == len(sources)
    for skill, source in zip(skills, sources, strict=True):
        data = _packaged_bytes(skill.name)
        body = _body_after_frontmatter(data)
        assert skill.body == body
        assert skill.sha256 == hashlib.sha256(body.encode("utf-8")).hexdigest()
        assert source.name == skill.name
        assert source.location == f"builtin://skillshelf/{__version__}/{skill.name}"
        assert source.canonical == source.location
        assert source.description == skill.description
        assert source.body == body
        assert source.entry.body == body
        assert source.content_sha256 == hashlib.sha256(data).hexdigest()
        assert source.size == len(data)
        assert source.provenance is Provenance.BUILTIN
        assert source.exposure is Exposure.INDEX
        assert source.exposure_reason == "built-in"
        assert source.builtin_profiles == skill.profiles
        assert source.builtin_tools == skill.tools
        assert source.directory == ""


def test_builtin_sources_are_cached_and_immutable():
    assert builtin_sources(__version__) is builtin_sources(__version__)
    assert builtin_skills() is builtin_skills()
    with pytest.raises(AttributeError):
        builtin_skills()[0].name = "x"  # type: ignore[misc]


def test_locator_shape():
    assert builtin_locator("writing-skills", "9.9.9") == "builtin://skillshelf/9.9.9/writing-skills"
    assert parse_builtin_locator("builtin://skillshelf/9.9.9/writing-skills") == (
        "9.9.9",
        "writing-skills",
    )
    assert parse_builtin_locator("builtin://skillshelf/unknown") is None
    assert parse_builtin_locator("builtin://skillshelf//writing-skills") is None
    assert parse_builtin_locator("builtin://skillshelf/1/a/b") is None


def test_z237_unknown_locator_is_not_a_builtin():
    assert not is_builtin_locator("builtin://skillshelf/unknown")
    assert not is_builtin_locator(f"builtin://skillshelf/{__version__}/unknown")
    assert not is_builtin_locator("builtin://zuno-orchestration/0.1.0/writing-skills")
    assert not is_builtin_locator("/project/.zuno/skill/writing-skills/SKILL.md")
    for name in PACK_ORDER:
        assert is_builtin_locator(builtin_locator(name, __version__))
        assert not is_builtin_locator(builtin_locator(name, "0.0.0-other"))
        assert is_builtin_locator(builtin_locator(name, "0.0.0-other"), version="0.0.0-other")


def test_z237_external_sources_ignore_first_party_metadata():
    external = Source(
        name="custom",
        location="/project/.zuno/skill/custom/SKILL.md",
        provenance=Provenance.PROJECT_ZUNO,
        canonical="/project/.zuno/skill/custom/SKILL.md",
        builtin_profiles=("nobody",),
        builtin_tools=("never",),
    )
    assert visible_to_agent(external, "explorer", [])
    assert visible_to_agent(external, None, None)


def test_z235_analogue_profile_and_every_explicit_tool():
    by_name = {s.name: s for s in builtin_sources(__version__)}
    writing = by_name["writing-skills"]
    assert writing.builtin_profiles == ("build", "orchestrator")
    assert writing.builtin_tools == ("read", "write")
    assert visible_to_agent(writing, "build", None)
    assert not visible_to_agent(writing, "plan", None)
    assert not visible_to_agent(writing, "build", ["read"])  # incomplete tool list
    assert visible_to_agent(writing, "build", ["read", "write"])  # exactly its tools
    tuning = by_name["tuning-skill-budget"]
    assert tuning.builtin_profiles is None
    assert "skill" in tuning.builtin_tools
    assert visible_to_agent(tuning, "plan", None)
    assert not visible_to_agent(tuning, "plan", ["read", "write"])
    assert visible_to_agent(tuning, "explorer", ["read", "skill", "bash"])


@pytest.mark.parametrize("name", PACK_ORDER)
def test_builtin_passes_agent_skills_rules(name):
    """F4: name 1–64 chars, lowercase/digits/hyphen, equal to the folder (NFKC); description
    1–1024 chars; only standard frontmatter keys; body 40–120 lines."""
    skill = {s.name: s for s in builtin_skills()}[name]
    assert 1 <= len(skill.name) <= 64
    assert NAME_RE.match(skill.name)
    assert unicodedata.normalize("NFKC", skill.name) == unicodedata.normalize("NFKC", name)
    assert 1 <= len(skill.description) <= 1024
    assert "Use when" in skill.description
    assert set(skill.frontmatter) <= {
        "name",
        "description",
        "license",
        "compatibility",
        "metadata",
        "allowed-tools",
    }
    lines = skill.body.strip("\n").split("\n")
    assert 40 <= len(lines) <= 120


def test_builtin_parse_uses_the_host_parser():
    """Built-ins go through the same F2/F3 parser as disk skills."""
    for skill in builtin_skills():
        data = _packaged_bytes(skill.name)
        parsed = parse_skill_bytes(data, builtin_locator(skill.name, __version__))
        assert parsed.name == skill.name
        assert parsed.description == skill.description
        assert parsed.body == skill.body


def test_z233_a_user_skill_does_not_silently_override_the_builtin(tmp_path):
    """Z233 (and Z231 at catalog level): a disk copy of a built-in's name is a second source,
    listed after the built-in, with no warning; plain-name lookup is ambiguous (SPEC B1, D6)."""
    import os

    from skillshelf.core.catalog import Catalog
    from skillshelf.core.paths import Environment

    project = os.path.realpath(str(tmp_path / "project"))
    os.makedirs(os.path.join(project, ".git"))
    home = str(tmp_path / "home")
    os.makedirs(home)
    mine = os.path.join(project, ".zuno", "skill", "writing-skills", "SKILL.md")
    os.makedirs(os.path.dirname(mine))
    with open(mine, "w", encoding="utf-8") as fh:
        fh.write("---\nname: writing-skills\ndescription: mine\n---\nmy body\n")
    gen = Catalog.open(project, env=Environment.from_mapping({"HOME": home}), pull_remote=False).current
    assert [s.name for s in gen.sources] == [*PACK_ORDER, "writing-skills"]
    assert gen.get("writing-skills") is None
    assert [s.location for s in gen.named("writing-skills")] == [
        builtin_locator("writing-skills", __version__), mine]
    assert gen.warnings == ()
