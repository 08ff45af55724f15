"""The persistent parse cache: identical results with and without it, whatever happens to the
files between runs, and a damaged cache is ignored (never a wrong answer, never a crash)."""

from __future__ import annotations

import os
import random
import time
from functools import partial
from pathlib import Path

import pytest
from conftest import same_size_same_mtime
from test_catalog import SHARED, Tree, _soak, same, skill, write

from skillshelf.core import parsecache
from skillshelf.core.catalog import Catalog
from skillshelf.core.fileread import read_regular
from skillshelf.core.hosts import HOSTS
from skillshelf.core.parsecache import ParseCache, ParseCacheStore, stat_key
from skillshelf.core.paths import Environment

#: The racy window used here (seconds): larger than the file-system timestamp tick, small enough
#: to wait out between steps. Production uses 2 s (slow file systems tick in seconds).
WINDOW = 0.03


@pytest.fixture(autouse=True)
def short_racy_window(monkeypatch):
    monkeypatch.setattr(parsecache, "RACY_NS", int(WINDOW * 1e9))


def settle_clock() -> None:
    """Let every file written so far leave the racy window (so the cache may keep it)."""
    time.sleep(WINDOW * 1.5)


def opened(tree: Tree, cache_dir: str | None, host: str = "zuno", paths=(), env: Environment | None = None) -> Catalog:
    return Catalog.open(tree.project, env=env or tree.env, host=host, paths=paths, pull_remote=False,
                        cache_dir=cache_dir)


def session_cache(cat: Catalog) -> ParseCache:
    store = cat.context.cache
    assert store is not None
    return store.for_host(cat.host.name, cat.host.version)


def compare(tree: Tree, cache_dir: str, host: str = "zuno", paths=(), env: Environment | None = None) -> Catalog:
    """Open with the cache and without it: equal generations. Returns the cached catalog (its
    cache saved)."""
    cached = opened(tree, cache_dir, host, paths, env)
    plain = opened(tree, None, host, paths, env)
    same(cached.current, plain.current)
    cached.save_cache()
    return cached


# ---------------------------------------------------------------- the must-hold test


def _seed(tree: Tree) -> dict[str, str]:
    files = {
        "edit": write(f"{tree.agents}/edit/SKILL.md", skill("edit", "Before the edit")),
        "swap": write(f"{tree.agents}/swap/SKILL.md", skill("swap", "AAAA version")),
        "inplace": write(f"{tree.agents}/inplace/SKILL.md", skill("inplace", "CCCC version")),
        "rename": write(f"{tree.agents}/rename/SKILL.md", skill("rename", "Moves")),
        "delete": write(f"{tree.agents}/delete/SKILL.md", skill("delete", "Goes away")),
        "claude": write(f"{tree.project}/.claude/skills/claude-one/SKILL.md", skill("claude-one", "Claude copy")),
        "home": write(f"{tree.home}/.agents/skills/home-one/SKILL.md", skill("home-one", "Home copy")),
        "zhin": write(f"{tree.project}/skills/zhin-one/SKILL.md", skill("zhin-one", "Zhin copy")),
        "keep": write(f"{tree.zuno}/keep/SKILL.md", skill("keep", "Never changes")),
        "side": write(f"{tree.zuno}/side/SKILL.md", skill("side", "Has a sidecar")),
        "sidecar": write(f"{tree.zuno}/side/agents/zuno.yaml", "policy:\n  exposure: search\n"),
    }
    return files




