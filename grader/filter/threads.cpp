// threads.cpp: the candidate's start-up filter for labs with threads that are not CUDA labs (OpenMP): new
// processes and sockets refused, threads allowed. See start_filter.h.
#include "start_filter.h"

// The linker keeps this object when asked for this name (-Wl,--undefined=grader_syscall_filter_threads).
extern "C" const int grader_syscall_filter_threads = 1;

namespace {
// Priority 101: before every default-priority constructor of the executable (nvcc's kernel registration).
__attribute__((constructor(101))) void install() { grader::start::install_or_die(true, false); }
}  // namespace
