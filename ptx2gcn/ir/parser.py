"""Parser of the IR text form written by ``ptx2gcn.ir.printer`` (grammar in its docstring).

Invariant: ``parse_module(print_module(m))`` rebuilds a module that prints identically; any text
that is not well-formed IR raises ``Ptx2GcnError`` located in the IR text (``file:line:col`` and a
caret). Ops get their location from ``loc(l:c)`` when present, else their position in the IR text,
so verifier messages about hand-written IR point into that IR. Semantic checks (types, dominance)
are the verifier's job, not the parser's; names must be defined before or after use (forward
references to values in later blocks are resolved at the end of each function).
"""

from __future__ import annotations

import re

from ptx2gcn.compile_gc import paused_gc
from ptx2gcn.diagnostics import SourceFile, Span
from ptx2gcn.ir.core import (
    Attr,
    Block,
    Function,
    Global,
    InitItem,
    Module,
    Op,
    Param,
    SymbolRef,
    Value,
)
from ptx2gcn.ir.lexer import Lexer, Line, Token, located_error
from ptx2gcn.ir.opcodes import OPS
from ptx2gcn.ir.types import AddrSpace, Type


class _Parser:
    def __init__(self, source: SourceFile) -> None:
        self.source = source
        self.lines = Lexer(source).lines
        self.index = 0
        self.origin = source.name
        """The PTX file named by the module header: ``loc(l:c)`` positions refer to it."""

    def line(self) -> Line | None:
        if self.index >= len(self.lines):
            return None
        line = Line(self.source, self.lines[self.index])
        self.index += 1
        return line

    def parse(self) -> Module:
        first = self.line()
        if first is None:
            raise located_error(self.source, 1, 1, "empty IR: expected a 'module' line")
        module = self._header(first)
        self.origin = module.source
        while (line := self.line()) is not None:
            head = line.peek()
            assert head is not None
            if head.kind == "word" and head.text.startswith("global."):
                module.globals.append(self._global(line))
            elif head.text in ("kernel", "func"):
                module.functions.append(_FunctionParser(self, line).parse())
            else:
                raise line.error("expected 'global.<space>', 'kernel' or 'func'")
        return module

    def _header(self, line: Line) -> Module:
        if line.word("'module'") != "module":
            raise line.error("expected 'module'", line.toks[0])
        module = Module(source=line.string())
        while not line.done():
            key = line.word("a module attribute")
            if key == "version":
                module.version = line.string()
            elif key == "target":
                module.target = line.string()
            elif key == "address_size":
                module.address_size = line.integer()
            else:
                raise line.error(f"unknown module attribute '{key}'", line.toks[line.pos - 1])
        return module

    def _global(self, line: Line) -> Global:
        head = line.next("word", "global")
        try:
            space = AddrSpace(head.text.removeprefix("global."))
        except ValueError:
            raise line.error(f"unknown state space in '{head.text}'", head) from None
        name = line.next("sym", "@name").text[1:]
        line.expect(":")
        ptx_type, count = self._ptx_type(line)
        if line.word("'align'") != "align":
            raise line.error("expected 'align'", line.toks[line.pos - 1])
        var = Global(name, space, ptx_type, count, line.integer("an alignment"),
                     loc=Span(self.source.name, head.line, head.col, source=self.source))
        tok = line.peek()
        if tok is not None and tok.kind == "word" and tok.text != "sampler":
            var.linkage = line.word()
        if line.accept("="):
            line.expect("[")
            values: list[InitItem] = []
            while not line.accept("]"):
                values.append(self._init_item(line))
                if not line.accept(","):
                    line.expect("]")
                    break
            var.init = tuple(values)
        if line.accept("sampler"):
            var.sampler = self._sampler_fields(line)
        line.end()
        return var

    def _sampler_fields(self, line: Line) -> tuple[tuple[str, str | int], ...]:
        """``{name = word-or-integer, ...}`` after ``sampler``."""
        line.expect("{")
        fields: list[tuple[str, str | int]] = []
        while not line.accept("}"):
            key = line.word("a sampler field name")
            line.expect("=")
            tok = line.peek()
            fields.append((key, line.integer() if tok is not None and tok.kind == "int" else line.word()))
            if not line.accept(","):
                line.expect("}")
                break
        return tuple(fields)

    def _init_item(self, line: Line) -> InitItem:
        tok = line.peek()
        if tok is not None and tok.kind == "int":
            return line.integer()
        generic = line.accept("generic")
        if generic:
            line.expect("(")
        name = line.next("sym", "an integer or @symbol").text[1:]
        if generic:
            line.expect(")")
        offset = 0
        tok = line.peek()
        if tok is not None and tok.kind == "int" and tok.text.startswith("-"):
            offset = line.integer()
        elif line.accept("+"):
            offset = line.integer("an offset")
        return SymbolRef(name, generic, offset)

    def _ptx_type(self, line: Line) -> tuple[str, int]:
        ptx_type = line.word("a PTX type")
        count = 0
        if line.accept("["):
            count = -1 if line.accept("]") else line.integer("an array length")
            if count != -1:
                line.expect("]")
        return ptx_type, count


