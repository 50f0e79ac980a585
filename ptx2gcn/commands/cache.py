"""``ptx2gcn cache stats|clear``: inspect or empty the persistent JIT cache.

Invariant: the command touches only the cache root from ``CacheConfig.from_environment()``
(``PTX2GCN_CACHE_DIR`` etc.); ``stats`` never modifies it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.runtime.cache.jit_cache import CacheConfig
from ptx2gcn.runtime.cache.store import DiskStore

_DESCRIPTION = (
    "The persistent cache of compiled code objects (PTX2GCN_CACHE_DIR, PTX2GCN_CACHE_MAX_BYTES, PTX2GCN_CACHE=0)."
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("cache", help="inspect or clear the JIT cache", description=_DESCRIPTION)
    actions = parser.add_subparsers(dest="cache_action", metavar="ACTION", required=True)
    stats = actions.add_parser("stats", help="print the number of entries and their total size")
    stats.add_argument("--json", action="store_true", help="print JSON")
    stats.set_defaults(handler=_stats)
    actions.add_parser("clear", help="delete every entry").set_defaults(handler=_clear)


def _stats(args: argparse.Namespace) -> int:
    config = CacheConfig.from_environment()
    infos = list(DiskStore(config.directory).entries())
    report = {
        "directory": str(config.directory),
        "enabled": config.enabled,
        "entries": len(infos),
        "bytes": sum(info.size for info in infos),
        "max_bytes": config.max_bytes,
    }
    if args.json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
        return 0
    width = max(len(name) for name in report)
    for name, value in report.items():
        sys.stdout.write(f"{name.ljust(width)}  {value}\n")
    return 0


def _clear(args: argparse.Namespace) -> int:
    config = CacheConfig.from_environment()
    try:
        removed = DiskStore(config.directory).clear()
    except OSError as error:
        raise Ptx2GcnError.at(None, f"{config.directory}: cannot clear the cache: {error}") from None
    sys.stdout.write(f"removed {removed} entr{'y' if removed == 1 else 'ies'} from {config.directory}\n")
    return 0
