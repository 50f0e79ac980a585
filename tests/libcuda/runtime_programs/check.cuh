// Shared by the CUDA runtime test programs: stop with the CUDA error's name on any failure.
#pragma once
#include <cstdio>
#include <cstdlib>
#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t check_error_ = (call);                                                   \
        if (check_error_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,   \
                         cudaGetErrorName(check_error_), cudaGetErrorString(check_error_));  \
            std::exit(2);                                                                    \
        }                                                                                    \
    } while (0)
