"""Catalog generations, digest, keep-last-valid, collapsed refreshes and the incremental
``refresh_paths`` (SPEC H1–H3, I3; conformance §6 Z149–Z151 model, Z150; case B16)."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import random
import shutil
import threading

import pytest
from conftest import SHARED

from skillshelf.core.catalog import Catalog
from skillshelf.core.digest import PackedDigests, cached_digest, compute_digest, source_digest_bytes
from skillshelf.core.hosts.zuno import build as zuno_build
from skillshelf.core.hosts.zuno.build import ZunoSession
from skillshelf.core.hosts.zuno.roots import zuno_discover
from skillshelf.core.model import CatalogWarning, Exposure, Provenance, Source, Status
from skillshelf.core.paths import Environment


def skill(name: str, description: str = "Edit sheets", body: str = "body\n") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}"


def write(path: str, text: str) -> str:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path


class Tree:
    """T/project (worktree) with .agents/skills and .zuno/skill, T/home, T/shared (configured)."""

    def __init__(self, tmp_path):
        self.t = os.path.realpath(str(tmp_path))
        self.project = os.path.join(self.t, "project")
        os.makedirs(os.path.join(self.project, ".git"))
        self.home = os.path.join(self.t, "home")
        os.makedirs(self.home)
        self.agents = os.path.join(self.project, ".agents", "skills")
        self.zuno = os.path.join(self.project, ".zuno", "skill")
        self.shared = os.path.join(self.t, "shared")
        self.env = Environment.from_mapping({"HOME": self.home})

    def open(self, paths=()) -> Catalog:
        return Catalog.open(self.project, env=self.env, paths=paths, pull_remote=False)


def same(a, b) -> None:
    """Two generations are equal in everything a reader can see."""
    assert a.number == b.number
    assert [s.location for s in a.sources] == [s.location for s in b.sources]
    assert a.sources == b.sources
    assert a.rejected == b.rejected
    assert a.warnings == b.warnings
    assert a.roots == b.roots
    assert a.diagnostics == b.diagnostics
    assert a.digest == b.digest


def user(gen):
    return [s for s in gen.sources if s.provenance is not Provenance.BUILTIN]


# ---------------------------------------------------------------- H1: generations and digest

def test_h1_generation_starts_at_1_and_every_refresh_publishes(tmp_path):
    tree = Tree(tmp_path)
    write(f"{tree.agents}/sheet/SKILL.md", skill("spreadsheet"))
    cat = tree.open()
    seen = []
    cat.subscribe(seen.append)
    first = cat.current
    assert first.number == 1
    again = cat.refresh()
    assert again.number == 2 and again.digest == first.digest  # nothing changed, still published
    assert cat.refresh_paths([]).number == 3
    assert [g.number for g in seen] == [2, 3]
    assert cat.current is seen[-1]


def test_h1_digest_follows_the_conformance_byte_layout(tmp_path):
    tree = Tree(tmp_path)
    write(f"{tree.agents}/sheet/SKILL.md", skill("spreadsheet"))
    write(f"{tree.agents}/sheet/agents/zuno.yaml", "interface:\n  display_name: Sheets\npolicy:\n  exposure: search\n")
    gen = tree.open().current
    h = hashlib.sha256()
    for s in gen.sources:  # Z-H: Zuno's layout
        h.update("\0".join([s.name, s.location, s.description or "", s.display_name or "",
                            s.short_description or ""]).encode() + b"\0")
        h.update(bytes([{"index": 0, "search": 1, "explicit": 2}[s.exposure.value]]))  # no NUL before it
        for m in s.metadata_sources:
            h.update(m.encode() + b"\0")
        h.update(bytes.fromhex(s.content_sha256) + b"\xff")  # the raw 32 bytes
    for w in gen.warnings:
        h.update(w.source.encode() + b"\0" + w.message.encode() + b"\xff")
    assert gen.digest == h.hexdigest()
    assert len(gen.sources) == 12  # Zuno's eleven built-ins (hashed with their content digests) + 1
    sheet = gen.named("spreadsheet")[0]
    assert sheet.exposure is Exposure.SEARCH and sheet.display_name == "Sheets"
    assert sheet.metadata_sources == (f"{tree.agents}/sheet/agents/zuno.yaml",)
    with open(sheet.location, "rb") as fh:
        assert sheet.content_sha256 == hashlib.sha256(fh.read()).hexdigest()


def test_h1_disabled_sources_and_warnings_in_digest():
    a = Source(name="a", location="/r/a/SKILL.md", provenance=Provenance.CONFIGURED_PATH, canonical="/r/a/SKILL.md",
               content_sha256="00")
    off = Source(name="b", location="/r/b/SKILL.md", provenance=Provenance.CONFIGURED_PATH,
                 canonical="/r/b/SKILL.md", enabled=False, status=Status.DISABLED)
    w = CatalogWarning("Frontmatter", "/r/c/SKILL.md", "bad")
    assert compute_digest([a, off], []) == compute_digest([a], [])
    assert compute_digest([a], [w]) != compute_digest([a], [])


def test_packed_digests_give_back_the_very_bytes_and_the_same_digest_after_a_pickle():
    sources = [Source(name=n, location=f"/r/{n}/SKILL.md", provenance=Provenance.CONFIGURED_PATH,
                      canonical=f"/r/{n}/SKILL.md", description=d)
               for n, d in (("a", "Edit sheets"), ("b", ""), ("c", "é\u2028 long " * 40))]
    digest, cache = cached_digest(sources, [], {})
    packed = pickle.loads(pickle.dumps(PackedDigests.of(cache.values()), protocol=pickle.HIGHEST_PROTOCOL))
    assert list(packed.ends) == [len(source_digest_bytes(s)) for s in sources[:1]] + [
        sum(len(source_digest_bytes(s)) for s in sources[:2]), sum(len(source_digest_bytes(s)) for s in sources)]
    again = packed.cache()  # (keyed by the unpickled sources' identities)
    assert [data for _, data in again.values()] == [source_digest_bytes(s) for s in sources]
    assert cached_digest(packed.sources, [], again) == (digest, again)
    assert PackedDigests.of(()).cache() == {}


def test_packed_digests_give_the_digest_of_the_same_list_and_none_for_another():
    sources = [Source(name=n, location=f"/r/{n}/SKILL.md", provenance=Provenance.CONFIGURED_PATH,
                      canonical=f"/r/{n}/SKILL.md", description=f"does {n}") for n in "abc"]
    off = Source(name="z", location="/r/z/SKILL.md", provenance=Provenance.CONFIGURED_PATH,
                 canonical="/r/z/SKILL.md", enabled=False, status=Status.DISABLED)
    w = CatalogWarning("Frontmatter", "/r/c/SKILL.md", "bad")
    packed = PackedDigests.of(cached_digest(sources, [], {})[1].values())
    assert packed.digest_of(sources, []) == compute_digest(sources, [])
    assert packed.digest_of(sources, [w]) == compute_digest(sources, [w])
    equal = [dataclasses.replace(s) for s in sources]  # other objects, the same fields
    assert packed.digest_of([off, *equal[:2], off, equal[2]], [w]) == compute_digest(sources, [w])
    assert packed.digest_of(sources[:2], []) is None
    assert packed.digest_of([*sources, sources[0]], []) is None
    assert packed.digest_of([sources[1], sources[0], sources[2]], []) is None
    assert packed.digest_of([*sources[:2], dataclasses.replace(sources[2], description="other")], []) is None


def test_z150_body_only_edits_change_the_snapshot_digest(tmp_path):
    tree = Tree(tmp_path)
    loc = write(f"{tree.agents}/sheet/SKILL.md", skill("spreadsheet"))
    cat = tree.open()
    initial = cat.current
    write(loc, "---\nname: spreadsheet\ndescription: Edit sheets\n---\nchanged body")
    gen = cat.refresh()
    assert gen.number > initial.number
    assert gen.digest != initial.digest
    assert user(gen)[0].entry == user(initial)[0].entry  # the metadata did not change


# ---------------------------------------------------------------- H3: keep-last-valid

def test_h3_broken_edit_keeps_last_valid_until_fixed(tmp_path):
    tree = Tree(tmp_path)
    loc = write(f"{tree.agents}/sheet/SKILL.md", skill("spreadsheet"))
    cat = tree.open()
    valid = user(cat.current)[0]
    write(loc, "---\nname: spreadsheet\ndescription: [unclosed\n---\nbody\n")
    broken = cat.refresh_paths([loc])
    kept = user(broken)[0]
    assert kept.status is Status.KEPT_LAST_VALID
    assert kept.entry == valid.entry and kept.content_sha256 == valid.content_sha256
    kinds = [(w.kind, w.source) for w in broken.warnings]
    assert kinds == [("Frontmatter", loc), ("kept-last-valid", loc)]
    assert broken.warnings[1].message.startswith(f"kept the last valid version of skill {loc}: ")
    # still broken on the next refresh: still kept, still warned
    again = cat.refresh()
    assert user(again)[0].status is Status.KEPT_LAST_VALID
    assert [w.kind for w in again.warnings] == ["Frontmatter", "kept-last-valid"]
    write(loc, skill("spreadsheet", "Edit sheets better"))
    fixed = cat.refresh_paths([loc])
    assert user(fixed)[0].status is Status.OK
    assert user(fixed)[0].description == "Edit sheets better"
    assert fixed.warnings == ()


def test_h3_a_skill_broken_from_the_start_is_rejected_not_kept(tmp_path):
    tree = Tree(tmp_path)
    loc = write(f"{tree.agents}/sheet/SKILL.md", "---\ndescription: no name\n---\n")
    gen = tree.open().current
    assert user(gen) == []
    assert [r.location for r in gen.rejected] == [loc]
    assert [w.kind for w in gen.warnings] == ["MissingName"]


def test_h3_a_previously_valid_sidecar_that_breaks_keeps_the_whole_entry(tmp_path):
    tree = Tree(tmp_path)
    write(f"{tree.agents}/sheet/SKILL.md", skill("spreadsheet"))
    side = write(f"{tree.agents}/sheet/agents/zuno.yaml", "policy:\n  exposure: search\n")
    cat = tree.open()
    assert user(cat.current)[0].exposure is Exposure.SEARCH
    write(side, "policy:\n  exposure: sometimes\n")
    gen = cat.refresh_paths([side])
    kept = user(gen)[0]
    assert kept.status is Status.KEPT_LAST_VALID and kept.exposure is Exposure.SEARCH
    assert [w.kind for w in gen.warnings] == ["MetadataMalformed", "kept-last-valid"]


def test_h3_a_new_malformed_sidecar_does_not_match_the_previous_entry(tmp_path):
    """The warning's source is neither the entry's location nor one of its metadata sources."""
    tree = Tree(tmp_path)
    write(f"{tree.agents}/sheet/SKILL.md", skill("spreadsheet"))
    cat = tree.open()
    side = write(f"{tree.agents}/sheet/agents/zuno.yaml", "policy:\n  exposure: sometimes\n")
    gen = cat.refresh_paths([side])
    entry = user(gen)[0]
    assert entry.status is Status.OK and entry.exposure is Exposure.INDEX
    assert [w.kind for w in gen.warnings] == ["MetadataMalformed"]


# ---------------------------------------------------------------- H2: collapsing, renames, deletes

def test_h2_concurrent_refreshes_collapse(tmp_path, monkeypatch):
    tree = Tree(tmp_path)
    write(f"{tree.agents}/sheet/SKILL.md", skill("spreadsheet"))
    cat = tree.open()
    started, release = threading.Event(), threading.Event()
    builds = []
    real = ZunoSession.build

    def slow(self, previous, changed=None, watch_warnings=()):
        builds.append(changed)
        if len(builds) == 1:
            started.set()
            release.wait(10)
        return real(self, previous, changed, watch_warnings)

    monkeypatch.setattr(ZunoSession, "build", slow)
    results = []
    first = threading.Thread(target=lambda: results.append(cat.refresh()))
    first.start()
    assert started.wait(10)
    others = [threading.Thread(target=lambda: results.append(cat.refresh())) for _ in range(4)]
    others.append(threading.Thread(target=lambda: results.append(cat.refresh_paths([tree.agents]))))
    for t in others:
        t.start()
    release.set()
    for t in [first, *others]:
        t.join(10)
    assert len(builds) == 2  # the first rescan, then one covering all five waiting callers
    assert builds[1] is None  # a pending full refresh wins over the pending paths
    assert sorted(g.number for g in results) == [2, 3, 3, 3, 3, 3]
    assert cat.current.number == 3


def test_h2_rename_and_delete_are_published(tmp_path):
    tree = Tree(tmp_path)
    write(f"{tree.agents}/sheet/SKILL.md", skill("spreadsheet"))
    cat = tree.open()
    os.rename(f"{tree.agents}/sheet", f"{tree.agents}/sheets")
    gen = cat.refresh_paths([f"{tree.agents}/sheet", f"{tree.agents}/sheets"])
    assert [s.location for s in user(gen)] == [f"{tree.agents}/sheets/SKILL.md"]
    shutil.rmtree(f"{tree.agents}/sheets")
    gen = cat.refresh_paths([f"{tree.agents}/sheets"])
    assert user(gen) == []


def test_i3_a_renamed_locator_refreshes_once_then_reports_catalog_stale(tmp_path):
    from skillshelf.core.tool import SkillTool, ToolError

    tree = Tree(tmp_path)
    old = write(f"{tree.agents}/sheet/SKILL.md", skill("spreadsheet"))
    cat = tree.open()
    os.rename(f"{tree.agents}/sheet", f"{tree.agents}/sheets")
    with pytest.raises(ToolError) as err:
        SkillTool(cat).call({"action": "load", "name": "spreadsheet", "source": old})
    assert err.value.code == "catalog-stale"
    assert err.value.message == (
        f"Skill catalog changed while loading `spreadsheet` from stale source `{old}`. "
        f"Retry with one currently advertised source: `{tree.agents}/sheets/SKILL.md`"
    )
    assert cat.current.number == 2  # exactly one refresh


# ---------------------------------------------------------------- one discovery

def test_the_catalog_runs_the_discovery_the_discovery_tests_use(tmp_path):
    """``zuno_discover`` (what tests/core/test_discovery.py exercises) and the catalog see the
    same roots, the same files in the same order with the same aliases, the same scan warnings
    and hints; the scans record symlink aliases."""
    tree = Tree(tmp_path)
    write(f"{tree.agents}/a/SKILL.md", skill("a"))
    write(f"{tree.agents}/.hidden/b/SKILL.md", skill("b"))
    write(f"{tree.zuno}/c/SKILL.md", skill("c"))
    write(f"{tree.zuno}/.hidden/d/SKILL.md", skill("d"))
    write(f"{tree.zuno}/broken/SKILL.md", "---\nname: [x\n---\n")
    write(f"{tree.project}/.claude/skills/e/SKILL.md", skill("e"))
    write(f"{tree.shared}/f/SKILL.md", skill("f"))
    os.symlink(f"{tree.agents}/a", f"{tree.zuno}/alias")
    os.symlink(f"{tree.t}/nowhere", f"{tree.zuno}/dangling")
    os.symlink(tree.zuno, f"{tree.zuno}/c/loop")
    gen = tree.open(paths=[tree.shared, f"{tree.t}/missing"]).current
    disc = zuno_discover(tree.env, tree.project, paths=[tree.shared, f"{tree.t}/missing"], hints=True)

    assert disc.roots == gen.roots
    sources = {s.location: s for s in user(gen)}
    rejected = {r.location: r for r in gen.rejected}
    assert [m.location for m in disc.matches if m.location in sources] == list(sources)
    assert [m.location for m in disc.matches if m.location in rejected] == list(rejected) == [
        f"{tree.zuno}/broken/SKILL.md"]
    assert len(disc.matches) == len(sources) + len(rejected)
    for m in disc.matches:
        listed = sources.get(m.location) or rejected[m.location]
        assert (listed.aliases, listed.provenance) == (m.aliases, m.provenance)
    assert [w for w in gen.warnings if w in disc.warnings] == list(disc.warnings)
    assert {w.kind for w in disc.warnings} >= {"PathNotFound"}
    assert [d for d in gen.diagnostics if d.code == "uncovered-folder"] == list(disc.diagnostics)
    assert disc.diagnostics
    for rs in disc.scans:
        assert list(rs.keys) == sorted(rs.keys) and len(rs.keys) == len(rs.matches)
    assert (f"{tree.zuno}/alias", os.path.realpath(f"{tree.agents}/a")) in [
        link for rs in disc.scans for link in rs.links]


# ---------------------------------------------------------------- incremental == full

class Twin:
    """The same tree under two catalogs: one fed paths, one always rescanning everything."""

    def __init__(self, tree: Tree, paths=()):
        self.inc = tree.open(paths)
        self.full = tree.open(paths)

    def step(self, changed):
        a = self.inc.refresh_paths(changed)
        b = self.full.refresh()
        same(a, b)
        return a


def test_refresh_paths_equals_full_refresh_for_each_kind_of_change(tmp_path):
    tree = Tree(tmp_path)
    write(f"{tree.agents}/sheet/SKILL.md", skill("spreadsheet"))
    write(f"{tree.zuno}/docs/SKILL.md", skill("docs"))
    write(f"{tree.shared}/cat/pdf/SKILL.md", skill("pdf"))
    twin = Twin(tree, paths=[tree.shared])
    # create a nested skill, reported only by its top directory (mkdir -p a/b && write)
    write(f"{tree.agents}/new/deep/SKILL.md", skill("deep"))
    gen = twin.step([f"{tree.agents}/new"])
    assert "deep" in {s.name for s in gen.sources}
    # edit, break, fix
    loc = f"{tree.zuno}/docs/SKILL.md"
    write(loc, skill("docs", "Docs v2"))
    twin.step([loc])
    write(loc, "---\nname: docs\ndescription: [x\n---\n")
    assert twin.step([loc]).by_location(loc).status is Status.KEPT_LAST_VALID
    write(loc, skill("docs", "Docs v3"))
    twin.step([loc])
    # a symlink alias in another root, then its removal
    os.symlink(f"{tree.shared}/cat/pdf", f"{tree.agents}/pdf-link")
    gen = twin.step([f"{tree.agents}/pdf-link"])
    assert gen.by_location(f"{tree.agents}/pdf-link/SKILL.md") is not None  # the agents root comes first
    os.remove(f"{tree.agents}/pdf-link")
    twin.step([f"{tree.agents}/pdf-link"])
    # an edit reported by the canonical path reaches the linked spelling too
    os.symlink(f"{tree.shared}/cat/pdf", f"{tree.zuno}/pdf-alias")
    twin.step([f"{tree.zuno}/pdf-alias"])
    write(f"{tree.shared}/cat/pdf/SKILL.md", skill("pdf", "PDF v2"))
    twin.step([f"{tree.shared}/cat/pdf/SKILL.md"])
    # a new skill inside a linked directory, reported through the real path only
    write(f"{tree.shared}/cat/pdf/inner/SKILL.md", skill("inner"))
    twin.step([f"{tree.shared}/cat/pdf/inner"])
    # hidden directories: pruned under .zuno/skill, scanned under .agents/skills
    write(f"{tree.zuno}/.hidden/h/SKILL.md", skill("hidden-zuno"))
    write(f"{tree.agents}/.hidden/h/SKILL.md", skill("hidden-agents"))
    gen = twin.step([f"{tree.zuno}/.hidden", f"{tree.agents}/.hidden"])
    assert "hidden-agents" in {s.name for s in gen.sources} and "hidden-zuno" not in {s.name for s in gen.sources}
    # a skills.config rule disabling a skill
    write(f"{tree.project}/zuno.json", '{"skills": {"config": [{"path": ".agents/skills/sheet", "enabled": false}]}}')
    gen = twin.step([f"{tree.project}/zuno.json"])
    assert gen.by_location(f"{tree.agents}/sheet/SKILL.md").enabled is False
    # the whole .zuno root vanishes, then a configured path appears two levels deep
    shutil.rmtree(f"{tree.project}/.zuno")
    twin.step([f"{tree.project}/.zuno"])
    write(f"{tree.project}/zuno.json", '{"skills": {"paths": ["' + tree.t + '/later/a/b"]}}')
    gen = twin.step([f"{tree.project}/zuno.json"])
    assert [w.kind for w in gen.warnings] == ["PathNotFound"]
    write(f"{tree.t}/later/a/b/x/SKILL.md", skill("later"))
    gen = twin.step([f"{tree.t}/later"])
    assert "later" in {s.name for s in gen.sources}
    # a dangling link, then its target appears
    os.symlink(f"{tree.t}/target", f"{tree.agents}/dangling")
    gen = twin.step([f"{tree.agents}/dangling"])
    assert "broken-symlink" in [w.kind for w in gen.warnings]
    write(f"{tree.t}/target/SKILL.md", skill("target"))
    gen = twin.step([f"{tree.t}/target/SKILL.md"])
    assert gen.by_location(f"{tree.agents}/dangling/SKILL.md") is not None


def test_refresh_paths_ambiguity_is_derived(tmp_path):
    tree = Tree(tmp_path)
    write(f"{tree.agents}/a/SKILL.md", skill("same"))
    twin = Twin(tree)
    write(f"{tree.agents}/b/SKILL.md", skill("same"))
    assert twin.step([f"{tree.agents}/b/SKILL.md"]).ambiguous_names() == ("same",)
    os.remove(f"{tree.agents}/a/SKILL.md")
    assert twin.step([f"{tree.agents}/a/SKILL.md"]).ambiguous_names() == ()


def _soak(tree: Tree, rng: random.Random, n_ops: int, on_step) -> None:
    roots = [tree.agents, tree.zuno, tree.shared, os.path.join(tree.home, ".agents", "skills")]
    counter = 0

    def skill_dirs():
        out = []
        for r in roots:
            for dirpath, _, filenames in os.walk(r):
                if "SKILL.md" in filenames:
                    out.append(dirpath)
        return sorted(out)

    for _ in range(n_ops):
        counter += 1
        op = rng.choice(["create", "create", "edit", "break", "fix", "rename", "delete", "symlink", "unlink",
                         "sidecar", "hidden", "mkdir-p"])
        dirs = skill_dirs()
        changed: list[str] = []
        if op in ("create", "mkdir-p", "hidden") or not dirs:
            base = rng.choice(roots)
            top = os.path.join(base, (".h" if op == "hidden" else "") + f"s{counter}")
            leaf = os.path.join(top, "inner", "deep") if op == "mkdir-p" else top
            write(os.path.join(leaf, "SKILL.md"), skill(f"n{rng.randint(0, 40)}"))
            changed = [top]
        elif op == "edit":
            d = rng.choice(dirs)
            write(os.path.join(d, "SKILL.md"), skill(f"n{rng.randint(0, 40)}", f"d{counter}", f"b{counter}\n"))
            changed = [os.path.join(d, "SKILL.md")]
        elif op == "break":
            d = rng.choice(dirs)
            write(os.path.join(d, "SKILL.md"), rng.choice(["---\nname: x\ndescription: [\n---\n",
                                                           "---\ndescription: nameless\n---\n", "no frontmatter\n"]))
            changed = [os.path.join(d, "SKILL.md")]
        elif op == "fix":
            d = rng.choice(dirs)
            write(os.path.join(d, "SKILL.md"), skill(f"n{rng.randint(0, 40)}"))
            changed = [os.path.join(d, "SKILL.md")]
        elif op == "rename":
            d = rng.choice(dirs)
            new = os.path.join(rng.choice(roots), f"r{counter}")
            if os.path.islink(d) or not os.path.isdir(d):
                continue
            os.makedirs(os.path.dirname(new), exist_ok=True)
            os.rename(d, new)
            changed = [d, new]
        elif op == "delete":
            d = rng.choice(dirs)
            if os.path.islink(d):
                os.remove(d)
            else:
                shutil.rmtree(d, ignore_errors=True)
            changed = [d]
        elif op == "symlink":
            d = rng.choice(dirs)
            link = os.path.join(rng.choice(roots), f"l{counter}")
            os.makedirs(os.path.dirname(link), exist_ok=True)
            os.symlink(os.path.realpath(d), link)
            changed = [link]
        elif op == "unlink":
            links = [os.path.join(r, n) for r in roots if os.path.isdir(r) for n in os.listdir(r)
                     if os.path.islink(os.path.join(r, n))]
            if not links:
                continue
            link = rng.choice(sorted(links))
            os.remove(link)
            changed = [link]
        elif op == "sidecar":
            d = rng.choice(dirs)
            side = os.path.join(d, "agents", "zuno.yaml")
            write(side, rng.choice(["policy:\n  exposure: search\n", "policy:\n  exposure: bogus\n",
                                    "interface:\n  display_name: Shown\n"]))
            changed = [side]
        on_step(changed)


def test_soak_300_random_operations_incremental_equals_full(tmp_path):
    tree = Tree(tmp_path)
    for i in range(12):
        write(f"{[tree.agents, tree.zuno, tree.shared][i % 3]}/seed{i}/SKILL.md", skill(f"n{i}"))
    twin = Twin(tree, paths=[tree.shared])
    _soak(tree, random.Random(20240517), 300, twin.step)
    assert twin.inc.current.number == twin.full.current.number >= 250


# ---------------------------------------------------------------- case B16

def _b16(base: str, tmp_path) -> None:
    root = os.path.join(base, "root")
    t = os.path.realpath(str(tmp_path))
    os.makedirs(os.path.join(t, "cwd", ".git"), exist_ok=True)
    cat = Catalog.open(os.path.join(t, "cwd"), env=Environment.from_mapping({"HOME": os.path.join(t, "home")}),
                       paths=[f"{root}/skills", f"{root}/more-skills"], pull_remote=False)
    full = Catalog.open(os.path.join(t, "cwd"), env=Environment.from_mapping({"HOME": os.path.join(t, "home")}),
                        paths=[f"{root}/skills", f"{root}/more-skills"], pull_remote=False)
    gen = cat.current
    assert [s.name for s in user(gen)] == ["existing"]
    assert [(w.kind, w.source) for w in gen.warnings] == [("PathNotFound", f"{root}/more-skills")]
    shutil.copytree(f"{base}/incoming/late-arrival", f"{root}/skills/late-arrival")
    gen = cat.refresh_paths([f"{root}/skills/late-arrival"])
    same(gen, full.refresh())
    assert sorted(s.name for s in user(gen)) == ["existing", "late-arrival"]
    os.makedirs(f"{root}/more-skills")
    shutil.copytree(f"{base}/incoming/second-root-skill", f"{root}/more-skills/second-root-skill")
    gen = cat.refresh_paths([f"{root}/more-skills"])
    same(gen, full.refresh())
    assert gen.warnings == ()
    assert [s.location for s in user(gen)][-1] == f"{root}/more-skills/second-root-skill/SKILL.md"
    shutil.rmtree(f"{root}/skills/late-arrival")
    gen = cat.refresh_paths([f"{root}/skills/late-arrival"])
    same(gen, full.refresh())
    assert "late-arrival" not in {s.name for s in user(gen)}


def test_b16_shared_case_late_roots_and_skills(tmp_path):
    case = os.path.join(SHARED, "cases", "B16")
    if not os.path.isdir(case):
        pytest.skip("shared cases not available")
    base = os.path.join(str(tmp_path), "B16")
    shutil.copytree(case, base, symlinks=True)
    _b16(os.path.realpath(base), tmp_path)


def test_b16_own_fixture_late_roots_and_skills(tmp_path):
    base = os.path.join(os.path.realpath(str(tmp_path)), "case")
    write(f"{base}/root/skills/existing/SKILL.md", skill("existing", "Already there"))
    write(f"{base}/incoming/late-arrival/SKILL.md", skill("late-arrival", "Copied in later"))
    write(f"{base}/incoming/second-root-skill/SKILL.md", skill("second-root-skill", "In a root made later"))
    _b16(base, tmp_path)


def test_edit_fast_path_is_taken_and_equals_a_full_refresh(tmp_path, monkeypatch):
    """Edits inside existing skills (body, sidecar, a nested skill's file, a break that keeps the
    last valid entry) take the edit fast path and still equal a full refresh from the same
    previous generation (SPEC H1–H3)."""
    tree = Tree(tmp_path)
    outer = write(os.path.join(tree.agents, "outer", "SKILL.md"), skill("outer"))
    inner = write(os.path.join(tree.agents, "outer", "extras", "inner", "SKILL.md"), skill("inner"))
    other = write(os.path.join(tree.zuno, "other", "SKILL.md"), skill("other"))
    sidecar = write(os.path.join(tree.zuno, "other", "agents", "zuno.yaml"), "policy:\n  exposure: search\n")
    cat = tree.open()
    taken: list[set] = []
    real = zuno_build.edited_locations

    def spy(*args, **kwargs):
        result = real(*args, **kwargs)
        taken.append(result)
        return result

    monkeypatch.setattr(zuno_build, "edited_locations", spy)
    edits = [
        (other, skill("other", "Edited description")),
        (sidecar, "policy:\n  exposure: explicit\n"),
        (inner, skill("inner", "Inner edited")),
        (outer, "---\nname: [unclosed\n  - a: : :\n---\nB\n"),
    ]
    for path, text in edits:
        previous = cat.current
        write(path, text)
        fast = cat.refresh_paths([path])
        assert taken[-1] is not None
        full = ZunoSession(cat.context).build(previous, None)  # a full rebuild from the same previous
        same(fast, full)
    assert taken[0] == {other} and taken[1] == {other}
    assert taken[2] == {inner, outer}  # the outer skill's directory is an ancestor: re-read too
    kept = cat.current.by_location(outer)
    assert kept is not None and kept.status is Status.KEPT_LAST_VALID


# ---------------------------------------------------------------- conformance §1 identity (catalog level)

def test_z007_a_description_less_skill_loads_but_never_renders(tmp_path):
    """Z007 / SPEC E3: listed by the catalog (and resolvable by name), absent from every form."""
    from skillshelf.core.render import Form, render

    tree = Tree(tmp_path)
    loc = write(f"{tree.agents}/quiet/SKILL.md", "---\nname: quiet\n---\nbody of quiet\n")
    gen = tree.open().current
    quiet = gen.get("quiet")
    assert quiet is not None and quiet.location == loc and quiet.description is None
    assert gen.warnings == ()
    for form in (Form.LIST, Form.VERBOSE, Form.INDEX):
        assert "quiet" not in render(gen.entries(), form)


def test_z062_updating_the_same_source_keeps_its_position_without_a_warning(tmp_path):
    tree = Tree(tmp_path)
    loc = write(f"{tree.agents}/a/SKILL.md", skill("a", "first"))
    write(f"{tree.agents}/b/SKILL.md", skill("b", "other"))
    cat = tree.open()
    assert [s.name for s in user(cat.current)] == ["a", "b"]
    write(loc, skill("a", "second"))
    gen = cat.refresh()
    assert [(s.name, s.location) for s in user(gen)] == [("a", loc), ("b", f"{tree.agents}/b/SKILL.md")]
    assert gen.get("a").description == "second"
    assert gen.warnings == ()


def test_z063_same_named_skills_keep_both_source_identities_and_plain_lookup_is_ambiguous(tmp_path):
    tree = Tree(tmp_path)
    first = write(f"{tree.agents}/first/SKILL.md", skill("a"))
    second = write(f"{tree.agents}/second/SKILL.md", skill("a"))
    gen = tree.open().current
    assert [s.location for s in user(gen)] == [first, second]
    assert [s.location for s in gen.named("a")] == [first, second]
    assert gen.get("a") is None
    assert gen.ambiguous_names() == ("a",)
    assert gen.warnings == ()


def test_z064_source_updates_keep_their_insertion_position(tmp_path):
    """A rename at the same source replaces the entry in place (names [renamed, b])."""
    tree = Tree(tmp_path)
    one = write(f"{tree.agents}/1/SKILL.md", skill("a"))
    two = write(f"{tree.agents}/2/SKILL.md", skill("b"))
    cat = tree.open()
    write(one, skill("renamed"))
    gen = cat.refresh()
    assert [(s.name, s.location) for s in user(gen)] == [("renamed", one), ("b", two)]
    assert gen.get("a") is None
    assert gen.get("renamed").location == one
    assert gen.warnings == ()
