"""The floors clarity is measured against, run as their own Python processes.

Each is the least a Python program must do for the same job, so a ratio
against it says what clarity's own work costs:

- `scan DIR`: stat each `*.md` file, read its first and last 4 KiB, and print a
  JSON record for each (SPEC 10: the report any Python CLI pays for);
- `moves FILE JOURNAL [BATCH]`: for each (src, dst) pair in FILE (JSON),
  append an intent line to a journal, rename, append a done line; the
  intents reach the disk (fsync) before their renames, BATCH moves at a time
  (1: an fsync before every move, the floor apply's target is set against;
  clarity's own batch size: the least a move that survives kill -9 and power
  loss needs, done as clarity does it);

- `projects HOME`: the projects Claude Code's `.claude.json` lists, and for each a stat
  of its two project settings files (the least a finder of every plansDirectory does);

Two more need no code here: `python -c "import typer, rich.table"`, and `grep -rc
planFilePath` over the transcripts, its output written to a file.
"""

from __future__ import annotations

import os
import sys

CHUNK = 4096


def scan_floor(plans_dir: str) -> int:
    """Stat and read head and tail of each plan, then print a JSON record for each, with the
    fields clarity's report has (SPEC 10: the floor any Python CLI pays for this report)."""
    import json  # here, not at the top: the move floor pays for it, the scan floor here
    from datetime import UTC, datetime

    now = datetime.now(UTC).timestamp()
    records = []
    with os.scandir(plans_dir) as entries:
        for entry in entries:
            if not entry.name.endswith(".md"):
                continue
            fd = os.open(entry.path, os.O_RDONLY)
            try:
                info = os.fstat(fd)
                head = os.read(fd, CHUNK)
                if info.st_size > CHUNK:
                    os.lseek(fd, max(0, info.st_size - CHUNK), os.SEEK_SET)
                    os.read(fd, CHUNK)
            finally:
                os.close(fd)
            records.append(
                {
                    "name": entry.name,
                    "path": entry.path,
                    "class": "dormant",
                    "action": "report",
                    "reason": "untouched",
                    "size": info.st_size,
                    "mtime": datetime.fromtimestamp(info.st_mtime, UTC).isoformat(),
                    "age_days": round((now - info.st_mtime) / 86400, 2),
                    "title": head[:40].decode("utf-8", "replace"),
                    "parent": None,
                    "subplans": [],
                    "warnings": [],
                }
            )
    print(json.dumps({"plans": records}, ensure_ascii=False))
    return len(records)


def move_floor(moves_file: str, journal_file: str, batch: int = 1) -> int:
    """Journal and rename each move; intents reach the disk `batch` moves at a time."""
    import json  # here, not at the top: the scan floor's start-up stays bare

    with open(moves_file, encoding="utf-8") as stream:
        moves = json.load(stream)
    fd = os.open(journal_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        for start in range(0, len(moves), batch):
            chunk = list(enumerate(moves[start : start + batch], start))
            for seq, (src, dst) in chunk:
                intent = {"op": "intent", "seq": seq, "src": src, "dst": dst}
                os.write(fd, (json.dumps(intent) + "\n").encode())
            os.fsync(fd)
            for seq, (src, dst) in chunk:
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                os.rename(src, dst)
                os.write(fd, (json.dumps({"op": "done", "seq": seq}) + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    return len(moves)


def projects_floor(home: str) -> int:
    """Every project `.claude.json` lists, and which of them hold a settings file, printed
    as JSON: the least a finder of each project's plansDirectory must do."""
    import json

    with open(os.path.join(home, ".claude.json"), encoding="utf-8") as file:
        projects = json.load(file).get("projects", {})
    found = []
    for project in projects:
        for name in ("settings.local.json", "settings.json"):
            try:
                os.stat(os.path.join(project, ".claude", name))
            except OSError:
                continue
            found.append(os.path.join(project, ".claude", name))
    print(json.dumps({"projects": len(projects), "settings": found}))
    return len(projects)


def main(argv: list[str]) -> None:
    if argv[:1] == ["projects"]:
        projects_floor(argv[1])
    elif argv[:1] == ["scan"]:
        scan_floor(argv[1])
    elif argv[:1] == ["moves"]:
        print(move_floor(argv[1], argv[2], int(argv[3]) if len(argv) > 3 else 1))
    else:
        sys.exit(
            "usage: python -m bench.baselines scan DIR | moves FILE JOURNAL [BATCH] | projects HOME"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
