#pragma once
// The pieces of `flashfit build` that install's hand-over reuses: where
// sdists are looked for, and one build run with its plan and progress shown.

#include <string>
#include <vector>

#include "build/build.hpp"
#include "resolve/config.hpp"
#include "resolve/gather.hpp"
#include "resolve/recipe.hpp"

namespace flashfit::cli {

struct SdistSources {
  std::vector<std::string> index_urls;  // simple-index roots
  std::vector<std::string> find_links;
  bool defaulted = false;  // none configured: PyPI's simple index, as pip does
};

// --index-url replaces the configured simple indexes, --extra-index-url adds;
// find-links come from the config and --find-links; disabled ones are left out.
SdistSources sdist_sources(const resolve::Config& config, const resolve::SourceFlags& flags);

// --toolkit FLAG (auto, pypi, machine or a CUDA_HOME path): replaces the
// environment's toolkit facts with the chosen toolkit's, assembling one from
// PyPI into the cache when asked (build/toolkit_provision). Returns the build
// record's note on how the toolkit was chosen.
util::Result<std::string> choose_toolkit(const std::string& flag, const env::ProbeOptions& probe,
                                         env::Environment& environment, bool json);

// Runs the build with the plan and preflight printed (stdout unless `json`,
// then nothing) before compiling, progress on stderr.
util::Result<build::BuildOutcome> run_build_shown(const env::Environment& environment,
                                                  const resolve::RecipeBook& recipes,
                                                  build::BuildRequest request, bool json);

}  // namespace flashfit::cli
