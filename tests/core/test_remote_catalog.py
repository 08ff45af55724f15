"""Remote indexes through the catalog (SPEC R, D1 row 6; conformance §5 names = B + [...]):
``skills.urls`` from config is pulled into ``$XDG_CACHE_HOME/zuno/skills``, the pulled skills are
sources with provenance ``remote``, failures are catalog warnings and the local skills still load."""

from __future__ import annotations

import json
from pathlib import Path

from test_remote import DEAD, Server, index, skill_md

from skillshelf.core.catalog import Catalog
from skillshelf.core.hosts.zuno.pack import pack
from skillshelf.core.paths import Environment

PACK_ORDER = tuple(s.name for s in pack())


def open_catalog(t: Path, urls: list[str]) -> Catalog:
    home = t / "home"
    (home / ".config/zuno/skill/survivor").mkdir(parents=True)
    (home / ".config/zuno/skill/survivor/SKILL.md").write_text(
        "---\nname: survivor\ndescription: local\n---\nB\n", encoding="utf-8"
    )
    proj = t / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / "zuno.json").write_text(json.dumps({"skills": {"urls": urls}}), encoding="utf-8")
    env = Environment.from_mapping(
        {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache")}
    )
    return Catalog.open(str(proj), env=env)


def names(cat: Catalog) -> list[str]:
    return [s.name for s in cat.current.sources]


def test_z128_pulled_skills_are_remote_sources_after_the_locals(tmp_path):
    routes = {
        "/index.json": index(
            {"name": "usable", "files": ["SKILL.md", "helper.md"]}, {"name": "unusable", "files": ["README.md"]}
        ),
        "/usable/SKILL.md": skill_md("usable", "remote"),
        "/usable/helper.md": b"helper\n",
    }
    with Server(routes) as srv:
        cat = open_catalog(tmp_path, [srv.url])
    cache = tmp_path / "home/.cache/zuno/skills"
    assert names(cat) == list(PACK_ORDER) + ["survivor", "usable"]
    usable = cat.current.get("usable")
    assert usable.location == str(cache / "usable/SKILL.md")
    assert usable.provenance.value == "remote"
    assert (cache / "usable/helper.md").is_file() and not (cache / "unusable").exists()
    assert [w.to_json() for w in cat.current.warnings] == [
        {
            "kind": "EntryMissingSkillMd",
            "source": f"{srv.url}/index.json",
            "message": f"skill entry missing SKILL.md: `unusable` in {srv.url}/index.json",
        }
    ]
    assert cat.remote_origins[str(cache / "usable")] == (srv.url, None)
    assert any(r.provenance.value == "remote" for r in cat.current.roots)


def test_z131_z138_dead_and_404_urls_warn_and_local_skills_still_load(tmp_path):
    with Server({"/index.json": 404}) as bad, Server(
        {"/index.json": index({"name": "second", "files": ["SKILL.md"]}), "/second/SKILL.md": skill_md("second", "d")}
    ) as good:
        cat = open_catalog(tmp_path, [DEAD, bad.url, good.url])
    assert names(cat) == list(PACK_ORDER) + ["survivor", "second"]
    kinds = [w.kind for w in cat.current.warnings]
    assert kinds == ["IndexUnreachable", "IndexStatus"]
    assert cat.current.warnings[1].message == f"failed to fetch index {bad.url}/index.json: HTTP 404"


def test_refresh_does_not_refetch_and_pull_now_does(tmp_path):
    routes = {"/index.json": index({"name": "r", "files": ["SKILL.md"], "version": "v1"}), "/r/SKILL.md": skill_md("r", "one")}
    with Server(routes) as srv:
        cat = open_catalog(tmp_path, [srv.url])
        first = len(srv.requests)
        cat.refresh()
        assert len(srv.requests) == first  # the remote cache is not re-pulled by a plain refresh
        routes["/index.json"] = index({"name": "r", "files": ["SKILL.md"], "version": "v2"})
        routes["/r/SKILL.md"] = skill_md("r", "two")
        gen = cat.refresh(pull_remote=True)
    assert gen.get("r").description == "two"
    assert (tmp_path / "home/.cache/zuno/skills/r/.zuno-version").read_text() == "v2"
    assert gen.sources[0].location == "builtin://zuno-orchestration/0.10.3/customize-zuno"
