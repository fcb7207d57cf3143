"""Subcommands of the ``rankscope`` command line, one module each."""
