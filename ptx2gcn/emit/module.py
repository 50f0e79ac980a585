"""IR module → LLVM IR text for ``amdgcn-amd-amdhsa``: globals, LDS, constants, functions.

Invariant: the text is complete LLVM IR (LLVM verifies it before code generation) in which
- ``.global`` variables are ``addrspace(1)`` definitions (zero- or bit-exactly initialised),
  ``.const`` variables ``addrspace(4)`` constants, both exported whatever their PTX linkage
  (protected, ``externally_initialized``: the host reads and writes them, as CUDA's
  ``cuModuleGetGlobal`` allows; ``.extern`` ones are a located error), static ``.shared`` variables ``addrspace(3)``
  (undef-initialised: LDS cannot be initialised; those an instruction names are in
  ``llvm.compiler.used``, so a kernel is allocated every ``.shared`` variable it references, as
  ptxas allocates them: LLVM would otherwise delete one that is stored to and never loaded, and
  ``CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES`` would differ from CUDA's), and ``extern .shared`` arrays zero-sized
  external ``addrspace(3)`` arrays, which the AMDGPU back end places as dynamic LDS after all
  static LDS (AMDGPUUsage "Dynamic LDS");
- kernels are ``amdgpu_kernel`` functions with the ABI of ``ptx2gcn.emit.kernel_abi``; device
  functions are ordinary functions (internal unless ``.visible``/``.weak``) whose results are
  followed by an ``i1`` "exited" when they may execute ``exit`` (``lower_control.thread_exit_abi``);
- every IR op is lowered by ``ptx2gcn.emit.lowerings``; an op it cannot lower is a located
  ``unsupported`` error, and any other failure is reported with the op's location.
"""

from __future__ import annotations

import re

from llvmlite import ir

from ptx2gcn.diagnostics import Diagnostic, Ptx2GcnError, Severity, UnsupportedError
from ptx2gcn.emit.context import FnContext, HostVisibleGlobal, ModuleContext
from ptx2gcn.emit.debug_locations import DebugLocations, module_flags_text
from ptx2gcn.emit.kernel_abi import byref_attribute, kernel_attributes, value_params
from ptx2gcn.emit.llvm_types import ADDRSPACE, I1, I8, llvm_type, pointer
from ptx2gcn.emit.lower_control import EXTERN_WHY, referenced_symbols, thread_exit_abi
from ptx2gcn.emit.lower_memory import entry_alloca
from ptx2gcn.emit.lowerings import lower_op
from ptx2gcn.emit.return_slots import indirect_values, return_slots
from ptx2gcn.emit.size_limits import check_block_sizes, check_loop_depth
from ptx2gcn.emit.static_shared import check_static_shared
from ptx2gcn.emit.target import TRIPLE
from ptx2gcn.ir.cfg import reverse_postorder
from ptx2gcn.ir.core import Function, Global, InitItem, Module, Op, Param
from ptx2gcn.ir.types import AddrSpace, Type, VectorType
from ptx2gcn.options import CompileOptions


class _Patches:
    """Text edits llvmlite cannot express: ``byref`` kernel arguments and string attributes."""

    def __init__(self) -> None:
        self.args: dict[str, str] = {}
        self.attrs: dict[str, str] = {}

    def apply(self, text: str) -> str:
        if not self.args and not self.attrs:
            return text
        out: list[str] = []
        for line in text.split("\n"):
            if line.startswith("define "):
                line = self._patch_define(line)
            out.append(line)
        return "\n".join(out)

    def _patch_define(self, line: str) -> str:
        match = re.search(r'@("(?:[^"\\]|\\.)*"|[\w.$]+)\(', line)
        name = match.group(1).strip('"') if match else ""
        for arg, attr in self.args.items():
            if arg.startswith(f"{name}\0"):
                arg_name = arg.split("\0", 1)[1]
                plain = f'ptr addrspace(4) %"{arg_name}"'
                line = line.replace(plain, f'ptr addrspace(4) {attr} %"{arg_name}"')
        if name in self.attrs:  # string attributes go before any function metadata
            head, sep, tail = line.partition(" !dbg ")
            line = f"{head} {self.attrs[name]}{sep}{tail}"
        return line


