"""The command line: parse, call the core, render. No rules live here. It may import every
wing; none imports it.

Commands are grouped by what they are about: `plans` (scan, apply, undo,
archive, config, demo), `archived` (archived, show, restore), `claude_code`
(the /clarity slash command) and `schedule` (the weekly run). Each registers
itself on the one typer app.
"""

from __future__ import annotations

import copy
import errno
import gc
import os
import re
import sys
from collections.abc import MutableMapping

import typer

# Each module registers its commands on the app; --help lists them in this order.
from clarity.cli import plans  # noqa: F401

# isort: split
from clarity.cli import archived, browse, claude_code, config, roots, schedule, search  # noqa: F401
from clarity.cli.app import app
from clarity.cli.options import one_line
from clarity.errors import EXIT_ACTION_FAILED, EXIT_USAGE, Cancelled, ClarityError, Stop
from clarity.hints import program, shell_quoted
from clarity.render import output

__all__ = ["app", "main"]


def command_name(info: typer.models.CommandInfo) -> str | None:
    callback = info.callback
    return info.name or (typer.main.get_command_name(callback.__name__) if callback else None)


def _group_for(argv: list[str]) -> typer.core.TyperGroup:
    """The click group to run argv: with only the command argv names, if it names one.

    typer turns each command's signature into a click command before parsing
    (about 1.5 ms apiece); building just the one a run needs is a tenth of
    clarity's start-up. --help, no command or an unknown one: all of them,
    and typer's shell-completion options (`clarity --show-completion bash`;
    the shell asks for completions with no arguments).
    """
    name = next((arg for arg in argv if not arg.startswith("-")), None)
    wanted = [info for info in app.registered_commands if command_name(info) == name]
    if not wanted:
        group = typer.main.get_group(app)
        group.params += typer.main.get_install_completion_arguments()
        return group
    lean = copy.copy(app)
    lean.registered_commands = wanted
    return typer.main.get_group(lean)


_SPACE = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
_ACCESS = (errno.EACCES, errno.EPERM, errno.EROFS)


def _os_error_line(error: OSError) -> str:
    """What the system refused, on which file, and what to do about it."""
    where = f" ({error.filename})" if error.filename else ""
    if error.errno in _SPACE:
        hint = "free some space (or raise the file size limit) and run it again"
    elif error.errno in _ACCESS:
        hint = "make it writable (or point clarity elsewhere) and run it again"
    else:
        hint = "fix that and run it again"
    return (
        f"{error.strerror or error}{where}; {hint}: "
        "a run this cut short is finished or rolled back by the next one"
    )


def usable_terminal_size(environ: MutableMapping[str, str]) -> None:
    """Drop a COLUMNS or LINES that is not a whole number above 0, so rich and typer measure
    the terminal (or take 80 columns): at COLUMNS=0 rich drew nothing at all."""
    for name in ("COLUMNS", "LINES"):
        value = environ.get(name)
        if value is None:
            continue
        try:
            usable = int(value) > 0
        except ValueError:
            usable = False
        if not usable:
            del environ[name]


def main(argv: list[str] | None = None) -> int:
    """Entry point: every error a user can cause becomes one line and an exit code."""
    # A run is short and what it builds is acyclic (tuples, dicts, strings that
    # reference counting frees); the cyclic collector would walk every plan's
    # objects again at each full collection: 18% of a 100k-plan scan. Cyclic
    # garbage a run makes anyway (the agent's HTTP client) goes at exit.
    gc.disable()
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")  # an odd file name must not crash a report
    usable_terminal_size(os.environ)
    args = sys.argv[1:] if argv is None else argv
    try:
        return _run(args)
    finally:
        output.settle()  # what stdout could not take is dropped, not a traceback at exit


def _command_path(error: typer.TyperException) -> str:
    """The command a usage error is about (`clarity schedule install`): its help helps."""
    ctx = getattr(error, "ctx", None)
    path = getattr(ctx, "command_path", None)
    if not isinstance(path, str) or not path:
        return program()
    # The clarity that ran, quoted for a shell as hints quote it.
    return shell_quoted(program()) + path.removeprefix("clarity")


_MOVING = frozenset({"apply", "undo", "archive", "restore"})
INTERRUPTED = 130  # 128 + SIGINT, as shells report it


def _on_its_own_line(line: str) -> None:
    """A line after a ^C the terminal echoed: on a line of its own (a newline first; not
    written into the line, where it would be shown escaped, as \\n)."""
    output.say(["", line] if sys.stderr.isatty() else [line], err=True)


