"""The state of one CTA under interpretation: warps of 32 lanes with per-lane program counters and
registers, the CTA's shared memory, each thread's local memory, and operand reading and writing.

Each thread has a stack of ``Frame``s (the kernel's, then one per ``call``); registers are keyed by
call depth and name, so a callee's ``%r1`` is not its caller's.

Invariant: a register value is a bit pattern ``int`` below ``2**width`` (``bool`` for ``.pred``) or
``None`` where PTX leaves it unspecified (never written, or computed from something unspecified);
reading an operand never guesses one. A lane's ``status`` is one of ``RUN``, ``WAIT_WARP`` (at a
``.sync`` warp collective, waiting for its members), ``WAIT_CTA`` (at a CTA barrier) or ``EXITED``;
lanes past the end of a partial warp start ``EXITED``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ptx2gcn.diagnostics import UnsupportedError
from ptx2gcn.frontend import ast
from ptx2gcn.interp.memory import FRAME_BASE, LOCAL_STRIDE, WINDOWS, GlobalMemory, Region
from ptx2gcn.interp.program import Program, Variable, float_bits

WARP = 32
RUN, WAIT_WARP, WAIT_CTA, EXITED = range(4)
Value = int | bool | None

WIDTHS: dict[str, int] = {"pred": 1, "b128": 128, **{f"{k}{w}": w for k in "bsu" for w in (8, 16, 32, 64)},
                          "f16": 16, "bf16": 16, "f32": 32, "f64": 64, "tf32": 32, "f16x2": 32, "bf16x2": 32,
                          "u16x2": 32, "s16x2": 32, "e4m3x2": 16, "e5m2x2": 16}


def width(typ: str) -> int:
    return WIDTHS[typ]


@dataclass(frozen=True)
class Launch:
    """The geometry a kernel runs with and its memory: global allocations, parameters, module
    variables (``.global``/``.const`` by name), dynamic shared bytes."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    memory: GlobalMemory
    params: Region
    variables: dict[str, tuple[str, int]]
    """Module ``.global``/``.const`` variable -> (space, address in that space)."""
    const: Region
    functions: Callable[[str], Program]
    """The module's ``.func`` bodies by name (laid out on first call)."""
    dynamic_shared: int = 0


@dataclass
class Frame:
    """One activation of a kernel or ``.func`` in one thread: its ``.param`` variables (``region``) and
    where it was called from (``call_pc`` in the caller; -1 for the kernel)."""

    program: Program
    region: Region
    call_pc: int = -1
    call: ast.Instruction | None = None
    local_base: int = 0
    """Where the function's ``.local`` variables start in the thread's local memory (a stack)."""


@dataclass
class Warp:
    index: int
    threads: list[int]
    """Flat thread index in the CTA of each lane (lanes past the CTA's end: -1)."""
    pc: list[int]
    status: list[int]
    regs: dict[tuple[int, str], list[Value]] = field(default_factory=lambda: {})
    """(call depth, register name) -> the value in each lane."""
    carry: list[Value] = field(default_factory=lambda: [None] * WARP)
    """CC.CF of each lane (``add.cc`` ... ``addc``)."""

    def reg(self, depth: int, name: str) -> list[Value]:
        values = self.regs.get((depth, name))
        if values is None:
            values = self.regs[(depth, name)] = [None] * WARP
        return values