def _global_type(var: Global) -> ir.Type:
    elem = ir.IntType(var.elem_size * 8)
    return ir.ArrayType(elem, var.count) if var.count > 0 else elem


def _initializer(mc: ModuleContext, var: Global, t: ir.Type) -> ir.Constant:
    if var.init is None:
        return ir.Constant(t, None)
    if isinstance(t, ir.ArrayType):
        values = list(var.init) + [0] * (var.count - len(var.init))
        return ir.Constant(t, [_element(mc, var, t.element, v) for v in values])
    return _element(mc, var, t, var.init[0])


def _element(mc: ModuleContext, var: Global, t: ir.Type, item: InitItem) -> ir.Constant:
    """One initializer element: a bit pattern, or a symbol's address (+ offset) as an integer."""
    assert isinstance(t, ir.IntType)
    if isinstance(item, int):
        return ir.Constant(t, item & ((1 << t.width) - 1))
    target: ir.Value | None = mc.globals.get(item.name) or mc.functions.get(item.name)
    if target is None:
        raise UnsupportedError.feature(var.loc, f"initializer of {var.name}", f"unknown symbol {item.name}")
    if item.name in mc.functions and item.name not in mc.defined:
        raise UnsupportedError.feature(var.loc, f"initializer of {var.name}",
                                       f"{item.name} has no definition in this module: {EXTERN_WHY}")
    ptr_t = target.type
    assert isinstance(ptr_t, ir.PointerType)
    text = target.get_reference()
    address = f"{ptr_t} {text}"
    if item.offset:
        address = f"ptr addrspace({ptr_t.addrspace}) getelementptr (i8, {address}, i64 {item.offset})"
    if item.generic and ptr_t.addrspace != 0:
        address = f"ptr addrspacecast ({address} to ptr)"
    return ir.FormattedConstant(t, f"ptrtoint ({address} to {t})")


def _declare_global(mc: ModuleContext, var: Global, pending: list[tuple[ir.GlobalVariable, Global, ir.Type]],
                    referenced: set[str]) -> None:
    if var.space not in (AddrSpace.GLOBAL, AddrSpace.CONST, AddrSpace.SHARED):
        raise UnsupportedError.feature(var.loc, f".{var.space.value} variable {var.name}",
                                       "module-scope variables in this state space are not lowered yet")
    addrspace = ADDRSPACE[var.space]
    if var.count < 0:  # extern .shared: dynamic LDS
        gv = ir.GlobalVariable(mc.module, ir.ArrayType(ir.IntType(8), 0), var.name, addrspace)
        gv.linkage = "external"
    elif var.space is AddrSpace.SHARED:
        t = _global_type(var)
        gv = ir.GlobalVariable(mc.module, t, var.name, addrspace)
        gv.initializer = ir.Constant(t, ir.Undefined)
        gv.linkage = "internal"
    elif var.linkage == "extern":
        if var.name not in referenced:  # a declaration nothing uses needs no definition (as in ptxas)
            return
        raise UnsupportedError.feature(var.loc, f".extern variable {var.name}", EXTERN_WHY)
    else:
        t = _global_type(var)
        gv = HostVisibleGlobal(mc.module, t, var.name, addrspace)
        pending.append((gv, var, t))
        gv.global_constant = var.space is AddrSpace.CONST
        gv.linkage = "weak" if var.linkage in ("weak", "common") else ""
    gv.align = max(var.align, 1)
    gv.type = pointer(addrspace)  # references print as opaque ``ptr addrspace(N)``
    mc.globals[var.name] = gv


def _value_type(param: Param) -> Type:
    """The IR type a parameter travels as (``.reg .v2 .u32 x`` is a two-element vector)."""
    if param.space not in ("kparam", "param") and param.count > 0:
        return VectorType(param.type, param.count)
    return param.value_type


