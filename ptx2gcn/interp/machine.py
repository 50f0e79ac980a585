"""Launching a kernel on the interpreter: CTAs one after another, warps of a CTA in turn, the lanes of
a warp by min-PC scheduling.

Invariant: each step executes one instruction for the lanes of a warp that are runnable and at the
lowest program counter (so lanes that diverged at a branch reconverge where their paths meet, and a
guarded instruction runs only where its guard holds); warps take turns of at most ``TURN`` steps, so
a warp spinning on memory another warp writes still lets that warp run. A launch either finishes
(every thread exited) or raises a located ``Ptx2GcnError``: an instruction the interpreter does not
model (``UnsupportedError``), a guard or branch on an unspecified value, a memory fault, a deadlock
(threads waiting at barriers or collectives that can never complete), or more than ``max_steps``
steps. Nothing recurses on the kernel's size.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ptx2gcn.diagnostics import Ptx2GcnError
from ptx2gcn.frontend import ast, parse_ptx
from ptx2gcn.interp import memops
from ptx2gcn.interp.alu import COLLECTIVES, arithmetic, collective
from ptx2gcn.interp.calls import call, ret
from ptx2gcn.interp.memory import GlobalMemory, Region
from ptx2gcn.interp.program import TYPE_BYTES, Program, initial_bytes
from ptx2gcn.interp.state import EXITED, RUN, WAIT_WARP, WARP, Cta, Frame, Launch, Warp, unsupported
from ptx2gcn.interp.sync import Barrier, barrier, fire_collective, is_warp_sync, release
from ptx2gcn.reference import opcodes

TURN = 2000
MAX_STEPS = 2_000_000
Handler = Callable[[Cta, Warp, ast.Instruction, list[int]], None]
_NO_EFFECT = frozenset({"membar", "fence", "prefetch", "prefetchu", "nanosleep", "pmevent"})
"""Instructions with no effect on an interpreter that is sequentially consistent and has no caches."""
_MEMORY: dict[str, Handler] = {
    "mov": memops.move, "ld": memops.load, "ldu": memops.load, "st": memops.store, "atom": memops.atomic,
    "red": memops.atomic, "cvta": memops.cvta, "isspacep": memops.isspacep, "activemask": collective,
}
_ARITHMETIC = frozenset(opcodes()) - COLLECTIVES - {"atom", "red"}


class Machine:
    """A PTX module loaded for interpretation, with its device memory."""

    def __init__(self, ptx: str | ast.Module, name: str = "<input>") -> None:
        self.module = parse_ptx(ptx, name) if isinstance(ptx, str) else ptx
        self.memory = GlobalMemory()
        self.variables: dict[str, tuple[str, int]] = {}
        self.const = Region(0, bytearray(), bytearray())
        for decl in self.module.variables:
            if decl.state_space in (".global", ".const"):
                self._lay_out(decl)
        self._functions: dict[str, Program] = {}

    def _lay_out(self, decl: ast.VariableDecl) -> None:
        """A module ``.global`` variable in device memory, a ``.const`` one in the constant bank."""
        typ = decl.type.lstrip(".")
        element = TYPE_BYTES.get(typ, 0) * (int(decl.vector[2:]) if decl.vector else 1)
        for d in decl.declarators:
            count = 1
            for n in d.dims:
                count *= n or 0
            size = element * count
            found = initial_bytes(d, typ, size) if element else None
            data, defined = found if found is not None else (bytes(size), b"\1" * size)  # PTX: zero by default
            if decl.state_space == ".global":
                self.variables[d.name] = (".global", self.memory.allocate(data, defined))
                continue
            align = max(decl.align or element or 1, 1)
            offset = -(-len(self.const.data) // align) * align
            self.const.data += bytes(offset - len(self.const.data)) + data
            self.const.defined += b"\1" * (offset - len(self.const.defined)) + defined
            self.variables[d.name] = (".const", offset)

    def _function(self, name: str) -> Program:
        program = self._functions.get(name)
        if program is None:
            program = self._functions[name] = Program.of(self.module, name, kernel=False)
        return program

    def allocate(self, data: bytes) -> int:
        """A device buffer holding ``data``; returns its address."""
        return self.memory.allocate(data)

    def read(self, address: int, size: int) -> tuple[bytes, bytes]:
        """``size`` bytes at ``address`` and, per byte, 1 where PTX fixes its value."""
        return self.memory.read(address, size)

    def launch(self, kernel: str, grid: tuple[int, int, int], block: tuple[int, int, int],
               params: Sequence[bytes], dynamic_shared: int = 0, max_steps: int = MAX_STEPS) -> None:
        """Run ``kernel`` over the grid; ``params`` holds each parameter's bytes, in order."""
        program = Program.of(self.module, kernel)
        if len(params) != len(program.params):
            raise Ptx2GcnError.at(program.function.span, f"reference interpreter: {kernel} takes "
                                  f"{len(program.params)} parameters, {len(params)} given")
        buffer = bytearray(program.param_size)
        for var, data in zip(program.params.values(), params):
            buffer[var.offset:var.offset + len(data[:var.size])] = data[:var.size]
        launch = Launch(grid, block, self.memory, Region.of(0, bytes(buffer)), self.variables, self.const,
                        self._function, dynamic_shared)
        steps = [0, max_steps]
        for z in range(grid[2]):
            for y in range(grid[1]):
                for x in range(grid[0]):
                    _run_cta(_cta(program, launch, (x, y, z)), steps)


