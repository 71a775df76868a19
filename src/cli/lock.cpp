// flashfit lock [-r FILE ...] [SPEC ...]: a requirements-format lock for the
// probed (or what-if) environment: each recipe package as flashfit's pick
// (URL and sha256 from the resolution), the other lines as the probed
// interpreter's pip resolves them (`install --dry-run --report -
// --ignore-installed`) or, with uv on PATH or `--resolver uv`, as `uv pip
// compile` does (workflow/uv_compile), under a header naming the environment key
// (workflow/lock_file), or as a PEP 751 pylock.toml with `--format pylock`
// (workflow/pylock). `lock --check FILE`: does that key still match here.
// Exit 0 written / fits, 1 nothing fits or the key differs, 2 bad input.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/install_requirements.hpp"
#include "cli/lock_probe.hpp"
#include "cli/resolve_pipeline.hpp"
#include "cli/resolve_report.hpp"
#include "cli/source_flags.hpp"
#include "cli/what_if_flags.hpp"
#include "resolve/target.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"
#include "workflow/lock_dir.hpp"
#include "workflow/lock_file.hpp"
#include "workflow/lock_flow.hpp"
#include "workflow/pylock.hpp"
#include "workflow/uv_compile.hpp"

namespace flashfit::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct LockCliOptions {
  std::vector<std::string> files;
  std::vector<std::string> specs;
  EnvironmentFlags environment;
  resolve::SourceFlags sources;
  std::optional<std::string> output;
  std::optional<std::string> dir;  // --dir: requirements-<key>.txt + the index there
  std::optional<std::string> check;
  std::string format = "requirements";  // --format requirements|pylock
  std::optional<std::string> resolver;  // --resolver pip|uv (default: uv when on PATH)
  bool no_download = false;             // --no-download: a pick with no known sha256 stays unhashed
  bool json = false;
};

json key_json(const workflow::LockKey& key) {
  auto value = [](const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); };
  return {{"python", value(key.python)},       {"platform", value(key.platform)},
          {"torch", value(key.torch)},         {"cuda", value(key.cuda)},
          {"cxx11_abi", value(key.cxx11_abi)}, {"gpu_archs", value(key.gpu_archs)}};
}

json lines_json(const std::vector<workflow::LockedLine>& lines) {
  json out = json::array();
  for (const auto& l : lines) {
    out.push_back({{"name", l.name},
                   {"version", l.version},
                   {"url", l.url},
                   {"sha256", l.sha256 ? json(*l.sha256) : json(nullptr)},
                   {"origin", l.origin}});
  }
  return out;
}

util::Result<int> run_check(const LockCliOptions& options) {
  if (!options.files.empty() || !options.specs.empty() || options.output || options.dir) {
    return util::fail(util::ErrorKind::usage, "--check FILE takes no -r, SPEC, -o or --dir");
  }
  auto text = read_input_file(*options.check);
  if (!text) {
    return util::input_error(fmt::format("cannot read the lock: {}", text.error().message),
                             *options.check);
  }
  // A pylock's key is its [tool.flashfit] table: the TOML is read whole.
  auto locked = [&]() -> util::Result<workflow::LockKey> {
    if (!workflow::is_pylock_name(fs::path(*options.check).filename().string())) {
      return workflow::parse_lock_header(*text, *options.check);
    }
    auto parsed = workflow::parse_pylock(*text, *options.check);
    if (!parsed) return tl::unexpected(parsed.error());
    return parsed->document.key;
  }();
  if (!locked) return tl::unexpected(locked.error());
  auto probed = probe_for_key(options.environment);
  if (!probed) return tl::unexpected(probed.error());
  const env::Environment& environment = *probed;
  const workflow::LockKey here =
      workflow::lock_key_from(resolve::target_from_environment(environment));
  const auto differences = workflow::compare_keys(*locked, here);
  if (options.json) {
    json diffs = json::array();
    for (const auto& d : differences) {
      diffs.push_back({{"fact", d.fact}, {"locked", d.locked}, {"here", d.here}});
    }
    write_stdout(json{{"file", *options.check},
                      {"fits", differences.empty()},
                      {"locked", key_json(*locked)},
                      {"here", key_json(here)},
                      {"differences", diffs}}
                     .dump(2) +
                 "\n");
  } else if (differences.empty()) {
    write_stdout(
        fmt::format("{}: fits this environment (its key is this one's)\n", *options.check));
  } else {
    std::string out = fmt::format("{}: locked for another environment\n", *options.check);
    for (const auto& d : differences) out += "  " + d.describe() + "\n";
    out +=
        "write a new lock here: flashfit lock -r <your requirements> -o " + *options.check + "\n";
    write_stdout(out);
  }
  return differences.empty() ? 0 : 1;
}

