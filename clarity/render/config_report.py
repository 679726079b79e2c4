"""`clarity config`: every effective value and where it came from."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clarity.workflows.configuration import ConfigView


def config_document(view: ConfigView) -> dict[str, Any]:
    settings = view.settings
    return {
        "config_file": str(settings.config_path),
        "config_file_exists": view.config_exists,
        "state_dir": str(view.state_dir),
        "settings": {
            key: {"value": value, "source": settings.sources[key]}
            for key, value in settings.values().items()
        },
        "versions": dict(zip(("plans", "texts", "bytes"), view.versions, strict=True)),
        # Not clarity's setting, but what decides when Claude Code deletes these plans.
        "claude_code_cleanup": (
            None
            if settings.retention is None
            else {"days": settings.retention.days, "source": settings.retention.source}
        ),
    }


def _shown(value: Any) -> str:
    """A value as a person writes it in the config file: 7, not 7.0; yes, not False."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return f"{value}"


def print_config(view: ConfigView, as_json: bool) -> None:
    settings = view.settings
    document = config_document(view)
    if as_json:
        from clarity.render.output import send_json

        send_json(document)
        return
    import os
    import sys

    from rich.table import Table
    from rich.text import Text

    from clarity.printable import printable
    from clarity.render.console import plain_console, print_prose

    # A pipe or a file gets the table's whole lines (a path never broken mid-name for a
    # script to mend), as scan's report does; a terminal, the table fitted to its width.
    piped = not sys.stdout.isatty() and not os.environ.get("COLUMNS")  # COLUMNS: a width asked
    console = plain_console(width=100_000) if piped else plain_console()
    exists = "" if document["config_file_exists"] else " (not present: defaults apply)"
    print_prose(console, f"config file: {document['config_file']}{exists}")
    print_prose(console, f"state dir:   {document['state_dir']}")
    kept = document["versions"]
    if kept["texts"]:
        from clarity.render.shelf_report import versions_line

        print_prose(console, versions_line(settings.archive_dir, *kept.values()))
    settings_shown = document["settings"]
    key_width = max(len(key) for key in settings_shown)
    # The value column's width, so that a path breaks at a `/`, never inside a name.
    width = None if piped else max(16, (console.width - key_width - 10) * 3 // 5)
    table = Table()
    table.add_column("key", no_wrap=True)
    table.add_column("value", overflow="fold", width=width, no_wrap=piped)
    table.add_column("source", overflow="fold", no_wrap=piped)
    for key, entry in settings_shown.items():
        value = _shown(entry["value"])
        shown: str | Text = value
        if key.endswith("_dir") and width is not None:
            shown = Text("\n").join(
                Text(printable(line)) for line in _broken_at_slashes(value, width).split("\n")
            )
        table.add_row(key, shown, entry["source"])
    console.print(table)
    cleanup = document["claude_code_cleanup"]
    if cleanup is None:
        said = "Claude Code's cleanup does not reach this plans dir (not its plans folder)"
    else:
        source = cleanup["source"]
        if not source.startswith("cleanupPeriodDays"):
            source += "; cleanupPeriodDays in its settings.json changes it"
        said = (
            f"Claude Code deletes plans here older than {cleanup['days']:g} days at its "
            f"next start ({source})"
        )
    print_prose(console, said)
    print_prose(
        console,
        f"Set a value in {document['config_file']} (clarity config set dormant_days 30, "
        "or clarity config edit), or for one run with its option or CLARITY_ variable "
        "(CLARITY_DORMANT_DAYS=30)",
    )


def _broken_at_slashes(path: str, width: int) -> str:
    """A path in lines of at most width, each ending at a `/` (a name longer than a line
    is the one thing cut)."""
    lines: list[str] = []
    line = ""
    for index, part in enumerate(path.split("/")):
        piece = part if index == 0 else "/" + part
        if line and len(line) + len(piece) > width:
            lines.append(line)
            line = piece
        else:
            line += piece
    lines.append(line)
    return "\n".join(lines)  # each line escaped alone (print_config: a Text of lines)
