"""State kept beside the driver's own tables by the modules that add calls to it (graphs, capture,
memory pools, user objects), without widening ``state.Driver``.

``PerDriver(factory)`` is a callable returning the object ``factory()`` made for the current
``driver()``; ``state.reset`` starts a new driver, so each test sees fresh tables, and a dropped
driver's tables go with it (weak keys).

Invariant: one object per live ``Driver``, created under the driver's lock.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

from ptx2gcn.runtime.driver.state import Driver, driver

T = TypeVar("T")


class PerDriver(Generic[T]):
    def __init__(self, factory: Callable[[], T]) -> None:
        self._factory = factory
        self._made: weakref.WeakKeyDictionary[Driver, T] = weakref.WeakKeyDictionary()

    def __call__(self) -> T:
        state = driver()
        with state.lock:
            found = self._made.get(state)
            if found is None:
                found = self._made[state] = self._factory()
            return found
