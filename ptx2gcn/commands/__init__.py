"""Subcommands of the ``ptx2gcn`` command line, one module each.

Invariant: every module listed in ``ptx2gcn.cli.SUBCOMMANDS`` defines ``register(subparsers)`` that
adds exactly one subcommand whose handler is ``args.handler(args) -> int`` (the exit status:
0 success, 1 a PTX error / unsupported feature / failed check, 2 a usage error). A subcommand
whose handler does one bounded piece of work and writes its output before returning may also set
``one_shot=True``: run as the process's own command, it then runs without the cyclic garbage
collector and leaves its objects to the process exit (``ptx2gcn.cli._run_one_shot``). Only
``compile`` does.
"""
