"""`clarity config`: every effective value and where it came from."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clarity.config import Settings


def config_document(settings: Settings) -> dict[str, Any]:
    from clarity.locations import state_dir

    return {
        "config_file": str(settings.config_path),
        "config_file_exists": settings.config_path.exists(),
        "state_dir": str(state_dir()),
        "settings": {
            key: {"value": value, "source": settings.sources[key]}
            for key, value in settings.values().items()
        },
    }


def print_config(settings: Settings, as_json: bool) -> None:
    document = config_document(settings)
    if as_json:
        from clarity.output import send_json

        send_json(document)
        return
    from rich.table import Table

    from clarity.render.console import plain_console

    console = plain_console()  # a path or value with a control character is shown escaped
    exists = "" if document["config_file_exists"] else " (not present: defaults apply)"
    console.print(f"config file: {document['config_file']}{exists}", soft_wrap=True)
    console.print(f"state dir:   {document['state_dir']}", soft_wrap=True)
    table = Table(pad_edge=False)
    table.add_column("key", no_wrap=True)
    table.add_column("value", overflow="fold")
    table.add_column("source", overflow="fold")
    for key, entry in document["settings"].items():
        value = entry["value"]
        text = ", ".join(value) if isinstance(value, list) else f"{value}"
        table.add_row(key, text, entry["source"])
    console.print(table)
