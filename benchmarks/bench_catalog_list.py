"""Showing N rows in the catalog list (call + until the app is idle), and a filter re-show.

``python benchmarks/bench_catalog_list.py [N]`` (default 10,000): best of 3, headless, 120×40.
Target (DESIGN "Measured here"): 10,000 rows ≤ 0.3 s.
"""

from __future__ import annotations

import asyncio
import sys
import time

from textual.app import App, ComposeResult

from skillshelf.core.model import Generation, Provenance, Source
from skillshelf.widgets.catalog_list import CatalogList
from skillshelf.widgets.rows import build_rows


class _ListApp(App[None]):
    def compose(self) -> ComposeResult:
        yield CatalogList()


def _rows(n: int):
    sources = tuple(Source(name=f"skill-{i:05d}", location=f"/r/s{i}/SKILL.md", provenance=Provenance.PROJECT_ZUNO,
                           canonical=f"/r/s{i}/SKILL.md", root="/r", description=f"Skill number {i}")
                    for i in range(n))
    return build_rows(Generation(1, "", "zuno", "/w", (), sources, (), ()))


async def _measure(n: int) -> tuple[float, float]:
    rows = _rows(n)
    app = _ListApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        lst = app.query_one(CatalogList)
        started = time.perf_counter()
        lst.show_rows(rows, range(len(rows)))
        await pilot.pause()
        fill = time.perf_counter() - started
        started = time.perf_counter()
        lst.show_rows(rows, range(0, len(rows), 3), keep=n // 2)
        await pilot.pause()
        refill = time.perf_counter() - started
    return fill, refill


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    results = [asyncio.run(_measure(n)) for _ in range(3)]
    fill = min(r[0] for r in results)
    refill = min(r[1] for r in results)
    print(f"{n:,} rows: fill {fill * 1000:.0f} ms · re-show a third of them {refill * 1000:.0f} ms (best of 3)")


if __name__ == "__main__":
    main()
