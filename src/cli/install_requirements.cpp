// flashfit install -r: the files read and parsed, the flags turned into
// workflow::install_requirements's input (each compiled package through
// cli/install_spec, its report captured), the report rendered.
#include "cli/install_requirements.hpp"

#include <fmt/core.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/common.hpp"
#include "cli/install_requirements_report.hpp"
#include "cli/source_flags.hpp"
#include "pkg/requirements_file.hpp"
#include "util/strings.hpp"
#include "workflow/install_requirements_flow.hpp"

namespace flashfit::cli {
namespace {

namespace fs = std::filesystem;

class DiskFiles : public pkg::FileReader {
 public:
  util::Result<std::string> read(const std::string& path) override { return read_input_file(path); }
};

// Command-line SPECs are one more "file"; they cannot include anything.
class NoIncludes : public pkg::FileReader {
 public:
  util::Result<std::string> read(const std::string& path) override {
    return util::input_error("a SPEC cannot include a file", path);
  }
};

}  // namespace

util::Result<std::string> read_input_file(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return util::input_error("no such file", path);
  std::ifstream in(path, std::ios::binary);
  if (!in) return util::input_error("cannot open the file", path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

util::Result<std::vector<pkg::RequirementsFile>> parse_requirements_inputs(
    const std::vector<std::string>& paths, const std::vector<std::string>& specs) {
  std::vector<pkg::RequirementsFile> files;
  DiskFiles disk;
  for (const std::string& path : paths) {
    auto text = read_input_file(path);
    if (!text) {
      return util::input_error(
          fmt::format("cannot read requirements file: {}", text.error().message), path);
    }
    auto parsed = pkg::parse_requirements_file(*text, path, disk);
    if (!parsed) return tl::unexpected(parsed.error());
    files.push_back(std::move(*parsed));
  }
  if (!specs.empty()) {
    NoIncludes none;
    auto parsed = pkg::parse_requirements_file(util::join(specs, "\n"), "<command line>", none);
    if (!parsed) return tl::unexpected(parsed.error());
    files.push_back(std::move(*parsed));
  }
  return files;
}

util::Result<int> run_install_requirements(const InstallRequirementsRequest& request) {
  auto files = parse_requirements_inputs(request.files, request.specs);
  if (!files) return tl::unexpected(files.error());
  auto setup = load_user_setup();
  if (!setup) return tl::unexpected(setup.error());
  auto probe = probe_options_from(*request.environment);
  if (!probe) return tl::unexpected(probe.error());
  workflow::InstallRequirementsInput input;
  input.files = &*files;
  input.book = &setup->book;
  input.probe = std::move(*probe);
  input.sources = request.sources;
  input.dry_run = request.dry_run;
  input.require_interpreter = [&request](const env::Environment& environment) {
    return require_interpreter(environment, *request.environment, WithoutInterpreter::refuse);
  };
  input.on_what_if_dry_run = [](const std::vector<std::string>& what_if) {
    std::fprintf(stderr,
                 "flashfit: %s describe another environment than this interpreter's: a dry run "
                 "(--dry-run), nothing is installed\n",
                 util::join(what_if, " ").c_str());
  };
  input.note = [](std::string_view line) { note(line); };
  // Each compiled package through `flashfit install SPEC`'s own flow, its report captured.
  input.install_one = [&request](const std::string& spec, const resolve::SourceFlags& sources,
                                 bool dry_run, std::shared_ptr<install::PreloadedCheck> preloaded,
                                 std::shared_ptr<install::SharedLinesRun> lines,
                                 std::string& report) {
    InstallSpecOptions one = request.each;
    one.spec = spec;
    one.sources = sources;
    one.dry_run = dry_run;
    one.preloaded = std::move(preloaded);
    one.lines = std::move(lines);
    StdoutCapture capture(report);
    return install_spec(one);
  };
  auto report = workflow::install_requirements(input);
  if (!report) return tl::unexpected(report.error());
  write_stdout(request.json ? requirements_json(*report).dump(2) + "\n"
                            : requirements_text(*report));
  return report->ok ? 0 : 1;
}

}  // namespace flashfit::cli
