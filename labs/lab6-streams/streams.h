// streams.h: the interface of lab 6 (CUDA streams: y = A x for a matrix that starts in host memory). The harness
// calls these four functions and nothing else; your streams.cu defines them. Do not change this file: the grader
// uses its own copy.
//
// The problem is lab 5's, y = A x in double precision (A is m x n, row-major: element (i, j) at A[i * n + j]), but
// A, x and y now live in HOST memory, and the time that counts runs from host input to host output: copying A and
// x to the GPU, the kernel, and copying y back. A is large (1 GiB in the timed items), so the copies, not the
// kernel, are most of the time; the lab is about making them fast and hiding everything else behind them.
//
// Who allocates what:
//   - host memory: the harness allocates A, x and y through YOUR host_alloc (once per test, outside the timed
//     region) and releases them through your host_free. What kind of memory you return decides how fast the
//     copies can be and whether they can overlap anything (handout: "Pinned memory").
//   - device memory: the harness allocates a workspace big enough for the whole problem (`DeviceWorkspace`) and
//     passes it to every call. Use any part of it; its contents are garbage (NaN) on entry, every call. You may
//     not allocate device memory yourself (the grader refuses cudaMalloc and its relatives): the workspace is all
//     there is, so nothing can be kept on the device from one call to the next.
//
// Common rules:
//   - A and x are read only; y is output only (it holds NaN when you are called) and every y[i] must be
//     overwritten. When your function returns, y must hold the result in host memory: synchronise whatever you
//     started before returning.
//   - You may create and destroy streams and events (cudaStreamCreate*, cudaEventCreate*) and launch on them.
//   - m and n are at least 1; m need not be a multiple of anything, nor of the number of streams (1001 rows over
//     8 streams, 5 rows over 8 streams are both tested). m * n fits in int64_t but exceeds 2^31: index with
//     std::int64_t.
#pragma once

#include <cstddef>
#include <cstdint>

// Device memory the harness allocated (cudaMalloc) for one problem: a holds m * n doubles, x holds n, y holds m.
struct DeviceWorkspace {
  double* a;
  double* x;
  double* y;
};

// Host memory for `count` doubles, and its release. The harness gets A (m * n), x (n) and y (m) through these.
double* host_alloc(std::size_t count);
void host_free(double* p);

// Step 1, the synchronous program: copy A and x to the device, run a gemv kernel, copy y back, one after the other
// on one stream. The yardstick of step 2, and the way to check your kernel.
void gemv_sync(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, DeviceWorkspace dev);

// Step 2, the pipeline: split the rows of A into chunks and give the chunks to `streams` streams (1 to 8), each
// chunk copied in, multiplied and its part of y copied out on its stream, so that one chunk's copy overlaps
// another's kernel and a third's copy back. This is the function the performance items time.
void gemv_streams(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, int streams,
                  DeviceWorkspace dev);