class _FunctionParser:
    """Parses one function: signature line, then blocks until ``}``."""

    def __init__(self, parser: _Parser, line: Line) -> None:
        self.parser = parser
        self.head = line
        self.values: dict[str, Value] = {}
        self.forward: dict[str, tuple[Value, Token]] = {}
        self.blocks: dict[str, Block] = {}
        self.defined_blocks: set[str] = set()
        self.block_refs: dict[str, Token] = {}

    def parse(self) -> Function:
        line = self.head
        kind_tok = line.next("word", "kernel or func")
        name = line.next("sym", "@name").text[1:]
        fn = Function(name, kind_tok.text,
                      loc=Span(self.parser.source.name, kind_tok.line, kind_tok.col,
                               source=self.parser.source))
        if line.peek() is not None and line.peek().kind == "word":  # type: ignore[union-attr]
            fn.linkage = line.word()
        fn.params = self._params(line)
        if line.accept("->"):
            fn.returns = self._params(line)
        has_body = False
        while not line.done():
            if line.accept("{"):
                has_body = True
                line.end()
                break
            key = line.word("a directive")
            values: list[int] = []
            while line.peek() is not None and line.peek().kind == "int":  # type: ignore[union-attr]
                values.append(line.integer())
                line.accept(",")
            fn.directives[key] = tuple(values)
        if has_body:
            self._body(fn)
        return fn

    def _params(self, line: Line) -> list[Param]:
        line.expect("(")
        params: list[Param] = []
        if line.accept(")"):
            return params
        while True:
            params.append(self._param(line))
            if line.accept(")"):
                return params
            line.expect(",")

    def _param(self, line: Line) -> Param:
        space = line.word("a parameter space (kparam, param or reg)")
        if space not in ("kparam", "param", "reg"):
            raise line.error(f"unknown parameter space '{space}'", line.toks[line.pos - 1])
        type_tok = line.peek()
        ptx_type, count = self.parser._ptx_type(line)
        from ptx2gcn.ir.types import PTX_TYPES

        if ptx_type not in PTX_TYPES:
            raise line.error(f"unknown PTX type '{ptx_type}'", type_tok)
        name = line.next("value", "%name").text[1:]
        param = Param(name, space, PTX_TYPES[ptx_type], ptx_type, 0, 0, count)
        while line.peek() is not None and line.peek().kind == "word":  # type: ignore[union-attr]
            key = line.word()
            if key == "size":
                param.size = line.integer()
            elif key == "align":
                param.align = line.integer()
            elif key == "ptr":
                param.ptr_space = line.word("an address space")
                if line.accept("align"):
                    param.ptr_align = line.integer()
            else:
                raise line.error(f"unknown parameter attribute '{key}'", line.toks[line.pos - 1])
        return param

    def _body(self, fn: Function) -> None:
        block: Block | None = None
        while True:
            line = self.parser.line()
            if line is None:
                raise located_error(self.parser.source, self.head.toks[0].line, 1,
                             f"function @{fn.name} has no closing '}}'")
            head = line.peek()
            assert head is not None
            if head.text == "}":
                line.pos += 1
                line.end()
                break
            if head.kind == "block":
                block = self._block_header(fn, line)
                continue
            if block is None:
                raise line.error("expected a block label '^name:' before the first op")
            block.append(self._op(line))
        self._finish(fn)

    def _block(self, tok: Token) -> Block:
        name = tok.text[1:]
        block = self.blocks.get(name)
        if block is None:
            block = Block(name)
            self.blocks[name] = block
            self.block_refs[name] = tok
        return block

    def _block_header(self, fn: Function, line: Line) -> Block:
        tok = line.next("block", "^label")
        name = tok.text[1:]
        if name in self.defined_blocks:
            raise line.error(f"block ^{name} is defined twice", tok)
        self.defined_blocks.add(name)
        block = self._block(tok)
        fn.add_block(block)
        if line.accept("("):
            while not line.accept(")"):
                vtok = line.next("value", "%name")
                line.expect(":")
                self._define(vtok, block.add_arg(line.type(), vtok.text[1:]))
                if not line.accept(","):
                    line.expect(")")
                    break
        line.expect(":")
        line.end()
        return block

    def _define(self, tok: Token, value: Value) -> None:
        name = tok.text[1:]
        if name in self.values:
            raise located_error(self.parser.source, tok.line, tok.col, f"value %{name} is defined twice",
                         len(tok.text))
        placeholder = self.forward.pop(name, None)
        if placeholder is not None:
            # The placeholder's type was a stand-in (a use does not say its operand's type): the
            # verifier checks what the uses expect of the real value.
            placeholder[0].replace_all_uses_with(value)
        self.values[name] = value

    def _use(self, tok: Token) -> Value:
        name = tok.text[1:]
        value = self.values.get(name)
        if value is not None:
            return value
        placeholder = self.forward.get(name)
        if placeholder is None:
            from ptx2gcn.ir.types import PRED

            # The real type is unknown until the definition, which replaces the placeholder.
            placeholder = (Value(PRED, name), tok)
            self.forward[name] = placeholder
        return placeholder[0]

    def _op(self, line: Line) -> Op:  # noqa: C901
        result_toks: list[Token] = []
        if line.peek() is not None and line.peek().kind == "value":  # type: ignore[union-attr]
            while True:
                result_toks.append(line.next("value", "%result"))
                if line.accept("="):
                    break
                line.expect(",")
        name_tok = line.next("word", "an op name")
        if name_tok.text not in OPS:
            raise line.error(f"unknown op '{name_tok.text}'", name_tok)
        operands: list[Value] = []
        while line.peek() is not None and line.peek().kind == "value":  # type: ignore[union-attr]
            operands.append(self._use(line.next("value", "%operand")))
            if not line.accept(","):
                break
        successors: list[tuple[Block, list[Value]]] = []
        if line.accept("->"):
            while True:
                block = self._block(line.next("block", "^label"))
                args: list[Value] = []
                if line.accept("("):
                    while not line.accept(")"):
                        args.append(self._use(line.next("value", "%value")))
                        if not line.accept(","):
                            line.expect(")")
                            break
                successors.append((block, args))
                if not line.accept(","):
                    break
        attrs = self._attrs(line) if line.accept("{") else {}
        types: list[Type] = []
        if line.accept(":"):
            types.append(line.type())
            while line.accept(","):
                types.append(line.type())
        loc = Span(self.parser.source.name, name_tok.line, name_tok.col, name_tok.line,
                   name_tok.col + len(name_tok.text), self.parser.source)
        if line.accept("loc"):
            line.expect("(")
            l_tok = line.next("int", "a line number")
            line.expect(":")
            col = line.integer("a column")
            line.expect(")")
            loc = Span(self.parser.origin, int(l_tok.text), col)
        line.end()
        if len(types) != len(result_toks):
            raise line.error(f"'{name_tok.text}' names {len(result_toks)} results but lists "
                             f"{len(types)} result types", name_tok)
        op = Op(name_tok.text, operands, types, attrs, loc)
        for block, args in successors:
            op.add_successor(block, args)
        for tok, result in zip(result_toks, op.results):
            result.name = tok.text[1:]
            self._define(tok, result)
        return op

    def _attrs(self, line: Line) -> dict[str, Attr]:
        attrs: dict[str, Attr] = {}
        while not line.accept("}"):
            key = line.word("an attribute name")
            value: Attr = True
            if line.accept("="):
                tok = line.peek()
                if tok is None:
                    raise line.error("expected an attribute value")
                line.pos += 1
                if tok.kind == "int":
                    value = int(tok.text, 0)
                elif tok.kind == "str":
                    value = re.sub(r"\\(.)", r"\1", tok.text[1:-1])
                elif tok.kind == "word":
                    value = {"true": True, "false": False}.get(tok.text, tok.text)
                else:
                    raise line.error("expected an attribute value", tok)
            attrs[key] = value
            if not line.accept(","):
                line.expect("}")
                break
        return attrs

    def _finish(self, fn: Function) -> None:
        for name, (_, tok) in self.forward.items():
            raise located_error(self.parser.source, tok.line, tok.col, f"use of undefined value %{name}",
                         len(tok.text))
        for name, tok in self.block_refs.items():
            if name not in self.defined_blocks:
                raise located_error(self.parser.source, tok.line, tok.col, f"branch to undefined block ^{name}",
                             len(tok.text))
        if fn.blocks:
            entry = fn.entry
            slots = fn.abi_params
            for param, arg in zip(slots, entry.args):
                param.name = arg.name


def parse_module(text: str, filename: str = "<ir>") -> Module:
    """Parse IR text; raises ``Ptx2GcnError`` located in ``text`` when it is malformed."""
    with paused_gc():
        return _Parser(SourceFile(filename, text)).parse()
