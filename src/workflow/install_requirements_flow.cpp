#include "workflow/install_requirements_flow.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <utility>

#include "env/torch.hpp"
#include "install/installed.hpp"
#include "install/installer.hpp"
#include "install/preloaded_check.hpp"
#include "net/http.hpp"
#include "pkg/name.hpp"
#include "resolve/rules.hpp"
#include "resolve/target.hpp"
#include "util/interrupt.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"
#include "workflow/installed_state.hpp"
#include "workflow/installer_inputs.hpp"

namespace flashfit::workflow {
namespace {

namespace fs = std::filesystem;
using Say = std::function<void(std::string_view)>;

void tell(const Say& sink, std::string_view line) {
  if (sink) sink(line);
}

// A line that names a wheel file (`name @ URL-or-path.whl`, or the path alone).
bool names_wheel(const TakenPackage& taken) {
  return taken.url && taken.form == RecipeLineForm::wheel_url;
}

// The wheel file a line names when it is a file here (a path, relative to the
// working directory as pip reads it, or a file:// URL), made absolute.
std::optional<fs::path> named_local_wheel(const TakenPackage& taken) {
  if (!names_wheel(taken)) return std::nullopt;
  const bool relative = taken.url->find("://") == std::string::npos;
  if (!relative && !net::is_local_source(*taken.url)) return std::nullopt;
  auto path =
      relative ? util::Result<fs::path>(fs::path(*taken.url)) : net::local_source_path(*taken.url);
  std::error_code ec;
  if (!path || !fs::is_regular_file(*path, ec)) return std::nullopt;
  return fs::absolute(*path, ec);
}

// The named wheels judged against this machine, probed again (torch may have
// changed since the plan); nothing is probed when no line names a wheel.
std::vector<std::optional<UrlVerdict>> judge_urls(const InstallRequirementsPlan& plan,
                                                  const resolve::RecipeBook& book,
                                                  const env::ProbeOptions& probe) {
  const bool any = std::any_of(plan.flashfit.begin(), plan.flashfit.end(),
                               [](const TakenPackage& t) { return names_wheel(t); });
  if (!any) return std::vector<std::optional<UrlVerdict>>(plan.flashfit.size());
  env::ProbeOptions options = probe;
  options.probe_toolkit = false;
  env::Environment environment = env::probe_environment(options);
  resolve::fill_derived_torch_abi(environment);
  return judge_named_wheels(plan, book, resolve::target_from_environment(environment));
}

// The compiled packages' own dependencies (with the extras their lines ask
// for), against what is installed now.
void check_dependencies(InstallRequirementsReport& report, const resolve::RecipeBook& book,
                        const env::Interpreter& interpreter, const install::Installer& installer) {
  std::vector<InstalledCompiled> installed;
  for (const PackageRun& run : report.packages) {
    if (run.exit_code != 0) continue;
    const auto taken = std::find_if(report.plan.flashfit.begin(), report.plan.flashfit.end(),
                                    [&](const TakenPackage& t) { return t.recipe == run.recipe; });
    installed.push_back({run.recipe, taken == report.plan.flashfit.end()
                                         ? std::vector<std::string>{}
                                         : taken->extras});
  }
  report.unmet = unmet_after_install(installed, interpreter);
  if (report.unmet.empty()) return;
  std::vector<std::string> argv = installer.base;
  argv.push_back("install");
  if (installer.kind == install::InstallerKind::uv) {
    argv.insert(argv.end(), {"--python", installer.python});
  }
  // A compiled package flashfit has a recipe for is flashfit's to pick (the
  // installer's choice would be a wheel for some other torch, or a build).
  std::vector<std::string> flashfit_commands;
  bool for_installer = false;
  for (const auto& u : report.unmet) {
    if (book.find(u.name)) {
      flashfit_commands.push_back("flashfit install " + util::shell_quote(u.wanted) + " --python " +
                                  util::shell_quote(interpreter.executable));
    } else {
      argv.push_back(u.wanted);
      for_installer = true;
    }
  }
  if (!for_installer) {
    report.fix_command = util::join(flashfit_commands, " && ");
    return;
  }
  // torch as it is, so that the installer cannot replace it to satisfy them.
  const InstalledVersions now = installed_versions(interpreter.site_dirs);
  if (auto torch = now.find("torch"); torch != now.end() && !torch->second.empty()) {
    argv.push_back("torch==" + torch->second);
  }
  std::vector<std::string> quoted;
  quoted.reserve(argv.size());
  for (const auto& a : argv) quoted.push_back(util::shell_quote(a));
  flashfit_commands.insert(flashfit_commands.begin(), util::join(quoted, " "));
  report.fix_command = util::join(flashfit_commands, " && ");
}

// A recipe package the installer's run brought in as a dependency of the
// lines (flashfit took only the lines that name one) was chosen by the
// installer: said, with the command that has flashfit check or replace it.
void note_unchecked_compiled(InstallRequirementsReport& report, const resolve::RecipeBook& book,
                             const env::Interpreter& interpreter) {
  std::vector<std::string> commands;
  for (const InstalledChange& change : report.installer_changes) {
    const resolve::Recipe* recipe = change.after ? book.find(change.name) : nullptr;
    if (recipe == nullptr) continue;
    const bool taken = std::any_of(report.plan.flashfit.begin(), report.plan.flashfit.end(),
                                   [&](const TakenPackage& t) { return t.recipe == recipe->name; });
    if (taken) continue;
    report.unchecked.push_back(change);
    commands.push_back("flashfit install " + util::shell_quote(recipe->name) + " --python " +
                       util::shell_quote(interpreter.executable));
  }
  report.unchecked_command = util::join(commands, " && ");
}

std::string tail_lines(const std::string& text, std::size_t lines) {
  std::size_t pos = text.size();
  while (pos > 0 && (text[pos - 1] == '\n')) --pos;
  std::size_t count = 0;
  while (pos > 0) {
    if (text[pos - 1] == '\n' && ++count == lines) break;
    --pos;
  }
  return std::string(util::trim(std::string_view(text).substr(pos)));
}

// The installer's run over the lines flashfit does not take.
std::vector<std::string> lines_argv(const install::Installer& installer,
                                    const std::string& requirements) {
  return install::requirements_argv(installer, requirements);
}

// The user's own lines: their pip configuration (a mirror, find-links)
// applies, as it would to `pip install -r`.
util::Result<util::ProcessResult> run_users_installer(const std::vector<std::string>& argv) {
  return install::run_installer(argv, std::chrono::seconds{1800}, install::InstallerConfig::users);
}

// How the run that decided the lines ended, into the report.
void report_lines_run(InstallRequirementsReport& report, const install::Installer& installer,
                      const util::ProcessResult& ran) {
  report.installer_ok = ran.succeeded();
  if (!ran.succeeded()) {
    report.installer_failure = fmt::format("{} {}: {}", to_string(installer.kind), ran.describe(),
                                           tail_lines(ran.err.empty() ? ran.out : ran.err, 6));
  }
}

util::Result<void> run_installer_lines(InstallRequirementsReport& report,
                                       const install::Installer& installer,
                                       const InstallerInputFiles& inputs,
                                       const env::Interpreter& interpreter,
                                       const InstalledVersions& before, const Say& note) {
  const std::vector<std::string> argv = lines_argv(installer, inputs.requirements().string());
  tell(note, fmt::format("installing {} line{} with {}", report.plan.installer.size(),
                         report.plan.installer.size() == 1 ? "" : "s", to_string(installer.kind)));
  auto ran = run_users_installer(argv);
  // What pip changed, whatever the outcome (a failed run may leave some).
  report.installer_changes = diff_installed(before, installed_versions(interpreter.site_dirs));
  if (!ran) return tl::unexpected(ran.error());
  report_lines_run(report, installer, *ran);
  return {};
}

// The lines' run to be shared with the first compiled package's install
// (install/lines_run), torch held by `pins`.
std::shared_ptr<install::SharedLinesRun> share_lines_run(const install::Installer& installer,
                                                         const InstallerInputFiles& inputs,
                                                         const env::Environment& environment) {
  // torch as an install changes it: its files where it is found now, and the
  // version import order finds later (a torch installed in front shadows it).
  env::Environment probed = environment;
  const std::vector<std::string>& site_dirs = environment.python.interpreter->site_dirs;
  probed.torch = env::probe_torch(std::vector<fs::path>(site_dirs.begin(), site_dirs.end()));
  auto torch_state = [probed = std::move(probed)] {
    std::vector<std::string> state = install::torch_fingerprint(probed);
    const InstalledVersions now = installed_versions(probed.python.interpreter->site_dirs);
    const auto torch = now.find("torch");
    state.push_back(torch == now.end() ? "no torch" : "torch " + torch->second);
    return state;
  };
  return std::make_shared<install::SharedLinesRun>(
      lines_argv(installer, inputs.requirements().string()),
      std::vector<std::string>{"-c", inputs.pins().string()}, run_users_installer,
      std::move(torch_state));
}

// After the first compiled package's flow: the shared run's part of the
// report, the lines run by themselves if no attempt took them.
util::Result<void> settle_lines_run(InstallRequirementsReport& report,
                                    install::SharedLinesRun& lines,
                                    const install::Installer& installer,
                                    const env::Interpreter& interpreter,
                                    const InstalledVersions& before) {
  auto ran = lines.run_alone();
  // What the installer changed for the lines (the packages flashfit takes
  // report their own changes).
  report.installer_changes = diff_installed(before, installed_versions(interpreter.site_dirs));
  std::erase_if(report.installer_changes, [&report](const InstalledChange& change) {
    return std::any_of(report.plan.flashfit.begin(), report.plan.flashfit.end(),
                       [&change](const TakenPackage& t) { return t.recipe == change.name; });
  });
  if (!ran) return tl::unexpected(ran.error());
  if (lines.deciding_run()) report_lines_run(report, installer, *lines.deciding_run());
  report.installer_shared = lines.shared();
  if (report.installer_shared) {
    // The argv that ran: the lines', the torch pin and the wheel.
    report.installer_argv.insert(
        report.installer_argv.end(),
        {"-c", "<torch pin>", "<" + report.plan.flashfit.front().recipe + "'s wheel>"});
  }
  return {};
}

// The interpreter for the first compiled package's import check, started
// before the installer's run over the lines (null when the plan says not to,
// or it cannot start: that check then starts its own).
std::shared_ptr<install::PreloadedCheck> preload_check(const InstallRequirementsPlan& plan,
                                                       bool dry_run, env::Environment environment) {
  // torch is probed (a few file reads) only where it decides.
  if (!preload_check_before_lines(plan, dry_run, true)) return nullptr;
  const env::Interpreter& interpreter = *environment.python.interpreter;
  std::vector<fs::path> site_dirs(interpreter.site_dirs.begin(), interpreter.site_dirs.end());
  environment.torch = env::probe_torch(site_dirs);
  if (!preload_check_before_lines(plan, dry_run, environment.torch.package_dir.known()))
    return nullptr;
  auto started = install::PreloadedCheck::start(environment, true);
  if (!started) return nullptr;
  return std::make_shared<install::PreloadedCheck>(std::move(*started));
}

// One compiled package through the caller's `flashfit install` flow, into
// `run`; only Ctrl-C is an error here (any other is the package's outcome).
util::Result<void> install_one(const InstallRequirementsInput& input,
                               const InstallRequirementsReport& report, std::size_t index,
                               std::shared_ptr<install::PreloadedCheck> preloaded,
                               std::shared_ptr<install::SharedLinesRun> lines, PackageRun& run) {
  const TakenPackage& taken = report.plan.flashfit[index];
  const std::string spec = install_spec(taken, report.url_verdicts[index]);
  run = PackageRun{taken.recipe, spec, std::nullopt, {}, {}};
  util::Result<int> done = input.install_one(spec, report.plan.sources, report.dry_run,
                                             std::move(preloaded), std::move(lines), run.report);
  if (!done) {
    if (done.error().kind == util::ErrorKind::interrupted) return tl::unexpected(done.error());
    run.exit_code = util::exit_code(done.error().kind);
    run.error = util::render(done.error());
  } else {
    run.exit_code = *done;
  }
  return {};
}

}  // namespace

std::vector<std::optional<UrlVerdict>> judge_named_wheels(const InstallRequirementsPlan& plan,
                                                          const resolve::RecipeBook& book,
                                                          const resolve::ResolveTarget& target) {
  std::vector<std::optional<UrlVerdict>> out(plan.flashfit.size());
  for (std::size_t i = 0; i < plan.flashfit.size(); ++i) {
    const auto& taken = plan.flashfit[i];
    if (!names_wheel(taken)) continue;
    resolve::Candidate candidate;
    candidate.filename = net::url_file_name(*taken.url);
    candidate.url = *taken.url;
    candidate.source = "requirements file";
    resolve::Request request{taken.recipe, {}, taken.spec};
    auto judged = resolve::judge(candidate, request, book.find(taken.recipe), target);
    UrlVerdict verdict;
    if (!judged) {
      verdict.reasons.push_back("its file name is not a wheel of " + taken.recipe);
    } else {
      verdict.fits = judged->compatible();
      for (const auto& reason : judged->reasons) verdict.reasons.push_back(reason.message);
    }
    out[i] = std::move(verdict);
  }
  return out;
}

std::string install_spec(const TakenPackage& taken, const std::optional<UrlVerdict>& verdict) {
  if (!verdict || !verdict->fits) return taken.spec;
  const auto file = named_local_wheel(taken);
  return file ? file->string() : taken.spec;
}

util::Result<void> check_named_hashes(const InstallRequirementsPlan& plan) {
  constexpr std::array<std::pair<std::string_view, util::FileDigest>, 3> kDigests = {
      {{"sha256", util::FileDigest::sha256},
       {"sha384", util::FileDigest::sha384},
       {"sha512", util::FileDigest::sha512}}};
  for (const TakenPackage& taken : plan.flashfit) {
    if (taken.hashes.empty()) continue;
    const auto file = named_local_wheel(taken);
    if (!file) continue;
    // pip takes the file when any one of the line's hashes names it.
    std::vector<std::string> seen;
    bool matched = false;
    for (const auto& [algorithm, kind] : kDigests) {
      const std::string prefix = std::string(algorithm) + ":";
      std::vector<std::string> allowed;
      for (const std::string& hash : taken.hashes) {
        if (util::starts_with(hash, prefix))
          allowed.push_back(util::ascii_lower(hash.substr(prefix.size())));
      }
      if (allowed.empty()) continue;
      auto digest = util::file_digest_hex(*file, kind);
      if (!digest) return tl::unexpected(std::move(digest.error()).with_context(taken.where));
      matched = std::find(allowed.begin(), allowed.end(), *digest) != allowed.end();
      if (matched) break;
      seen.push_back(fmt::format("{} {}", algorithm, *digest));
    }
    if (matched) continue;
    return util::input_error(
        fmt::format("{} has {}, which none of the line's --hash values names", file->string(),
                    util::join(seen, " and ")),
        taken.where,
        "the file is not the one the hash was written for: name that file, or correct the "
        "--hash");
  }
  return {};
}

util::Result<InstallRequirementsReport> install_requirements(
    const InstallRequirementsInput& input) {
  const env::Environment environment = env::probe_interpreter_environment(input.probe);
  if (input.require_interpreter) {
    if (auto usable = input.require_interpreter(environment); !usable)
      return tl::unexpected(usable.error());
  }
  const env::Interpreter& interpreter = *environment.python.interpreter;
  // Markers as the machine described reads them (--python-version, --arch).
  auto planned = plan_install_requirements(*input.files, *input.book,
                                           environment.marker_environment(), input.sources);
  if (!planned) return tl::unexpected(planned.error());
  // A named file whose bytes are not the line's --hash is bad input: refused
  // before anything runs, dry run included, as pip refuses the line.
  if (auto hashed = check_named_hashes(*planned); !hashed) return tl::unexpected(hashed.error());

  InstallRequirementsReport report;
  report.plan = std::move(*planned);
  report.dry_run = input.dry_run;
  // What-if flags describe another environment: nothing is installed into this one.
  if (input.probe.what_if.any() && !input.dry_run) {
    report.dry_run = true;
    if (input.on_what_if_dry_run) input.on_what_if_dry_run(input.probe.what_if.describe());
  }
  if (report.dry_run) {
    for (const auto* lines : {&report.plan.installer, &report.plan.constraints}) {
      const auto torch = std::find_if(lines->begin(), lines->end(), names_torch);
      if (torch != lines->end() && !report.torch_line)
        report.torch_line = fmt::format("{}:{}", torch->file, torch->line);
    }
  }
  auto installer = install::choose_installer(environment);
  if (!installer) return tl::unexpected(installer.error());
  report.installer =
      installer->version.empty() ? std::string(to_string(installer->kind)) : installer->version;

  // The first compiled package's import check starts now: its `import torch`
  // overlaps the installer's run over the lines.
  std::shared_ptr<install::PreloadedCheck> preloaded =
      preload_check(report.plan, report.dry_run, environment);
  const InstalledVersions before = installed_versions(interpreter.site_dirs);
  // The lines' input files live until every installer run over them is over.
  std::optional<InstallerInputFiles> inputs;
  // The lines' run, when it goes into the first compiled package's install.
  std::shared_ptr<install::SharedLinesRun> lines;
  if (installer_runs(report.plan)) {
    report.installer_argv = lines_argv(*installer, "<the lines>");
    if (!report.dry_run) {
      const auto torch = before.find("torch");
      const std::optional<std::string> pins =
          shared_run_pins(report.plan, report.dry_run, torch == before.end() ? "" : torch->second);
      auto written = InstallerInputFiles::write(report.plan, "install-r", pins.value_or(""));
      if (!written) return tl::unexpected(written.error());
      inputs.emplace(std::move(*written));
      if (pins) {
        lines = share_lines_run(*installer, *inputs, environment);
      } else {
        auto ran =
            run_installer_lines(report, *installer, *inputs, interpreter, before, input.note);
        if (!ran) return tl::unexpected(ran.error());
      }
    }
  }
  // Named wheels judged before the packages: torch may have changed in the
  // lines' run, or is held by the shared one.
  if (report.installer_ok != false)
    report.url_verdicts = judge_urls(report.plan, *input.book, input.probe);
  report.url_verdicts.resize(report.plan.flashfit.size());

  bool failed = report.installer_ok == false;
  bool any_failed = failed;
  // Each compiled package's install record, kept until the run's end: a
  // later failure rolls the earlier ones back.
  std::optional<HeldInstalls> held;
  if (!report.dry_run && input.probe.cache_root) held.emplace(*input.probe.cache_root);
  // Ctrl-C between or during packages: the current one rolled itself back;
  // those before it are rolled back as after a failure (Ctrl-C again stops
  // that, leaving the rest installed, said), and the error says how each ended.
  auto interrupted_run = [&](util::Error error) -> util::Result<InstallRequirementsReport> {
    if (held) {
      error = held->roll_back_interrupted(
          std::move(error), [&] { return env::probe_interpreter_environment(input.probe); },
          input.note);
    }
    return tl::unexpected(std::move(error));
  };
  for (std::size_t index = 0; index < report.plan.flashfit.size(); ++index) {
    const TakenPackage& taken = report.plan.flashfit[index];
    PackageRun run{taken.recipe, taken.spec, std::nullopt, {}, {}};
    if (!failed) {
      if (util::interrupted())
        return interrupted_run(util::Error{util::ErrorKind::interrupted, "interrupted", {}, {}});
      tell(input.note, fmt::format("{} ({}): flashfit install {}", taken.recipe, taken.where,
                                   install_spec(taken, report.url_verdicts[index])));
      if (lines) {
        tell(input.note, fmt::format("its wheel, once verified, may go into one {} run with the "
                                     "{} other line{}, torch held at its version",
                                     to_string(installer->kind), report.plan.installer.size(),
                                     report.plan.installer.size() == 1 ? "" : "s"));
      }
      if (auto one =
              install_one(input, report, index, std::exchange(preloaded, nullptr), lines, run);
          !one)
        return interrupted_run(std::move(one.error()));
      if (lines) {
        auto settled = settle_lines_run(report, *lines, *installer, interpreter, before);
        if (!settled) return tl::unexpected(settled.error());
        if (report.installer_ok == false && run.exit_code != 0) {
          // The lines failed by themselves, before anything of the package
          // was installed (install_run puts them first): it was never tried.
          run = PackageRun{taken.recipe, taken.spec, std::nullopt, {}, {}};
        } else if (lines->torch_changed()) {
          // The lines by themselves changed torch: the package is picked again for it.
          tell(input.note,
               fmt::format("the other lines changed torch: {} is picked again", taken.recipe));
          report.url_verdicts = judge_urls(report.plan, *input.book, input.probe);
          if (auto again = install_one(input, report, index, nullptr, nullptr, run); !again)
            return interrupted_run(std::move(again.error()));
        }
        lines = nullptr;
      }
      // A dry run plans every package: one with no wheel here stops a real
      // run (or hands it to a source build), not the plan of the others.
      if (run.exit_code != 0) {
        any_failed = true;
        failed = !report.dry_run;
      } else if (held) {
        if (auto kept = held->hold(run.recipe); !kept) {
          tell(input.note, fmt::format("warning: {} cannot be rolled back if a later package "
                                       "fails: {}",
                                       run.recipe, util::render(kept.error())));
        }
      }
      if (failed && held) {
        report.rolled_back =
            held->roll_back(env::probe_interpreter_environment(input.probe), input.note);
      }
    }
    report.packages.push_back(std::move(run));
  }
  if (!failed && held) {
    if (auto released = held->release(); !released) {
      tell(input.note, "warning: install --undo will not know the last install: " +
                           util::render(released.error()));
    }
  }
  if (!failed && !report.dry_run) check_dependencies(report, *input.book, interpreter, *installer);
  note_unchecked_compiled(report, *input.book, interpreter);
  report.ok = !any_failed && report.unmet.empty() && report.unchecked.empty();
  return report;
}

}  // namespace flashfit::workflow