def _declare_function(mc: ModuleContext, fn: Function, patches: _Patches) -> None:
    kernel = fn.kind == "kernel"
    slots = {slot.index: slot for slot in mc.return_slots.get(fn.name, [])}
    values = value_params(fn) if kernel else {}
    kept = [(i, p) for i, p in enumerate(fn.abi_params) if i not in slots or slots[i].passed_in]
    params = [slots[i].type if i in slots else ir.IntType(8 * values[i]) if i in values
              else llvm_type(_value_type(p)) for i, p in kept]
    rets = ([slot.type for slot in slots.values()] + [llvm_type(_value_type(p)) for p in fn.reg_returns]
            + ([I1] if fn.name in mc.exit_flagged else []))
    ret_t: ir.Type = ir.VoidType() if not rets else rets[0] if len(rets) == 1 else ir.LiteralStructType(rets)
    llfn = ir.Function(mc.module, ir.FunctionType(ret_t, params), fn.name)
    # Every function may execute warp collectives (directly or through calls), so, as clang does for
    # CUDA/HIP, all are convergent: LLVM must not make a call or a collective control dependent on
    # more values than the PTX did (docs/mode-p.md, "Geometry").
    llfn.attributes.add("convergent")
    for index, (arg, (_, param)) in enumerate(zip(llfn.args, kept)):
        arg.name = f"p{index}"
        if kernel and index not in values:
            patches.args[f"{fn.name}\0p{index}"] = byref_attribute(param)
    if kernel:
        llfn.calling_convention = "amdgpu_kernel"
        patches.attrs[fn.name] = " ".join(f'"{k}"="{v}"' for k, v in kernel_attributes(fn, mc.max_registers).items())
    elif not fn.is_declaration and fn.linkage not in ("visible", "weak"):
        llfn.linkage = "internal"
    mc.functions[fn.name] = llfn
    if not fn.is_declaration:
        mc.defined.add(fn.name)


def _lower_function(mc: ModuleContext, fn: Function, debug: DebugLocations | None) -> None:
    llfn = mc.functions[fn.name]
    if debug is not None:
        debug.enter(llfn, fn.loc.line if fn.loc is not None else 0)
    entry = llfn.append_basic_block("allocas")
    cx = FnContext(mc, fn, llfn, ir.IRBuilder(entry), entry_allocas=entry, is_kernel=fn.kind == "kernel")
    order = reverse_postorder(fn)
    for block in order:
        cx.blocks[block] = llfn.append_basic_block(block.label or "bb")
    cx.builder.branch(cx.blocks[fn.entry])
    _bind_arguments(cx, entry)
    for block in order:
        cx.builder.position_at_end(cx.blocks[block])
        if block is not fn.entry:
            cx.phis[block] = [cx.builder.phi(llvm_type(a.type)) for a in block.args]
            cx.values.update(zip(block.args, cx.phis[block]))
        else:
            cx.phis[block] = []
    for block in order:
        cx.builder.position_at_end(cx.blocks[block])
        for op in block.ops:
            if debug is not None:
                debug.at(cx.builder, op.loc)
            _lower_located(cx, op)


def _bind_arguments(cx: FnContext, entry: ir.Block) -> None:
    """The LLVM values of the function's entry-block arguments: its LLVM arguments, or for a
    ``.param`` slot passed in registers (``return_slots``) a private slot of its own, which a
    ``passed_in`` slot's argument initialises (in ``entry``, before its branch)."""
    slots = {slot.index: slot for slot in cx.mod.return_slots.get(cx.fn.name, [])}
    llargs = iter(cx.llfn.args)
    for index, arg in enumerate(cx.fn.entry.args):
        slot = slots.get(index)
        if slot is None:
            cx.values[arg] = next(llargs)
            continue
        alloca = entry_alloca(cx, ir.ArrayType(I8, slot.size), slot.align)
        cx.slot_allocas.append((alloca, slot))
        cx.values[arg] = alloca
        if slot.passed_in:  # copy in: the caller's value of the slot
            store = ir.IRBuilder(entry)
            store.position_before(entry.terminator)
            store.store(next(llargs), alloca, align=slot.align)


def _lower_located(cx: FnContext, op: Op) -> None:
    try:
        lower_op(cx, op)
    except Ptx2GcnError:
        raise
    except Exception as error:  # a bug in a lowering: report it at the PTX line, never a traceback
        message = f"internal error while lowering '{op.name}': {type(error).__name__}: {error}"
        raise Ptx2GcnError(Diagnostic(Severity.ERROR, op.loc, message)) from error


