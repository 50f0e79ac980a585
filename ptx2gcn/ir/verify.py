"""The IR verifier: every structural and typing invariant of ``ptx2gcn.ir``, checked in one place.

Invariant: ``verify(module)`` returns normally exactly when the module satisfies
- structure: non-empty blocks ending in their only terminator, an entry block without
  predecessors whose arguments match the function's ABI parameters, unique symbol names;
- use lists: every operand use is registered with its value and every registered use is live;
- types: operands, results and attributes as ``ptx2gcn.ir.opcodes.OPS`` and the per-op rules below say;
  successor arguments match the target block's arguments; calls and returns match signatures;
- dominance: every use (reachable) is dominated by its definition;
- address spaces: no stores into read-only spaces, atomics only on global/shared/generic memory,
  ``alloca`` only in local/param space, ``addr_of`` typed by the symbol's space;
- phases: ops listed as illegal for the requested phase are absent (in phase ``wave64`` this
  means no 32-lane warp collective is left: convergent collectives are allowed only where the
  phase allows them).
Otherwise it raises one ``Ptx2GcnError`` listing every problem found, each at its op's location.
"""

from __future__ import annotations

from ptx2gcn.diagnostics import Diagnostic, Ptx2GcnError, Severity, Span
from ptx2gcn.ir.cfg import DominatorTree, reachable_blocks
from ptx2gcn.ir.core import Attr, Block, Function, Module, Op, SymbolRef, Use, Value
from ptx2gcn.ir.opcodes import FLAG, INT, OPS, SYM, OpDef, describe_kind, kind_matches, resolve_kind
from ptx2gcn.ir.types import OPAQUE_TYPES, PTX_TYPES, AddrSpace, Type, ptx_type
from ptx2gcn.ir.verify_rules import RULES, sampler_problem
from ptx2gcn.ir.verify_rules import type_list as _types

# Ops that must be gone once a phase is reached. ``ssa`` (what the builder produces) allows every
# op in the table. ``wave64`` is what a wave64 lowering must establish: PTX's warp collectives
# (defined on 32-lane warps) are then only allowed as rewritten, wave-size-explicit code, so a
# warp-collective op left in that phase is an error. Later lowering passes add their phases here.
WARP_COLLECTIVES = frozenset({"shfl", "vote", "match", "redux", "activemask", "elect"})
PHASES: dict[str, frozenset[str]] = {
    "ssa": frozenset(),
    "wave64": WARP_COLLECTIVES,
}



