#pragma once
// The flags of resolve, install, doctor and lock turned into
// workflow::resolve_flow's typed input, the one call, and its warnings on stderr.
#include <memory>
#include <optional>
#include <string>

#include "cli/source_flags.hpp"
#include "cli/what_if_flags.hpp"
#include "env/environment.hpp"
#include "resolve/config_effect.hpp"
#include "resolve/gather.hpp"
#include "resolve/resolver.hpp"
#include "workflow/resolve_flow.hpp"

namespace flashfit::cli {

using workflow::Resolved;

struct PipelineOptions {
  std::string spec;
  const EnvironmentFlags* environment = nullptr;
  const resolve::SourceFlags* sources = nullptr;
  std::size_t explain_rejected = SIZE_MAX;
  std::size_t rank_rejected = SIZE_MAX;  // resolve::ResolveOptions::rank_rejected
  // A local .whl given instead of a requirement: the only candidate.
  std::optional<std::filesystem::path> wheel_file;
  // resolve may answer for a what-if --python-version alone; install acts on an interpreter.
  WithoutInterpreter without_interpreter = WithoutInterpreter::refuse;
  // An environment already probed (doctor asks about several packages): used
  // instead of probing again, toolkit included when it was probed.
  const env::Environment* probed = nullptr;
  // doctor: the resolution's warnings are not repeated per package on stderr
  // (its findings and answer notes say what matters).
  bool print_warnings = true;
};

// Usage errors (bad requirement, unknown source, unknown package without an
// index) are errors; "nothing fits" is a Resolution without a pick.
util::Result<std::unique_ptr<Resolved>> run_pipeline(const PipelineOptions& options);

// How suggested commands address what was judged: the probed interpreter's
// own pip (a venv when PEP 668 forbids it) and the flags given.
resolve::CommandContext command_context(const env::Environment& environment,
                                        const EnvironmentFlags& flags);

}  // namespace flashfit::cli
