// cpu_counters.h: CPU performance counters over one call of a worker, read by the grader, never by the candidate
// (issue "Look inside"). The grader opens perf events on every thread of the worker's processes (the sandbox's pid
// namespace is no obstacle: the grader names the threads by its own pids), holds the descriptors, enables them around
// the one call and reads them. The worker never sees a descriptor and cannot write a count; its syscall filter does
// not apply to the grader. Where perf_event_open is not allowed (perf_event_paranoid, a container's seccomp, a VM
// without a virtual PMU), the reason is kept for the report and grading goes on. Counters never change points.
//
//   CounterSet counts;
//   std::string why_not;
//   bool counted = count_call(worker.process().pid(), [&] { return worker.time(...); }, counts, why_not);
//   counts.cycles  // absent on this VM ("no hardware counters here: cycles: ENOENT ...")
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>

#include "report/report.h"

namespace grader {

// Runs `call` with counters enabled over the threads of `leader` and every process below it (threads the call
// starts are counted too). Returns what `call` returned. `into` gets the counts that could be read (its label and
// flops are the caller's); `why_not` says why hardware counts, or all counts, are missing, and is empty where none
// is. `into.threads` is 0 when nothing could be counted.
bool count_call(pid_t leader, const std::function<bool()>& call, CounterSet& into, std::string& why_not);

// Why perf_event_open refused `event` ("cycles") with `error_number`, in words for the report: "no hardware
// performance counters here (cycles: ENOENT; a VM without a virtual PMU?)", "perf_event_paranoid is 3 (...)".
// `paranoid`: /proc/sys/kernel/perf_event_paranoid's value, absent where it cannot be read.
std::string counter_refusal(int error_number, const std::string& event, std::optional<int> paranoid);

}  // namespace grader
