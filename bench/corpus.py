"""A plans directory like a heavy Claude Code user's, at any size, the same every time.

The mix (by count), drawn from one seeded generator so a corpus of a given
size is byte-for-byte the same on every machine:

- sizes, log-uniform within each band: 20% stubs of 100 B-2 KB, 64% of
  2-16 KB, 14% of 16-128 KB, 1.8% of 128 KB-1 MB and 0.2% of 1-4 MB (at
  least one multi-MB plan in any corpus of 100 plans or more);
- ages: 3% modified today, 12% in the last week, the rest up to 180 days;
- markers: 14% with a marker on the H1 line, 14% on the last line, 8% with
  frontmatter `status: done`, 1% `pinned: true`;
- 12% are agent sub-plans (`<parent>-agent-<id>.md`) of an earlier plan,
  about as old as it.

Plans are named like Claude Code's (`adjective-gerund-noun.md`), and their
bodies look like plans: a title, context, numbered steps, code, checklists.
"""

from __future__ import annotations

import math
import os
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

NOW = datetime.fromisoformat("2026-11-21T10:00:00+00:00")  # pass as --now; run with TZ=UTC
DAY = 86_400.0

SIZE_BANDS: tuple[tuple[float, int, int], ...] = (
    (0.20, 100, 2_000),
    (0.64, 2_000, 16_000),
    (0.14, 16_000, 128_000),
    (0.018, 128_000, 1_000_000),
    (0.002, 1_000_000, 4_000_000),
)

_ADJECTIVES = [
    "ancient",
    "bold",
    "brisk",
    "calm",
    "cosmic",
    "crisp",
    "curious",
    "dapper",
    "eager",
    "elegant",
    "fancy",
    "fluffy",
    "gentle",
    "glimmering",
    "golden",
    "happy",
    "humble",
    "jolly",
    "keen",
    "lively",
    "lucky",
    "mellow",
    "merry",
    "misty",
    "nimble",
    "noble",
    "peppy",
    "playful",
    "polished",
    "proud",
    "quiet",
    "quirky",
    "radiant",
    "rosy",
    "rustic",
    "serene",
    "shiny",
    "silent",
    "sleepy",
    "snappy",
    "sparkling",
    "spicy",
    "steady",
    "sunny",
    "swift",
    "tender",
    "tidy",
    "velvety",
    "vivid",
    "warm",
    "whimsical",
    "witty",
    "zany",
    "zesty",
]
_GERUNDS = [
    "baking",
    "bouncing",
    "brewing",
    "building",
    "chasing",
    "climbing",
    "coding",
    "crafting",
    "dancing",
    "drifting",
    "dreaming",
    "drawing",
    "exploring",
    "floating",
    "folding",
    "gliding",
    "growing",
    "hopping",
    "humming",
    "jumping",
    "juggling",
    "knitting",
    "laughing",
    "leaping",
    "mapping",
    "mending",
    "munching",
    "painting",
    "planning",
    "prancing",
    "puzzling",
    "racing",
    "reading",
    "roaming",
    "rolling",
    "sailing",
    "singing",
    "skipping",
    "sleeping",
    "soaring",
    "sorting",
    "spinning",
    "splashing",
    "sprouting",
    "strolling",
    "swimming",
    "tinkering",
    "wandering",
    "weaving",
    "whistling",
    "writing",
]
_NOUNS = [
    "aurora",
    "badger",
    "beacon",
    "breeze",
    "canyon",
    "cascade",
    "comet",
    "coral",
    "crane",
    "dolphin",
    "ember",
    "falcon",
    "fern",
    "firefly",
    "fjord",
    "galaxy",
    "glacier",
    "harbor",
    "heron",
    "island",
    "kettle",
    "lantern",
    "lemur",
    "lighthouse",
    "lotus",
    "maple",
    "meadow",
    "nebula",
    "orchid",
    "otter",
    "panda",
    "pebble",
    "pelican",
    "quokka",
    "raven",
    "river",
    "sparrow",
    "summit",
    "thompson",
    "tiger",
    "toucan",
    "tulip",
    "turtle",
    "volcano",
    "walrus",
    "willow",
    "wombat",
    "yak",
    "zephyr",
]

_TOPICS = (
    "the auth middleware",
    "the billing webhook",
    "flaky CI on macOS",
    "the search index",
    "dark mode",
    "the CSV importer",
    "rate limiting",
    "the settings page",
    "the migration to Postgres 16",
    "memory growth in the worker",
    "the onboarding flow",
    "structured logging",
)
_CLOSINGS = (
    "Run the full test suite before merging.",
    "Open questions are listed above; ask before step 4.",
    "Verify in staging, then roll out behind the flag.",
    "Next: wire the new endpoint into the client.",
    "Keep the old code path until the metrics look right.",
)
_H1_MARKERS = (" COMPLETED", " -- Completed", " \u2014 Done", " (finalized)")
_LAST_MARKERS = ("-- Done", "No further planning needed.", "\u2013 Complete", "COMPLETED")


@dataclass(frozen=True, slots=True)
class CorpusStats:
    plans: int
    bytes: int
    subplans: int
    largest: int


