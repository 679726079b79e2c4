"""Plans a careful page must show as text: markup, scripts, a name with quotes and a
newline, a name that is not UTF-8, 10 MB on one line, a plan Claude Code deleted."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from clarity.archive.versions import SEEN, keep_file, mark_before_cleanup

QUOTED = 'it\'s "quoted"\nand <b>bold.md'
NOT_UTF8 = b"caf\xe9-plan.md"
HUGE = "huge-one-line.md"
GONE = "deleted-by-claude-code.md"
HOSTILE = "hostile-markup.md"


def hostile_text(canary: str) -> str:
    """A plan that tries everything to run or to reach canary (http://127.0.0.1:PORT)."""
    return f"""# Plan <script>alert('title')</script> hostile

<script>alert(1); fetch("{canary}/script")</script>
<img src="{canary}/raw-img.png" onerror="alert(2)">
<iframe src="{canary}/frame"></iframe>
<style>body {{ display: none }}</style>
<a href="{canary}/raw-link" onclick="alert(3)">raw link</a>

[a javascript link](javascript:alert(4)) and [a data link](data:text/html,<script>alert(5)</script>)

![a picture]({canary}/markdown-img.png)

| column <b>one</b> | two |
|---|---|
| <script>alert(6)</script> | `<img src=x onerror=alert(7)>` |

- [x] done <svg onload=alert(8)>
- [ ] not done

```html
<script>alert(9)</script>
```

\x1b[2J\x1b]0;owned\x07 terminal escapes
"""


def lay_hostile_plans(plans: Path, archive: Path, canary: str) -> None:
    (plans / HOSTILE).write_text(hostile_text(canary), encoding="utf-8")
    (plans / QUOTED).write_text("# A plan named with quotes\n\nIts name has a newline.\n")
    fd = os.open(os.fsencode(plans) + b"/" + NOT_UTF8, os.O_WRONLY | os.O_CREAT, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write("# Café plan\n\nIts name is Latin-1, not UTF-8.\n")
    (plans / HUGE).write_text("# Huge\n\n" + "word " * (2 * 1024 * 1024) + "\n")
    gone = plans / GONE
    gone.write_text("# Deleted by Claude Code\n\nOnly clarity kept this text.\n")
    now = datetime.now(UTC)
    keep_file(archive, GONE, gone, SEEN, now)
    assert mark_before_cleanup(archive, GONE, gone, now)
    gone.unlink()
