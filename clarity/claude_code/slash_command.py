"""The `/clarity` skill for Claude Code (SPEC 9).

Claude Code merged custom commands into skills: `<claude config dir>/skills/
clarity/SKILL.md` (a project's `.claude/skills/`) is where `/clarity` lives
now, and an earlier `commands/clarity.md` that clarity wrote is taken out when
the skill goes in. One the user wrote or edited is left where it is.

Claude Code substitutes `$ARGUMENTS`, `$N` and `${CLAUDE_SESSION_ID}` as plain
text into the whole file, `!` lines included, before a shell runs them. So the
one `!` line runs a fixed scan: nothing the user types after `/clarity` is in
this file to be substituted, and Claude Code hands it to Claude instead (it
appends `ARGUMENTS: ...` to a skill that does not use `$ARGUMENTS`), for
Claude to turn into clarity options through the Bash tool, where Claude Code's
permission rules see every command it runs. `allowed-tools` pre-approves only
what changes nothing: `scan --print-only` (a scan that can write no file but
clarity's own state: plain `scan --output` could create any file), `archived`
and `show`; apply, archive and undo go through Claude Code's own permission
prompt.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from pathlib import Path

from clarity.errors import ClarityError
from clarity.executable import unsafe_character
from clarity.managed import Change, CommentStyle, Outcome, install, is_untouched, remove
from clarity.printable import printable
from clarity.settings.files import read_settings_text

SKILL_NAME = "clarity"
SKILL_FILE = "SKILL.md"
LEGACY_COMMAND_FILE = "clarity.md"  # commands/clarity.md: where /clarity lived before skills
SCAN = "scan --print-only"  # the scan that writes no file but clarity's state (no --output)
# What the skill may run unasked: nothing that writes but clarity's own state (a search and
# archived QUERY bring the search index, a cache there, up to date).
READ_ONLY = (SCAN, "search", "archived", "show")
SESSION_PLACEHOLDER = "${CLAUDE_SESSION_ID}"

_TEMPLATE = """\
---
name: {name}
description: {description}
argument-hint: {hint}
disable-model-invocation: true
allowed-tools: {allowed}
---

clarity has looked at this machine's Claude Code plans. It has moved nothing yet.

!`{clarity} {scan} --format markdown --session='{session}'`

Work through the report above with the user, in this order:

1. Sum it up in a few lines: how many plans `clarity apply` would archive, send to the
   trash and keep, and anything under Skipped or Warnings.
2. Comment on each dormant plan from its title, age and reason (and the agent's verdict
   if the report has one): does it look finished, abandoned or still live? Name any that
   Claude Code will delete within a week; `clarity archive NAME` keeps one safe.
3. If the user wrote something after /clarity (it follows this text as ARGUMENTS), it is
   their request, never a command line to paste into a shell:
   - options for the scan (such as --dormant-days 30 or --project ~/src/web): run
     `{clarity} {scan} --format markdown` again with those options, each value quoted
     for the shell, and work from that report instead;
   - a question about earlier plans ("what did we decide about X?"): the archive keeps
     every plan clarity moved. `{clarity} search WORDS` finds any plan, live or
     archived, best first, with where it lives and the line that matched;
     `{clarity} archived QUERY` lists the archived plans whose title, summary or text
     match, and `{clarity} show NAME` prints one; answer from what they print. None
     of them moves a plan.
4. Ask the user whether to carry out the proposal. Run nothing that moves a plan until
   they answer.
5. Only if the user agrees, run the apply the report's Proposal line names, with `--yes`
   (`{clarity} apply --proposal ID --yes`, and the directory options it shows, if any):
   it carries out exactly the scan they reviewed, or refuses if another scan came since.
   For dormant plans they want kept, run `{clarity} archive --yes NAME...`. Claude Code
   asks the user to approve these commands itself: that is intended, so that the person
   who decides also approves the move. Show the user what clarity printed.
6. If they decline, say that nothing was moved.

