"""Launch case files (``ptx2gcn run CASE.toml``): one launch with its inputs and expected outputs.

Invariant: a case file is validated whole before anything runs (errors are located at the TOML
line, ``locate``); a run goes through the same module-load path as the driver API
(``ptx2gcn.runtime.driver.jit``), and outputs are compared bit-exactly unless the case gives a
tolerance (``check``).

Layout: ``case`` (load, validate, build the parameter buffer), ``locate`` (where a field is written),
``run`` (run one case on a backend), ``check`` (compare outputs with expected arrays).
"""
