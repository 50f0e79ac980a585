"""Subcommands of the ``ptx2gcn`` command line, one module each.

Invariant: every module listed in ``ptx2gcn.cli.SUBCOMMANDS`` defines ``register(subparsers)`` that
adds exactly one subcommand whose handler is ``args.handler(args) -> int`` (the exit status:
0 success, 1 a PTX error / unsupported feature / failed check, 2 a usage error).
"""
