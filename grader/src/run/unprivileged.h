// unprivileged.h: the users a root grader hands untrusted work to, and what a forked child does to become one.
//
// Two kinds of users, so that neither can touch the other's files or processes:
//   - worker users run the programs built from a student's code, the candidate and the judge (run/process.h): a
//     user id of its own for each, leased while it runs (run/worker_uid.h);
//   - the build user runs the compiler and the linker on a student's code (build/build_inputs.h). They only ever
//     run the toolchain's own code, but they read what the student wrote: an `#include` or an `.incbin` of any
//     path. As the build user they can open only what every user may, so the lab's hidden cases and the
//     grader's files, kept from other users, cannot be quoted into a compile error or built into a program. It
//     is not a worker's user because a student's running program is: it could otherwise rewrite a later build's objects
//     between the link policy's check and the link.
// A grader that is not root (a student's own machine) cannot change user: everything runs as that user, who owns
// the files anyway.
#pragma once

#include <sys/types.h>

#include <filesystem>

namespace grader {

struct UnprivilegedUser {
  uid_t uid;
  gid_t gid;
  const char* name;  // for messages
};

// Debian reserves 65000-65533 and allocates none of them, so no account owns files as this user; it needs no
// entry in /etc/passwd.
inline constexpr UnprivilegedUser build_user{65533, 65533, "the grader's build user (uid 65533)"};

// Whether this grader changes user for untrusted work: only root can.
bool drops_privileges();

// In a forked child (async-signal-safe): no supplementary groups, then the group, then the user. False when any
// step failed; the child must not go on then.
bool become(const UnprivilegedUser& user);

// In a forked child (async-signal-safe): closes every descriptor from `first` on, so that nothing the grader has
// open (a lab file, another grading's pipe) can be reached through /proc/self/fd.
void close_descriptors_from(int first);

// Whether `user` can open `path` for reading, tried in a child that becomes `user`. True when the grader is not
// root: then every tool runs as the grader's own user, who can.
bool can_read_as(const UnprivilegedUser& user, const std::filesystem::path& path);

}  // namespace grader