def _cta(program: Program, launch: Launch, ctaid: tuple[int, int, int]) -> Cta:
    x, y, z = launch.block
    threads = x * y * z
    dynamic_base = -(-program.shared_size // 16) * 16
    shared = Region.of(0, bytes(dynamic_base + launch.dynamic_shared), defined=False)
    warps = []
    for w in range(-(-threads // WARP)):
        ids = [w * WARP + lane if w * WARP + lane < threads else -1 for lane in range(WARP)]
        warps.append(Warp(w, ids, [0] * WARP, [RUN if t >= 0 else EXITED for t in ids]))
    locals_ = [Region.of(0, bytes(program.local_size), defined=False) for _ in range(threads)]
    stacks = [[Frame(program, Region.of(0, bytes(program.frame_size), defined=False))] for _ in range(threads)]
    return Cta(program, launch, ctaid, shared, locals_, warps, dynamic_base, stacks, threads)


def _run_cta(cta: Cta, steps: list[int]) -> None:
    barriers: dict[int, Barrier] = {}
    while cta.live:
        progress = False
        for warp in cta.warps:
            for _ in range(TURN):
                if not _step(cta, warp, barriers):
                    break
                progress = True
                steps[0] += 1
                if steps[0] > steps[1]:
                    raise Ptx2GcnError.at(cta.program.function.span, f"reference interpreter: more than {steps[1]:,} "
                                          "steps (an endless loop?)")
                if barriers:
                    release(cta, barriers)
        if barriers and release(cta, barriers):
            progress = True
        if not progress:
            raise _deadlock(cta)


def _step(cta: Cta, warp: Warp, barriers: dict[int, Barrier]) -> bool:
    """Execute one instruction for the warp's runnable lanes at the lowest ``Cta.key``; False when
    none can run."""
    if fire_collective(cta, warp):
        return True
    keys = {lane: cta.key(warp, lane) for lane in range(WARP) if warp.status[lane] == RUN}
    if not keys:
        return False
    first = min(keys.values())
    lanes = [lane for lane, key in keys.items() if key == first]
    code = cta.context(warp, lanes)[0].code
    if first[-1] >= len(code):  # fell off the end of the function: return
        _ret(cta, warp, None, lanes)
        return True
    ins = code[first[-1]]
    if ins.guard is not None:
        guard = cta.read(warp, ins.guard.predicate, "pred", lanes)
        if any(g is None for g in guard):
            raise Ptx2GcnError.at(ins.span, "reference interpreter: the guard is a predicate PTX leaves unspecified")
        taken = [lane for lane, g in zip(lanes, guard) if bool(g) != ins.guard.negated]
        for lane in lanes:
            if lane not in taken:
                warp.pc[lane] += 1
        lanes = taken
        if not lanes:
            return True
    _execute(cta, warp, ins, lanes, barriers)
    return True


def _exit(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int]) -> None:
    cta.exit(warp, lanes)


def _ret(cta: Cta, warp: Warp, ins: ast.Instruction | None, lanes: list[int]) -> None:
    """``ret`` (or the end of the body): back to the caller, or the end of the thread in a kernel."""
    if len(cta.stack(warp, lanes[0])) > 1:
        ret(cta, warp, lanes)
    else:
        cta.exit(warp, lanes)


def _branch(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int]) -> None:
    target = ins.operands[0]
    labels = cta.context(warp, lanes)[0].labels
    if not isinstance(target, ast.Label | ast.Symbol | ast.Register) or target.name not in labels:
        raise unsupported(ins, "this branch target is not modelled by the reference interpreter")
    for lane in lanes:
        warp.pc[lane] = labels[target.name]


_CONTROL: dict[str, Handler] = {
    "ret": _ret, "exit": _exit, "bra": _branch, "call": call}
"""Instructions that set the program counter (or end the thread) themselves."""


def _execute(cta: Cta, warp: Warp, ins: ast.Instruction, lanes: list[int], barriers: dict[int, Barrier]) -> None:
    op = ins.opcode
    if is_warp_sync(ins):
        for lane in lanes:
            warp.status[lane] = WAIT_WARP
        return
    if op in ("bar", "barrier"):
        barrier(cta, warp, ins, lanes, barriers)
        return
    control = _CONTROL.get(op)
    if control is not None:
        control(cta, warp, ins, lanes)
        return
    handler = _MEMORY.get(op) or (arithmetic if op in _ARITHMETIC else None)
    if handler is not None:
        handler(cta, warp, ins, lanes)
    elif op not in _NO_EFFECT:
        raise unsupported(ins, "not modelled by the reference interpreter (ptx2gcn.interp)")
    for lane in lanes:
        warp.pc[lane] += 1


def _deadlock(cta: Cta) -> Ptx2GcnError:
    waiting = sorted({(cta.key(warp, lane), id(cta.context(warp, [lane])[0])): (warp, lane)
                      for warp in cta.warps for lane in range(WARP) if warp.status[lane] != EXITED}.items())
    places = []
    for (key, _), (warp, lane) in waiting[:6]:
        code = cta.context(warp, [lane])[0].code
        if key[-1] < len(code):
            places.append(code[key[-1]])
    return Ptx2GcnError.at(places[0].span if places else cta.program.function.span,
                           f"reference interpreter: deadlock in CTA {cta.ctaid}: threads wait forever at "
                           + ", ".join(f"line {ins.span.line} ({ins.opcode})" for ins in places))
