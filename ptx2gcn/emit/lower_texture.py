"""Lowering of PTX texture and surface ops (``tex``, ``tld4``, ``txq``, ``suld``, ``sust``) to global
loads and arithmetic over ptx2gcn's descriptor (``texture_descriptor``).

Invariant: a handle is the address of a descriptor (a ``.texref``/``.surfref`` variable named as the
handle holds that address: ``_descriptor`` loads it); nothing about the resource is known at compile
time, so format, address modes and filtering are read from it at run time. The sampling follows the
CUDA Programming Guide's "Texture Fetching" appendix exactly:

- normalised coordinates: wrap uses ``frac(x)``, mirror ``frac(x)`` or ``1 - frac(x)`` by the parity
  of ``floor(x)``; then ``x * N``;
- point filtering reads ``T[floor(x)]``; linear reads ``T[i]``, ``T[i+1]`` with ``i = floor(x - 0.5)``
  and weight ``alpha = frac(x - 0.5)`` in 9-bit fixed point (8 fraction bits: rounded to 1/256),
  ``(1 - alpha) T[i] + alpha T[i+1]`` per axis (a zero weight leaves its texel out, so a NaN next to
  the footprint does not leak in);
- each integer texel index is addressed by its axis's mode: clamp to ``[0, N-1]``, wrap modulo N,
  mirror with period 2N, border gives the descriptor's border colour; a layer index is clamped;
- a texel's channels are read as stored (unsigned/signed integers, half, float); integer channels
  read as float are normalised (unsigned ``v / (2^n - 1)``, signed ``max(v / (2^(n-1) - 1), -1)``)
  when the descriptor says so; missing channels read as ``(0, 0, 0, 1)``;
- integer results (``tex.s32``/``.u32``) and integer coordinates always use point sampling at the
  integer index; ``tld4`` gathers component ``comp`` of the 2x2 linear footprint in the order
  ``T[i,j+1], T[i+1,j+1], T[i+1,j], T[i,j]`` (PTX ISA "tld4": counter-clockwise from the lower left).

Resources have one mip level (the driver refuses mipmapped arrays), so ``tex.level``/``.grad`` read
level 0, which is what CUDA returns for a one-level texture. Cube maps, multisample geometries,
independent samplers, half-precision results and queries of the channel format are a located
``unsupported``. Surfaces (``suld.b``/``sust.b``): the x coordinate is in bytes, an access of
``vec * size`` bytes must lie inside the row; out of range, ``.trap`` traps, ``.clamp`` moves the
access to the nearest position inside, ``.zero`` loads 0 and drops the store.
"""

from __future__ import annotations

from collections.abc import Sequence

from llvmlite import ir

from ptx2gcn.emit.context import FnContext, Lowering
from ptx2gcn.emit.llvm_types import FLOAT, HALF, I1, I16, I32, I64, pointer
from ptx2gcn.emit.texture_descriptor import BORDER, CLAMP, KIND_FLOAT, KIND_SIGNED, LINEAR, MIRROR, OFFSET, WRAP
from ptx2gcn.ir.core import Op, OpResult

TEXEL_FUNCTION = "__ptx2gcn_texel"
V4 = ir.VectorType(I32, 4)
_GLOBAL = 1
_AXES = {"1d": 1, "2d": 2, "3d": 3, "a1d": 1, "a2d": 2}
_UNSUPPORTED_GEOMETRY = {"cube": "cube maps", "acube": "cube map arrays", "2dms": "multisample textures",
                         "a2dms": "multisample texture arrays"}


def _field(b: ir.IRBuilder, desc: ir.Value, name: str, typ: ir.Type = I32, index: int = 0) -> ir.Value:
    base = b.inttoptr(desc, pointer(_GLOBAL))
    size = typ.width // 8 if isinstance(typ, ir.IntType) else 4
    at = b.gep(base, [ir.Constant(I64, OFFSET[name] + index * size)], source_etype=ir.IntType(8))
    return b.load(at, typ=typ, align=min(size, 8))


def _i32(value: int) -> ir.Constant:
    return ir.Constant(I32, value)


def _f32(value: float) -> ir.Constant:
    return ir.Constant(FLOAT, value)


def _umin(b: ir.IRBuilder, a: ir.Value, c: ir.Value) -> ir.Value:
    return b.select(b.icmp_unsigned("<", a, c), a, c)


