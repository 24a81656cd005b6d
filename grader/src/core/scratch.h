// scratch.h: where a grader process keeps its work folders (the pipeline's grader-<lab>-XXXXXX, a batch's unpacked
// archives): $TMPDIR/grader-<uid>/<pid>-<random>/, both mode 0711. Others cannot list them, so student sources are
// not laid open in /tmp; a root grader's workers, which run as other users, can still pass through to the work
// folder they are given. The folder of this process is removed when it ends; those of dead processes (a grader
// killed by Ctrl-C or SIGKILL) are removed by the next grader that starts.
//
// A folder is live while its process holds a lock (flock) on the folder itself. It is made under a name the reaper
// leaves alone (".new-XXXXXX"), locked, and only then renamed to the name the reaper judges: so whatever the
// interleaving of graders starting together, a reaper never finds a live folder unlocked. No pid is trusted (/tmp
// may be shared with another pid namespace, where the same number is another process or none).
//
// The process's TMPDIR is pointed at its folder, so everything that asks for a temporary folder
// (std::filesystem::temp_directory_path, the compilers) lands there.
#pragma once

#include <filesystem>
#include <string>

namespace grader {

// Creates (once) and returns this process's scratch folder, and sets TMPDIR to it. A root grader whose TMPDIR
// is inside a folder that user nobody cannot pass through (a 0700 home) would fail every grading with "Permission
// denied": it uses /tmp instead and says why on stderr once. Throws std::runtime_error when no usable place exists.
const std::filesystem::path& scratch_root();

// Keeps this process's scratch folder after it ends (`grader lab1 --keep-workdir`).
void keep_scratch();

// Removes this process's scratch folder unless kept; main calls it on its way out.
void remove_scratch();

// For tests: the folder under which per-process folders live ($TMPDIR/grader-<uid>), and the reaping alone.
void reap_stale_scratch(const std::filesystem::path& parent);

}  // namespace grader