def _filler(rng: random.Random) -> str:
    """About 64 KB of plan-like text that bodies are cut from."""
    words = (
        _ADJECTIVES + _GERUNDS + _NOUNS + ["the", "a", "to", "of", "and", "in", "for", "with"] * 6
    )
    lines: list[str] = []
    size = 0
    section = 0
    while size < 64_000:
        section += 1
        block = [f"## {section}. {rng.choice(_GERUNDS).title()} {rng.choice(_NOUNS)}", ""]
        block += [" ".join(rng.choices(words, k=rng.randint(12, 24))) + "." for _ in range(2)]
        block.append("")
        block += [
            f"{step}. {' '.join(rng.choices(words, k=rng.randint(5, 12)))}"
            for step in range(1, rng.randint(3, 8))
        ]
        block += ["", "```python", f"def {rng.choice(_GERUNDS)}_{rng.choice(_NOUNS)}():"]
        block += [f"    return {rng.choice(_NOUNS)!r}", "```", ""]
        block += [f"- [ ] {' '.join(rng.choices(words, k=6))}" for _ in range(3)]
        block.append("")
        text = "\n".join(block) + "\n"
        lines.append(text)
        size += len(text)
    return "".join(lines)


def _size(rng: random.Random) -> int:
    pick = rng.random()
    for share, low, high in SIZE_BANDS:
        if pick < share:
            return int(math.exp(rng.uniform(math.log(low), math.log(high))))
        pick -= share
    return SIZE_BANDS[-1][1]


def _age_days(rng: random.Random) -> float:
    pick = rng.random()
    if pick < 0.03:
        return rng.uniform(0, 9) / 24  # today: NOW is 10:00 UTC
    if pick < 0.15:
        return rng.uniform(0.5, 7)
    return rng.uniform(7, 180)


def _body(rng: random.Random, filler: str, title: str, size: int) -> bytes:
    pick = rng.random()
    head = f"# Plan: {title}"
    frontmatter = ""
    last = rng.choice(_CLOSINGS)
    if pick < 0.14:
        head += rng.choice(_H1_MARKERS)
    elif pick < 0.28:
        last = rng.choice(_LAST_MARKERS)
    elif pick < 0.36:
        frontmatter = "---\nstatus: done\nsession: abc123\n---\n"
    elif pick < 0.37:
        frontmatter = "---\npinned: true\n---\n"
    opening = f"{frontmatter}{head}\n\n## Context\n\nWhy {title.lower()} matters now.\n\n"
    closing = f"\n{last}\n"
    room = size - len(opening) - len(closing)
    middle = ""
    if room > 0:
        start = rng.randrange(len(filler))
        middle = (filler[start:] + filler * (room // len(filler) + 1))[:room]
        middle = middle[: middle.rfind("\n") + 1] if "\n" in middle else ""
    return (opening + middle + closing).encode("utf-8")


def _names(rng: random.Random, count: int) -> Iterator[str]:
    combos = len(_ADJECTIVES) * len(_GERUNDS) * len(_NOUNS)
    per_adjective = len(_GERUNDS) * len(_NOUNS)
    for number in rng.sample(range(combos * 4), count):
        combo, round_ = number % combos, number // combos
        adjective = _ADJECTIVES[combo // per_adjective]
        gerund = _GERUNDS[combo // len(_NOUNS) % len(_GERUNDS)]
        noun = _NOUNS[combo % len(_NOUNS)]
        yield f"{adjective}-{gerund}-{noun}" + (f"-{round_}" if round_ else "")


def make_corpus(plans_dir: Path, count: int, seed: int = 6) -> CorpusStats:
    """Write `count` plans into plans_dir (created; must be empty) with their ages set."""
    plans_dir.mkdir(parents=True, exist_ok=True)
    if any(plans_dir.iterdir()):
        raise ValueError(f"{plans_dir} is not empty")
    rng = random.Random(seed)
    filler = _filler(rng)
    now = NOW.timestamp()
    parents: list[tuple[str, float]] = []
    taken: set[str] = set()
    total = subplans = largest = 0
    for number, slug in enumerate(_names(rng, count)):
        size = _size(rng)
        if number == 99:
            size = max(size, 1_500_000)  # a multi-MB plan in every corpus that can hold one
        if parents and rng.random() < 0.12:
            parent, parent_age = rng.choice(parents)
            name = f"{parent}-agent-{rng.getrandbits(32):08x}"
            while name in taken:
                name = f"{parent}-agent-{rng.getrandbits(32):08x}"
            age = max(0.0, parent_age + rng.uniform(-0.2, 0.2))
            title = f"sub-task of {parent}"
            subplans += 1
        else:
            name, age = slug, _age_days(rng)
            title = f"{rng.choice(_GERUNDS).title()} {rng.choice(_TOPICS)}"
            parents.append((name, age))
        taken.add(name)
        data = _body(rng, filler, title, size)
        path = plans_dir / f"{name}.md"
        path.write_bytes(data)
        mtime = now - age * DAY
        os.utime(path, (mtime, mtime))
        total += len(data)
        largest = max(largest, len(data))
    return CorpusStats(count, total, subplans, largest)
