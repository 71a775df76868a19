#pragma once
// What resolve and install share: the requirement, config, recipes, probe,
// sources and the resolution itself.
#include <memory>
#include <optional>
#include <string>

#include "cli/source_flags.hpp"
#include "cli/what_if_flags.hpp"
#include "env/environment.hpp"
#include "resolve/gather.hpp"
#include "resolve/resolver.hpp"

namespace flashfit::cli {

struct Resolved {
  resolve::Config config;
  resolve::RecipeBook book;
  const resolve::Recipe* recipe = nullptr;  // into book
  env::Environment environment;
  env::ProbeOptions probe;
  // environment.toolkit was probed (only when nothing fit): a later step that
  // needs it (install's hand-over to build) probes it only when this is false.
  bool toolkit_probed = false;
  std::vector<resolve::SourceReport> sources;
  resolve::Resolution resolution;
};

struct PipelineOptions {
  std::string spec;
  const EnvironmentFlags* environment = nullptr;
  const resolve::SourceFlags* sources = nullptr;
  std::size_t explain_rejected = SIZE_MAX;
  // A local .whl given instead of a requirement: the only candidate.
  std::optional<std::filesystem::path> wheel_file;
  // resolve may answer for a what-if --python-version alone; install acts on an interpreter.
  WithoutInterpreter without_interpreter = WithoutInterpreter::refuse;
};

// Usage errors (bad requirement, unknown source, unknown package without an
// index) are errors; "nothing fits" is a Resolution without a pick.
util::Result<std::unique_ptr<Resolved>> run_pipeline(const PipelineOptions& options);

}  // namespace flashfit::cli
