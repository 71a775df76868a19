#pragma once
// `flashfit inspect` below the command line: read a wheel, a shared object or
// an installed distribution, and run every verdict check against a LoadHost.
// Unreadable or hostile input is an error (exit 2); an incompatibility is a
// failed check in the report (exit 1).

#include <filesystem>

#include "binary/verdict.hpp"
#include "binary/wheel.hpp"
#include "util/error.hpp"

namespace flashfit::binary {

struct InspectOptions {
  std::filesystem::path temp_dir;  // where a wheel's modules are extracted (removed after)
  WheelLimits limits;
};

// A .whl: RECORD verified and the extension modules extracted in one pass.
util::Result<InspectReport> inspect_wheel(const std::filesystem::path& wheel, const LoadHost& host,
                                          const InspectOptions& options);
// The same over a wheel already open (publish opens it once, from memory);
// options.limits are the ones it was opened with.
util::Result<InspectReport> inspect_opened_wheel(const Wheel& wheel, const LoadHost& host,
                                                 const InspectOptions& options);

// One shared object, as it lies (its own directory is $ORIGIN).
util::Result<InspectReport> inspect_library(const std::filesystem::path& library,
                                            const LoadHost& host);

// An installed distribution: `dist_info` is its *.dist-info directory (the
// shared objects its RECORD lists are checked where they are) or its
// *.egg-info directory or file (installed-files.txt's, else those under the
// top-level packages top_level.txt names, with a note saying so).
util::Result<InspectReport> inspect_installed(const std::filesystem::path& dist_info,
                                              const LoadHost& host);

// The checks for one shared object. `origin_dir` is the directory it is (or
// will be) loaded from, for $ORIGIN; `bundled` names files shipped beside it
// (a wheel's own members) that count as found when the loader would look there.
util::Result<ModuleReport> inspect_module(const std::filesystem::path& file, std::string member,
                                          const std::filesystem::path& origin_dir,
                                          const LoadHost& host,
                                          const std::vector<std::string>& bundled = {});

}  // namespace flashfit::binary
