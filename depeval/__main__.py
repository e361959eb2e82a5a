"""``python -m depeval``: the same as the ``depeval`` console script."""

from depeval.cli import main

raise SystemExit(main())
