// no_threads.cpp: the candidate's start-up filter for labs without threads: new processes and new threads
// refused. See start_filter.h.
#include "start_filter.h"

// The linker keeps this object when asked for this name (-Wl,--undefined=grader_syscall_filter_no_threads).
extern "C" const int grader_syscall_filter_no_threads = 1;

namespace {
// Priority 101: before every default-priority constructor of the executable.
__attribute__((constructor(101))) void install() { grader::start::install_or_die(false, false); }
}  // namespace
