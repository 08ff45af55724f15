"""The whole text a host hands over when a skill is loaded, page after page, and what it costs (SPEC U3).

Runs in worker threads: every page is one :meth:`~skillshelf.core.hosts.base.HostSession.load_page`
call (which reads the file).
"""

from __future__ import annotations

from dataclasses import dataclass

from skillshelf.app.budgets import count_tokens
from skillshelf.core.hosts.base import BUILT_IN_BODY, HostSession
from skillshelf.core.model import Source
from skillshelf.core.tokens import TokenSpan

__all__ = ["MAX_PAGES", "BodyCost", "LoadedText", "body_cost", "loaded_text"]

#: Most pages read for one text (a host whose cursors never end is cut off here).
MAX_PAGES = 1_000


@dataclass(frozen=True)
class LoadedText:
    """``text``: the skill's body as the host hands it over (each page's ``body``, or its whole
    ``text`` when the host does not wrap it), all pages joined; ``injected``: what the host adds
    to every prompt for it (``None``: nothing); ``error``: the host's refusal (``text`` is then
    ``""``) and ``error_code`` its code."""

    text: str
    injected: str | None = None
    error: str | None = None
    error_code: str = ""


def loaded_text(session: HostSession, source: Source) -> LoadedText:
    """Every page of ``source`` through ``session.load_page``, joined (at most :data:`MAX_PAGES`)."""
    parts: list[str] = []
    cursor: str | None = None
    injected: str | None = None
    for n in range(MAX_PAGES):
        page = session.load_page(source, cursor)
        if page.error is not None:
            return LoadedText("", injected, page.error, page.error_code)
        if n == 0:
            injected = page.injected
        parts.append(page.body if page.body is not None else page.text)
        if page.complete or page.next_cursor is None:
            break
        cursor = page.next_cursor
    return LoadedText("".join(parts), injected)


@dataclass(frozen=True)
class BodyCost:
    """What loading one source costs (SPEC U3): ``tokens`` = the agent's estimate (characters /
    4), ``exact`` the tiktoken count (``None`` when tiktoken is unavailable), ``bytes`` its
    UTF-8 size; ``error`` when the host refuses to load it (its sentence) or the body is not
    known (``error_code`` :data:`~skillshelf.core.hosts.base.BUILT_IN_BODY`: inside the client)."""

    location: str
    tokens: int = 0
    exact: int | None = None
    error: str = ""
    bytes: int = 0
    error_code: str = ""


def body_cost(session: HostSession, source: Source) -> BodyCost:
    """:class:`BodyCost` of loading ``source`` under ``session``'s host (``bytes``: its UTF-8
    size, what Zuno compares, conformance Z-U). A stand-in body (a host's own text, Z-B) counts
    as the real text's known tokens; one of unknown size is a built-in body of unknown cost."""
    loaded = loaded_text(session, source)
    if loaded.error is not None:
        return BodyCost(source.location, error=loaded.error, error_code=loaded.error_code)
    spans: tuple[TokenSpan, ...] = ()
    if "body" in source.stand_ins:  # a host's own text skillshelf does not have: count the real one
        if source.size == 0:
            return BodyCost(source.location, error="its body is the host's own text: size unknown",
                            error_code=BUILT_IN_BODY)
        body = source.body or ""
        at = loaded.text.find(body) if body else -1
        if at >= 0:
            spans = (TokenSpan(at, at + len(body), source.real_tokens("body")),)
    count = count_tokens(loaded.text, spans)
    return BodyCost(source.location, count.approx, count.tokens if count.exact else None,
                    bytes=len(loaded.text.encode("utf-8", "surrogatepass")))
