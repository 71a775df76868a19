#pragma once
// What resolve, install, doctor and lock share: from a parsed requirement,
// the config and the recipes to the probed environment, the gathered sources
// and the resolution. cli/resolve_pipeline turns the flags into these typed
// values; nothing here prints (warnings stay in the resolution for the caller).
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "env/environment.hpp"
#include "resolve/config_effect.hpp"
#include "resolve/gather.hpp"
#include "resolve/resolver.hpp"
#include "resolve/suggestions.hpp"
#include "util/error.hpp"

namespace flashfit::workflow {

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
  // The config file's settings that changed the answer (resolve names them).
  std::vector<resolve::ConfigEffect> config_effects;
};

struct ResolveFlowInput {
  resolve::Request request;
  // `install ./x.whl`: the file's one candidate (from request_for_file); no
  // sources are planned or gathered then.
  std::optional<resolve::Candidate> wheel_candidate;
  resolve::Config config;
  resolve::RecipeBook book;
  const resolve::SourceFlags* sources = nullptr;
  // Built from the flags before the call; a bad flag value is reported only
  // after the unknown-package check, where the CLI has always reported it.
  util::Result<env::ProbeOptions> probe = env::ProbeOptions{};
  std::size_t explain_rejected = SIZE_MAX;
  std::size_t rank_rejected = SIZE_MAX;  // resolve::ResolveOptions::rank_rejected
  // An environment already probed (doctor asks about several packages): used
  // instead of probing again, toolkit included when it was probed.
  const env::Environment* probed = nullptr;
  // Whether the probed environment can be acted on (no interpreter: an error,
  // or a note and what-if facts); the CLI's policy, called once after probing.
  std::function<util::Result<void>(const env::Environment&)> require_interpreter;
  // --python as given, for the suggested commands (command_context).
  std::optional<std::string> python_flag;
};

// `flashfit install ./x.whl`: the request the file names and its one candidate.
util::Result<resolve::Request> request_for_file(const std::filesystem::path& wheel,
                                                std::optional<resolve::Candidate>& candidate);

// Usage errors (unknown package without an index, a bad flag value) are
// errors; "nothing fits" is a Resolution without a pick.
util::Result<std::unique_ptr<Resolved>> resolve_flow(ResolveFlowInput input);

// How suggested commands address what was judged: the probed interpreter's
// own pip (a venv when PEP 668 forbids it) and the flags given.
resolve::CommandContext command_context(const env::Environment& environment,
                                        const std::optional<std::string>& python_flag);

}  // namespace flashfit::workflow
