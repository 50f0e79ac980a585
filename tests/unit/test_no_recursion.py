"""No function of the compiler, runtime or emulator recurses on the size of its input.

``recursion_scan`` lists every recursive function found in the source; each must be listed here
with the bound that keeps its depth small (not the input's size), or be made iterative. A new
recursive walk fails this test before it fails a user (``tests/corpus/test_recursion_limit.py``
and ``tests/stress/`` check the same at run time)."""

from __future__ import annotations

from tests.unit.recursion_scan import recursive_components

BRACKETS = "bracket nesting, capped at frontend.parse.MAX_NESTING (64) while lexing"
EXPRESSIONS = ("constant-expression depth, capped at MAX_EXPRESSION_DEPTH (100) by the operand "
               "builder, and bracket nesting")
TYPES = "nesting of LLVM/PTX types: a vector's element is a scalar (depth <= 2)"

ALLOWED: dict[frozenset[str], str] = {
    frozenset({"ptx2gcn.frontend.check:_FunctionChecker._block"}): BRACKETS,
    frozenset({"ptx2gcn.frontend.check:_FunctionChecker._collect_labels"}): BRACKETS,
    frozenset({"ptx2gcn.frontend.check:operand_leaves"}): EXPRESSIONS,
    frozenset({"ptx2gcn.frontend.fixups:_declarations"}): BRACKETS,
    frozenset({"ptx2gcn.frontend.fixups:_rewrite_block"}): BRACKETS,
    frozenset({"ptx2gcn.frontend.printer:_block", "ptx2gcn.frontend.printer:_statement"}): BRACKETS,
    frozenset({"ptx2gcn.translate.builder:_FunctionBuilder._block",
               "ptx2gcn.translate.builder:_FunctionBuilder._statement"}): BRACKETS,
    frozenset({"ptx2gcn.translate.builder:_FunctionBuilder._enter_labels"}): BRACKETS,
    frozenset({"ptx2gcn.translate.builder:_initializer.walk"}): BRACKETS + " (initializer braces)",
    frozenset({"ptx2gcn.translate.emitter:const_eval"}): EXPRESSIONS,
    frozenset({"ptx2gcn.translate.emitter:FnCtx.src"}): EXPRESSIONS + "; vector operands hold scalars",
    frozenset({"ptx2gcn.translate.emitter:FnCtx.dst"}): "a vector destination's parts are scalars (depth <= 2)",
    frozenset({"ptx2gcn.translate.emitter:float_to_bits"}): "bf16 goes through f32 once (depth 2)",
    frozenset({"ptx2gcn.emit.llvm_types:scalar_bits"}): TYPES,
    frozenset({"ptx2gcn.emit.lower_float_values:suffix"}): TYPES,
    frozenset({"ptx2gcn.fuzz.matrix_eval:_Warps.write"}): "calls the write callback it is given, not itself",
    frozenset({"ptx2gcn.emit.llvm_atomics:_insert"}): "calls llvmlite's IRBuilder._insert, not itself",
    frozenset({"ptx2gcn.frontend.builder:AstBuilder.simple_instruction"}):
        "calls frontend.simple_run.simple_instruction, not itself",
    frozenset({"passes.wave64_barrier_check:Wave64BarrierCheck.run"}): "calls the analysis object's run",
    frozenset({"ptx2gcn.diagnostics:Diagnostic.render", "ptx2gcn.diagnostics:Ptx2GcnError.render"}):
        "a diagnostic's notes have no notes of their own (depth 2)",
    frozenset({"runtime.backends.emulator:EmulatorBackend.load"}): "calls the emulator loader's load",
    frozenset({"runtime.cache.store:DiskStore.write"}): "calls the file handle's write",
    frozenset({"runtime.cases.check:CheckReport.render"}): "calls each output check's render",
    frozenset({"runtime.driver.state:Driver.pop"}): "calls the context stack list's pop",
    frozenset({"ptx2gcn.conformance.table:_peel"}): "bisects the ISA's fixed form table (log depth)",
    frozenset({"ptx2gcn.conformance.run:compare.explain"}): "calls the result's explain",
    frozenset({"ptx2gcn.fuzz.gen:_Gen.block", "ptx2gcn.fuzz.gen:_Gen.statement"}):
        "the fuzzer's own nesting depth parameter",
    frozenset({"ptx2gcn.fuzz.shrink:_statement_variants", "ptx2gcn.fuzz.shrink:_variants"}):
        "nesting of fuzzer programs (the generator's depth parameter)",
    frozenset({"ptx2gcn.fuzz.shrink:size"}): "nesting of fuzzer programs (the generator's depth parameter)",
    frozenset({"ptx2gcn.fuzz.text:calls"}): "nesting of fuzzer programs (the generator's depth parameter)",
    frozenset({"ptx2gcn.reference.floats:relu"}): "an Either result holds two plain results (depth 2)",
    frozenset({"ptx2gcn.reference.fparith:finish"}): "an Either result holds two plain results (depth 2)",
    frozenset({"ptx2gcn.reference.result:Result.matches"}): "calls each output's matches",
}


def test_every_recursion_is_bounded_by_something_other_than_input_size() -> None:
    found = set(recursive_components())
    unexplained = sorted(sorted(c) for c in found - set(ALLOWED))
    assert not unexplained, (
        "recursive functions not in ALLOWED (make them iterative, or state their bound): "
        f"{unexplained}")
    stale = sorted(sorted(c) for c in set(ALLOWED) - found)
    assert not stale, f"ALLOWED lists recursions that are gone: {stale}"


def test_the_scan_finds_direct_mutual_and_object_recursion(tmp_path: object) -> None:
    """The scanner's own check, on the shapes it must see."""
    import ast

    from tests.unit import recursion_scan

    source = '''
def direct(n):
    return direct(n - 1)

def ping(n):
    return pong(n)

def pong(n):
    return ping(n)

def fine(n):
    return [fine_helper(i) for i in range(n)]

def fine_helper(i):
    return i

class Node:
    def walk(self):
        for child in self.children:
            child.walk()

    def visit(self):
        return self.visit()

    def delegate(self):
        return self.member.delegate()
'''
    module = recursion_scan._Module.__new__(recursion_scan._Module)
    module.name = "m"
    module.tree = ast.parse(source)
    module.functions = {}
    module.imported = {}
    module.modules = set()
    for node in module.tree.body:
        if isinstance(node, ast.FunctionDef):
            module.functions[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    module.functions[f"{node.name}.{item.name}"] = item
    graph = {f"m:{q}": sorted(set(recursion_scan._calls(module, q, {"m": module}))) for q in module.functions}
    found = {frozenset(c) for c in recursion_scan._cycles(graph)}
    assert found == {frozenset({"m:direct"}), frozenset({"m:ping", "m:pong"}), frozenset({"m:Node.walk"}),
                     frozenset({"m:Node.visit"})}
