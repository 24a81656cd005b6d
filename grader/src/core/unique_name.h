// unique_name.h: a name no other writer of the same file uses at the same moment: another grader process, on
// this host or another host sharing the file system (a SLURM array writing one cache), or another thread of this
// one (a batch grades several students at once). For "write a temporary, then rename it into place".
#pragma once

#include <string>

namespace grader {

// "<host>-<pid>-<n>", n counting up within this process.
std::string unique_suffix();

}  // namespace grader
