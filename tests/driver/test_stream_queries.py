"""Stream priorities, flags, contexts, cross-stream waits and flagged event records, with CUDA's
documented answers for a device without stream priorities."""

from __future__ import annotations

from ptx2gcn import cuda
from tests.driver.conftest import fails, ok

R = cuda.CUresult


def test_priorities_flags_and_context(context: cuda.CUcontext) -> None:
    assert ok(cuda.cuCtxGetStreamPriorityRange()) == (0, 0)  # CUDA's (0, 0): no priorities
    stream = ok(cuda.cuStreamCreateWithPriority(cuda.CUstream_flags.CU_STREAM_NON_BLOCKING, -5))
    assert ok(cuda.cuStreamGetPriority(stream)) == 0  # clamped into the range
    assert ok(cuda.cuStreamGetFlags(stream)) == cuda.CUstream_flags.CU_STREAM_NON_BLOCKING
    assert ok(cuda.cuStreamGetFlags(0)) == 0
    assert ok(cuda.cuStreamGetCtx(stream)) == context
    assert ok(cuda.cuStreamGetCtx(0)) == context
    event = ok(cuda.cuEventCreate(0))
    ok(cuda.cuEventRecordWithFlags(event, stream, 0))
    ok(cuda.cuStreamWaitEvent(0, event, 0))
    fails(cuda.cuStreamWaitEvent(0, event, 4), R.CUDA_ERROR_INVALID_VALUE, "CUevent_wait_flags")
    fails(cuda.cuEventRecordWithFlags(event, stream, 8), R.CUDA_ERROR_INVALID_VALUE, "CUevent_record_flags")
    ok(cuda.cuStreamDestroy(stream))
    fails(cuda.cuStreamGetFlags(stream), R.CUDA_ERROR_INVALID_HANDLE)
    fails(cuda.cuStreamWaitEvent(stream, event, 0), R.CUDA_ERROR_INVALID_HANDLE)
    ok(cuda.cuEventDestroy(event))
