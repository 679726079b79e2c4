"""What a Bash tool call changed in the project, the ways sessions work through the shell
(seen in real transcripts, often after an Edit failed): SPEC 4.3 "did the work".

- Files edited in place: `sed -i`, `perl -i`.
- Files written: `mv` and `git mv` (the destination), a heredoc sent into a file
  (`cat > f <<EOF`, `tee f <<EOF`), and a script fed by a heredoc that opens a
  file it names for writing (`open('/abs/f', 'w')`, `Path('f').write_text`).
- Changes through git: `git commit` (its answer must show the commit made) and
  `git apply`/`git am`.

A command that only runs or reads (tests, a build, `git status`, `cat f`) changes
nothing here, and output sent to a file by a command that is not fed a heredoc
is not told apart from a log. A command that cannot be split edits nothing.
Relative paths are taken from the session's working directory. Whether the
command succeeded is the caller's to check (its answer is not an error).
"""

from __future__ import annotations

import posixpath
import re
import shlex
from typing import NamedTuple

_SEPARATORS = re.compile(r"&&|\|\||[;|\n]")
_SED_VALUE_OPTIONS = frozenset({"-e", "-f", "--expression", "--file", "-l", "--line-length"})
_PERL_VALUE_OPTIONS = frozenset({"-e", "-E", "-M", "-m", "-I"})
_HEREDOC = re.compile(r"<<(-?)\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2")
# git with its global options, then the command that changes the project
_GIT = re.compile(
    r"(?:^|[;&|(`]|\$\()\s*git\s+(?:(?:-C|-c|--git-dir|--work-tree)\s+\S+\s+|--no-pager\s+)*"
    r"(commit|apply|am)\b([^\n;&|]*)"
)
_NOT_APPLIED = re.compile(r"\s--(?:check|stat|numstat|summary)\b")
_WRITES_IN_SCRIPT = re.compile(
    r"""open\(\s*(?:r|b|rb)?(['"])([^'"\n]+)\1\s*,\s*(?:mode\s*=\s*)?(['"])[wax]"""
    r"""|Path\(\s*(['"])([^'"\n]+)\4\s*\)\s*\.write_(?:text|bytes)\("""
)
# How `git commit` says it made one: `[main 1a2b3c4] message` (also `[main (root-commit) ...]`)
COMMITTED = re.compile(r"^\[[^\]\n]*?([0-9a-f]{7,40})\]", re.MULTILINE)


class ShellWork(NamedTuple):
    paths: list[str]  # files the command wrote or edited
    git: list[str]  # "commit", "apply": changes made through git


def _in_place(name: str, words: list[str]) -> list[str]:
    """The files one simple command edits in place (none unless it is sed -i or perl -i)."""
    program = posixpath.basename(name)
    if program in ("sed", "gsed"):
        value_options = _SED_VALUE_OPTIONS
    elif program == "perl":
        value_options = _PERL_VALUE_OPTIONS
    else:
        return []
    flags = [word for word in words if word.startswith("-") and not word.startswith("--")]
    if not (any("i" in flag for flag in flags) or any(w.startswith("--in-place") for w in words)):
        return []
    operands: list[str] = []
    script_given = skip = False
    for word in words:
        if skip:
            skip = False
        elif word in value_options:
            script_given = script_given or word in ("-e", "-E", "--expression", "-f", "--file")
            skip = True
        elif word.startswith("-") and len(word) > 1:
            if program == "perl" and not word.startswith("--") and word.endswith("e"):
                script_given = skip = True  # -pe, -pie: the script follows
        elif word:  # '' is BSD sed's empty backup suffix (sed -i '' ...)
            operands.append(word)
    return operands if script_given else operands[1:]  # else the first operand is the script


def _moved_to(words: list[str]) -> list[str]:
    """The destination of `mv` or `git mv` (its last operand), if this is one."""
    if words[:2] == ["git", "mv"]:
        words = words[1:]
    if not words or posixpath.basename(words[0]) != "mv":
        return []
    operands = [word for word in words[1:] if not word.startswith("-")]
    return operands[-1:] if len(operands) >= 2 else []


def _redirected_to(words: list[str]) -> list[str]:
    """Where a command fed by a heredoc sends its output: `> f`, `>> f`, `>f`, tee's files."""
    targets: list[str] = []
    for index, word in enumerate(words):
        if word in (">", ">>", "1>", "&>") and index + 1 < len(words):
            targets.append(words[index + 1])
        elif word.startswith((">", "1>")) and word.lstrip("1>"):
            targets.append(word.lstrip("1>"))
    if words and posixpath.basename(words[0]) == "tee":
        targets += [word for word in words[1:] if not word.startswith(("-", "<", ">"))]
    return targets


def _cut_heredocs(command: str) -> tuple[list[tuple[str, bool]], list[str]]:
    """The command's lines (each with whether a heredoc feeds it) and the heredocs' bodies."""
    lines: list[tuple[str, bool]] = []
    bodies: list[str] = []
    waiting: list[tuple[bool, str]] = []  # (tabs stripped, delimiter) of heredocs to read
    body: list[str] = []
    for line in command.split("\n"):
        if waiting:
            strip, delimiter = waiting[0]
            if (line.lstrip("\t") if strip else line) == delimiter:
                bodies.append("\n".join(body))
                body = []
                waiting.pop(0)
            else:
                body.append(line)
            continue
        found = _HEREDOC.findall(line)
        lines.append((line, bool(found)))
        waiting = [(dash == "-", delimiter) for dash, _, delimiter in found]
    if body:
        bodies.append("\n".join(body))
    return lines, bodies


def _absolute(path: str, cwd: object) -> str:
    if not posixpath.isabs(path) and isinstance(cwd, str) and posixpath.isabs(cwd):
        return posixpath.normpath(posixpath.join(cwd, path))
    return path


def shell_work(command: object, cwd: object) -> ShellWork:
    """What a Bash command wrote, edited or changed through git (paths absolute when cwd is)."""
    if not isinstance(command, str):
        return ShellWork([], [])
    lines, bodies = _cut_heredocs(command)
    found: list[str] = []
    for line, fed in lines:
        for part in _SEPARATORS.split(line):
            try:
                words = shlex.split(part, comments=True)
            except ValueError:
                continue  # unbalanced quotes (a $(...) cut at a heredoc): not read
            while words and "=" in words[0] and not words[0].startswith("-"):
                words = words[1:]  # VAR=value before the program
            if not words:
                continue
            found += _in_place(words[0], words[1:]) + _moved_to(words)
            if fed:
                found += _redirected_to(words)
    for script in bodies:
        for match in _WRITES_IN_SCRIPT.finditer(script):
            found.append(match.group(2) or match.group(5))
    git = [
        change
        for change, rest in _GIT.findall(command)
        if change == "commit" or not _NOT_APPLIED.search(" " + rest)
    ]
    paths = list(dict.fromkeys(_absolute(path, cwd) for path in found))
    return ShellWork(paths, git)
