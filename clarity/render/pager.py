"""Long text for a terminal goes through a pager, as git does: `$PAGER` (or `less`), with
`LESS=FRX` unless the person set LESS (quit at once when it fits one screen, keep the
colours, leave the text on the screen afterwards). `PAGER=` (empty) or `cat` turns it
off; a pager that cannot start leaves the text printed as it is."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess

from clarity.render.output import send_drawn


def page(text: str) -> None:
    """Show text (already rendered, escape codes and all) on the terminal stdout is."""
    rows = shutil.get_terminal_size().lines
    try:
        command = shlex.split(os.environ.get("PAGER", "less"))
    except ValueError:  # an unbalanced quote: no pager can be made of it
        command = []
    if text.count("\n") < rows - 1 or not command or command[0] == "cat":
        send_drawn(text)
        return
    env = {**os.environ, "LESS": os.environ.get("LESS", "FRX")}
    try:
        pager = subprocess.Popen(command, stdin=subprocess.PIPE, env=env)
    except OSError:
        send_drawn(text)  # no such pager here: the text is still shown
        return
    assert pager.stdin is not None
    try:
        with pager.stdin:
            pager.stdin.write(text.encode("utf-8", "replace"))
    except BrokenPipeError:
        pass  # the person quit the pager before the end: nothing more to show
    pager.wait()
