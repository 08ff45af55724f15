"""The generation digest (SPEC H1; conformance §6 "digest").

Every host's generation carries one: the skill tool's cursors bind to it (SPEC L4) and views
show its first 16 hex digits. :func:`cached_digest` reuses each unchanged source's bytes
between generations (the incremental refresh keeps source objects, so identity is the key).
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from skillshelf.core.model import CatalogWarning, Source

__all__ = ["DigestCache", "PackedDigests", "cached_digest", "compute_digest", "is_host_warning", "source_digest_bytes",
           "warning_digest_bytes"]

#: ``id(source)`` → (the source, its digest bytes); the object is kept so its id stays unique.
DigestCache = Mapping[int, tuple[Source, bytes]]


def compute_digest(sources: Iterable[Source], warnings: Iterable[CatalogWarning]) -> str:
    """Hex SHA-256 of a generation (SPEC H1, conformance §6 "digest").

    Per enabled source in catalog order, :func:`source_digest_bytes` (Zuno's layout,
    conformance Z-H); then per warning: ``source NUL message 0xff`` (host ``zuno`` passes only
    :func:`is_host_warning` ones). Absent optional strings hash as empty strings.
    """
    h = hashlib.sha256()
    for s in sources:
        if s.enabled:
            h.update(source_digest_bytes(s))
    for w in warnings:
        h.update(warning_digest_bytes(w))
    return h.hexdigest()


def is_host_warning(w: CatalogWarning) -> bool:
    """Whether ``w`` is one of Zuno's own warnings (kinds are Zuno's variant names,
    ``PathNotFound``) rather than skillshelf's (kebab-case, ``broken-symlink``): host ``zuno``
    hashes only Zuno's, as only they exist in Zuno."""
    return w.kind[:1].isupper()


def source_digest_bytes(s: Source) -> bytes:
    """One source's contribution to :func:`compute_digest` (ends with ``0xff``), Zuno's layout
    (conformance Z-H): ``name 0 location 0 description 0 display_name 0 short_description 0``,
    the exposure byte with no NUL before it, each metadata source followed by ``0``, the raw
    32-byte SHA-256 of the content (none when it is not known), then ``0xff``."""
    parts = [
        s.name,
        s.location,
        s.description or "",
        s.display_name or "",
        s.short_description or "",
    ]
    out = [("\0".join(parts)).encode("utf-8", "surrogatepass"), b"\0", bytes([s.exposure.digest_byte])]
    for m in s.metadata_sources:
        out.append(m.encode("utf-8", "surrogatepass") + b"\0")
    if s.content_sha256:
        out.append(bytes.fromhex(s.content_sha256))
    out.append(b"\xff")
    return b"".join(out)


def warning_digest_bytes(w: CatalogWarning) -> bytes:
    """One warning's contribution to :func:`compute_digest`: ``source NUL message 0xff``."""
    return w.source.encode("utf-8", "surrogatepass") + b"\0" + w.message.encode("utf-8", "surrogatepass") + b"\xff"



def cached_digest(
    sources: Sequence[Source], warnings: Sequence[CatalogWarning], cache: DigestCache
) -> tuple[str, dict[int, tuple[Source, bytes]]]:
    """:func:`compute_digest` reusing each unchanged source object's bytes from ``cache``
    (keyed by object identity; the object is kept in the cache so its id stays unique)."""
    new: dict[int, tuple[Source, bytes]] = {}
    chunks: list[bytes] = []
    for s in sources:
        if not s.enabled:
            continue
        hit = cache.get(id(s))
        data = hit[1] if hit is not None and hit[0] is s else source_digest_bytes(s)
        new[id(s)] = (s, data)
        chunks.append(data)
    chunks.extend(warning_digest_bytes(w) for w in warnings)
    return hashlib.sha256(b"".join(chunks)).hexdigest(), new


@dataclass(frozen=True)
class PackedDigests:
    """The values of a :data:`DigestCache` packed to be kept on disk: the sources, their digest
    bytes joined into one ``bytes`` and each one's end offset (bytes). Pickled, the bytes of
    10,000 sources are one memory copy (~1 ms to load) instead of 10,000 objects (~50 ms)."""

    sources: tuple[Source, ...]
    blob: bytes
    ends: array[int]

    @classmethod
    def of(cls, entries: Iterable[tuple[Source, bytes]]) -> PackedDigests:
        """Pack ``(source, digest bytes)`` pairs (a :data:`DigestCache`'s values)."""
        pairs = list(entries)
        ends = array("Q")
        end = 0
        for _, data in pairs:
            end += len(data)
            ends.append(end)
        return cls(tuple(s for s, _ in pairs), b"".join(data for _, data in pairs), ends)

    def digest_of(self, sources: Sequence[Source], warnings: Iterable[CatalogWarning]) -> str | None:
        """:func:`compute_digest` of ``sources`` and ``warnings`` from the packed bytes when the
        enabled ``sources`` are the packed ones, in order (each the very object or an equal
        one: its digest bytes are then the packed ones), else ``None``."""
        packed = self.sources
        i, n = 0, len(packed)
        for s in sources:
            if s.enabled:
                if i == n or (packed[i] is not s and packed[i] != s):
                    return None
                i += 1
        if i != n:
            return None
        h = hashlib.sha256(self.blob)
        for w in warnings:
            h.update(warning_digest_bytes(w))
        return h.hexdigest()

    def cache(self) -> dict[int, tuple[Source, bytes]]:
        """The :data:`DigestCache` packed (the same sources and bytes)."""
        blob = self.blob
        out: dict[int, tuple[Source, bytes]] = {}
        start = 0
        for s, end in zip(self.sources, self.ends, strict=True):
            out[id(s)] = (s, blob[start:end])
            start = end
        return out
