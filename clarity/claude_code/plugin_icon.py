"""The plugin's icon, drawn by code (the plugin directory asks for a square PNG of 512 to
2048 px): a plan sheet with its lines, and a green tick over its corner. Deterministic:
the same bytes every run, so a test can say the committed icon is what this draws.

    python -m clarity.claude_code.plugin_icon   # rewrites plugin/.claude-plugin/icon.png

Standard library only (zlib for the PNG): each shape is a signed distance, and a
pixel's cover is how far inside the shape its centre lies, so the edges are smooth.
"""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

SIZE = 512
ICON = Path(__file__).parent / "plugin" / ".claude-plugin" / "icon.png"

Shape = Callable[[float, float], float]  # (x, y) -> signed distance, negative inside
Color = tuple[int, int, int]

BACKGROUND: Color = (31, 41, 55)  # slate
SHEET: Color = (248, 250, 252)
LINE: Color = (148, 163, 184)
TICK_DISC: Color = (22, 163, 74)  # green
TICK: Color = (255, 255, 255)


def rounded_box(cx: float, cy: float, half_w: float, half_h: float, radius: float) -> Shape:
    def distance(x: float, y: float) -> float:
        qx = abs(x - cx) - half_w + radius
        qy = abs(y - cy) - half_h + radius
        outside = math.hypot(max(qx, 0.0), max(qy, 0.0))
        return outside + min(max(qx, qy), 0.0) - radius

    return distance


def disc(cx: float, cy: float, radius: float) -> Shape:
    return lambda x, y: math.hypot(x - cx, y - cy) - radius


def stroke(ax: float, ay: float, bx: float, by: float, width: float) -> Shape:
    """A line from a to b with round ends."""
    dx, dy = bx - ax, by - ay
    length = dx * dx + dy * dy

    def distance(x: float, y: float) -> float:
        t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / length))
        return math.hypot(x - ax - t * dx, y - ay - t * dy) - width / 2

    return distance


def either(*shapes: Shape) -> Shape:
    return lambda x, y: min(shape(x, y) for shape in shapes)


def layers() -> list[tuple[Shape, Color]]:
    """What is drawn, back to front, on a SIZE x SIZE canvas."""
    lines = either(
        *(
            stroke(150, y, 330 if index % 2 else 300, y, 22)
            for index, y in enumerate(range(170, 371, 50))
        )
    )
    tick = either(stroke(348, 392, 382, 426, 26), stroke(382, 426, 442, 348, 26))
    return [
        (rounded_box(256, 256, 256, 256, 96), BACKGROUND),
        (rounded_box(240, 262, 130, 170, 28), SHEET),
        (lines, LINE),
        (disc(392, 388, 86), BACKGROUND),  # a ring of background around the tick's disc
        (disc(392, 388, 74), TICK_DISC),
        (tick, TICK),
    ]


def pixels() -> bytes:
    """The image as PNG scanlines: each row a filter byte (0) and RGBA pixels."""
    drawn = layers()
    rows = bytearray()
    for row in range(SIZE):
        rows.append(0)
        y = row + 0.5
        for column in range(SIZE):
            x = column + 0.5
            red = green = blue = alpha = 0.0
            for shape, (r, g, b) in drawn:
                cover = min(1.0, max(0.0, 0.5 - shape(x, y)))
                if cover:
                    red += (r - red) * cover
                    green += (g - green) * cover
                    blue += (b - blue) * cover
                    alpha += (255 - alpha) * cover
            rows += bytes((round(red), round(green), round(blue), round(alpha)))
    return bytes(rows)


def png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(pixels(), 9))
        + chunk(b"IEND", b"")
    )


if __name__ == "__main__":
    from clarity.render.output import say

    ICON.write_bytes(png())
    say([f"wrote {ICON} ({ICON.stat().st_size} bytes)"])