@dataclass
class Cta:
    program: Program
    launch: Launch
    ctaid: tuple[int, int, int]
    shared: Region
    locals: list[Region]
    warps: list[Warp]
    dynamic_base: int
    stacks: list[list[Frame]]
    """Each thread's call stack (the kernel's frame first)."""
    live: int = 0
    """Threads that have not exited (``exit`` keeps it current)."""

    def stack(self, warp: Warp, lane: int) -> list[Frame]:
        return self.stacks[warp.threads[lane]]

    def key(self, warp: Warp, lane: int) -> tuple[int, ...]:
        """Where a lane is: the call sites on its stack, then its program counter. Lanes with equal
        keys run together; the smallest key runs first (a callee before the code after its call)."""
        stack = self.stacks[warp.threads[lane]]
        if len(stack) == 1:
            return (warp.pc[lane],)
        return (*[frame.call_pc for frame in stack[1:]], warp.pc[lane])

    def context(self, warp: Warp, lanes: list[int]) -> tuple[Program, int]:
        """The function ``lanes`` (all at one key) execute, and their call depth."""
        stack = self.stacks[warp.threads[lanes[0]]]
        return stack[-1].program, len(stack)

    def exit(self, warp: Warp, lanes: list[int]) -> None:
        for lane in lanes:
            if warp.status[lane] != EXITED:
                warp.status[lane] = EXITED
                self.live -= 1

    @property
    def threads(self) -> int:
        x, y, z = self.launch.block
        return x * y * z

    def tid(self, flat: int) -> tuple[int, int, int]:
        x, y, _ = self.launch.block
        return flat % x, flat // x % y, flat // (x * y)

    # --- operands ---------------------------------------------------------------------------------

    def read(self, warp: Warp, op: ast.Operand, typ: str, lanes: list[int]) -> list[Value]:
        """The value of source ``op`` as type ``typ`` in each of ``lanes``."""
        negate = False
        while isinstance(op, ast.Not):  # !p, !!p ...: a predicate and its complement
            negate, op = not negate, op.operand
        values = self._value(warp, op, "pred" if negate else typ, lanes)
        return [None if v is None else not v for v in values] if negate else values

    def _value(self, warp: Warp, op: ast.Operand, typ: str, lanes: list[int]) -> list[Value]:
        if isinstance(op, ast.Register):
            program, depth = self.context(warp, lanes)
            if op.component is not None or op.name not in program.registers:
                return self._symbol_or_error(warp, op, typ, lanes)
            values = warp.reg(depth, op.name)
            if typ == "pred":
                return [values[lane] for lane in lanes]
            mask = (1 << width(typ)) - 1
            return [None if (v := values[lane]) is None else int(v) & mask for lane in lanes]
        if isinstance(op, ast.IntImmediate):
            return [immediate(op, typ)] * len(lanes)
        if isinstance(op, ast.FloatImmediate):
            return [float_immediate(op, typ)] * len(lanes)
        if isinstance(op, ast.SpecialRegister):
            return [special(self, warp, lane, op) for lane in lanes]
        if isinstance(op, ast.Symbol):
            return self._symbol_or_error(warp, op, typ, lanes)
        raise unsupported(op, f"operand {type(op).__name__} is not modelled by the reference interpreter")

    def _symbol_or_error(self, warp: Warp, op: ast.Register | ast.Symbol, typ: str, lanes: list[int]
                         ) -> list[Value]:
        if op.name == "WARP_SZ":
            return [WARP] * len(lanes)
        found = self.address_of(self.stack(warp, lanes[0])[-1], op.name, warp.pc[lanes[0]])
        if found is None:
            # The front end resolved every name, so this one is a function (or a texture): addresses
            # of functions, and calls through them, are not modelled.
            raise UnsupportedError.feature(op.span, "address of a function",
                                           f"{op.name}: not modelled by the reference interpreter")
        mask = (1 << width(typ)) - 1 if typ != "pred" else 1
        return [found[1] & mask] * len(lanes)

    def address_of(self, frame: Frame, name: str, pc: int) -> tuple[str, int] | None:
        """(state space, address in it) of a variable or parameter as ``frame``'s function sees it at
        ``pc`` (a frame's ``.param`` variables at ``FRAME_BASE`` and up, kernel parameters below)."""
        program = frame.program
        var: Variable | None = program.shared_variable(name, self.dynamic_base)
        if var is not None:
            return ".shared", var.offset
        var = program.local.get(name)
        if var is not None:
            return ".local", frame.local_base + var.offset
        var = program.params.get(name)
        if var is not None:
            return var.space, var.offset
        var = program.frame_variable(name, pc)
        if var is not None:
            return ".param", FRAME_BASE + var.offset
        return self.launch.variables.get(name)

    def write(self, warp: Warp, op: ast.Operand, typ: str, lanes: list[int], values: list[Value]) -> None:
        """Write ``values`` (bit patterns of type ``typ``) to destination ``op`` in ``lanes``: a wider
        register gets the value sign-extended for signed types, zero-extended otherwise (PTX ISA
        "Operand Size Exceeding Instruction-Type Size")."""
        if isinstance(op, ast.Sink):
            return
        program, depth = self.context(warp, lanes)
        if not isinstance(op, ast.Register) or op.component is not None or op.name not in program.registers:
            raise unsupported(op, "this destination is not modelled by the reference interpreter")
        reg_type = program.registers[op.name]
        target = warp.reg(depth, op.name)
        if reg_type == "pred":
            for lane, v in zip(lanes, values):
                target[lane] = None if v is None else bool(v)
            return
        bits, reg_bits = (width(typ) if typ != "pred" else 1), width(reg_type)
        sign = typ.startswith("s") and bits < reg_bits
        mask = (1 << reg_bits) - 1
        for lane, v in zip(lanes, values):
            if v is None:
                target[lane] = None
                continue
            v = int(v) & ((1 << bits) - 1)
            if sign and v >> (bits - 1):
                v -= 1 << bits
            target[lane] = v & mask

    def window(self, space: str, thread: int) -> int:
        """The generic address of offset 0 of ``space`` for flat thread ``thread``."""
        if space == ".local":
            return WINDOWS[space] + thread * LOCAL_STRIDE
        return WINDOWS.get(space, 0)


