"""The ``rankscope`` command line: the one layer that imports both ``metrics`` and ``dashboard``.

``rankscope/cli.py`` assembles the subcommands of ``rankscope/commands/``; ``python -m rankscope`` runs it.
"""
