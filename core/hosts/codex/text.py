"""Rust string semantics Codex's parser relies on: Unicode White_Space (``char::is_whitespace``),
``trim``, ``split_whitespace`` and ``str::lines``."""

from __future__ import annotations

__all__ = ["RUST_WS", "collapse", "lines", "trim", "trim_end", "trim_start"]

#: ``char::is_whitespace``: Unicode White_Space.
RUST_WS = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | frozenset(
    chr(c) for c in range(0x2000, 0x200B))
_WS = "".join(sorted(RUST_WS))


def collapse(text: str) -> str:
    """``split_whitespace().join(" ")``: every run of White_Space → one space, ends trimmed."""
    out: list[str] = []
    cur: list[str] = []
    for ch in text:
        if ch in RUST_WS:
            if cur:
                out.append("".join(cur))
                cur = []
        else:
            cur.append(ch)
    if cur:
        out.append("".join(cur))
    return " ".join(out)


def trim(text: str) -> str:
    """``str::trim``."""
    return text.strip(_WS)


def trim_start(text: str) -> str:
    """``str::trim_start``."""
    return text.lstrip(_WS)


def trim_end(text: str) -> str:
    """``str::trim_end``."""
    return text.rstrip(_WS)


def lines(text: str) -> list[str]:
    """``str::lines``: split on ``\\n``, dropping a ``\\r`` only right before it; no final empty line."""
    if text == "":
        return []
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
        return [p[:-1] if p.endswith("\r") else p for p in parts]
    last = parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts] + [last]