class _Checker:
    def __init__(self, module: Module, phase: str) -> None:
        self.module = module
        self.phase = phase
        self.problems: list[Diagnostic] = []
        self.fn: Function | None = None
        if phase not in PHASES:
            raise ValueError(f"unknown verifier phase {phase!r} (known: {', '.join(PHASES)})")
        self.illegal = PHASES[phase]
        self.signatures: dict[_SignatureKey, list[str]] = {}
        """``signature_problems`` of each signature met so far."""

    def report(self, loc: Span | None, message: str) -> None:
        where = f"in @{self.fn.name}: " if self.fn is not None else ""
        self.problems.append(Diagnostic(Severity.ERROR, loc, f"invalid IR: {where}{message}"))

    def run(self) -> None:  # noqa: C901
        names: set[str] = set()
        for var in self.module.globals:
            if var.name in names:
                self.report(var.loc, f"symbol @{var.name} is defined twice")
            names.add(var.name)
        for var in self.module.globals:
            if var.ptx_type not in PTX_TYPES and var.ptx_type not in OPAQUE_TYPES:
                self.report(var.loc, f"@{var.name} has unknown type {var.ptx_type}")
                continue
            if var.ptx_type in OPAQUE_TYPES and (var.init is not None or var.space != AddrSpace.GLOBAL):
                self.report(var.loc, f"@{var.name}: {var.ptx_type} variables are .global handles (their "
                            "state is in sampler fields, not an initializer)")
                continue
            problem = sampler_problem(var.ptx_type, var.sampler)
            if problem:
                self.report(var.loc, f"@{var.name}: {problem}")
                continue
            for item in var.init or ():
                if isinstance(item, SymbolRef) and self.module.global_(item.name) is None and (
                        self.module.function(item.name) is None):
                    self.report(var.loc, f"@{var.name} is initialized with undefined @{item.name}")
                elif isinstance(item, SymbolRef) and ptx_type(var.ptx_type).bits < 32:
                    self.report(var.loc, f"@{var.name} holds {var.ptx_type}, too narrow for an address")
                elif isinstance(item, int) and not 0 <= item < (1 << max(ptx_type(var.ptx_type).bits, 8)):
                    self.report(var.loc, f"@{var.name}: {item} is not a {var.ptx_type} bit pattern")
        for fn in self.module.functions:
            if fn.name in names:
                self.report(fn.loc, f"symbol @{fn.name} is defined twice")
            names.add(fn.name)
        for fn in self.module.functions:
            self.fn = fn
            if fn.blocks:
                self.function(fn)
        self.fn = None

    def function(self, fn: Function) -> None:
        entry = fn.entry
        expected = [p.value_type for p in fn.abi_params]
        if [a.type for a in entry.args] != expected:
            self.report(fn.loc, f"entry block arguments ({_types(a.type for a in entry.args)}) do not "
                        f"match the parameters ({_types(expected)})")
        live_ops: set[Op] = set()
        for block in fn.blocks:
            if block.parent is not fn:
                self.report(fn.loc, f"block ^{block.label} does not record its function")
            self.block(block)
            live_ops.update(block.ops)
        if entry.predecessors():
            self.report(fn.loc, "the entry block has predecessors")
        self.use_lists(fn, live_ops)
        self.dominance(fn)

    def block(self, block: Block) -> None:
        if not block.ops:
            self.report(self.fn.loc if self.fn else None, f"block ^{block.label} is empty")
            return
        last = len(block.ops) - 1
        for index, op in enumerate(block.ops):
            if op.parent is not block:
                self.report(op.loc, f"'{op.name}' does not record its block")
            row = OPS.get(op.name)
            if row is None:
                self.report(op.loc, f"unknown op '{op.name}'")
                continue
            is_terminator = "terminator" in row.flags
            if is_terminator and index != last:
                self.report(op.loc, f"terminator '{op.name}' is not at the end of its block")
            if index == last and not is_terminator:
                self.report(op.loc, f"block ^{block.label} does not end in a terminator")
            if op.name in self.illegal:
                self.report(op.loc, f"'{op.name}' is not allowed in phase {self.phase}")
            self.op(op, row)

    def op(self, op: Op, row: OpDef) -> None:  # noqa: C901
        allowed_attrs = row.attrs
        for key, value in op.attrs.items():
            allowed = allowed_attrs.get(key)
            if allowed is None:
                self.report(op.loc, f"'{op.name}' has no attribute '{key}'")
            elif not _attr_ok(allowed, value):
                self.report(op.loc, f"'{op.name}' attribute {key} = {value!r} is not allowed")
        if row.required:
            for key in row.required - op.attrs.keys():
                self.report(op.loc, f"'{op.name}' needs attribute '{key}'")
        if op.successors or row.successors:
            self.successors(op, row)
        self.signature(op)
        rule = RULES.get(op.name)
        if rule is not None:
            message = rule(self, op)
            if message:
                self.report(op.loc, f"'{op.name}': {message}")

    def successors(self, op: Op, row: OpDef) -> None:
        if len(op.successors) != row.successors and not (row.successors < 0 and op.successors):
            count = "one or more" if row.successors < 0 else str(row.successors)
            self.report(op.loc, f"'{op.name}' needs {count} successors, has {len(op.successors)}")
        for succ in op.successors:
            got = [v.type for v in succ.arg_values]
            want = [a.type for a in succ.block.args]
            if got != want:
                self.report(op.loc, f"branch to ^{succ.block.label} passes ({_types(got)}), the block "
                            f"takes ({_types(want)})")
            if succ.block.parent is not self.fn:
                self.report(op.loc, f"branch to ^{succ.block.label}, a block of another function")
        if op.name == "cbr" and len(op.successors) == 2 and op.successors[0].block is op.successors[1].block:
            self.report(op.loc, "both targets of a conditional branch are the same block")

    def signature(self, op: Op) -> None:
        """Operand and result types against the op's row: judged once per distinct signature (the
        op name, the attributes ``resolve_kind`` reads, the operand and result types), since that is
        all the judgement depends on; a large kernel repeats a few hundred signatures 100k times."""
        attrs = op.attrs
        key: _SignatureKey = (op.name, attrs.get("type"), attrs.get("dtype"), attrs.get("stype"),
                              attrs.get("mode"), tuple([use.value.type for use in op.operands]),
                              tuple([result.type for result in op.results]))
        try:
            problems = self.signatures.get(key)
        except TypeError:  # an unhashable attribute value or type (a broken op): judged alone
            problems = signature_problems(op.name, attrs, list(key[5]), list(key[6]))
        if problems is None:
            problems = self.signatures[key] = signature_problems(op.name, attrs, list(key[5]), list(key[6]))
        for message in problems:
            self.report(op.loc, message)

    def use_lists(self, fn: Function, live_ops: set[Op]) -> None:
        for block in fn.blocks:
            values: list[Value] = list(block.args)
            for op in block.ops:
                values.extend(op.results)
                self.registered(op, op.operands)
                for succ in op.successors:
                    self.registered(op, succ.args)
            for value in values:
                for use in value.uses:
                    if use.owner not in live_ops or use.value is not value:
                        self.report(fn.loc, f"%{value.name} has a stale use by '{use.owner.name}'")

    def registered(self, op: Op, uses: list[Use]) -> None:
        """Report ``op`` once for each of its ``uses`` missing from its value's use list."""
        for use in uses:
            if use.owner is not op or use not in use.value.uses:
                self.report(op.loc, f"'{op.name}' has an operand missing from its value's use list")

    def dominance(self, fn: Function) -> None:  # noqa: C901
        reachable = reachable_blocks(fn)
        tree = DominatorTree(fn)
        # Where each value is defined: its block, and its op's index there (-1 for an argument).
        def_block: dict[Value, Block] = {}
        def_index: dict[Value, int] = {}
        for block in fn.blocks:
            for arg in block.args:
                def_block[arg] = block
                def_index[arg] = -1
            for index, op in enumerate(block.ops):
                for result in op.results:
                    def_block[result] = block
                    def_index[result] = index
        for block in fn.blocks:
            if block not in reachable:
                continue
            for index, op in enumerate(block.ops):
                for use in op.operands:
                    self.dominated(op, use.value, block, index, def_block, def_index, tree)
                for succ in op.successors:
                    for use in succ.args:
                        self.dominated(op, use.value, block, index, def_block, def_index, tree)

    def dominated(self, op: Op, value: Value, block: Block, index: int, def_block: dict[Value, Block],
                  def_index: dict[Value, int], tree: DominatorTree) -> None:
        """Report ``op`` (at ``index`` in ``block``) unless the definition of ``value`` dominates it."""
        where = def_block.get(value)
        if where is None:
            self.report(op.loc, f"'{op.name}' uses a value defined outside this function")
        elif not (def_index[value] < index if where is block else tree.dominates(where, block)):
            self.report(op.loc, f"'{op.name}' uses %{value.name or '?'} where its definition does not "
                        "dominate")