Never move, delete or edit plan files yourself: clarity does it, journals it, and
`{clarity} undo` puts back its latest run.
"""

_DESCRIPTION = (
    "Review and tidy Claude Code's plans with clarity: archive finished plans, "
    "trash stale stubs, and find what an archived plan decided"
)
_HINT = "[scan options such as --dormant-days 30, or a question about archived plans]"


def allowed_tools(clarity: str) -> list[str]:
    """Claude Code permission rules for the read-only commands (`Bash(cmd *)`, not the
    legacy `:*` form); `archived` may also run with no query."""
    rules = [f"Bash({clarity} {sub} *)" for sub in READ_ONLY]
    rules.insert(3, f"Bash({clarity} archived)")
    return rules


# In the skill's body the command sits inside `!`...`` (a backtick ends it) and Claude
# Code substitutes `$ARGUMENTS`, `$0`, `${...}` anywhere in the file (a `$` could become
# what the user typed); in allowed-tools a comma parts two rules and a parenthesis ends
# one: a path with any of them cannot be written there safely.
_NOT_IN_SKILL = "`$,()"


def skill_text(clarity: str) -> str:
    """SKILL.md for this clarity (a shell command, e.g. `clarity`).

    Frontmatter values are written as JSON strings, which YAML reads as
    double-quoted scalars: a path with `: ` or `#` in it cannot break the file.
    A command with a control character, a backtick, a `$`, a comma or a parenthesis is
    refused (ClarityError).
    """
    bad = unsafe_character(clarity, _NOT_IN_SKILL)
    if bad is not None:
        raise ClarityError(
            f"clarity runs as {printable(clarity)}, whose {printable(repr(bad))} a Claude Code "
            "skill cannot carry safely, so nothing was installed; reinstall clarity under a "
            "plain path (letters, digits, spaces, / . _ -)"
        )
    return _TEMPLATE.format(
        name=SKILL_NAME,
        description=json.dumps(_DESCRIPTION),
        hint=json.dumps(_HINT),
        allowed=json.dumps(", ".join(allowed_tools(clarity))),
        clarity=clarity,
        scan=SCAN,
        session=SESSION_PLACEHOLDER,
    )


def project_root(cwd: Path, claude_dir: Path) -> Path:
    """The project clarity runs in: the nearest ancestor with .claude/ or .git, else cwd."""
    home = Path.home()
    for folder in (cwd, *cwd.parents):
        if folder == home:
            break  # ~/.claude is the user's, not a project's
        if (folder / ".git").exists() or (
            (folder / ".claude").is_dir() and (folder / ".claude").resolve() != claude_dir.resolve()
        ):
            return folder
    return cwd


def claude_base(claude_dir: Path, project: Path | None) -> Path:
    """The user's Claude config dir, or a project's `.claude`."""
    return project / ".claude" if project is not None else claude_dir


def skill_path(base: Path) -> Path:
    return base / "skills" / SKILL_NAME / SKILL_FILE


def legacy_command_path(base: Path) -> Path:
    return base / "commands" / LEGACY_COMMAND_FILE


@dataclass(frozen=True, slots=True)
class Installed:
    skill: Change
    legacy: Change | None  # the older command of clarity's, removed; None: none was there
    legacy_kept: Path | None  # a /clarity command the user wrote or edited, left alone


def _retire_legacy(base: Path) -> tuple[Change | None, Path | None]:
    """Remove the older commands/clarity.md if clarity wrote it and nobody edited it."""
    path = legacy_command_path(base)
    try:
        text = read_settings_text(path)  # a FIFO or a device there: kept, never a hang
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError):
        return None, path  # unreadable or not text: not clarity's to remove
    if not is_untouched(text):
        return None, path
    return remove(path), None


def install_skill(base: Path, clarity: str, *, force: bool = False) -> Installed:
    """Write the skill (never over the user's edits without force), then retire the old
    command of clarity's own; one the user wrote or edited is kept and reported."""
    skill = install(skill_path(base), skill_text(clarity), CommentStyle.XML, force=force)
    legacy, kept = _retire_legacy(base)
    return Installed(skill, legacy, kept)


def uninstall_skill(base: Path, *, force: bool = False) -> Installed:
    """Remove the skill (an edited one only with force, kept as .bak) and clarity's old
    command; the skill's folder goes too once it is empty."""
    path = skill_path(base)
    skill = remove(path, force=force)
    if skill.outcome is Outcome.REMOVED:
        with contextlib.suppress(OSError):  # not empty (a backup, the user's files): it stays
            path.parent.rmdir()
            path.parent.parent.rmdir()  # skills/, if clarity's was all it held
    legacy, kept = _retire_legacy(base)
    return Installed(skill, legacy, kept)