// Each recipe package resolved against the environment probed once.
workflow::RealLockSteps::Resolve resolve_each(const LockCliOptions& options,
                                              const env::Environment& environment) {
  return [&options, &environment](const workflow::TakenPackage& taken,
                                  const resolve::SourceFlags& sources) {
    PipelineOptions pipeline;
    // A local wheel the line names, which fits (workflow::install_spec): judged as that file.
    if (util::ends_with(taken.spec, ".whl")) {
      pipeline.wheel_file = fs::path(taken.spec);
    } else {
      pipeline.spec = taken.spec;
    }
    pipeline.environment = &options.environment;
    pipeline.sources = &sources;
    pipeline.probed = &environment;
    pipeline.explain_rejected = 8;
    return run_pipeline(pipeline);
  };
}

void say_on_stderr(std::string_view prefix, std::string_view line) {
  std::fprintf(stderr, "flashfit: %.*s%.*s\n", static_cast<int>(prefix.size()), prefix.data(),
               static_cast<int>(line.size()), line.data());
}

// --format's word as a LockFormat; -o must then be a name the format's readers know.
util::Result<workflow::LockFormat> lock_format(const LockCliOptions& options) {
  if (options.format != "requirements" && options.format != "pylock") {
    return util::fail(util::ErrorKind::usage,
                      fmt::format("unknown lock format '{}'", util::printable(options.format, 40)),
                      {}, "give --format requirements or --format pylock");
  }
  const auto format = options.format == "pylock" ? workflow::LockFormat::pylock
                                                 : workflow::LockFormat::requirements;
  if (format == workflow::LockFormat::pylock && options.output &&
      !workflow::is_pylock_name(fs::path(*options.output).filename().string())) {
    // uv, pip and flashfit itself tell a pylock from a requirements file by its name.
    return util::fail(util::ErrorKind::usage,
                      fmt::format("-o {}: PEP 751 names a pylock file pylock.toml or "
                                  "pylock.<name>.toml (<name> without dots)",
                                  *options.output),
                      {}, "e.g. -o pylock.toml");
  }
  return format;
}

