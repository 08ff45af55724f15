"""Codex's ``<skills_instructions>`` block, byte for byte, and its budget.

Template: ``<skills_instructions>\\n## Skills\\n{intro}\\n[### Skill roots\\n- `rN` = `root`…]\\n
### Available skills\\n- name: description (file: locator)…[\\n### How to use skills\\n{usage}]\\n
</skills_instructions>``. Shown skills: enabled and not hidden by their sidecar, ordered system,
admin, repo, user, then name bytes, then path string. Descriptions are capped at 1,024 characters
(1,021 + ``...``).

Budget: ``skills.max_context_tokens`` → min(N, 10,000) tokens; else 2% of the model's context
window (``--context-window``, else the configured ``model_context_window``, else the model's
own — default model ``gpt-6.2-sol``: 500,000) capped at its maximum, in tokens of 4 UTF-8 bytes
rounded up; a window ≤ 0 → 8,000 characters. Fitting: whole descriptions; else description
characters handed out one per skill per round; else names and paths only, greedily in order.
The absolute and the aliased (``rN``) renderings are both fitted and the better one is kept.

Codex's own prose (two intro sentences, two usage texts) is never stored here: it is read at run
time from an installed Codex binary and checked against its known length and SHA-256; without
one, a marker of exactly the same length stands in (so every budget stays exact) and the catalog
says so.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from skillshelf.core.fileread import read_regular

__all__ = [
    "DEFAULT_MODEL",
    "MODELS",
    "PROSE",
    "Budget",
    "CatalogLine",
    "Rendered",
    "budget_for",
    "find_codex_binary",
    "prose_texts",
    "render",
]

DEFAULT_MODEL = "gpt-6.2-sol"
#: Bundled model catalog of 0.171.0: slug → (context window, max window, usage text included).
MODELS: Mapping[str, tuple[int, int, bool]] = {
    "gpt-6.2-sol": (500000, 872000, False), "gpt-6.2-astra": (272000, 872000, False),
    "gpt-6-astra": (272000, 872000, False), "gpt-6.1-sol": (500000, 872000, False),
    "gpt-6.1-terra": (500000, 872000, False), "gpt-6-sol": (272000, 872000, False),
    "gpt-6-luna": (272000, 872000, False), "gpt-5.6-sol": (272000, 872000, False),
    "gpt-5.6-terra": (272000, 872000, False), "gpt-5.6-luna": (272000, 872000, False),
    "gpt-daybreak-blue-latest": (272000, 872000, False),
    "gpt-daybreak-red-latest": (372000, 372000, False), "gpt-5.5": (272000, 272000, True),
    "codex-auto-review": (272000, 872000, False),
}
UNKNOWN_MODEL = (272000, 272000, False)
DEFAULT_CHAR_BUDGET = 8000  # characters
MAX_CONFIGURED_TOKENS = 10000
CONTEXT_PERCENT = 2
DESCRIPTION_CAP = 1024  # characters
TRUNCATION = "..."

#: Codex's prose: key → (length in characters = UTF-8 bytes, SHA-256 of the UTF-8 text).
PROSE: Mapping[str, tuple[int, str]] = {
    "intro_aliased": (261, "1e24ced81a2ad9e9b1ae49124c2a7dbafce3d4bbdac215eab60e310811af0140"),
    "intro_unaliased": (418, "fbbf22e992dd5c52e3c939b4351ecbce342669e247ecf3550e2e5b97b2a95a27"),
    "usage_aliased": (2531, "a542ff08e01add3661080ddc80c5a0239cbfb15d4dceb85c73d800b5ed9e0547"),
    "usage_unaliased": (3031, "57619bb7be4fd6a9bfe61616c3fd5cd9dfcce98a3756d45f07b89cd8ee761c68"),
}
#: Where each text starts and ends inside the binary (short anchors, not the texts).
_ANCHORS: Mapping[str, tuple[bytes, bytes]] = {
    "intro_aliased": (b"A skill is a set of local instructions to follow that is stored in a `SKILL.md` file.",
                      b"using the skill roots table."),
    "intro_unaliased": (b"A skill is a set of instructions provided through a `SKILL.md` source. Below is the list of "
                        b"skills that can be used. Each entry includes a name, description, and source locator. "
                        b"`file` locators",
                        b"use their provider's access mechanism."),
    "usage_aliased": (b"- Discovery: The list above is the skills available in this session (name + description + short path)",
                      b"pick the next-best approach, and continue."),
    "usage_unaliased": (b"- Discovery: The list above is the skills available in this session (name + description + source locator)",
                        b"pick the next-best approach, and continue."),
}
#: The native binary below an npm install of ``@openai/codex``.
_NATIVE = "@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"


def find_codex_binary(env: Mapping[str, str]) -> str | None:
    """The installed Codex native binary: ``$SKILLSHELF_CODEX_BIN``, else the one behind
    ``codex`` on ``PATH`` (the npm launcher's package), else ``None``."""
    explicit = env.get("SKILLSHELF_CODEX_BIN")
    if explicit and os.path.isfile(explicit):
        return explicit
    launcher = shutil.which("codex", path=env.get("PATH"))
    if launcher is None:
        return None
    real = os.path.realpath(launcher)  # …/node_modules/@openai/codex/bin/codex.js
    modules = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(real))))
    native = os.path.join(modules, _NATIVE)
    if os.path.isfile(native):
        return native
    return real if os.path.isfile(real) and not real.endswith(".js") else None


