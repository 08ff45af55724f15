"""The ``<skills_instructions>`` block Codex CLI 0.171.0 puts in the model's prompt, byte for byte.

Shape: ``<skills_instructions>`` ``\\n`` + the lines ``## Skills``, an intro paragraph, (``### Skill
roots`` and one ``- `rN` = `/root``` line per root, in the aliased form), ``### Available skills``,
one ``- name: description (file: locator)`` line per skill (``- name: (file: locator)`` when the
description is empty), (``### How to use skills`` and the usage text, for models that want it)
joined by ``\\n``, then ``\\n</skills_instructions>``. Nothing is escaped.

Entries: skills shown to the model (enabled, not ``allow_implicit_invocation: false``) ordered
by scope (system, admin, repo, user), name bytes, then path bytes. A description longer than
1,024 characters becomes its first 1,021 + ``...``.

Budget (:func:`budget_for`): ``skills.max_context_tokens`` (at most 10,000) or 2% of the model's
context window, in tokens of 4 UTF-8 bytes (each line with its newline rounded up on its own);
a window ≤ 0 gives 8,000 characters. Fitting (:func:`allocate`): everything, else description
characters handed out one per skill per round, else names and paths only while each still fits.
Both the absolute form and the aliased one (``rN/…`` locators and a root table) are fitted; the
aliased one is kept when it shows more skills, then cuts fewer characters, then costs less.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

__all__ = [
    "DEFAULT_MODEL",
    "MODELS",
    "Budget",
    "CatalogItem",
    "Rendering",
    "allocate",
    "budget_for",
    "render",
]

DEFAULT_MODEL = "gpt-6.2-sol"
#: Codex 0.171.0's bundled models: slug → (context window, max context window, usage text).
MODELS: Mapping[str, tuple[int, int, bool]] = {
    "gpt-6.2-sol": (500000, 872000, False), "gpt-6.2-astra": (272000, 872000, False),
    "gpt-6-astra": (272000, 872000, False), "gpt-6.1-sol": (500000, 872000, False),
    "gpt-6.1-terra": (500000, 872000, False), "gpt-6-sol": (272000, 872000, False),
    "gpt-6-luna": (272000, 872000, False), "gpt-5.6-sol": (272000, 872000, False),
    "gpt-5.6-terra": (272000, 872000, False), "gpt-5.6-luna": (272000, 872000, False),
    "gpt-daybreak-blue-latest": (272000, 872000, False), "gpt-daybreak-red-latest": (372000, 372000, False),
    "gpt-5.5": (272000, 272000, True), "codex-auto-review": (272000, 872000, False),
}
#: A model Codex does not know.
UNKNOWN_MODEL = (272000, 272000, False)
CONTEXT_PERCENT = 2
MAX_CONFIGURED_TOKENS = 10000
DEFAULT_CHAR_BUDGET = 8000
DESCRIPTION_CAP = 1024
ELLIPSIS = "..."
CATALOG_SCOPES = {"system": 0, "admin": 1, "repo": 2, "user": 3}


@dataclass(frozen=True)
class Budget:
    """A catalog budget: ``limit`` in ``unit`` (``tokens`` of 4 UTF-8 bytes rounded up, or
    ``characters``) and the ``rule`` that gave it, in words."""

    unit: str
    limit: int
    rule: str = ""

    def cost(self, text: str) -> int:
        """``text``'s cost: ⌈UTF-8 bytes / 4⌉ tokens, or its characters. A lone surrogate (a
        folder name that is not UTF-8) counts 3 bytes: Codex shows it as U+FFFD."""
        return (len(text.encode("utf-8", "surrogatepass")) + 3) // 4 if self.unit == "tokens" else len(text)

    def counts(self, chars: int, nbytes: int) -> int:
        """The cost of a text of ``chars`` characters and ``nbytes`` bytes."""
        return (nbytes + 3) // 4 if self.unit == "tokens" else chars

    def line(self, text: str) -> int:
        """A line's cost: the line with its newline."""
        return self.cost(text + "\n")

    def less(self, amount: int) -> Budget:
        """The same budget with ``amount`` less room."""
        return Budget(self.unit, self.limit - amount, self.rule)