@pytest.mark.parametrize("host", list(HOSTS))
def test_edits_same_size_same_mtime_replacements_renames_and_deletes_match_no_cache(tmp_path, host):
    tree = Tree(tmp_path)
    files = _seed(tree)
    cache_dir = str(tmp_path / "cache")
    settle_clock()
    first = compare(tree, cache_dir, host)
    assert session_cache(first).misses > 0
    warm = compare(tree, cache_dir, host)
    assert session_cache(warm).misses == 0  # nothing read again
    if host == "zuno":  # the whole first build kept: nothing looked up either
        assert session_cache(warm).state_hits == 1 and session_cache(warm).hits == 0
    else:
        assert session_cache(warm).hits > 0  # every file from the cache

    write(files["edit"], skill("edit", "After the edit, longer"))
    same_size_same_mtime(files["swap"], skill("swap", "BBBB version"), replace=True)
    same_size_same_mtime(files["inplace"], skill("inplace", "DDDD version"), replace=False)
    same_size_same_mtime(files["claude"], skill("claude-one", "Claude COPY"), replace=False)
    same_size_same_mtime(files["zhin"], skill("zhin-one", "Zhin COPY"), replace=True)
    same_size_same_mtime(files["home"], skill("home-one", "Home COPY"), replace=False)
    same_size_same_mtime(files["sidecar"], "policy:\n  exposure: index \n", replace=False)
    os.rename(os.path.dirname(files["rename"]), f"{tree.agents}/renamed")
    os.remove(files["delete"])
    # a skills.config rule that changes an unchanged file's entry (Zuno's configuration)
    write(f"{tree.project}/.zuno/zuno.json",
          '{"skills": {"config": [{"path": ".zuno/skill/keep", "exposure": "search"}]}}')
    settle_clock()

    after = compare(tree, cache_dir, host)
    if host == "zuno":  # the kept build was checked and reused, only what changed was read
        assert session_cache(after).state_hits == 1
        assert 0 < session_cache(after).misses < len(after.current.sources) + len(after.current.rejected)
    descriptions = {s.description for s in after.current.sources}
    if host in ("zuno", "codex", "gemini"):  # hosts that read ~/.agents/skills
        assert "Home COPY" in descriptions and "Home copy" not in descriptions
    if host in ("zuno", "codex", "opencode"):  # hosts that read the project's .agents/skills
        assert "BBBB version" in descriptions and "AAAA version" not in descriptions
        assert "DDDD version" in descriptions and "CCCC version" not in descriptions
        assert "After the edit, longer" in descriptions
        assert "Goes away" not in descriptions
        locations = {s.location for s in after.current.sources}
        assert f"{tree.agents}/renamed/SKILL.md" in locations
        assert f"{tree.agents}/rename/SKILL.md" not in locations
    if host == "claude":
        assert "Claude COPY" in descriptions and "Claude copy" not in descriptions
    if host == "zhin":
        assert "Zhin COPY" in descriptions and "Zhin copy" not in descriptions
    if host == "zuno":
        side = after.current.by_location(f"{tree.zuno}/side/SKILL.md")
        assert side is not None and side.exposure.value == "index"
        keep = after.current.by_location(f"{tree.zuno}/keep/SKILL.md")
        assert keep is not None and keep.exposure.value == "search"
    # and once more from the cache alone
    compare(tree, cache_dir, host)
    # the environment changes what the configuration says (same workspace, same cache files)
    moved = Environment.from_mapping({"HOME": tree.home, "ZUNO_CONFIG_CONTENT":
                                      '{"skills": {"config": [{"path": ".zuno/skill/side", "enabled": false}]}}'})
    changed_env = compare(tree, cache_dir, host, env=moved)
    if host == "zuno":
        side = changed_env.current.by_location(f"{tree.zuno}/side/SKILL.md")
        assert side is not None and not side.enabled
    compare(tree, cache_dir, host)  # and back


def test_a_file_changed_within_the_racy_window_is_read_again(tmp_path, monkeypatch):
    """A file younger than the racy window is never kept: a second write inside the same
    timestamp tick could leave its key unchanged."""
    monkeypatch.setattr(parsecache, "RACY_NS", 3_600 * 10**9)
    tree = Tree(tmp_path)
    write(f"{tree.agents}/fresh/SKILL.md", skill("fresh"))
    cache_dir = str(tmp_path / "cache")
    cat = compare(tree, cache_dir)
    assert session_cache(cat).misses == 1
    again = compare(tree, cache_dir)
    assert session_cache(again).hits == 0 and session_cache(again).misses == 1


def test_a_warm_start_walks_only_the_roots_that_changed(tmp_path, monkeypatch):
    """Zuno's kept first build keeps each root's walk with its proof
    (:mod:`skillshelf.core.scanproof`): an unchanged root is not listed again, a changed one is."""
    from skillshelf.core.hosts.zuno import build

    tree = Tree(tmp_path)
    _seed(tree)
    cache_dir = str(tmp_path / "cache")
    settle_clock()
    compare(tree, cache_dir)
    walked: list[str] = []
    real = build.scan

    def counting(scan_dir, **kw):
        walked.append(scan_dir)
        return real(scan_dir, **kw)

    monkeypatch.setattr(build, "scan", counting)
    assert session_cache(opened(tree, cache_dir)).state_hits == 1
    assert walked == []  # the missing root too: proved by its absence
    write(f"{tree.agents}/added/SKILL.md", skill("added"))
    settle_clock()
    cat = opened(tree, cache_dir)
    assert walked == [tree.agents]
    same(cat.current, opened(tree, None).current)
    assert cat.current.by_location(f"{tree.agents}/added/SKILL.md") is not None


