#include "workflow/install_requirements_flow.hpp"

#include <fmt/core.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "env/torch.hpp"
#include "install/installed.hpp"
#include "install/installer.hpp"
#include "install/preloaded_check.hpp"
#include "pkg/name.hpp"
#include "resolve/rules.hpp"
#include "resolve/target.hpp"
#include "util/interrupt.hpp"
#include "util/strings.hpp"
#include "workflow/installer_inputs.hpp"

namespace flashfit::workflow {
namespace {

namespace fs = std::filesystem;
using Say = std::function<void(std::string_view)>;

void tell(const Say& sink, std::string_view line) {
  if (sink) sink(line);
}

// A distribution's METADATA, whole; nullopt when it cannot be read.
std::optional<std::string> read_metadata(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (auto pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
  return text;
}

// "name-version.dist-info", "name-version-py3.11.egg-info", "name.egg-info".
InstalledVersions installed_versions(const std::vector<std::string>& site_dirs) {
  InstalledVersions out;
  for (const std::string& site : site_dirs) {
    std::error_code ec;
    for (fs::directory_iterator it(site, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string file = it->path().filename().string();
      std::string stem;
      if (util::ends_with(file, ".dist-info")) {
        stem = file.substr(0, file.size() - 10);
      } else if (util::ends_with(file, ".egg-info")) {
        stem = file.substr(0, file.size() - 9);
      } else {
        continue;
      }
      const auto dash = stem.find('-');
      const std::string name = pkg::canonicalize_name(stem.substr(0, dash));
      std::string version;
      if (dash != std::string::npos) {
        version = stem.substr(dash + 1);
        version = version.substr(0, version.find('-'));
      }
      out.emplace(name, version);  // the first site dir (import order) wins
    }
  }
  return out;
}

// Why a named wheel is not the one for this machine, by its file name.
std::vector<std::optional<UrlVerdict>> judge_urls(const InstallRequirementsPlan& plan,
                                                  const resolve::RecipeBook& book,
                                                  const env::ProbeOptions& probe) {
  std::vector<std::optional<UrlVerdict>> out(plan.flashfit.size());
  bool any = false;
  for (const auto& taken : plan.flashfit) {
    any = any || (taken.url && taken.form == RecipeLineForm::wheel_url);
  }
  if (!any) return out;
  env::ProbeOptions options = probe;
  options.probe_toolkit = false;
  env::Environment environment = env::probe_environment(options);
  resolve::fill_derived_torch_abi(environment);
  const resolve::ResolveTarget target = resolve::target_from_environment(environment);
  for (std::size_t i = 0; i < plan.flashfit.size(); ++i) {
    const auto& taken = plan.flashfit[i];
    if (!taken.url || taken.form != RecipeLineForm::wheel_url) continue;
    resolve::Candidate candidate;
    std::string name = *taken.url;
    name = name.substr(0, name.find_first_of("?#"));
    name = name.substr(name.rfind('/') == std::string::npos ? 0 : name.rfind('/') + 1);
    candidate.filename = replace_all(name, "%2B", "+");
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

std::string shell_quote(const std::string& s) {
  if (s.find_first_of(" '\"<>=;|&*?$!()[]") == std::string::npos) return s;
  return "'" + replace_all(s, "'", "'\\''") + "'";
}

// The compiled packages' own dependencies, against what is installed now.
void check_dependencies(InstallRequirementsReport& report, const env::Interpreter& interpreter,
                        const install::Installer& installer) {
  const InstalledVersions now = installed_versions(interpreter.site_dirs);
  for (const PackageRun& run : report.packages) {
    if (run.exit_code != 0) continue;
    auto dist = install::find_installed(interpreter.site_dirs, run.recipe);
    if (!dist || dist->egg_info) continue;
    auto metadata = read_metadata(dist->dist_info / "METADATA");
    if (!metadata) continue;
    auto unmet = unmet_dependencies(run.recipe, requires_dist(*metadata), interpreter.markers, now);
    report.unmet.insert(report.unmet.end(), unmet.begin(), unmet.end());
  }
  if (report.unmet.empty()) return;
  std::vector<std::string> argv = installer.base;
  argv.push_back("install");
  if (installer.kind == install::InstallerKind::uv) {
    argv.insert(argv.end(), {"--python", installer.python});
  }
  for (const auto& u : report.unmet) argv.push_back(u.requirement);
  // torch as it is, so that the installer cannot replace it to satisfy them.
  if (auto torch = now.find("torch"); torch != now.end() && !torch->second.empty()) {
    argv.push_back("torch==" + torch->second);
  }
  std::vector<std::string> quoted;
  quoted.reserve(argv.size());
  for (const auto& a : argv) quoted.push_back(shell_quote(a));
  report.fix_command = util::join(quoted, " ");
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

util::Result<void> run_installer_lines(InstallRequirementsReport& report,
                                       const install::Installer& installer,
                                       const env::Interpreter& interpreter, const Say& note) {
  auto inputs = InstallerInputFiles::write(report.plan, "install-r");
  if (!inputs) return tl::unexpected(inputs.error());

  const InstalledVersions before = installed_versions(interpreter.site_dirs);
  const std::vector<std::string> argv = lines_argv(installer, inputs->requirements().string());
  tell(note, fmt::format("installing {} line{} with {}", report.plan.installer.size(),
                         report.plan.installer.size() == 1 ? "" : "s", to_string(installer.kind)));
  // The user's own lines: their pip configuration (a mirror, find-links) applies, as it
  // would to `pip install -r`.
  auto ran =
      install::run_installer(argv, std::chrono::seconds{1800}, install::InstallerConfig::users);
  // What pip changed, whatever the outcome (a failed run may leave some).
  report.installer_changes = diff_installed(before, installed_versions(interpreter.site_dirs));
  if (!ran) return tl::unexpected(ran.error());
  report.installer_ok = ran->succeeded();
  if (!ran->succeeded()) {
    report.installer_failure = fmt::format("{} {}: {}", to_string(installer.kind), ran->describe(),
                                           tail_lines(ran->err.empty() ? ran->out : ran->err, 6));
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

}  // namespace

util::Result<InstallRequirementsReport> install_requirements(
    const InstallRequirementsInput& input) {
  const env::Environment environment = env::probe_interpreter_environment(input.probe);
  if (input.require_interpreter) {
    if (auto usable = input.require_interpreter(environment); !usable)
      return tl::unexpected(usable.error());
  }
  const env::Interpreter& interpreter = *environment.python.interpreter;
  auto planned =
      plan_install_requirements(*input.files, *input.book, interpreter.markers, input.sources);
  if (!planned) return tl::unexpected(planned.error());

  InstallRequirementsReport report;
  report.plan = std::move(*planned);
  report.dry_run = input.dry_run;
  // What-if flags describe another environment: nothing is installed into this one.
  if (input.probe.what_if.any() && !input.dry_run) {
    report.dry_run = true;
    if (input.on_what_if_dry_run) input.on_what_if_dry_run(input.probe.what_if.describe());
  }
  auto installer = install::choose_installer(environment);
  if (!installer) return tl::unexpected(installer.error());
  report.installer =
      installer->version.empty() ? std::string(to_string(installer->kind)) : installer->version;

  // The first compiled package's import check starts now: its `import torch`
  // overlaps the installer's run over the lines.
  std::shared_ptr<install::PreloadedCheck> preloaded =
      preload_check(report.plan, report.dry_run, environment);
  if (!report.plan.installer.empty()) {
    report.installer_argv = lines_argv(*installer, "<the lines>");
    if (!report.dry_run) {
      auto ran = run_installer_lines(report, *installer, interpreter, input.note);
      if (!ran) return tl::unexpected(ran.error());
    }
  }
  const bool installer_failed = report.installer_ok == false;
  // Named wheels judged after the installer's run: torch may have changed.
  if (!installer_failed) report.url_verdicts = judge_urls(report.plan, *input.book, input.probe);
  report.url_verdicts.resize(report.plan.flashfit.size());

  bool failed = installer_failed;
  for (const TakenPackage& taken : report.plan.flashfit) {
    PackageRun run{taken.recipe, taken.spec, std::nullopt, {}, {}};
    if (!failed) {
      if (util::interrupted()) return util::fail(util::ErrorKind::interrupted, "interrupted");
      tell(input.note,
           fmt::format("{} ({}): flashfit install {}", taken.recipe, taken.where, taken.spec));
      util::Result<int> done = input.install_one(taken.spec, report.plan.sources, report.dry_run,
                                                 std::exchange(preloaded, nullptr), run.report);
      if (!done) {
        if (done.error().kind == util::ErrorKind::interrupted) return tl::unexpected(done.error());
        run.exit_code = util::exit_code(done.error().kind);
        run.error = util::render(done.error());
      } else {
        run.exit_code = *done;
      }
      failed = run.exit_code != 0;
    }
    report.packages.push_back(std::move(run));
  }
  if (!failed && !report.dry_run) check_dependencies(report, interpreter, *installer);
  report.ok = !failed && report.unmet.empty();
  return report;
}

}  // namespace flashfit::workflow