def budget_for(*, model: str | None, context_window: int | None, max_context_tokens: int | None,
               origins: Mapping[str, str] | None = None, window_from: str = "") -> Budget:
    """Codex's catalog budget: ``max_context_tokens`` (a configured positive count, capped at
    10,000) else 2% of ``model``'s context window (``context_window`` replaces it, capped at the
    model's maximum; ≤ 0 → 8,000 characters)."""
    origins = origins or {}
    if max_context_tokens is not None and max_context_tokens > 0:
        n = min(max_context_tokens, MAX_CONFIGURED_TOKENS)
        where = origins.get("max_context_tokens", "the configuration")
        return Budget("tokens", n, f"skills.max_context_tokens = {max_context_tokens:,} ({where}), at most "
                      f"{MAX_CONFIGURED_TOKENS:,}: {n:,} tokens")
    slug = model or DEFAULT_MODEL
    window, top, _ = MODELS.get(slug, UNKNOWN_MODEL)
    what = f"{slug}'s {window:,}-token context window"
    if context_window is not None:
        window = min(context_window, top)
        what = f"a {window:,}-token context window ({window_from or 'model_context_window'}"
        what += f", capped at {slug}'s {top:,})" if context_window > top else ")"
    if window <= 0:
        return Budget("characters", DEFAULT_CHAR_BUDGET,
                      f"context window {window:,} ≤ 0: Codex's fallback of {DEFAULT_CHAR_BUDGET:,} characters")
    n = max(1, window * CONTEXT_PERCENT // 100)
    return Budget("tokens", n, f"{CONTEXT_PERCENT}% of {what}: {n:,} tokens of 4 bytes")


@dataclass(frozen=True)
class CatalogItem:
    """One skill shown to the model: ``locator`` the path as Codex walked it (canonical root +
    walked path), ``root`` the canonical root it came from, ``root_rank`` that root's place in
    Codex's root order, ``key`` anything identifying it to the caller."""

    name: str
    description: str
    scope: str
    path: str
    locator: str
    root: str
    root_rank: int
    key: str = ""


def capped(description: str) -> str:
    """The description with Codex's per-entry cap (1,021 characters + ``...``)."""
    if len(description) <= DESCRIPTION_CAP:
        return description
    return description[: DESCRIPTION_CAP - len(ELLIPSIS)] + ELLIPSIS


def line_text(name: str, description: str, locator: str) -> str:
    """One catalog line."""
    if description == "":
        return f"- {name}: (file: {locator})"
    return f"- {name}: {description} (file: {locator})"


def allocate(lines: Sequence[tuple[str, str, str]], budget: Budget) -> list[int | None]:
    """How many description characters each (name, capped description, locator) line keeps:
    all when everything fits; else one character per line per round while the budget lasts;
    else 0 for each line that still fits in order and ``None`` (left out) for the others."""
    full = sum(budget.line(line_text(n, d, loc)) for n, d, loc in lines)
    if full <= budget.limit:
        return [len(d) for _, d, _ in lines]
    bare = [line_text(n, "", loc) for n, _, loc in lines]
    least = sum(budget.line(b) for b in bare)
    if least <= budget.limit:
        return _rounds([d for _, d, _ in lines], bare, budget, budget.limit - least)
    used = 0
    out: list[int | None] = []
    for b in bare:
        cost = budget.line(b)
        if used + cost <= budget.limit:
            used += cost
            out.append(0)
        else:
            out.append(None)
    return out


def _rounds(descriptions: Sequence[str], bare: Sequence[str], budget: Budget, remaining: int) -> list[int | None]:
    """Codex's round-robin: each round, every line in order takes one more description character
    when what that costs (beyond what the line already spent) fits in ``remaining``; rounds go on
    until no line takes one. The rounds every line takes in full are found by bisection (their
    cost only grows with the round), the rest are played one character at a time."""
    n = len(descriptions)
    lens = [len(d) for d in descriptions]
    chars = [len(b) + 1 for b in bare]
    nbytes = [len(b.encode("utf-8", "surrogatepass")) + 1 for b in bare]
    base = [budget.counts(c, b) for c, b in zip(chars, nbytes, strict=True)]
    # byte length of each description prefix (None: ASCII, bytes = characters)
    prefix: list[list[int] | None] = []
    for d in descriptions:
        if d.isascii():
            prefix.append(None)
            continue
        acc, total = [0], 0
        for ch in d:
            total += len(ch.encode("utf-8", "surrogatepass"))
            acc.append(total)
        prefix.append(acc)

    def extra(i: int, k: int) -> int:
        """What line ``i`` costs beyond its bare form with ``k`` description characters (k ≥ 0)."""
        if k == 0:
            return 0
        pre = prefix[i]
        kb = k if pre is None else pre[k]
        return budget.counts(chars[i] + k + 1, nbytes[i] + kb + 1) - base[i]

    def after(rounds: int) -> int:
        return sum(extra(i, min(rounds, lens[i])) for i in range(n))

    lo, hi = 0, max(lens, default=0)
    while lo < hi:  # the most rounds every line can take in full
        mid = (lo + hi + 1) // 2
        if after(mid) <= remaining:
            lo = mid
        else:
            hi = mid - 1
    alloc = [min(lo, k) for k in lens]
    spent = [extra(i, alloc[i]) for i in range(n)]
    remaining -= sum(spent)
    changed = True
    while changed:
        changed = False
        for i in range(n):
            if alloc[i] >= lens[i]:
                continue
            cost = extra(i, alloc[i] + 1)
            delta = max(0, cost - spent[i])
            if delta <= remaining:
                alloc[i] += 1
                spent[i] = cost
                remaining -= delta
                changed = True
    return list(alloc)


@dataclass(frozen=True)
class Fitted:
    """One rendering fitted to the budget: its ``lines``, ``roots`` table lines (aliased),
    ``alloc`` per item, ``shown`` items, ``cut`` description characters lost, ``cost``."""

    aliased: bool
    lines: tuple[str, ...]
    roots: tuple[str, ...]
    alloc: tuple[int | None, ...]
    shown: int
    cut: int
    cost: int


def _fit(items: Sequence[CatalogItem], locators: Sequence[str], budget: Budget, roots: tuple[str, ...],
         table: int) -> Fitted:
    lines = [(it.name, capped(it.description), loc) for it, loc in zip(items, locators, strict=True)]
    alloc = allocate(lines, budget)
    out, cut, cost = [], 0, table if roots else 0
    for (name, desc, loc), a in zip(lines, alloc, strict=True):
        if a is None:
            cut += len(desc)
            continue
        cut += len(desc) - a
        text = line_text(name, desc[:a], loc)
        out.append(text)
        cost += budget.line(text)
    return Fitted(bool(roots), tuple(out), roots, tuple(alloc), sum(a is not None for a in alloc), cut, cost)


def body(intro: str, roots: Sequence[str], lines: Sequence[str]) -> str:
    """``\\n`` + the block's lines + ``\\n`` (what goes between the tags)."""
    parts = ["## Skills", intro]
    if roots:
        parts.append("### Skill roots")
        parts.extend(roots)
    parts.append("### Available skills")
    parts.extend(lines)
    return "\n" + "\n".join(parts) + "\n"


def _shorten(table: Sequence[tuple[str, str]], locator: str) -> str:
    best: tuple[str, str, str] | None = None
    for alias, root in table:
        stem = root.rstrip("/")
        if (locator.startswith(stem) and locator[len(stem):].startswith("/")
                and (best is None or len(root) > len(best[1]))):
            best = (alias, root, locator[len(stem) + 1:])
    return f"{best[0]}/{best[2]}" if best is not None else locator


def catalog_order(items: Sequence[CatalogItem]) -> list[CatalogItem]:
    """Codex's catalog order: scope (system, admin, repo, user), name bytes, path bytes."""
    return sorted(items, key=lambda it: (CATALOG_SCOPES.get(it.scope, 9), it.name.encode("utf-8", "surrogateescape"),
                                         it.path.encode("utf-8", "surrogateescape")))


@dataclass(frozen=True)
class Rendering:
    """The block (``text``, ``""`` when Codex sends none), the ``items`` in catalog order with
    ``alloc`` (description characters kept; ``None`` = left out), the form chosen, its ``cost``
    in the budget's unit and the ``table`` cost of the root table (aliased form)."""

    text: str
    items: tuple[CatalogItem, ...] = ()
    alloc: tuple[int | None, ...] = ()
    aliased: bool = False
    cost: int = 0
    table: int = 0
    roots: tuple[str, ...] = field(default=())


def render(items: Sequence[CatalogItem], budget: Budget, texts: Mapping[str, str], *, usage: bool = False) -> Rendering:
    """The block for ``items`` (the skills shown to the model) within ``budget``; ``texts``
    holds Codex's four sentences (:mod:`.prose`); ``usage`` adds the usage text."""
    ordered = catalog_order(items)
    if not ordered:
        return Rendering("")
    absolute = _fit(ordered, [it.locator for it in ordered], budget, (), 0)
    plan: list[tuple[str, str]] = []
    for it in sorted(ordered, key=lambda it: it.root_rank):
        if it.root not in (r for _, r in plan):
            plan.append((f"r{len(plan)}", it.root))
    root_lines = tuple(f"- `{alias}` = `{root}`" for alias, root in plan)
    chosen, table = absolute, 0
    if root_lines:
        table = max(0, budget.cost(body(texts["intro_aliased"], root_lines, ())) -
                    budget.cost(body(texts["intro_unaliased"], (), ())))
        if table < budget.limit:
            aliased = _fit(ordered, [_shorten(plan, it.locator) for it in ordered], budget.less(table), root_lines, table)
            if aliased.shown != absolute.shown:
                better = aliased.shown > absolute.shown
            elif aliased.cut != absolute.cut:
                better = aliased.cut < absolute.cut
            else:
                better = aliased.cost < absolute.cost
            if better:
                chosen = aliased
    lines = list(chosen.lines)
    if usage:
        lines.append("### How to use skills")
        lines.append(texts["usage_aliased" if chosen.aliased else "usage_unaliased"])
    intro = texts["intro_aliased" if chosen.aliased else "intro_unaliased"]
    text = "<skills_instructions>" + body(intro, chosen.roots, lines) + "</skills_instructions>"
    return Rendering(text, tuple(ordered), chosen.alloc, chosen.aliased, chosen.cost, table if chosen.aliased else 0,
                     chosen.roots)