def test_soak_random_operations_with_the_cache_equal_without(tmp_path):
    tree = Tree(tmp_path)
    for i in range(12):
        write(f"{[tree.agents, tree.zuno, tree.shared][i % 3]}/seed{i}/SKILL.md", skill(f"n{i}"))
    cache_dir = str(tmp_path / "cache")
    paths = [tree.shared]
    hits = 0

    def step(_changed):
        nonlocal hits
        settle_clock()
        cat = compare(tree, cache_dir, paths=paths)
        hits += session_cache(cat).state_hits

    _soak(tree, random.Random(7), 60, step)
    assert hits > 50  # the kept first build was used (and checked), not bypassed


def test_incremental_refresh_with_the_cache_equals_a_full_rescan(tmp_path):
    tree = Tree(tmp_path)
    for i in range(6):
        write(f"{[tree.agents, tree.zuno, tree.shared][i % 3]}/seed{i}/SKILL.md", skill(f"n{i}"))
    cache_dir = str(tmp_path / "cache")
    settle_clock()
    inc = opened(tree, cache_dir, paths=[tree.shared])
    full = opened(tree, None, paths=[tree.shared])

    def step(changed):
        same(inc.refresh_paths(changed), full.refresh())

    _soak(tree, random.Random(11), 60, step)


# ---------------------------------------------------------------- a damaged cache


def _cache_files(cache_dir: str, *, state: bool = False) -> list[str]:
    """The parse cache files (``state``: the kept first builds instead, without the small state
    checking one needs, ``-state-…_check``)."""
    folder = os.path.join(cache_dir, "parse")
    return sorted(os.path.join(folder, f) for f in os.listdir(folder)
                  if ("-state-" in f) == state and not f.endswith("_check.pickle"))


@pytest.mark.parametrize("which", ["parse", "state"])
@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty", "flipped-byte", "other-namespace",
                                    "not-a-dict", "directory"])
def test_a_damaged_cache_file_is_ignored_and_rebuilt(tmp_path, damage, which):
    tree = Tree(tmp_path)
    write(f"{tree.agents}/one/SKILL.md", skill("one", "First"))
    write(f"{tree.agents}/two/SKILL.md", skill("two", "Second"))
    cache_dir = str(tmp_path / "cache")
    settle_clock()
    compare(tree, cache_dir)
    [file] = _cache_files(cache_dir, state=which == "state")
    data = Path(file).read_bytes()
    if damage == "garbage":
        data = b"\x00\xffnot a cache at all" * 10
    elif damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "empty":
        data = b""
    elif damage == "flipped-byte":
        data = data[:-5] + bytes([data[-5] ^ 0x55]) + data[-4:]
    elif damage == "other-namespace":
        data = data.replace(b"|zuno|", b"|zunx|", 1)
    elif damage == "not-a-dict":
        namespace = data.split(b"\n")[1].decode()
        parsecache._write_file(file, namespace, [1, 2, 3])  # type: ignore[arg-type]
        data = Path(file).read_bytes()
    if damage == "directory":
        os.remove(file)
        os.makedirs(file)
    else:
        with open(file, "wb") as fh:
            fh.write(data)
    cat = compare(tree, cache_dir)  # the damaged file is ignored: what it held is made again
    cache = session_cache(cat)
    if which == "parse":  # (the kept build needs no lookup: without it, everything is read again)
        os.remove(_cache_files(cache_dir, state=True)[0])
        cat = compare(tree, cache_dir)
        cache = session_cache(cat)
        assert cache.state_hits == 0 and cache.hits == 0 and cache.misses == 2
    else:  # the files are found in the parse cache
        assert cache.state_hits == 0 and cache.hits == 2 and cache.misses == 0
    if damage != "directory":
        warm = compare(tree, cache_dir)  # and it was rewritten whole
        if which == "parse":
            os.remove(_cache_files(cache_dir, state=True)[0])
            warm = compare(tree, cache_dir)
            assert session_cache(warm).hits == 2 and session_cache(warm).misses == 0
        else:
            assert session_cache(warm).state_hits == 1 and session_cache(warm).misses == 0