def _marker(key: str, length: int) -> str:
    text = f"[Codex's own {key.replace('_', ' ')} text ({length:,} characters) is read from an installed Codex; none was found]"
    return (text + "." * length)[:length] if len(text) <= length else text[:length]


@functools.lru_cache(maxsize=4)
def _read_prose(binary: str) -> tuple[tuple[str, str], ...]:
    data = read_regular(binary)
    out: list[tuple[str, str]] = []
    for key, (start, end) in _ANCHORS.items():
        i = data.find(start)
        j = data.find(end, i) if i >= 0 else -1
        text = data[i:j + len(end)].decode("utf-8", "replace") if i >= 0 and j >= 0 else ""
        length, digest = PROSE[key]
        if len(text) == length and hashlib.sha256(text.encode("utf-8")).hexdigest() == digest:
            out.append((key, text))
    return tuple(out)


def prose_texts(binary: str | None) -> tuple[dict[str, str], tuple[str, ...]]:
    """Codex's four texts from ``binary`` (checked by length and digest), and the keys that had
    to be replaced by same-length markers (binary absent, unreadable or of another version)."""
    found: dict[str, str] = {}
    if binary is not None:
        try:
            found = dict(_read_prose(binary))
        except OSError:
            found = {}
    missing = tuple(k for k in PROSE if k not in found)
    for k in missing:
        found[k] = _marker(k, PROSE[k][0])
    return found, missing


@dataclass(frozen=True)
class Budget:
    """A budget of ``limit`` tokens (4 UTF-8 bytes each, rounded up) or characters."""

    tokens: bool
    limit: int

    def cost(self, text: str) -> int:
        """The cost of ``text``."""
        return (len(text.encode("utf-8")) + 3) // 4 if self.tokens else len(text)

    def line_cost(self, line: str) -> int:
        """The cost of one line with its newline."""
        return self.cost(line + "\n")

    def from_counts(self, chars: int, nbytes: int) -> int:
        """The cost of a text of ``chars`` characters and ``nbytes`` bytes."""
        return (nbytes + 3) // 4 if self.tokens else chars

    def describe(self) -> str:
        """``10,000 tokens (about 40,000 bytes)`` or ``8,000 characters``."""
        return f"{self.limit:,} tokens (about {self.limit * 4:,} bytes)" if self.tokens else f"{self.limit:,} characters"


