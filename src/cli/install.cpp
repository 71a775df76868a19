// flashfit install SPEC|WHEEL: resolve, fetch into the cache, inspect the
// bytes, install with --no-deps (torch is never touched), prove the import,
// and roll back to what was there when nothing works. Exit 0 installed,
// 1 nothing could be installed (the environment is as before), 2 bad usage.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/install_lock.hpp"
#include "cli/install_requirements.hpp"
#include "cli/install_spec.hpp"
#include "cli/source_flags.hpp"
#include "cli/uninstall.hpp"
#include "util/strings.hpp"

namespace flashfit::cli {
namespace {

struct InstallCliOptions {
  std::string spec;
  std::vector<std::string> specs;         // as given: one, or with -r any number
  std::vector<std::string> requirements;  // -r FILE (cli/install_requirements)
  std::optional<std::string> lock;        // --lock DIR|FILE (cli/install_lock)
  EnvironmentFlags environment;
  resolve::SourceFlags sources;
  bool dry_run = false;
  std::optional<std::string> toolkit;  // for a hand-over to build
  bool no_build = false;
  bool json = false;
  bool undo = false;  // --undo: put back what the last install replaced
  std::size_t max_attempts = 5;
};

// What-if flags describe an environment that is not the interpreter's: what
// would be installed there can be shown, but nothing is fetched, installed or
// built into this one (issue 13: cp312 wheels went into a 3.11 venv).
util::Result<InstallCliOptions> dry_run_for_what_if(InstallCliOptions options) {
  auto what_if = what_if_from(options.environment);
  if (!what_if) return tl::unexpected(what_if.error());
  if (what_if->any() && !options.dry_run) {
    options.dry_run = true;
    std::fprintf(stderr,
                 "flashfit: %s describe%s another environment than this interpreter's: a dry run "
                 "(--dry-run), nothing is fetched, installed or built\n",
                 util::join(what_if->describe(), " ").c_str(),
                 what_if->describe().size() == 1 ? "s" : "");
  }
  return options;
}

// The flags one SPEC is installed with (install -r sets the spec, sources and
// dry run per package).
InstallSpecOptions spec_options(const InstallCliOptions& options) {
  return {
      options.spec, &options.environment, options.sources,      options.dry_run, options.no_build,
      options.json, options.toolkit,      options.max_attempts, nullptr,         nullptr};
}

util::Result<int> run_install(const InstallCliOptions& given) {
  if (given.lock) {
    return run_install_lock({*given.lock, &given.specs, &given.requirements, &given.environment,
                             &given.sources, given.dry_run, given.json, given.undo});
  }
  if (!given.requirements.empty()) {
    if (given.undo) return util::fail(util::ErrorKind::usage, "--undo takes no -r FILE");
    return run_install_requirements({given.requirements, given.specs, &given.environment,
                                     given.sources, given.dry_run, given.json,
                                     spec_options(given)});
  }
  if (given.specs.size() > 1)
    return util::fail(util::ErrorKind::usage, "install takes one SPEC; several go with -r FILE");
  if (!given.specs.empty() && given.spec != given.specs.front()) {
    InstallCliOptions one = given;
    one.spec = given.specs.front();
    return run_install(one);
  }
  if (given.undo != given.spec.empty())
    return util::fail(util::ErrorKind::usage,
                      given.undo ? "--undo takes no SPEC: it undoes the last install"
                                 : "install needs a SPEC (or --undo)");
  if (given.undo && given.dry_run)
    return util::fail(util::ErrorKind::usage, "--undo cannot be a --dry-run", {},
                      "what --undo would restore is recorded in "
                      "backups/last-install.json beside the wheels/ of `flashfit cache dir`");
  if (given.undo) return run_install_undo(given.environment, given.json);
  auto adjusted = dry_run_for_what_if(given);
  if (!adjusted) return tl::unexpected(adjusted.error());
  const InstallCliOptions& options = *adjusted;
  return install_spec(spec_options(options));
}

}  // namespace

Runner define_install(CLI::App& app) {
  auto options = std::make_shared<InstallCliOptions>();
  app.add_option("spec", options->specs,
                 "A requirement (flash-attn, 'flash-attn>=2.6,<2.8') or a local .whl file; "
                 "with -r, any number")
      ->type_name("SPEC");
  app.add_option(
         "-r,--requirement", options->requirements,
         "Install from a requirements file (repeatable): flashfit's packages get the "
         "wheel that fits, the other lines go to pip / uv first (docs/install-requirements.md)")
      ->type_name("FILE")
      ->allow_extra_args(false);
  app.add_option("--lock", options->lock,
                 "Install exactly what a lock names: DIR (its flashfit-locks.json picks the file "
                 "for this environment) or one lock FILE (docs/install-lock.md)")
      ->type_name("DIR|FILE");
  add_environment_flags(app, options->environment);
  add_source_flags(app, options->sources);
  app.add_flag("--dry-run", options->dry_run, "Show what would be installed; change nothing");
  app.add_flag("--undo", options->undo,
               "Put back the version the last install replaced (its backup is kept until then)");
  app.add_flag("--no-build", options->no_build, "Never hand over to a source build");
  app.add_option("--toolkit", options->toolkit,
                 "For a hand-over to a source build: the CUDA toolkit (auto, pypi, machine or a "
                 "CUDA_HOME path; see flashfit build --help)")
      ->type_name("auto|pypi|machine|PATH");
  app.add_option("--max-attempts", options->max_attempts,
                 "Candidates to try before giving up (default 5)")
      ->type_name("N");
  app.add_flag("--json", options->json, "Print a JSON object (schema in docs/json.md)");
  return [options]() { return run_install(*options); };
}

}  // namespace flashfit::cli