def _address(b: ir.IRBuilder, c: ir.Value, n: ir.Value, mode: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(index, inside) of integer texel coordinate ``c`` on an axis of ``n`` texels in ``mode``."""
    last = b.sub(n, _i32(1))
    clamped = b.select(b.icmp_signed("<", c, _i32(0)), _i32(0), b.select(b.icmp_signed(">", c, last), last, c))
    r = b.srem(c, n)
    wrapped = b.select(b.icmp_signed("<", r, _i32(0)), b.add(r, n), r)
    period = b.add(n, n)
    m = b.srem(c, period)
    m = b.select(b.icmp_signed("<", m, _i32(0)), b.add(m, period), m)
    mirrored = b.select(b.icmp_signed("<", m, n), m, b.sub(b.sub(period, _i32(1)), m))
    index = b.select(b.icmp_unsigned("==", mode, _i32(WRAP)), wrapped,
                     b.select(b.icmp_unsigned("==", mode, _i32(MIRROR)), mirrored,
                              b.select(b.icmp_unsigned("==", mode, _i32(BORDER)), c, clamped)))
    outside = b.and_(b.icmp_unsigned("==", mode, _i32(BORDER)), b.icmp_unsigned(">=", c, n))
    return index, b.not_(outside)


def texel_function(module: ir.Module) -> ir.Function:
    """``<4 x i32> __ptx2gcn_texel(i64 desc, i32 x, i32 y, i32 z, i1 want_float)``: texel (x, y, z)
    (z a layer index on a layered resource) addressed by the descriptor's modes, as four 32-bit
    results: float bits (normalised or converted per the module docstring) or the integer channels."""
    found = module.globals.get(TEXEL_FUNCTION)
    if isinstance(found, ir.Function):
        return found
    fn = ir.Function(module, ir.FunctionType(V4, [I64, I32, I32, I32, I1]), TEXEL_FUNCTION)
    fn.linkage = "internal"
    fn.attributes.add("nounwind")
    _build_texel(fn)
    return fn


def _build_texel(fn: ir.Function) -> None:
    desc, x, y, z, want_float = fn.args
    entry, border, fetch, merge = (fn.append_basic_block(n) for n in ("entry", "border", "fetch", "merge"))
    b = ir.IRBuilder(entry)
    sizes = [_field(b, desc, n) for n in ("width", "height", "depth")]
    layered = b.icmp_unsigned("!=", _field(b, desc, "layered"), _i32(0))
    modes = [_field(b, desc, f"mode{i}") for i in range(3)]
    modes[2] = b.select(layered, _i32(CLAMP), modes[2])
    inside = ir.Constant(I1, 1)
    index = []
    for c, n, mode in zip((x, y, z), sizes, modes, strict=True):
        i, ok = _address(b, c, n, mode)
        index.append(i)
        inside = b.and_(inside, ok)
    b.cbranch(inside, fetch, border)

    b.position_at_end(border)
    colour: ir.Value = ir.Constant(V4, None)
    for k in range(4):
        value = _field(b, desc, "border", FLOAT, k)
        bits = b.select(want_float, b.bitcast(value, I32), b.fptosi(value, I32))
        colour = b.insert_element(colour, bits, _i32(k))
    b.ret(colour)

    b.position_at_end(fetch)
    base = _field(b, desc, "base", I64)
    offset = b.add(b.mul(b.zext(index[2], I64), _field(b, desc, "slice", I64)),
                   b.add(b.mul(b.zext(index[1], I64), b.zext(_field(b, desc, "pitch"), I64)),
                         b.mul(b.zext(index[0], I64), b.zext(_field(b, desc, "element_bytes"), I64))))
    address = b.inttoptr(b.add(base, offset), pointer(_GLOBAL))
    channel_bytes = _field(b, desc, "channel_bytes")
    channels = _field(b, desc, "channels")
    kind = _field(b, desc, "kind")
    switch = b.switch(b.add(b.mul(channel_bytes, _i32(8)), channels), merge)
    raw = []
    for size in (1, 2, 4):
        for count in (1, 2, 4):
            block = fn.append_basic_block(f"load{size}x{count}")
            switch.add_case(_i32(size * 8 + count), block)
            b.position_at_end(block)
            item = ir.IntType(8 * size)
            parts = [b.zext(b.load(b.gep(address, [ir.Constant(I64, k * size)], source_etype=ir.IntType(8)),
                                   typ=item, align=size), I32) if size < 4 else
                     b.load(b.gep(address, [ir.Constant(I64, k * size)], source_etype=ir.IntType(8)),
                            typ=I32, align=4)
                     for k in range(count)]
            raw.append((block, parts + [_i32(0)] * (4 - count)))
            b.branch(merge)
    b.position_at_end(merge)
    values = []
    for k in range(4):
        phi = b.phi(I32)
        phi.add_incoming(_i32(0), fetch)
        for block, parts in raw:
            phi.add_incoming(parts[k], block)
        values.append(phi)
    b.ret(_convert(b, values, kind, channel_bytes, channels, _field(b, desc, "normalized_read"), want_float))


def _convert(b: ir.IRBuilder, values: Sequence[ir.Value], kind: ir.Value, channel_bytes: ir.Value,
             channels: ir.Value, normalized_read: ir.Value, want_float: ir.Value) -> ir.Value:
    shift = b.sub(_i32(32), b.mul(channel_bytes, _i32(8)))
    signed = b.icmp_unsigned("==", kind, _i32(KIND_SIGNED))
    is_float = b.icmp_unsigned("==", kind, _i32(KIND_FLOAT))
    normalize = b.and_(b.icmp_unsigned("!=", normalized_read, _i32(0)), b.not_(is_float))
    bits = b.zext(b.mul(channel_bytes, _i32(8)), I64)
    unsigned_max = b.uitofp(b.sub(b.shl(ir.Constant(I64, 1), bits), ir.Constant(I64, 1)), FLOAT)
    signed_max = b.uitofp(b.sub(b.shl(ir.Constant(I64, 1), b.sub(bits, ir.Constant(I64, 1))),
                                ir.Constant(I64, 1)), FLOAT)
    half = b.icmp_unsigned("==", channel_bytes, _i32(2))
    out: ir.Value = ir.Constant(V4, None)
    for k, raw in enumerate(values):
        extended = b.select(signed, b.ashr(b.shl(raw, shift), shift), raw)
        as_float = b.select(half, b.fpext(b.bitcast(b.trunc(raw, I16), HALF), FLOAT), b.bitcast(raw, FLOAT))
        converted = b.select(signed, b.sitofp(extended, FLOAT), b.uitofp(extended, FLOAT))
        scaled = b.select(signed, b.fdiv(converted, signed_max), b.fdiv(converted, unsigned_max))
        scaled = b.select(b.fcmp_ordered("<", scaled, _f32(-1.0)), _f32(-1.0), scaled)
        number = b.select(is_float, as_float, b.select(normalize, scaled, converted))
        result = b.select(want_float, b.bitcast(number, I32), extended)
        missing = _i32(0) if k < 3 else b.select(want_float, _i32(0x3F800000), _i32(1))
        out = b.insert_element(out, b.select(b.icmp_unsigned("<", _i32(k), channels), result, missing), _i32(k))
    return out


def _as(cx: FnContext, value: ir.Value, typ: ir.Type) -> ir.Value:
    if value.type == typ:
        return value
    return cx.coerce(value, typ) if isinstance(value.type, ir.IntType) == isinstance(typ, ir.IntType) else \
        cx.builder.bitcast(value, typ)


def _footprint(cx: FnContext, desc: ir.Value, coords: Sequence[ir.Value], int_coords: bool, linear: ir.Value,
               ) -> list[tuple[ir.Value, ir.Value]]:
    """Per axis, (first texel index, weight of the second) of the sampling footprint."""
    b = cx.builder
    normalized = b.icmp_unsigned("!=", _field(b, desc, "normalized_coords"), _i32(0))
    axes = []
    for axis, c in enumerate(coords):
        if int_coords:
            axes.append((_as(cx, c, I32), _f32(0.0)))
            continue
        u = _as(cx, c, FLOAT)
        n = b.uitofp(_field(b, desc, ("width", "height", "depth")[axis]), FLOAT)
        mode = _field(b, desc, f"mode{axis}")
        whole = cx.call("llvm.floor.f32", FLOAT, [u])
        frac = b.fsub(u, whole)
        odd = b.fcmp_unordered("!=", b.frem(whole, _f32(2.0)), _f32(0.0))
        mirrored = b.select(odd, b.fsub(_f32(1.0), frac), frac)
        folded = b.select(b.icmp_unsigned("==", mode, _i32(WRAP)), frac,
                          b.select(b.icmp_unsigned("==", mode, _i32(MIRROR)), mirrored, u))
        x = b.select(normalized, b.fmul(folded, n), u)
        shifted = b.select(linear, b.fsub(x, _f32(0.5)), x)
        first = cx.call("llvm.floor.f32", FLOAT, [shifted])
        weight = cx.call("llvm.roundeven.f32", FLOAT, [b.fmul(b.fsub(shifted, first), _f32(256.0))])
        weight = b.select(linear, b.fmul(weight, _f32(1.0 / 256.0)), _f32(0.0))
        axes.append((cx.call("llvm.fptosi.sat.i32.f32", I32, [first]), weight))
    return axes


def _fetch(cx: FnContext, desc: ir.Value, index: Sequence[ir.Value], layer: ir.Value | None,
           want_float: bool) -> ir.Value:
    texel = texel_function(cx.mod.module)
    xyz = list(index) + [_i32(0)] * (3 - len(index))
    if layer is not None:
        xyz[2] = layer
    return cx.builder.call(texel, [desc, *xyz[:3], ir.Constant(I1, int(want_float))])


def _lerp(b: ir.IRBuilder, a: ir.Value, c: ir.Value, weight: ir.Value) -> ir.Value:
    """``(1 - w) a + w c`` per float component (bits in <4 x i32>); ``a`` itself when ``w`` is 0."""
    fa, fc = b.bitcast(a, ir.VectorType(FLOAT, 4)), b.bitcast(c, ir.VectorType(FLOAT, 4))
    out: ir.Value = ir.Constant(ir.VectorType(FLOAT, 4), None)
    for k in range(4):
        ea, ec = b.extract_element(fa, _i32(k)), b.extract_element(fc, _i32(k))
        mixed = b.fadd(b.fmul(b.fsub(_f32(1.0), weight), ea), b.fmul(weight, ec))
        out = b.insert_element(out, b.select(b.fcmp_ordered("==", weight, _f32(0.0)), ea, mixed), _i32(k))
    return b.bitcast(out, V4)


def _point_or_linear(cx: FnContext, desc: ir.Value, axes: list[tuple[ir.Value, ir.Value]], layer: ir.Value | None,
                     linear: ir.Value) -> ir.Value:
    """One texel under point filtering; the 2, 4 or 8 texels of the footprint blended axis by axis
    (x, then y, then z) under linear filtering (the descriptor decides, the same for every lane)."""
    b = cx.builder
    blocks = [cx.llfn.append_basic_block(name) for name in ("tex.linear", "tex.point")]
    join = cx.llfn.append_basic_block("tex.join")
    b.cbranch(linear, *blocks)
    ends = []
    for block, make in zip(blocks, (lambda: _blended(cx, desc, axes, layer),
                                    lambda: _fetch(cx, desc, [i for i, _ in axes], layer, True)), strict=True):
        b.position_at_end(block)
        value = make()
        ends.append((b.block, value))
        b.branch(join)
    b.position_at_end(join)
    phi = b.phi(V4)
    for block, value in ends:
        phi.add_incoming(value, block)
    return phi


def _blended(cx: FnContext, desc: ir.Value, axes: list[tuple[ir.Value, ir.Value]], layer: ir.Value | None,
             ) -> ir.Value:
    b = cx.builder
    corners: dict[tuple[int, ...], ir.Value] = {}
    for corner in range(1 << len(axes)):
        steps = tuple((corner >> a) & 1 for a in range(len(axes)))
        index = [b.add(i, _i32(step)) for (i, _), step in zip(axes, steps, strict=True)]
        corners[steps] = _fetch(cx, desc, index, layer, True)
    for _, weight in axes:
        corners = {key[1:]: _lerp(b, value, corners[(1, *key[1:])], weight)
                   for key, value in corners.items() if key[0] == 0}
    return corners[()]


def _split_coords(cx: FnContext, op: Op, geom: str) -> tuple[list[ir.Value], ir.Value | None]:
    """(coordinates, layer index or None) of a tex/suld/sust op (PTX puts an array's layer first and
    pads 3D and 2D-array coordinates to four)."""
    count = int(op.attrs.get("coords", len(op.operands) - 1))
    values = cx.operands(op)[1:1 + count]
    layer = None
    if geom.startswith("a"):
        layer, values = _as(cx, values[0], I32), values[1:]
    return values[:_AXES[geom]], layer


def _descriptor(cx: FnContext, op: Op) -> ir.Value:
    """The descriptor address: the handle operand, or for a ``.texref``/``.surfref`` variable named as
    the handle, the texture object the driver stored in that 8-byte variable (``cuTexRefSet*``)."""
    value = op.operands[0].value
    source = value.op if isinstance(value, OpResult) else None
    if source is not None and source.name == "ptrtoint":
        inner = source.operands[0].value
        if isinstance(inner, OpResult) and inner.op.name == "addr_of":
            variable = cx.builder.inttoptr(cx.operand(op, 0), pointer(_GLOBAL))
            return cx.builder.load(variable, typ=I64, align=8)
    return cx.operand(op, 0)


def _geometry(cx: FnContext, op: Op, what: str) -> str:
    geom = cx.attr(op, "geom")
    if geom in _UNSUPPORTED_GEOMETRY:
        raise cx.unsupported(what, f"{_UNSUPPORTED_GEOMETRY[geom]} are not supported by ptx2gcn's textures")
    return geom


def lower_tex(cx: FnContext, op: Op) -> None:
    geom = _geometry(cx, op, "tex")
    if cx.flag(op, "sampler"):
        raise cx.unsupported("tex", "independent texture and sampler handles (.samplerref) are not supported")
    dtype, ctype = cx.attr(op, "dtype"), cx.attr(op, "ctype")
    if dtype not in ("f32", "s32", "u32") or ctype not in ("f32", "s32"):
        raise cx.unsupported("tex", f"result type .{dtype} with coordinates .{ctype} (supported: .f32/.s32/.u32 "
                                    "results, .f32/.s32 coordinates)")
    b = cx.builder
    desc = _descriptor(cx, op)
    coords, layer = _split_coords(cx, op, geom)
    want_float = dtype == "f32"
    gather = cx.attr(op, "mode") == "gather"
    if gather and geom != "2d":
        raise cx.unsupported("tld4", "tld4 is defined for .2d textures only")
    linear_mode = b.icmp_unsigned("==", _field(b, desc, "filter"), _i32(LINEAR))
    linear = ir.Constant(I1, 1) if gather else linear_mode if want_float else ir.Constant(I1, 0)
    axes = _footprint(cx, desc, coords, ctype == "s32", linear)
    if gather:
        comp = "rgba".index(cx.attr(op, "comp"))
        (i, _), (j, _) = axes
        one = _i32(1)
        order = [(i, b.add(j, one)), (b.add(i, one), b.add(j, one)), (b.add(i, one), j), (i, j)]
        result: ir.Value = ir.Constant(V4, None)
        for k, index in enumerate(order):
            texel = _fetch(cx, desc, index, None, want_float)
            result = b.insert_element(result, b.extract_element(texel, _i32(comp)), _i32(k))
    elif want_float and ctype != "s32":
        result = _point_or_linear(cx, desc, axes, layer, linear_mode)
    else:
        result = _fetch(cx, desc, [i for i, _ in axes], layer, want_float)
    values = [b.extract_element(result, _i32(k)) for k in range(4)]
    count = len(op.results) - (1 if cx.flag(op, "pred") else 0)
    outputs = values[:count] + ([ir.Constant(I1, 1)] if cx.flag(op, "pred") else [])
    cx.define(op, *outputs)


_QUERIES = {"width": "width", "height": "height", "depth": "depth", "array_size": "depth",
            "normalized_coords": "normalized_coords", "filter_mode": "filter", "addr_mode_0": "mode0",
            "addr_mode_1": "mode1", "addr_mode_2": "mode2"}


def lower_txq(cx: FnContext, op: Op) -> None:
    """Sizes and sampler settings from the descriptor; one mip level and no samples, by construction."""
    query = cx.attr(op, "query").removeprefix("level.")
    b = cx.builder
    if query == "num_mipmap_levels":
        value: ir.Value = _i32(1)
    elif query == "num_samples":
        value = _i32(0)
    elif query in _QUERIES:
        value = _field(b, _descriptor(cx, op), _QUERIES[query])
    else:
        raise cx.unsupported("txq", f"query .{query} is not recorded in ptx2gcn's texture descriptors")
    cx.define(op, value)


def _surface_access(cx: FnContext, op: Op, size: int) -> tuple[ir.Value, ir.Value]:
    """(in-range flag, address) of a ``size``-byte surface access; ``.trap`` has trapped when out of range."""
    b = cx.builder
    geom = _geometry(cx, op, op.name)
    desc = _descriptor(cx, op)
    coords, layer = _split_coords(cx, op, geom)
    coords = [_as(cx, c, I32) for c in coords]
    row_bytes = b.mul(_field(b, desc, "width"), _field(b, desc, "element_bytes"))
    limits = [b.sub(row_bytes, _i32(size)), b.sub(_field(b, desc, "height"), _i32(1)),
              b.sub(_field(b, desc, "depth"), _i32(1))]
    if layer is not None:
        coords = coords + [_i32(0)] * (2 - len(coords)) + [layer]
    inside: ir.Value = ir.Constant(I1, 1)
    clamped = []
    for c, last in zip(coords, limits, strict=False):
        inside = b.and_(inside, b.and_(b.icmp_signed(">=", c, _i32(0)), b.icmp_signed("<=", c, last)))
        clamped.append(b.select(b.icmp_signed("<", c, _i32(0)), _i32(0),
                                b.select(b.icmp_signed(">", c, last), last, c)))
    if cx.attr(op, "clamp") == "clamp":
        coords = clamped
    if cx.attr(op, "clamp") == "trap":
        trap, ok = cx.llfn.append_basic_block("surface.trap"), cx.llfn.append_basic_block("surface.ok")
        b.cbranch(inside, ok, trap)
        b.position_at_end(trap)
        cx.call("llvm.trap", ir.VoidType(), [], ["noreturn"])
        b.unreachable()
        b.position_at_end(ok)
    xyz = coords + [_i32(0)] * (3 - len(coords))
    offset = b.add(b.mul(b.zext(xyz[2], I64), _field(b, desc, "slice", I64)),
                   b.add(b.mul(b.zext(xyz[1], I64), b.zext(_field(b, desc, "pitch"), I64)), b.zext(xyz[0], I64)))
    return inside, b.add(_field(b, desc, "base", I64), offset)


def _surface_shape(cx: FnContext, op: Op) -> tuple[int, int]:
    t = cx.attr(op, "type")
    if t not in ("b8", "b16", "b32", "b64"):
        raise cx.unsupported(op.name, f"type .{t} (suld.b/sust.b take .b8/.b16/.b32/.b64)")
    vec = int(op.attrs.get("vec") or 1)
    return int(t[1:]) // 8, vec


def lower_suld(cx: FnContext, op: Op) -> None:
    size, vec = _surface_shape(cx, op)
    b = cx.builder
    inside, address = _surface_access(cx, op, size * vec)
    zero = cx.attr(op, "clamp") == "zero"
    item = ir.IntType(8 * size)
    if zero:
        load, join = cx.llfn.append_basic_block("suld.load"), cx.llfn.append_basic_block("suld.join")
        start = b.block
        b.cbranch(inside, load, join)
        b.position_at_end(load)
    ptr = b.inttoptr(address, pointer(_GLOBAL))
    values = [b.load(b.gep(ptr, [ir.Constant(I64, k * size)], source_etype=ir.IntType(8)), typ=item, align=size)
              for k in range(vec)]
    if zero:
        loaded = b.block
        b.branch(join)
        b.position_at_end(join)
        merged = []
        for value in values:
            phi = b.phi(item)
            phi.add_incoming(value, loaded)
            phi.add_incoming(ir.Constant(item, 0), start)
            merged.append(phi)
        values = merged
    cx.define(op, *values)


def lower_sust(cx: FnContext, op: Op) -> None:
    size, vec = _surface_shape(cx, op)
    b = cx.builder
    inside, address = _surface_access(cx, op, size * vec)
    values = cx.operands(op)[1 + int(op.attrs.get("coords", 0)):]
    if cx.attr(op, "clamp") == "zero":
        store, join = cx.llfn.append_basic_block("sust.store"), cx.llfn.append_basic_block("sust.join")
        b.cbranch(inside, store, join)
        b.position_at_end(store)
    ptr = b.inttoptr(address, pointer(_GLOBAL))
    item = ir.IntType(8 * size)
    for k, value in enumerate(values[:vec]):
        bits = value if isinstance(value.type, ir.IntType) else b.bitcast(value, ir.IntType(_float_bits(value.type)))
        b.store(cx.coerce(bits, item), b.gep(ptr, [ir.Constant(I64, k * size)], source_etype=ir.IntType(8)),
                align=size)
    if cx.attr(op, "clamp") == "zero":
        b.branch(join)
        b.position_at_end(join)


def _float_bits(t: ir.Type) -> int:
    return {"half": 16, "bfloat": 16, "double": 64}.get(str(t), 32)


LOWERINGS: dict[str, Lowering] = {
    "tex": lower_tex, "txq": lower_txq, "suld": lower_suld, "sust": lower_sust,
}