def immediate(op: ast.IntImmediate, typ: str) -> Value:
    if typ == "pred":
        return bool(op.value)
    if typ in ("f16", "f32", "f64"):
        return float_bits(ast.FloatImmediate(op.span, float(op.value), repr(float(op.value))), typ)
    return op.value & ((1 << width(typ)) - 1)


def float_immediate(op: ast.FloatImmediate, typ: str) -> Value:
    if typ in ("f16", "bf16", "f32", "f64"):
        return float_bits(op, typ)
    if width(typ) == op.width:  # mov.b32 %r, 0f3F800000: the bits
        return op.bits
    raise unsupported(op, f"a float constant as a .{typ} operand is not modelled by the reference interpreter")


def unsupported(node: ast.Operand | ast.Instruction, why: str) -> UnsupportedError:
    name = node.opcode if isinstance(node, ast.Instruction) else type(node).__name__
    return UnsupportedError.feature(node.span, name, why)


def _lanemask(compare: Callable[[int, int], bool]) -> Callable[[Cta, Warp, int], Value]:
    return lambda cta, warp, lane: sum(1 << i for i in range(WARP) if compare(i, lane))


_CLUSTER_ONE = {"cluster_ctarank": 0, "cluster_nctarank": 1, "cluster_ctaid": 0, "cluster_nctaid": 1}
_UNSPECIFIED = {"clock", "clock64", "clock_hi", "globaltimer", "globaltimer_lo", "globaltimer_hi", "smid",
                "nsmid", "gridid", "total_smem_size", "aggr_smem_size", "envreg", "pm0", "pm1", "pm2", "pm3",
                "pm4", "pm5", "pm6", "pm7", "pm0_64", "pm1_64", "pm2_64", "pm3_64", "pm4_64", "pm5_64",
                "pm6_64", "pm7_64", "reserved_smem_offset_begin", "reserved_smem_offset_end",
                "reserved_smem_offset_cap", "current_graph_exec"}
"""Special registers whose values PTX does not fix for a program (timers, SM numbers, counters)."""
_LANE: dict[str, Callable[[Cta, Warp, int], Value]] = {
    "laneid": lambda cta, warp, lane: lane,
    "warpid": lambda cta, warp, lane: warp.index,
    "nwarpid": lambda cta, warp, lane: 1024 // WARP,
    "lanemask_eq": _lanemask(lambda i, lane: i == lane), "lanemask_lt": _lanemask(lambda i, lane: i < lane),
    "lanemask_le": _lanemask(lambda i, lane: i <= lane), "lanemask_gt": _lanemask(lambda i, lane: i > lane),
    "lanemask_ge": _lanemask(lambda i, lane: i >= lane),
    "dynamic_smem_size": lambda cta, warp, lane: cta.launch.dynamic_shared,
}
_AXES = {"x": 0, "y": 1, "z": 2}


def special(cta: Cta, warp: Warp, lane: int, op: ast.SpecialRegister) -> Value:
    """A special register's value in one lane. ``%warpid`` is the warp's index in the CTA and
    ``%nwarpid`` 32 (the most warps a CTA of 1024 threads has): PTX leaves both to the
    implementation and only promises ``%warpid < %nwarpid``; the model takes these values, as ptx2gcn
    does (docs/mode-p.md). Clusters are one CTA (a launch without cluster dimensions)."""
    name = op.name.lstrip("%")
    axis = _AXES.get(op.component or "x")
    if name in ("tid", "ntid", "ctaid", "nctaid", "clusterid", "nclusterid") and axis is not None:
        if name == "tid":
            return cta.tid(warp.threads[lane])[axis]
        table = {"ntid": cta.launch.block, "ctaid": cta.ctaid, "nctaid": cta.launch.grid,
                 "clusterid": cta.ctaid, "nclusterid": cta.launch.grid}
        return table[name][axis]
    if name in _CLUSTER_ONE:
        return _CLUSTER_ONE[name]
    if name in _LANE:
        return _LANE[name](cta, warp, lane)
    if name in _UNSPECIFIED:
        return None
    raise UnsupportedError.feature(op.span, f"%{name}", "this special register is not modelled by the reference "
                                   "interpreter")