def test_saving_is_atomic_and_skipped_when_nothing_changed(tmp_path):
    tree = Tree(tmp_path)
    write(f"{tree.agents}/one/SKILL.md", skill("one"))
    cache_dir = str(tmp_path / "cache")
    settle_clock()
    cat = compare(tree, cache_dir)
    [file] = _cache_files(cache_dir)  # no temporary file left beside it
    before = os.stat(file).st_mtime_ns
    warm = opened(tree, cache_dir)
    assert warm.save_cache() == 0  # nothing new, nothing dropped: not rewritten
    assert os.stat(file).st_mtime_ns == before
    [state] = _cache_files(cache_dir, state=True)
    state_before = os.stat(state).st_mtime_ns
    os.remove(f"{tree.agents}/one/SKILL.md")
    namespace = session_cache(cat).namespace
    assert len(parsecache._read_file(file, namespace)) == 1
    gone = opened(tree, cache_dir)
    gone.save_cache()  # (or the catalog's own saving thread did)
    assert os.stat(state).st_mtime_ns != state_before  # the kept build changed
    # the parse cache is not rewritten for a deletion alone (that would cost a start a load and
    # a write); its next write drops the deleted file's entry
    assert len(parsecache._read_file(file, namespace)) == 1
    write(f"{tree.agents}/two/SKILL.md", skill("two"))
    settle_clock()
    opened(tree, cache_dir).save_cache()
    assert [key[1] for key in parsecache._read_file(file, namespace)] == [f"{tree.agents}/two/SKILL.md"]
    assert os.stat(file).st_mtime_ns != before
    assert ParseCacheStore(cache_dir, ()).directory == cache_dir
    assert session_cache(cat).file == file
    assert oct(os.stat(os.path.dirname(file)).st_mode & 0o777) == "0o700"


def test_a_read_only_cache_directory_is_not_an_error(tmp_path):
    tree = Tree(tmp_path)
    write(f"{tree.agents}/one/SKILL.md", skill("one"))
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the directory should be")
    cat = opened(tree, str(blocker))
    assert cat.save_cache() == 0
    same(cat.current, opened(tree, None).current)