def emit_llvm(module: Module, options: CompileOptions | None = None) -> str:
    """LLVM IR text for ``module`` for ``options.arch`` (only ``options.kernels``, when given; their
    callees stay).

    ``options.locations``: attach each op's PTX location as ``!dbg`` (``ptx2gcn.emit.debug_locations``).
    ``options.mma``: ``--mma`` (``ptx2gcn.emit.lower_mma_mfma``).
    ``options.max_registers``: every kernel's register ceiling (``ptx2gcn.emit.kernel_abi``).
    """
    options = options or CompileOptions()
    arch, kernels, locations = options.arch, options.kernels, options.locations
    check_block_sizes(module)
    check_loop_depth(module)
    wanted = set(kernels) if kernels is not None else None
    mc = ModuleContext(ir.Module(name=module.source), arch, options.mma, max_registers=options.max_registers)
    mc.module.triple = TRIPLE
    patches = _Patches()
    debug = DebugLocations(mc.module, module.source) if locations else None
    pending: list[tuple[ir.GlobalVariable, Global, ir.Type]] = []
    referenced = referenced_symbols(module)
    check_static_shared(module, wanted, referenced)
    mc.exit_flagged, mc.indirect_exit_flag = thread_exit_abi(module, referenced)
    for var in module.globals:
        _declare_global(mc, var, pending, referenced)
    chosen = [fn for fn in module.functions
              if fn.kind != "kernel" or wanted is None or fn.name in wanted]
    if wanted is not None:
        missing = wanted - {fn.name for fn in chosen if fn.kind == "kernel"}
        if missing:
            raise Ptx2GcnError(Diagnostic(Severity.ERROR, None,
                                          f"no kernel named {', '.join(sorted(missing))} in {module.source}"))
    mc.indirect_values = indirect_values(module, referenced)
    for fn in chosen:
        mc.return_slots[fn.name] = return_slots(fn, referenced, mc.indirect_values)
        _declare_function(mc, fn, patches)
    for gv, var, t in pending:  # after every symbol exists: initializers may hold addresses
        gv.initializer = _initializer(mc, var, t)
    for fn in chosen:
        if not fn.is_declaration:
            _lower_function(mc, fn, debug)
    _keep_shared(mc, module, referenced)
    text = patches.apply(str(mc.module))
    _dispose(mc.module)
    return text + module_flags_text() if debug is not None else text


def _keep_shared(mc: ModuleContext, module: Module, referenced: set[str]) -> None:
    """``llvm.compiler.used`` holds the static ``.shared`` variables an instruction names (the AMDGPU
    back end still allocates each to the kernels that reach it, and drops it from the list)."""
    kept = [mc.globals[var.name] for var in module.globals
            if var.space is AddrSpace.SHARED and var.count >= 0 and var.name in referenced and var.name in mc.globals]
    if not kept:
        return
    array = ir.ArrayType(pointer(ADDRSPACE[AddrSpace.SHARED]), len(kept))
    used = ir.GlobalVariable(mc.module, array, "llvm.compiler.used")
    used.linkage = "appending"
    used.section = "llvm.metadata"
    used.initializer = ir.Constant(array, kept)


def _dispose(module: ir.Module) -> None:
    """Break a printed llvmlite module's reference cycles so that reference counting frees it on return.

    llvmlite's values point back to their blocks, functions and module, so a module is one big
    reference cycle that only the cyclic collector reclaims, after the compile (collection is paused
    meanwhile: ``ptx2gcn.compile_gc``). On the 104k-line corpus kernel, the collection after
    ``compile()`` freed 2.13M objects in 0.83-0.94 s CPU; with the module's ~400k objects freed
    here instead (~0.05 s), it frees 1.72M in 0.65-0.69 s. What stays for the collector: each
    function with its arguments, and with ``locations`` llvmlite's metadata cache.
    """
    for function in module.functions:
        for block in function.blocks:
            for instruction in block.instructions:
                if isinstance(instruction, ir.PhiInstr):  # a loop's phi reaches itself through operands
                    instruction.incomings.clear()
            block.instructions.clear()
            block.terminator = None
        function.blocks.clear()
    module.globals.clear()
    module.metadata.clear()
    module.namedmetadata.clear()
