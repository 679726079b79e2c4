"""`python -m clarity`."""

from clarity.cli import main

raise SystemExit(main())
