"""ptx2gcn's version, in the one module every stage may import (``ptx2gcn.__version__`` re-exports it).

Invariant: imports nothing, so reading the version never pulls in the package's lazy entry points
(stages importing ``ptx2gcn`` itself for it made the package ``__init__`` part of an import cycle).
"""

__version__ = "0.1.0"
