"""`python -I -m clarity.hook`: the command every SessionStart hook clarity installed runs.

It is written into people's settings.json (and the plugin's launcher), so it stays at
this path whatever the package's layout; the hook itself is clarity/claude_code/hook.py.
"""

from clarity.claude_code.hook import main

if __name__ == "__main__":
    raise SystemExit(main())