def _interrupted(args: list[str]) -> str:
    """What Ctrl-C left, in one line (on a line of its own after a ^C at a prompt)."""
    if _MOVING.intersection(args[:1]):
        return (
            "clarity: interrupted; the move under way is finished or rolled back by "
            "the next clarity command, and clarity undo puts back what this run moved"
        )
    return "clarity: interrupted; nothing was moved"


_QUERY_COMMANDS = ("search", "archived", "set")  # commands whose words may begin with -
# Words people type for a command of another name (click finds only near spellings).
_SYNONYMS = {
    "status": "show",
    "list": "show",
    "ls": "show",
    "uninstall": "remove",
    "add": "install",
}


def _synonym_hint(error: typer.TyperException) -> str | None:
    """`clarity schedule status`: did you mean show? (`help`: the group's --help)."""
    found = re.match(r"No such command '([^']*)'", error.format_message())
    ctx = getattr(error, "ctx", None)
    group = getattr(ctx, "command", None)
    commands = getattr(group, "commands", None)
    if found is None or not isinstance(commands, dict):
        return None
    path = _command_path(error)
    word = found.group(1)
    if word == "help":
        return f" (to see its commands: {path} --help)"
    meant = _SYNONYMS.get(word)
    return f" (did you mean {path} {meant}?)" if meant in commands else None


def _dash_word_hint(error: typer.TyperException, args: list[str]) -> str | None:
    """For a word to search for that begins with - (taken for an option): how to give it."""
    name = getattr(error, "option_name", None)  # a NoSuchOption (typer's own click's)
    ctx = getattr(error, "ctx", None)
    command = getattr(getattr(ctx, "command", None), "name", None)
    if not isinstance(name, str) or command not in _QUERY_COMMANDS:
        return None
    # `-f` of `-flag`: click reads it as short options
    word = next((arg for arg in args if arg.startswith(name)), name)
    quoted = shell_quoted(word)
    me = shell_quoted(program())
    if command == "set":  # clarity config set KEY -3
        return (
            " (for a value that begins with -, end the options with --: "
            f"{me} config set KEY -- {quoted})"
        )
    return (
        f" (to search for {quoted}, end the options with --: {me} {command} -- {quoted}; "
        f"to leave out the plans that hold it: {me} {command} -- WORD {quoted})"
        if command == "search"
        else f" (to search for {quoted}, end the options with --: {me} {command} -- {quoted})"
    )


def _run(args: list[str]) -> int:
    try:
        result = _group_for(args).main(args=args, prog_name="clarity", standalone_mode=False)
        if result == INTERRUPTED:  # typer turns Ctrl-C into this exit code, silently
            _on_its_own_line(_interrupted(args))
            return INTERRUPTED
        output.flush()  # a report that does not fit (a full disk) is an error line here
    except Cancelled as cancelled:  # Ctrl-C at the question: nothing had started
        _on_its_own_line(f"clarity: {cancelled.message}")
        return cancelled.exit_code
    except Stop as stop:  # no error: no plans yet, say
        output.say([f"clarity: {one_line(stop.message)}"], err=True)
        return stop.exit_code
    except ClarityError as error:
        output.say([f"clarity: error: {one_line(error.message)}"], err=True)
        return error.exit_code
    except typer.TyperException as error:  # typer's parse errors: bad option, bad value
        hint = f" (see {_command_path(error)} --help)" if error.exit_code == 2 else ""
        hint = _dash_word_hint(error, args) or _synonym_hint(error) or hint
        message = one_line(error.format_message()).rstrip(".")
        output.say([f"clarity: error: {message}{hint}"], err=True)
        return error.exit_code
    except (KeyboardInterrupt, typer.Abort):
        _on_its_own_line(_interrupted(args))
        return INTERRUPTED
    except (output.ReaderGone, BrokenPipeError):
        return 0  # the reader went away (clarity scan | head): nothing left to say
    except OSError as error:  # the machine's doing (a full disk, a file size limit, ...)
        output.say([f"clarity: error: {one_line(_os_error_line(error))}"], err=True)
        return EXIT_USAGE
    except Exception as error:
        if os.environ.get("CLARITY_DEBUG"):
            raise
        output.say(
            [
                f"clarity: internal error: {type(error).__name__}: {one_line(str(error))}; "
                "please report it (CLARITY_DEBUG=1 shows the traceback)"
            ],
            err=True,
        )
        return EXIT_ACTION_FAILED
    return result if isinstance(result, int) else 0
