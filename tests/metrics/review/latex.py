"""A check that LaTeX tables compile in their structure, shared by the exports' tests."""

from __future__ import annotations

import re

_LATEX_COMMANDS = {
    "textbf",
    "textbackslash",
    "textasciitilde",
    "textasciicircum",
    "textless",
    "textgreater",
    "textbar",
    "begin",
    "end",
    "toprule",
    "midrule",
    "bottomrule",
    "caption",
    "label",
    "centering",
    "texttt",
    "dagger",
    "ddagger",
    "mathrm",
    "scriptsize",
    "alpha",
    "usepackage",
}


def assert_sound_latex(text: str, columns: int | None = None) -> None:
    """Balanced braces, matching environments, paired ``$``, known commands only, and rows of ``columns`` cells."""
    body = "\n".join(line for line in text.splitlines() if not line.startswith("%"))
    assert not re.search(r"(?<!\\)%", body.replace("\\\\", "")), "an unescaped % starts a comment"
    plain = re.sub(r"\\[{}%&_#$]", "", body)
    depth = 0
    for ch in plain:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0, "a } closes nothing"
    assert depth == 0, "unclosed {"
    stack = []
    for kind, env in re.findall(r"\\(begin|end)\{([^}]*)\}", plain):
        if kind == "begin":
            stack.append(env)
        else:
            assert stack and stack.pop() == env, f"\\end{{{env}}} does not match"
    assert stack == []
    assert plain.count("$") % 2 == 0
    text_mode = re.sub(r"\$[^$]*\$", "", plain)
    assert not re.findall(r"[_^#~]", text_mode), "special characters outside math mode"
    commands = set(re.findall(r"\\([A-Za-z]+)", plain.replace("\\\\", "")))
    assert commands <= _LATEX_COMMANDS, commands - _LATEX_COMMANDS
    if columns is not None:
        rows = [line for line in body.splitlines() if line.endswith("\\\\") and "&" in line]
        for row in rows:
            outer = re.sub(r"\\begin\{tabular\}.*?\\end\{tabular\}", "cell", row)
            assert len(re.findall(r"(?<!\\)&", outer)) == columns - 1, row
