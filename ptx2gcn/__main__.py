"""``python -m ptx2gcn`` is the ``ptx2gcn`` command."""

from ptx2gcn.cli import main

raise SystemExit(main())