_SignatureKey = tuple[str, Attr | None, Attr | None, Attr | None, Attr | None, tuple[Type, ...], tuple[Type, ...]]
"""What ``signature_problems`` depends on: op name, the ``type``/``dtype``/``stype``/``mode``
attributes (the only ones ``resolve_kind`` reads), operand types, result types."""


def signature_problems(name: str, attrs: dict[str, Attr], operands: list[Type], results: list[Type]) -> list[str]:
    """What is wrong with the operand and result types of an op ``name`` with ``attrs`` ([] if nothing)."""
    row = OPS[name]
    result0 = results[0] if results else None
    return [*_match(name, attrs, "operand", operands, row.operands, result0),
            *_match(name, attrs, "result", results, row.results, result0)]


def _match(name: str, attrs: dict[str, Attr], what: str, types: list[Type], kinds: tuple[str, ...],
           result0: Type | None) -> list[str]:
    variadic = bool(kinds) and kinds[-1] == "*"
    fixed = kinds[:-1] if variadic else kinds
    if len(types) < len(fixed) or (not variadic and len(types) != len(fixed)):
        return [f"'{name}' takes {len(fixed)}{'+' if variadic else ''} {what}s, has {len(types)}"]
    problems: list[str] = []
    for index, (kind, t) in enumerate(zip(fixed, types)):
        exact = resolve_kind(kind, attrs, result0)
        ok = t == exact if exact is not None else kind_matches(kind, t)
        if exact is None and kind in ("T", "D", "S", "W", "M"):
            ok = False
        if not ok:
            problems.append(f"'{name}' {what} {index} is {t}, expected {describe_kind(kind, attrs, result0)}")
    return problems


def _dominates(def_at: tuple[Block, int], use_at: tuple[Block, int], tree: DominatorTree) -> bool:
    def_block, def_index = def_at
    use_block, use_index = use_at
    if def_block is use_block:
        return def_index < use_index
    return tree.dominates(def_block, use_block)


def _attr_ok(allowed: frozenset[str] | str, value: object) -> bool:
    if allowed == FLAG:
        return value is True
    if allowed == INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if allowed == SYM:
        return isinstance(value, str) and bool(value)
    return isinstance(value, str) and value in allowed


def verify(module: Module, phase: str = "ssa") -> None:
    """Raise ``Ptx2GcnError`` listing every invariant ``module`` breaks (see the module docstring)."""
    checker = _Checker(module, phase)
    checker.run()
    if checker.problems:
        raise Ptx2GcnError(checker.problems[:20])