util::Result<int> run_lock(const LockCliOptions& options) {
  if (options.check) return run_check(options);
  auto format = lock_format(options);
  if (!format) return tl::unexpected(format.error());
  if (options.files.empty() && options.specs.empty()) {
    return util::fail(util::ErrorKind::usage,
                      "nothing to lock: give -r FILE or a SPEC (or --check FILE)");
  }
  if (options.output && options.dir) {
    return util::fail(util::ErrorKind::usage,
                      "-o FILE and --dir DIR both say where the lock goes: give one");
  }
  auto files = parse_requirements_inputs(options.files, options.specs);
  if (!files) return tl::unexpected(files.error());
  auto setup = load_user_setup();
  if (!setup) return tl::unexpected(setup.error());
  auto probed = probe_for_key(options.environment);
  if (!probed) return tl::unexpected(probed.error());
  const env::Environment& environment = *probed;
  // uv when on PATH: the installer flashfit would install these lines with.
  auto resolver = workflow::choose_line_resolver(options.resolver, environment.python.uv.known());
  if (!resolver) return tl::unexpected(resolver.error());
  auto what_if = what_if_from(options.environment);
  if (!what_if) return tl::unexpected(what_if.error());
  workflow::LockInput input;
  input.files = &*files;
  input.book = &setup->book;
  input.environment = &environment;
  input.sources = options.sources;
  input.what_if = what_if->describe();
  input.no_download = options.no_download;
  input.resolver = *resolver;
  // (A pylock cannot leave a hash out: render_pylock's error says so.)
  input.warn_unhashed = *format == workflow::LockFormat::requirements;
  input.note = [](std::string_view line) { note(line); };
  input.warning = [](std::string_view line) { say_on_stderr("warning: ", line); };
  input.remark = [](std::string_view line) { say_on_stderr("note: ", line); };
  workflow::RealLockSteps steps(resolve_each(options, environment));
  auto locked = workflow::lock_requirements(steps, input);
  if (!locked) return tl::unexpected(locked.error());
  if (const auto& unfit = locked->unfit) {
    const Resolved& r = *unfit->resolved;
    ResolveReport report{r.resolution, r.recipe, r.environment, r.sources, false, nullptr};
    std::fprintf(stderr, "flashfit: %s (%s): no wheel fits this environment, nothing locked\n%s",
                 unfit->taken.spec.c_str(), unfit->taken.where.c_str(),
                 resolve_text(report).c_str());
    return 1;
  }
  const workflow::LockDocument& document = locked->document;
  if (const auto unknown = workflow::unknown_facts(document.key); !unknown.empty()) {
    say_on_stderr("warning: ",
                  fmt::format("this lock's key has unknown facts ({}): an unknown fact never "
                              "matches, so `lock --check` and `install --lock` will refuse it "
                              "anywhere; give them (--gpu X.Y, --torch, --cuda, --cxx11-abi) or "
                              "make them readable, then lock again",
                              util::join(unknown, ", ")));
  }

  auto rendered = *format == workflow::LockFormat::pylock
                      ? workflow::render_pylock(document)
                      : util::Result<std::string>(workflow::render_lock(document));
  if (!rendered) return tl::unexpected(rendered.error());
  const std::string& text = *rendered;
  std::optional<std::string> written = options.output;
  if (options.dir) {
    auto wrote = workflow::write_lock_into(*options.dir, document.key, text, *format);
    if (!wrote) return tl::unexpected(wrote.error());
    written = wrote->string();
    note(fmt::format("wrote {} ({} compiled, {} installer line{}) and its entry in {}", *written,
                     document.flashfit.size(), document.installer.size(),
                     document.installer.size() == 1 ? "" : "s",
                     (fs::path(*options.dir) / workflow::kLockIndexName).string()));
  } else if (options.output) {
    auto wrote = util::write_file_atomic(*options.output, text);
    if (!wrote) return tl::unexpected(wrote.error());
    note(fmt::format("wrote {} ({} compiled, {} installer line{})", *options.output,
                     document.flashfit.size(), document.installer.size(),
                     document.installer.size() == 1 ? "" : "s"));
  }
  if (options.json) {
    write_stdout(json{{"output", written ? json(*written) : json(nullptr)},
                      {"format", options.format},
                      {"resolver", std::string(workflow::to_string(*resolver))},
                      {"environment", key_json(document.key)},
                      {"flashfit", lines_json(document.flashfit)},
                      {"installer", lines_json(document.installer)},
                      {"notes", document.notes},
                      {"text", text}}
                     .dump(2) +
                 "\n");
  } else if (!written) {
    write_stdout(text);
  }
  return 0;
}

}  // namespace

Runner define_lock(CLI::App& app) {
  auto options = std::make_shared<LockCliOptions>();
  app.add_option("spec", options->specs,
                 "A requirement to lock beside the files (flash-attn==2.8.3, numpy)")
      ->type_name("SPEC");
  app.add_option("-r,--requirement", options->files,
                 "A requirements file to lock (repeatable; docs/lock.md)")
      ->type_name("FILE")
      ->allow_extra_args(false);
  app.add_option("-o,--output", options->output, "Write the lock here (default: stdout)")
      ->type_name("FILE");
  app.add_option("--dir", options->dir,
                 "Write requirements-<environment key>.txt (pylock.<key>.toml) into DIR and add it "
                 "to DIR's index flashfit-locks.json (one run per environment; install --lock DIR "
                 "picks)")
      ->type_name("DIR");
  app.add_option("--format", options->format,
                 "requirements: pip's format (default); pylock: PEP 751 pylock.toml, which uv "
                 "installs too (docs/lock.md)")
      ->type_name("{requirements,pylock}");
  app.add_option("--check", options->check,
                 "Exit 0 when the lock FILE's environment key is this environment's, 1 listing "
                 "each fact that differs")
      ->type_name("FILE");
  add_environment_flags(app, options->environment);
  add_source_flags(app, options->sources);
  app.add_option("--resolver", options->resolver,
                 "Who resolves the lines flashfit does not take: pip (install --dry-run "
                 "--report) or uv (pip compile); default uv when on PATH, else pip")
      ->type_name("{pip,uv}");
  app.add_flag("--no-download", options->no_download,
               "Do not download a pick whose sha256 no source gives: lock it without --hash");
  app.add_flag("--json", options->json, "Print a JSON object (schema in docs/json.md)");
  return [options]() { return run_lock(*options); };
}

}  // namespace flashfit::cli
