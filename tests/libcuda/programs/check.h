/* CHECK(call): on failure print the call, CUDA's error name and exit 1. Each program includes the
   kernels' PTX as `kernels_ptx` (a NUL-terminated array the test writes into kernels_ptx.h). */
#ifndef CHECK_H
#define CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include "mini_cuda.h"

#define CHECK(call)                                                                    \
    do {                                                                               \
        CUresult check_result_ = (call);                                               \
        if (check_result_ != CUDA_SUCCESS) {                                           \
            const char *check_name_ = "?";                                             \
            cuGetErrorName(check_result_, &check_name_);                               \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, check_name_); \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

#define EXPECT(condition)                                                              \
    do {                                                                               \
        if (!(condition)) {                                                            \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #condition);   \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)
#endif
