// flashfit uninstall NAME: the installer's uninstall with install's safety
// (backup, proof, restore on failure or Ctrl-C; workflow/uninstall.*), and
// `install --undo` (workflow/undo.*). Exit 0 done, 1 nothing to undo or a
// failure (the environment as before), 2 bad usage.
#include "cli/uninstall.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "install/installed.hpp"
#include "pkg/name.hpp"
#include "util/interrupt.hpp"
#include "util/paths.hpp"
#include "util/strings.hpp"
#include "util/utc_time.hpp"
#include "workflow/install_flow.hpp"
#include "workflow/undo.hpp"
#include "workflow/uninstall.hpp"

namespace flashfit::cli {
namespace {

using nlohmann::json;

struct UninstallCliOptions {
  std::string package;
  EnvironmentFlags environment;
  bool json = false;
};

// Acting on an interpreter: what-if flags describe another one, so they are refused.
util::Result<env::Environment> probe_for_change(const EnvironmentFlags& flags,
                                                std::string_view what) {
  auto what_if = what_if_from(flags);
  if (!what_if) return tl::unexpected(what_if.error());
  if (what_if->any()) {
    return util::fail(util::ErrorKind::usage,
                      fmt::format("{} acts on a real interpreter; {} describe{} another", what,
                                  util::join(what_if->describe(), " "),
                                  what_if->describe().size() == 1 ? "s" : ""),
                      {}, "give only --python");
  }
  auto probe = probe_options_from(flags);
  if (!probe) return tl::unexpected(probe.error());
  probe->probe_toolkit = false;
  env::Environment environment = env::probe_environment(*probe);
  if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
  if (auto usable = require_interpreter(environment, flags, WithoutInterpreter::refuse); !usable)
    return tl::unexpected(usable.error());
  return environment;
}

util::Result<std::filesystem::path> cache_dir() {
  auto root = util::cache_root();
  if (!root)
    return util::fail(util::ErrorKind::failed, "no cache directory", {},
                      "set FLASHFIT_CACHE_DIR or HOME");
  return *root;
}

util::Result<int> run_uninstall(const UninstallCliOptions& options) {
  if (!pkg::is_valid_project_name(options.package)) {
    return util::fail(util::ErrorKind::usage, "not a package name",
                      util::printable(options.package, 200),
                      "give the name only: flashfit uninstall flash-attn");
  }
  const std::string name = pkg::canonicalize_name(options.package);
  auto environment = probe_for_change(options.environment, "uninstall");
  if (!environment) return tl::unexpected(environment.error());
  auto root = cache_dir();
  if (!root) return tl::unexpected(root.error());
  workflow::UninstallOptions uninstall;
  uninstall.backup_dir = *root / "backups" / fmt::format("uninstall-{}-{}", name, ::getpid());
  uninstall.progress = [](std::string_view line) { note(line); };
  auto done = workflow::uninstall_package(*environment, name, uninstall);
  if (!done) return tl::unexpected(done.error());
  if (options.json) {
    json out{{"package", done->package},
             {"version", done->version},
             {"site_dir", done->site_dir},
             {"installer", done->installer},
             {"command", done->argv},
             {"still_visible", done->still_visible ? json(*done->still_visible) : json(nullptr)}};
    write_stdout(out.dump(2) + "\n");
  } else {
    std::string text =
        fmt::format("uninstalled {} {} from {}\n", done->package, done->version, done->site_dir);
    if (done->still_visible)
      text += fmt::format("note: {} is still visible to this interpreter\n", *done->still_visible);
    write_stdout(text);
  }
  return 0;
}

}  // namespace

util::Result<int> run_install_undo(const EnvironmentFlags& flags, bool json_output) {
  auto environment = probe_for_change(flags, "install --undo");
  if (!environment) return tl::unexpected(environment.error());
  auto root = cache_dir();
  if (!root) return tl::unexpected(root.error());
  auto undone =
      workflow::undo_last_install(*environment, *root, [](std::string_view line) { note(line); });
  if (!undone) return tl::unexpected(undone.error());
  if (json_output) {
    json out{
        {"undone", undone->undone},
        {"package", undone->package.empty() ? json(nullptr) : json(undone->package)},
        {"removed", undone->removed_version ? json(*undone->removed_version) : json(nullptr)},
        {"restored", undone->restored_version ? json(*undone->restored_version) : json(nullptr)},
        {"message", undone->message}};
    write_stdout(out.dump(2) + "\n");
  } else {
    write_stdout(undone->message + "\n");
  }
  return undone->undone ? 0 : 1;
}

void remember_install(const std::filesystem::path& cache_root, const env::Environment& environment,
                      const std::string& package, install::InstallOutcome& outcome) {
  if (auto saved = workflow::remember_install(cache_root, environment, package, outcome); !saved) {
    std::fprintf(stderr, "flashfit: warning: install --undo will not know this install: %s\n",
                 saved.error().message.c_str());
  }
}

Runner define_uninstall(CLI::App& app) {
  auto options = std::make_shared<UninstallCliOptions>();
  app.add_option("package", options->package, "The installed package to remove: flash-attn")
      ->type_name("NAME")
      ->required();
  add_environment_flags(app, options->environment);
  app.add_flag("--json", options->json, "Print a JSON object (schema in docs/json.md)");
  return [options]() { return run_uninstall(*options); };
}

}  // namespace flashfit::cli
