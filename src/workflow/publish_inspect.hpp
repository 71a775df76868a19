#pragma once
// One input wheel, read for publishing: the inspect checks that need no
// target environment (RECORD, file name / WHEEL / METADATA, the pure-wheel
// trap, ELF readability) and the facts its pages are chosen by.

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "workflow/publish_types.hpp"

namespace flashfit::workflow {

// Never fails: what cannot be read becomes the candidate's refusal.
// `temp_dir` receives the extracted modules (removed after). With a
// `stage_dir` (a directory of flashfit's own on the target's file system),
// the wheel is copied there as it is read and hashed, and the copy is what is
// inspected and later moved into the target (PublishCandidate::staged): the
// wheel is read once and written once (libzip then reads the copy, from the
// page cache), and none of it is held in memory.
// Without one (or when the copy cannot be written there), a wheel of up to
// 32 MiB is read into memory once and kept for the put.
PublishCandidate inspect_for_publish(const std::filesystem::path& wheel,
                                     const std::filesystem::path& temp_dir,
                                     const std::filesystem::path& stage_dir = {});

// Where inspect_all_for_publish copies the wheels it reads (see
// inspect_for_publish): `dir` empty for none; a wheel whose file name is in
// `present` (sorted: the target's files) is not copied, since the target
// already holds a file of that name (a re-publish writes nothing).
struct StagePlan {
  std::filesystem::path dir;
  std::vector<std::string> present;
};

// Every wheel through inspect_for_publish, on up to `threads` threads (0: the
// machine's CPUs, at most 8): inspection is most of a publish's CPU (a SHA-256
// pass over the file and one over RECORD's members) and wheels are
// independent. Candidates in the order of `wheels`; `progress` (may be empty)
// gets "inspecting NAME<note>" lines, one at a time. Wheels read into memory
// keep their bytes for the put while the held total stays under a budget.
std::vector<PublishCandidate> inspect_all_for_publish(
    const std::vector<std::filesystem::path>& wheels, const std::filesystem::path& temp_dir,
    const std::function<void(std::string_view)>& progress, std::string_view note = {},
    unsigned threads = 0, const StagePlan& stage = {});

// The candidate for a copy whose METADATA Version is `version` (the file
// name's), when upstream's wheel lacks the local label there.
PublishCandidate rewritten_for_pip(const PublishCandidate& original, const std::string& version,
                                   const std::filesystem::path& temp_dir);

// METADATA's Requires-Python header (empty when absent); headers end at the
// first blank line.
std::string requires_python_of(std::string_view metadata);

// The major of a CUDA runtime library name: "libcudart.so.12" -> 12.
std::optional<int> cudart_major(std::string_view needed);

}  // namespace flashfit::workflow
