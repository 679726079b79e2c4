"""`clarity config`: every effective value and where it came from."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from clarity.render.json_report import dumps

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
        sys.stdout.write(dumps(document))
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console()
    exists = "" if document["config_file_exists"] else " (not present: defaults apply)"
    console.print(f"config file: {document['config_file']}{exists}", markup=False, soft_wrap=True)
    console.print(f"state dir:   {document['state_dir']}", markup=False, soft_wrap=True)
    table = Table(pad_edge=False)
    table.add_column("key", no_wrap=True)
    table.add_column("value", overflow="fold")
    table.add_column("source", overflow="fold")
    for key, entry in document["settings"].items():
        value = entry["value"]
        text = ", ".join(value) if isinstance(value, list) else f"{value}"
        table.add_row(Text(key), Text(text), Text(entry["source"]))
    console.print(table)
