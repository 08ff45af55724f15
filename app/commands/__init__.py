"""CLI subcommands (SPEC C). Each module exposes ``add_parser(subparsers, common)`` and ``run(ns) -> int``."""
