"""How each scheduler reads what clarity writes, for tests: cron's `%` handling before
`sh -c`, systemd's unquoting (a reference reader after systemd.syntax(7) and
systemd.service(5), and systemd's own parser where this machine can run it), and a
stand-in for clarity that records the argv and environment it was started with."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

CRON_MAX_COMMAND = 999  # vixie/ISC cron (Debian, the BSDs) read at most this much of a command


def cron_command(line: str) -> tuple[str, str]:
    """(what cron hands to `sh -c`, what it feeds the command's stdin) for one crontab line.

    As vixie cron and cronie's do_command do: the command is what follows the five
    time fields; `\\%` becomes `%`, a backslash before anything else stays with it,
    and the first unescaped `%` ends the command (the rest is stdin).
    """
    command = line.split(None, 5)[5]
    out: list[str] = []
    escaped = False
    for index, ch in enumerate(command):
        if escaped:
            if ch == "%":
                out[-1] = "%"  # the escaping backslash goes
            else:
                out.append(ch)
            escaped = False
            continue
        if ch == "\\":
            escaped = True
            out.append(ch)
            continue
        if ch == "%":
            return "".join(out), command[index + 1 :]
        out.append(ch)
    return "".join(out), ""


_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    '"': '"',
    "'": "'",
    "s": " ",
}


def systemd_words(value: str, *, command: bool = False) -> list[str]:
    """A setting's value split as systemd's extract_first_word(UNQUOTE|CUNESCAPE) does.

    Only the escapes of systemd.syntax(7)'s table that clarity could need are known;
    any other is a failure here (systemd would warn and keep it raw). In a command
    line, a bare `;` would end the command: a failure too.
    """
    words: list[str] = []
    index, length = 0, len(value)
    while True:
        while index < length and value[index] in " \t\n":
            index += 1
        if index == length:
            return words
        bare_semicolon = value[index] == ";" and value[index + 1 : index + 2] in ("", " ", "\t")
        assert not (command and bare_semicolon), f"a command separator: {value!r}"
        word: list[str] = []
        quote: str | None = None
        while index < length:
            ch = value[index]
            index += 1
            if ch == "\\":
                escape = value[index : index + 1]
                assert escape in _ESCAPES, f"unknown escape \\{escape} in {value!r}"
                word.append(_ESCAPES[escape])
                index += 1
            elif quote is not None:
                if ch == quote:
                    quote = None
                else:
                    word.append(ch)
            elif ch in "\"'":
                quote = ch
            elif ch in " \t\n":
                break
            else:
                word.append(ch)
        assert quote is None, f"unterminated quote in {value!r}"
        words.append("".join(word))


def specifiers(text: str) -> str:
    """systemd.unit(5) specifiers resolved: clarity may only use `%%`."""
    assert re.fullmatch(r"(?:[^%]|%%)*", text), f"a specifier systemd would expand: {text!r}"
    return text.replace("%%", "%")


def exec_variables(word: str) -> str:
    """One ExecStart= argument after systemd's variable substitution: `$$` is `$`;
    `${NAME}`, or `$NAME` as a whole word, would be expanded, which clarity must not ask for."""
    assert not re.fullmatch(r"\$[A-Za-z_][A-Za-z0-9_]*", word), f"expands: {word!r}"
    out: list[str] = []
    index = 0
    while index < len(word):
        if word.startswith("$$", index):
            out.append("$")
            index += 2
            continue
        assert not word.startswith("${", index), f"expands: {word!r}"
        out.append(word[index])
        index += 1
    return "".join(out)


@dataclass
class Service:
    """What systemd makes of a service: its command, environment and output file."""

    argv: list[str]
    env: dict[str, str]
    stdout: str
    stderr: str
    warnings: list[str] = field(default_factory=list)


def read_service(text: str) -> Service:
    """The reference reading of a [Service] section, after systemd.syntax(7)."""
    argv: list[str] = []
    env: dict[str, str] = {}
    outputs: dict[str, str] = {}
    for line in text.splitlines():
        assert not line.endswith("\\"), f"a line systemd would join to the next: {line!r}"
        key, sep, value = line.partition("=")
        if not sep or line.startswith(("#", ";", "[")):
            continue
        key, value = key.strip(), value.strip()
        if key == "ExecStart":
            words = [specifiers(word) for word in systemd_words(value, command=True)]
            argv = [words[0], *(exec_variables(word) for word in words[1:])]
        elif key == "Environment":
            for word in systemd_words(value):
                name, _, assigned = specifiers(word).partition("=")
                env[name] = assigned
        elif key in ("StandardOutput", "StandardError"):
            assert value.startswith("append:"), value
            outputs[key] = specifiers(value.removeprefix("append:"))
    return Service(argv, env, outputs["StandardOutput"], outputs["StandardError"])


def _systemd_binary() -> str | None:
    for candidate in ("/usr/lib/systemd/systemd", "/lib/systemd/systemd"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def _dumped_words(line: str) -> list[str]:
    """A `Command Line:` of systemd's dump: words, double-quoted with \\-escapes where needed."""
    words = []
    for quoted, bare in re.findall(r'"((?:[^"\\]|\\.)*)"|(\S+)', line):
        words.append(bare or re.sub(r"\\(.)", r"\1", quoted))
    return words


def systemd_reads(text: str, unit: str = "clarity-plans.service") -> Service | None:
    """What systemd's own unit parser makes of a service, from `systemd --test --user`'s
    dump, or None where this machine cannot run it (no systemd, too old to quote its
    dump, or root without setpriv to step down: test mode refuses root)."""
    systemd = _systemd_binary()
    if systemd is None:
        return None
    version = subprocess.run([systemd, "--version"], capture_output=True, text=True, check=False)
    found = re.match(r"systemd (\d+)", version.stdout)
    if found is None or int(found.group(1)) < 250:
        return None
    as_user: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            return None
        as_user = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    with tempfile.TemporaryDirectory(prefix="clarity-systemd-") as folder:
        root = Path(folder)
        (root / "units").mkdir()
        (root / "units" / unit).write_text(text, encoding="utf-8")
        (root / "runtime").mkdir(mode=0o700)
        if as_user:
            for path in (root, root / "units", root / "units" / unit, root / "runtime"):
                os.chown(path, 65534, 65534)
        done = subprocess.run(
            [*as_user, systemd, "--test", "--user", f"--unit={unit}", "--no-pager"],
            env={
                "PATH": "/usr/bin:/bin",
                "HOME": str(root),
                "XDG_RUNTIME_DIR": str(root / "runtime"),
                "SYSTEMD_UNIT_PATH": f"{root / 'units'}:",  # ours, then the usual places
                "SYSTEMD_LOG_TARGET": "console",
            },
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    if done.returncode != 0 or f"-> Unit {unit}:" not in done.stdout:
        return None
    dump = done.stdout.split(f"-> Unit {unit}:", 1)[1].split("\n\t-> Unit ", 1)[0]
    fields: dict[str, list[str]] = {}
    for line in dump.splitlines():
        key, sep, value = line.lstrip("\t").partition(": ")  # a value keeps its spaces
        if sep:
            fields.setdefault(key, []).append(value)
    argv = _dumped_words(fields["Command Line"][0])
    return Service(
        argv=[argv[0], *(exec_variables(word) for word in argv[1:])],
        env=dict(assignment.split("=", 1) for assignment in fields.get("Environment", [])),
        stdout=fields["StandardOutputFileToAppend"][0],
        stderr=fields["StandardErrorFileToAppend"][0],
        warnings=[line for line in done.stderr.splitlines() if unit in line],
    )


def write_recorder(path: Path, record: Path) -> Path:
    """A stand-in for clarity at path: it writes its argv and environment, byte for byte
    (hex), to record, and says so on stdout (which the scheduler appends to the log)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        "argv = [os.fsencode(word).hex() for word in sys.argv]\n"
        "env = {name.hex(): value.hex() for name, value in os.environb.items()}\n"
        f"with open({str(record)!r}, 'w') as out:\n"
        "    json.dump({'argv': argv, 'env': env}, out)\n"
        "print('clarity stand-in ran')\n",
        encoding="utf-8",
    )
    path.chmod(0o755)
    return path


def recorded(record: Path) -> tuple[list[bytes], dict[bytes, bytes]]:
    """The argv (with the stand-in's own path first) and environment it was started with."""
    data = json.loads(record.read_text())
    argv = [bytes.fromhex(word) for word in data["argv"]]
    env = {bytes.fromhex(name): bytes.fromhex(value) for name, value in data["env"].items()}
    return argv, env