def budget_for(skills_table: Mapping[str, object], model: str | None, configured_window: object,
               context_window: int | None) -> tuple[Budget, str]:
    """The budget and its rule in words (module docstring); ``context_window`` (tokens) is
    skillshelf's ``--context-window`` and wins over the configured ``model_context_window``."""
    mct = skills_table.get("max_context_tokens")
    if isinstance(mct, int) and not isinstance(mct, bool) and mct > 0:
        b = Budget(True, min(mct, MAX_CONFIGURED_TOKENS))
        return b, f"[skills] max_context_tokens = {mct:,} → {b.describe()}"
    slug = model or DEFAULT_MODEL
    window, maximum, _ = MODELS.get(slug, UNKNOWN_MODEL)
    source = f"model {slug}'s {window:,}-token window"
    chosen = context_window if context_window is not None else (
        configured_window if isinstance(configured_window, int) and not isinstance(configured_window, bool) else None)
    if chosen is not None:
        window = min(chosen, maximum) if maximum else chosen
        source = f"a {chosen:,}-token window" + (f" capped at {maximum:,}" if maximum and chosen > maximum else "")
    if window <= 0:
        return Budget(False, DEFAULT_CHAR_BUDGET), f"no context window: {DEFAULT_CHAR_BUDGET:,} characters"
    b = Budget(True, max(1, window * CONTEXT_PERCENT // 100))
    return b, f"2% of {source} = {b.describe()}"


def cap(description: str) -> str:
    """The 1,024-character cap (1,021 + ``...``)."""
    if len(description) <= DESCRIPTION_CAP:
        return description
    return description[:DESCRIPTION_CAP - len(TRUNCATION)] + TRUNCATION


@dataclass(frozen=True)
class CatalogLine:
    """One shown skill: ``name``, its capped ``description``, ``locator`` (absolute discovery
    path), ``root`` (its canonical root) and ``key`` (the source's locator in skillshelf)."""

    key: str
    name: str
    description: str
    locator: str
    root: str

    def text(self, locator: str, chars: int | None = None) -> str:
        """``- name: description (file: locator)``, the description cut to ``chars``."""
        d = self.description if chars is None else self.description[:chars]
        return f"- {self.name}: {d} (file: {locator})" if d else f"- {self.name}: (file: {locator})"


def _allocate(lines: Sequence[tuple[CatalogLine, str]], budget: Budget) -> list[int | None]:
    full = sum(budget.line_cost(line.text(loc)) for line, loc in lines)
    if full <= budget.limit:
        return [len(line.description) for line, _ in lines]
    minimum = sum(budget.line_cost(line.text(loc, 0)) for line, loc in lines)
    if minimum <= budget.limit:
        remaining = budget.limit - minimum
        extras: list[list[int]] = []
        for line, loc in lines:
            base = line.text(loc, 0)
            mc, mb = len(base) + 1, len(base.encode("utf-8")) + 1
            m0 = budget.from_counts(mc, mb)
            extra = [0]
            pb = 0
            for pc, ch in enumerate(line.description, start=1):
                pb += len(ch.encode("utf-8"))
                extra.append(budget.from_counts(mc + pc + 1, mb + pb + 1) - m0)
            extras.append(extra)
        alloc = [0] * len(lines)
        cur = [0] * len(lines)
        changed = True
        while changed:
            changed = False
            for i, (line, _) in enumerate(lines):
                if alloc[i] >= len(line.description):
                    continue
                nc = extras[i][alloc[i] + 1]
                delta = max(0, nc - cur[i])
                if delta <= remaining:
                    alloc[i] += 1
                    cur[i] = nc
                    remaining -= delta
                    changed = True
        return list(alloc)
    used = 0
    out: list[int | None] = []
    for line, loc in lines:
        cost = budget.line_cost(line.text(loc, 0))
        if used + cost <= budget.limit:
            used += cost
            out.append(0)
        else:
            out.append(None)
    return out


@dataclass(frozen=True)
class Rendered:
    """A fitted rendering: ``lines`` the text lines, ``alloc`` per shown skill (``None`` =
    omitted, else description characters kept), ``aliased``, ``roots`` the root-table lines."""

    lines: tuple[str, ...]
    alloc: tuple[int | None, ...]
    aliased: bool
    roots: tuple[str, ...]
    truncated_chars: int

    @property
    def included(self) -> int:
        """Skills shown."""
        return sum(1 for a in self.alloc if a is not None)


def _fit(lines: Sequence[tuple[CatalogLine, str]], budget: Budget, aliased: bool, roots: tuple[str, ...]) -> Rendered:
    alloc = _allocate(lines, budget)
    out: list[str] = []
    trunc = 0
    for (line, loc), a in zip(lines, alloc, strict=False):
        if a is None:
            trunc += len(line.description)
        else:
            trunc += len(line.description) - a
            out.append(line.text(loc, a))
    return Rendered(tuple(out), tuple(alloc), aliased, roots, trunc)


def _body(intro: str, roots: Sequence[str], lines: Sequence[str]) -> str:
    parts = ["## Skills", intro]
    if roots:
        parts.append("### Skill roots")
        parts.extend(roots)
    parts.append("### Available skills")
    parts.extend(lines)
    return "\n" + "\n".join(parts) + "\n"


def _shorten(plan: Sequence[tuple[str, str]], locator: str) -> str:
    best: tuple[str, str, str] | None = None
    for alias, value in plan:
        v = value.rstrip("/")
        under = locator.startswith(v) and locator[len(v):].startswith("/")
        if under and (best is None or len(value) > len(best[1])):
            best = (alias, value, locator[len(v) + 1:])
    return f"{best[0]}/{best[2]}" if best else locator


def render(lines: Sequence[CatalogLine], root_order: Sequence[str], budget: Budget, texts: Mapping[str, str],
           usage: bool) -> tuple[str, Rendered]:
    """The whole block for the shown ``lines`` (already in catalog order) and the chosen fit."""
    absolute = _fit([(line, line.locator) for line in lines], budget, False, ())
    order = {r: i for i, r in enumerate(root_order)}
    plan: list[tuple[str, str]] = []
    for line in sorted(lines, key=lambda line: order.get(line.root, 1 << 60)):
        if line.root not in [v for _, v in plan]:
            plan.append((f"r{len(plan)}", line.root))
    root_lines = tuple(f"- `{a}` = `{v}`" for a, v in plan)
    chosen = absolute
    if root_lines:
        table = max(0, budget.cost(_body(texts["intro_aliased"], root_lines, []))
                    - budget.cost(_body(texts["intro_unaliased"], [], [])))
        if table < budget.limit:
            aliased = _fit([(line, _shorten(plan, line.locator)) for line in lines],
                           Budget(budget.tokens, budget.limit - table), True, root_lines)

            def cost(r: Rendered) -> int:
                return (table if r.roots else 0) + sum(budget.line_cost(t) for t in r.lines)

            if aliased.included != absolute.included:
                better = aliased.included > absolute.included
            elif aliased.truncated_chars != absolute.truncated_chars:
                better = aliased.truncated_chars < absolute.truncated_chars
            else:
                better = cost(aliased) < cost(absolute)
            if better:
                chosen = aliased
    body = list(chosen.lines)
    intro = texts["intro_aliased"] if chosen.aliased else texts["intro_unaliased"]
    if usage:
        body.append("### How to use skills")
        body.append(texts["usage_aliased"] if chosen.aliased else texts["usage_unaliased"])
    return "<skills_instructions>" + _body(intro, chosen.roots, body) + "</skills_instructions>", chosen
