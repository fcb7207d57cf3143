"""The command-line reference, written from the parser itself (:func:`rankscope.cli.build_parser`).

Every command and subcommand with its usage line, its description and each of its arguments: the flags,
what each takes (its metavar or choices), its default and its help text, all as argparse holds them,
so a renamed flag or a new one is on the page as soon as it is in the code.
"""

from __future__ import annotations

import argparse
from text import escape

TEXT = """# Command line

Every command of `rankscope` and every flag, generated from the program's own parser (so this page and
`rankscope COMMAND --help` say the same). Bad input (a file that cannot be read, a malformed line, an unknown
measure, a flag out of range) gives one line on stderr and exit status 2, no traceback; SIGINT and SIGTERM
stop a command with status 130 or 143, its child processes ended and no file half written. The
[errors and limits](limits.md) page has the details.

"""


def cli_page() -> str:
    """The whole page, as Markdown."""
    from rankscope.cli import build_parser

    parser = build_parser()
    out = [TEXT, _commands_table(parser)]
    for name, sub in _subcommands(parser):
        out.append(_command(f"rankscope {name}", sub, level=2))
    return "\n".join(out)


def _subcommands(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            return [(name, sub) for name, sub in sorted(action.choices.items())
                    if name in helps or not helps]
    return []


def _commands_table(parser: argparse.ArgumentParser) -> str:
    rows = ["| command | what it does |", "|---|---|"]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in sorted(action._choices_actions, key=lambda a: a.dest):
                rows.append(f"| [`{choice.dest}`](#{anchor('rankscope ' + choice.dest)}) | {escape(choice.help or '')} |")
    return "\n".join(rows) + "\n"


def anchor(command: str) -> str:
    """The id of a command's heading: ``rankscope workspace add`` -> ``rankscope-workspace-add``."""
    return command.replace(" ", "-")


def _command(title: str, parser: argparse.ArgumentParser, level: int) -> str:
    formatter = parser._get_formatter()
    usage = parser.format_usage().strip().removeprefix("usage: ")
    parts = [f"({anchor(title)})=\n{'#' * level} `{title}`\n", f"```text\n{usage}\n```\n"]
    if parser.description:
        parts.append(escape(parser.description) + "\n")
    entries = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)) or action.help == argparse.SUPPRESS:
            continue
        takes = [t for t in (_takes(action), _default(action)) if t]
        entries.append(f"{_names(action)}{' (' + '; '.join(takes) + ')' if takes else ''}\n"
                       f": {escape(formatter._expand_help(action)) if action.help else ''}\n")
    if entries:
        parts.append("\n".join(entries))
    if parser.epilog:
        parts.append(escape(parser.epilog) + "\n")
    out = "\n".join(parts)
    for name, sub in _subcommands(parser):
        out += "\n" + _command(f"{title} {name}", sub, level + 1)
    return out


def _names(action: argparse.Action) -> str:
    if action.option_strings:
        return ", ".join(f"`{o}`" for o in action.option_strings)
    return f"`{action.metavar or action.dest}`" + (" ..." if action.nargs in ("*", "+") else "")


def _takes(action: argparse.Action) -> str:
    if action.nargs == 0:
        return "a switch"
    if action.choices:
        return "one of " + ", ".join(f"`{c}`" for c in action.choices)
    if not action.option_strings:
        return ""
    metavar = action.metavar or action.dest.upper()
    return "takes " + (f"`{metavar}`" if isinstance(metavar, str) else " ".join(f"`{m}`" for m in metavar))


def _default(action: argparse.Action) -> str:
    if action.nargs == 0 or action.default in (None, argparse.SUPPRESS, [], ()):
        return ""
    return f"default `{action.default}`"


