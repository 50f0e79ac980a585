"""The private export tables (``cuGetExportTable``): the shim's lookup, slot layout and the Python
handlers, checked without the CUDA runtime (``test_runtime_programs`` runs the runtime itself)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

from ptx2gcn.runtime.libcuda.dark import HANDLERS, hmac_md2, integrity_digest, md2, slot_names
from ptx2gcn.runtime.libcuda.export_tables import DARK_SLOTS, TABLES


def test_md2_matches_rfc_1319_test_suite() -> None:
    # RFC 1319, appendix A.5.
    assert md2(b"").hex() == "8350e5a3e24c153df2275c9f80692773"
    assert md2(b"a").hex() == "32ec01ec4a6dac72c0ab96fb34c0b5d1"
    assert md2(b"abc").hex() == "da853b0d3f88d99b30283a69e6ded6bb"
    assert md2(b"message digest").hex() == "ab4f496bfb2a530b219ff33031fe06b0"
    assert md2(b"abcdefghijklmnopqrstuvwxyz").hex() == "4e8ddff3650292ab5a4108c3aa47940b"
    digits = b"12345678901234567890123456789012345678901234567890123456789012345678901234567890"
    assert md2(digits).hex() == "d5976f79d83d3a0dc9806c3c66f3efd8"


def test_hmac_md2_is_rfc_2104_over_md2() -> None:
    key = bytes(range(16))
    inner = md2(bytes(b ^ 0x36 for b in key) + b"message")
    assert hmac_md2(key, b"message") == md2(bytes(b ^ 0x5C for b in key) + inner)
    assert hmac_md2(key, b"message") != hmac_md2(key, b"messagf")


def test_integrity_digest_fixed_answers_and_inputs_that_matter() -> None:
    common = dict(unix_seconds=1, driver_version=13000, process=2, thread=3, cudart_table=4,
                  integrity_table=5, function=6, devices=[(bytes(16), 0, 1, 0)])  # fmt: skip
    assert integrity_digest(13000, **common) == (0x3341181C03CB675C, 0x8ED383AA1F4CD1E8)
    assert integrity_digest(13001, **common) == (0x1841181C03CB675C, 0x8ED383AA1F4CD1E8)
    base = integrity_digest(13002, **common)
    assert base != integrity_digest(13002, **{**common, "thread": 4})
    assert base != integrity_digest(13002, **{**common, "devices": [(bytes(16), 0, 2, 0)]})
    assert base == integrity_digest(13002, **common)


def test_every_python_backed_slot_has_a_handler() -> None:
    assert sorted(HANDLERS) == sorted(slot_names())
    assert len(DARK_SLOTS) == len(HANDLERS)
    assert len({t.uuid for t in TABLES}) == len(TABLES)


LOOKUP_SCRIPT = r"""
import ctypes, uuid
lib = ctypes.CDLL("libcuda.so.1")
assert lib.cuInit(0) == 0
table = ctypes.c_void_p()
unknown = uuid.UUID("F8CFF951-2146-8B4E-B9E2-FB469E7C0DD9").bytes
assert lib.cuGetExportTable(ctypes.byref(table), unknown) == 1 and table.value is None  # INVALID_VALUE
assert lib.cuGetExportTable(None, unknown) == 1
cudart = uuid.UUID("6BD5FB6C-5BF4-E74A-8987-D93912FD9DF9").bytes
assert lib.cuGetExportTable(ctypes.byref(table), cudart) == 0
slots = (ctypes.c_void_p * 13).from_address(table.value)
assert slots[0] == 13 * 8                     # the table's size in bytes
primary = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int)(slots[2])
ctx = ctypes.c_void_p()
assert primary(ctypes.addressof(ctx), 0) == 0 and ctx.value
missing = ctypes.CFUNCTYPE(ctypes.c_int)(slots[3])
assert missing() == 801                        # CUDA_ERROR_NOT_SUPPORTED, with a line on stderr
cls = uuid.UUID("C693336E-1121-DF11-A8C3-68F355D89593").bytes
assert lib.cuGetExportTable(ctypes.byref(table), cls) == 0
fns = (ctypes.c_void_p * 4).from_address(table.value)
put = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(fns[0])
delete = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)(fns[1])
get = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(fns[2])
value = ctypes.c_void_p()
assert get(ctypes.addressof(value), ctx.value, 0x1234) == 400           # no value: INVALID_HANDLE
assert put(ctx.value, 0x1234, 0xBEEF, None) == 0
assert get(ctypes.addressof(value), ctx.value, 0x1234) == 0 and value.value == 0xBEEF
assert get(ctypes.addressof(value), None, 0x1234) == 201                # no current context
assert lib.cuCtxSetCurrent(ctx) == 0
assert get(ctypes.addressof(value), None, 0x1234) == 0 and value.value == 0xBEEF
assert delete(None, 0x1234) == 0
assert get(ctypes.addressof(value), ctx.value, 0x1234) == 400
identity = uuid.UUID("21318C60-9714-3248-8CA6-41FF7324C8F2").bytes  # CUDA 13.5's runtime asks in cudaSetDevice
assert lib.cuGetExportTable(ctypes.byref(table), identity) == 0
assert (ctypes.c_void_p * 40).from_address(table.value)[0] == 40 * 8
print("export-tables: ok")
"""


def test_export_table_lookup_and_context_local_storage(
    run_exec: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    done = run_exec(sys.executable, "-c", LOOKUP_SCRIPT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "export-tables: ok"
    assert "export table CUDART_INTERFACE slot 3 is not implemented" in done.stderr
