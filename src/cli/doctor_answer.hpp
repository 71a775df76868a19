#pragma once
// doctor's last word: for each package, one line that answers "does it work
// here, and if not, what do I run?". Decided from facts gathered before (what
// is installed, an import check when one ran, the resolver's answer), so the
// decision is pure and testable; doctor.cpp gathers, this file decides and
// renders.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "install/import_check.hpp"
#include "resolve/resolver.hpp"

namespace flashfit::cli {

// What was found out about one package before deciding.
struct PackageFacts {
  std::string package;
  std::optional<std::string> installed_version;  // in the interpreter's site dirs
  // The import check, when one ran; nullopt: not checked (`import_skipped` says why).
  std::optional<install::ImportCheck> import_check;
  std::string import_skipped;
  const resolve::Resolution* resolution = nullptr;  // nullptr: not resolved (`error` says why)
  std::string error;
  std::string install_command;  // `flashfit install NAME [flags]` for this environment
  // Sources that could not be reached ("upstream: unreachable: ..."): the
  // answer rests on the rest (built-in catalogs, the cache).
  std::vector<std::string> unreachable;
  // Why no network source was asked ("--offline", or the network failed for
  // an earlier package); empty: the network was used.
  std::string offline_reason;
  // Why the package's kernels cannot run here although it may import (an
  // import does not touch the GPU): kernels_cannot_run's answer.
  std::optional<std::string> cannot_run;
  std::optional<std::string> fallback_command;  // "flashfit fallback", when the recipe has one
};

// Why a CUDA package's kernels cannot run in this environment, when that is
// known: no NVIDIA GPU, a CPU build of torch, or every GPU below the lowest
// compute capability any release supports. nullopt: they may run (or it is
// not known that they cannot).
std::optional<std::string> kernels_cannot_run(const resolve::Recipe* recipe,
                                              const env::Environment& environment);

enum class AnswerKind {
  works,      // installed, and its import was checked and passed
  installed,  // installed; its import was not checked, or its kernels cannot run here (the line
              // says why)
  fits,       // a wheel fits: the command installs it
  none_fits,  // no wheel fits: why, and the next step
  unknown,    // the question could not be answered (error)
};
std::string_view to_string(AnswerKind kind);

struct PackageAnswer {
  std::string package;
  AnswerKind kind = AnswerKind::unknown;
  std::string summary;                 // the line after "package: "
  std::optional<std::string> command;  // what to run next, when there is one
  std::vector<std::string> notes;      // an import failure, unreachable sources
  std::optional<std::string> installed_version;
  std::optional<bool> importable;  // nullopt: not checked
  std::optional<std::string> wheel;
};

// Pure: the answer from the facts. Never says "imports" unless a check ran
// and passed.
PackageAnswer decide_answer(const PackageFacts& facts);

// "flash-attn: ..." (+ "    $ command" and "    note: ..." lines).
std::string answer_text(const std::vector<PackageAnswer>& answers);
nlohmann::json answer_json(const std::vector<PackageAnswer>& answers);

}  // namespace flashfit::cli