def test_stat_key_holds_size_times_inode_and_device(tmp_path):
    p = write(str(tmp_path / "f"), "abc")
    st = os.stat(p)
    assert stat_key(st) == (3, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def test_without_a_cache_directory_nothing_is_written(tmp_path):
    tree = Tree(tmp_path)
    write(f"{tree.agents}/one/SKILL.md", skill("one"))
    cat = opened(tree, None)
    assert cat.context.cache is None and cat.save_cache() == 0


# ---------------------------------------------------------------- the corpus, every host


@pytest.mark.skipif(not os.path.isdir(os.path.join(SHARED, "corpus")), reason="needs ../shared/corpus")
@pytest.mark.parametrize("host", list(HOSTS))
def test_corpus_with_the_cache_equals_without(tmp_path, host):
    corpus = os.path.realpath(os.path.join(SHARED, "corpus"))
    t = os.path.realpath(str(tmp_path))
    os.makedirs(os.path.join(t, "proj", ".git"))
    env = Environment.from_mapping({"HOME": os.path.join(t, "home")})
    cache_dir = os.path.join(t, "cache")

    def open_(cache: str | None) -> Catalog:
        return Catalog.open(os.path.join(t, "proj"), env=env, host=host, paths=[corpus], pull_remote=False,
                            cache_dir=cache)

    plain = open_(None).current
    cold = open_(cache_dir)
    same(cold.current, plain)
    cold.save_cache()
    warm = open_(cache_dir)
    same(warm.current, plain)
    cache = warm.context.cache.for_host(host, warm.host.version)  # type: ignore[union-attr]
    assert cache.misses == 0


# ---------------------------------------------------------------- lint from the same read


@pytest.mark.parametrize("target", ["spec", "zhin", "codex"])
def test_lint_kept_with_the_verdict_equals_linting_the_files(tmp_path, target):
    """The lint drawn from the host's read and kept in the cache equals a fresh lint, also when
    only *other* files change (a referenced file appears, an enclosing skill appears)."""
    from skillshelf.core.report import debug_skill_document

    tree = Tree(tmp_path)
    body = "See `references/guide.md` and [the form](forms/a.pdf).\n"
    write(f"{tree.agents}/outer/inner/SKILL.md", skill("inner", "Inner skill", body))
    os.makedirs(f"{tree.agents}/outer/inner/references")
    write(f"{tree.agents}/bad/SKILL.md", "---\nname: Bad Name\ndescription: x: y\n---\n")
    cache_dir = str(tmp_path / "cache")
    settle_clock()

    def documents():
        cached = Catalog.open(tree.project, env=tree.env, pull_remote=False, cache_dir=cache_dir, lint_target=target)
        cache = session_cache(cached)
        doc = debug_skill_document(cached.current, lint_target=target, lint_cache=cache)
        cached.save_cache()
        plain = debug_skill_document(opened(tree, None).current, lint_target=target)
        assert doc == plain
        return doc, cache

    documents()
    doc, cache = documents()
    assert cache._aux_for(f"lint:{target}").hits >= 2  # nothing read for the lint
    write(f"{tree.agents}/outer/inner/references/guide.md", "the guide\n")  # SKILL.md unchanged
    write(f"{tree.agents}/outer/SKILL.md", skill("outer", "Encloses inner"))
    settle_clock()
    after, _ = documents()
    if target == "spec":
        codes = lambda d: [x["code"] for s in d["sources"] if s["name"] == "inner" for x in s["lint"]["diagnostics"]]  # noqa: E731
        assert "missing-reference" in codes(doc) and "missing-reference" in codes(after)  # forms/a.pdf
        assert "nested-skill" not in codes(doc) and "nested-skill" in codes(after)


def test_a_product_cache_keeps_each_entry_pickled_and_hands_back_equal_values(tmp_path):
    """Entries of a product kind (``lint:…``) are kept pickled one by one in memory and in the
    file: a lookup, a peek and the next run get values equal to what was computed; an entry
    that does not unpickle is no hit (computed again), never an error."""
    f = tmp_path / "SKILL.md"
    f.write_text("x")
    settle_clock()
    file = str(tmp_path / "cache" / "c.pickle")
    value = {"diagnostics": ("a", 1), "name": "x"}
    calls = []

    def compute():
        calls.append(1)
        return value

    cache = ParseCache(file, "ns")
    assert cache.lookup("lint:spec", str(f), compute, label="dir")[0] == value
    aux = cache._aux_for("lint:spec")
    kept = next(iter(aux._used.values()))
    assert isinstance(kept, bytes)
    assert cache.lookup("lint:spec", str(f), compute, label="dir")[0] == value
    assert cache.peek("lint:spec", str(f), label="dir") == value
    assert calls == [1]
    assert cache.save()
    again = ParseCache(file, "ns")
    assert again.lookup("lint:spec", str(f), compute, label="dir")[0] == value
    assert calls == [1]
    ident = next(iter(again._aux_for("lint:spec")._used))
    again._aux_for("lint:spec")._used[ident] = b"not a pickle"
    again._aux_for("lint:spec")._stored = {ident: b"not a pickle"}
    assert again.lookup("lint:spec", str(f), compute, label="dir")[0] == value
    assert calls == [1, 1]
    # the host's own kinds keep their objects
    assert cache.lookup("verdict", str(f), lambda: value)[0] is value


# ---------------------------------------------------------------- exit while a write runs


_SLOW_WRITER = r"""
import os, sys, tempfile, time
from skillshelf.core import catalog, parsecache
from skillshelf.core.paths import Environment

def slow_write(file, namespace, entries):  # half a file, then the process ends under it
    fd, tmp = tempfile.mkstemp(prefix=".parse-", suffix=".tmp", dir=os.path.dirname(file))
    os.write(fd, b"skillshelf-parse-cache\n")
    time.sleep(60)

project, home, cache_dir = sys.argv[1:4]
parsecache._write_file = slow_write
parsecache.RACY_NS = 0
cat = catalog.Catalog.open(project, env=Environment.from_mapping({"HOME": home}), pull_remote=False,
                           cache_dir=cache_dir)
assert not catalog.finish_saves(0.2)  # still writing: the exit does not wait for it
"""


def test_a_write_still_running_at_exit_neither_delays_it_nor_breaks_the_cache(tmp_path):
    import subprocess
    import sys

    tree = Tree(tmp_path)
    write(f"{tree.agents}/one/SKILL.md", skill("one", "First"))
    cache_dir = str(tmp_path / "cache")
    settle_clock()
    compare(tree, cache_dir)  # a whole cache, then the file changes and a new write starts
    write(f"{tree.agents}/one/SKILL.md", skill("one", "Second, longer"))
    write(f"{tree.agents}/two/SKILL.md", skill("two"))
    settle_clock()
    started = time.monotonic()
    subprocess.run([sys.executable, "-c", _SLOW_WRITER, tree.project, tree.home, cache_dir], check=True,
                   timeout=50)
    assert time.monotonic() - started < 30  # not the writer's 60 s
    assert any(name.endswith(".tmp") for name in os.listdir(os.path.join(cache_dir, "parse")))
    cat = compare(tree, cache_dir)  # the old files are whole, and checked against the files
    assert cat.current.by_location(f"{tree.agents}/one/SKILL.md").description == "Second, longer"


def numbered_files(folder: Path, n: int) -> list[str]:
    """Files ``f0`` … ``f{n-1}`` in ``folder``, each holding its number."""
    for i in range(n):
        (folder / f"f{i}").write_text(str(i))
    return [str(folder / f"f{i}") for i in range(n)]


def test_changes_since_a_mark_are_the_entries_kept_since_it(tmp_path):
    files = numbered_files(tmp_path, 6)
    settle_clock()
    cache = ParseCache(str(tmp_path / "c.pickle"), "ns")
    read = [0]

    def look(path: str) -> object:
        def compute() -> str:
            read[0] += 1
            return Path(path).read_text()
        return cache.lookup("k", path, compute)[0]

    look(files[0])
    first = cache.mark()
    assert [look(p) for p in files[:3]] == ["0", "1", "2"]  # (files[0]: a hit of an entry kept before)
    second = cache.mark()
    look(files[3])
    look(files[1])  # (a hit: nothing new kept)
    new, hits, misses, products = cache.changes_since(second)
    assert (sorted(i[1] for i in new), hits, misses, products) == ([files[3]], 1, 1, {})
    new, hits, misses, _ = cache.changes_since(first)
    assert (sorted(i[1] for i in new), hits, misses) == (files[1:4], 2, 3)
    assert all(v == (stat_key(os.stat(i[1])), Path(i[1]).read_text()) for i, v in new.items())
    cache.begin_full_build()  # the entries are started afresh: every one is "since"
    look(files[4])
    new, _, _, _ = cache.changes_since(second)
    assert sorted(i[1] for i in new) == [files[4]]
    third = cache.mark()
    other = ParseCache(None, "ns")
    assert other.adopt(cache.changes_since(first))
    assert other.lookup("k", files[4], lambda: "read again")[0] == "4"
    assert cache.changes_since(third) == ({}, 0, 0, {})
    assert read[0] == 5


def read_tapped(path: str) -> bytes | None:
    """A file's bytes read as hosts read them (products are made from them), ``None`` when it
    cannot be read."""
    try:
        return read_regular(path)
    except OSError:
        return None


def test_changes_carry_the_products_made_and_the_lookups_not_kept(tmp_path):
    files = numbered_files(tmp_path, 3)
    settle_clock()
    folder = str(tmp_path / "a-folder")  # (not a regular file: looked up, never kept)
    os.mkdir(folder)
    cache = ParseCache(str(tmp_path / "c.pickle"), "ns")
    cache.produce("p:twice", lambda path, data: ("", data * 2))

    def look(path: str) -> object:
        return cache.lookup("k", path, partial(read_tapped, path))[0]

    look(files[0])
    mark = cache.mark()
    assert [look(files[1]), look(folder), look(files[2])] == [b"1", None, b"2"]
    new, hits, misses, products = cache.changes_since(mark)
    assert new == {("k", files[1], ""): (stat_key(os.stat(files[1])), b"1"), ("k", folder, ""): None,
                   ("k", files[2], ""): (stat_key(os.stat(files[2])), b"2")}
    assert (hits, misses, list(products)) == (0, 2, ["p:twice"])
    assert sorted(i[1] for i in products["p:twice"]) == files[1:]
    other = ParseCache(None, "ns")
    assert other.adopt((new, hits, misses, products))
    assert [other.lookup("k", p, lambda: "read again")[0] for p in files[1:]] == [b"1", b"2"]
    assert other.peek("p:twice", files[2]) == b"22"
    assert other.peek("p:twice", files[0]) is None  # (made before the mark)
    assert other.lookup("k", folder, lambda: "read again")[0] == "read again"


def test_one_entry_too_deep_to_pickle_leaves_the_others_kept_and_a_fifo_never_blocks(tmp_path):
    tree = Tree(tmp_path)
    write(f"{tree.agents}/plain/SKILL.md", skill("plain"))
    deep = "[" * 600 + "]" * 600  # (parsed: lists nested deeper than pickle goes)
    write(f"{tree.agents}/deep/SKILL.md", f"---\nname: deep\ndescription: nested\nmetadata: {deep}\n---\nbody\n")
    cache_dir = str(tmp_path / "cache")
    settle_clock()
    cat = compare(tree, cache_dir)
    [file] = _cache_files(cache_dir)
    kept = parsecache._read_file(file, session_cache(cat).namespace)
    assert f"{tree.agents}/plain/SKILL.md" in {key[1] for key in kept}  # kept, though its neighbour is not
    again = opened(tree, cache_dir)
    same(again.current, cat.current)
    os.remove(file)
    os.mkfifo(file)  # a FIFO where the cache file was: read as no cache (a blocking open would hang)
    assert parsecache._read_file(file, session_cache(cat).namespace) == {}
    same(opened(tree, cache_dir).current, cat.current)


def test_a_fed_lookup_takes_what_another_process_read_and_reads_only_what_changed_or_never_came(tmp_path):
    files = numbered_files(tmp_path, 5)
    folder = str(tmp_path / "a-folder")
    os.mkdir(folder)
    settle_clock()
    reader = ParseCache(None, "ns")  # (the other process's cache)
    reader.produce("p:twice", lambda path, data: ("", data * 2))
    mark = reader.mark()
    for path in (files[0], folder):
        reader.lookup("k", path, partial(read_tapped, path))
    first = reader.changes_since(mark)
    mark = reader.mark()
    for path in files[1:3]:
        reader.lookup("k", path, partial(read_tapped, path))
    # (what it looks up: files[3] too, which never comes; files[4] is not in it)
    parts: list[object] = [frozenset([*files[:4], folder]), first, reader.changes_since(mark)]
    pulled: list[int] = []

    def pull() -> object | None:
        pulled.append(len(parts))
        return parts.pop(0) if parts else None

    cache = ParseCache(None, "ns")
    cache.feed(pull)
    computed: list[str] = []

    def look(path: str) -> object:
        def compute() -> object:
            computed.append(os.path.basename(path))
            return read_tapped(path)
        return cache.lookup("k", path, compute)[0]

    assert look(files[0]) == b"0" and pulled == [3, 2]  # (the scope, then one part was enough)
    assert look(folder) is None and pulled == [3, 2]  # (it came, as not kept: read here, not waited for)
    assert look(files[4]) == b"4" and pulled == [3, 2]  # (not looked up there: never waited for)
    Path(files[1]).write_text("one, edited")
    settle_clock()
    assert look(files[1]) == b"one, edited"  # (its key differs from what came: read again here)
    assert look(files[2]) == b"2" and pulled == [3, 2, 1]
    assert look(files[3]) == b"3" and pulled == [3, 2, 1, 0]  # (nothing more came: read here)
    assert computed == ["a-folder", "f4", "f1", "f3"]
    assert (cache.hits, cache.misses) == (0, 5)  # (what came was read in this run: misses; the folder is no file)
    assert cache.peek("p:twice", files[2]) == b"22"
    cache.end_feed()
    assert look(files[0]) == b"0" and (cache.hits, cache.misses) == (1, 5)


def test_a_cache_that_keeps_nothing_journals_nothing_and_what_was_not_kept_is_never_adopted(tmp_path):
    f = tmp_path / "f"
    f.write_text("text")
    settle_clock()
    off = ParseCache(None, "ns", enabled=False)  # (--no-cache: its lookups are never handed over)
    mark = off.mark()
    assert off.lookup("k", str(f), lambda: "read")[0] == "read"
    assert off.changes_since(mark) == ({}, 0, 0, {})
    cache = ParseCache(None, "ns")
    cache.produce("p:lint", lambda path, data: ("", "kept"))
    cache.lookup("k", str(f), partial(read_tapped, str(f)))
    assert cache.adopt(({}, 0, 0, {"p:lint": {("p:lint", str(f), ""): None}}))
    assert cache.peek("p:lint", str(f)) == "kept"
