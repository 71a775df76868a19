#pragma once
// `flashfit install -r FILE [-r FILE ...] [SPEC ...]`: the requirements
// files parsed and planned (workflow::plan_install_requirements), the lines
// flashfit does not take installed by the probed interpreter's installer in
// one run, then each compiled package installed exactly as `flashfit install
// SPEC` does (through `install_one`, install.cpp's own flow), then their own
// dependencies checked. Exit 0 all installed, 1 a step failed (the report
// says what remains), 2 bad input (nothing installed).
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "cli/install_spec.hpp"
#include "cli/what_if_flags.hpp"
#include "pkg/requirements_file.hpp"
#include "resolve/gather.hpp"
#include "util/error.hpp"
#include "workflow/install_requirements.hpp"

namespace flashfit::cli {

struct InstallRequirementsRequest {
  std::vector<std::string> files;  // -r FILE, in order
  std::vector<std::string> specs;  // SPECs given beside them
  const EnvironmentFlags* environment = nullptr;
  resolve::SourceFlags sources;
  bool dry_run = false;
  bool json = false;
  // The install flags each compiled package is installed with; its spec, its
  // sources (the files' merged over the flags) and the dry run are set per package.
  InstallSpecOptions each;
};

// A file the user named (a requirements file, a lock), whole; "no such file"
// and "cannot open the file" are input errors naming it.
util::Result<std::string> read_input_file(const std::string& path);

// Each -r file read and parsed (includes from disk), then the SPECs parsed as
// one more file ("<command line>", no includes); `install -r` and `lock`.
util::Result<std::vector<pkg::RequirementsFile>> parse_requirements_inputs(
    const std::vector<std::string>& paths, const std::vector<std::string>& specs);

util::Result<int> run_install_requirements(const InstallRequirementsRequest& request);

}  // namespace flashfit::cli
