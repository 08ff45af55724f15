"""CLI subcommands (SPEC C). Each module exposes ``add_parser(subparsers, common)`` and ``run(ns) -> int``.

The parser is built with every command, so a command module imports at its top only what
``add_parser`` needs; what ``run`` needs (the catalog machinery, hosts, lint …) is imported
inside ``run`` and its helpers, so ``--help``, ``--version`` and every other command start
without it."""
