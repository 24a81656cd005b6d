// cuda.cpp: the candidate's start-up filter for CUDA labs: new processes and network sockets refused, threads
// (the CUDA runtime's) and Unix sockets (the CUDA driver's) allowed. See start_filter.h.
#include "start_filter.h"

// The linker keeps this object when asked for this name (-Wl,--undefined=grader_syscall_filter_cuda).
extern "C" const int grader_syscall_filter_cuda = 1;

namespace {
// Priority 101: before every default-priority constructor of the executable (nvcc's kernel registration).
__attribute__((constructor(101))) void install() { grader::start::install_or_die(true, true); }
}  // namespace
