#include "install/install_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "resolve/suggestions.hpp"
#include "util/strings.hpp"

namespace flashfit::install {
namespace fs = std::filesystem;

std::vector<fs::path> installer_target_dirs(const env::Interpreter& interpreter) {
  std::vector<fs::path> dirs;
  for (const std::string& dir : {interpreter.purelib, interpreter.platlib}) {
    if (!dir.empty() && std::find(dirs.begin(), dirs.end(), fs::path(dir)) == dirs.end())
      dirs.emplace_back(dir);
  }
  return dirs;
}

namespace {

// The installer is always given the cache's copy (a local wheel is copied in
// first), so only a cache hit has its path known before the run.
std::optional<fs::path> known_path(const resolve::Candidate& c,
                                   const std::map<std::string, fs::path>& cached) {
  if (c.sha256) {
    if (auto hit = cached.find(*c.sha256); hit != cached.end()) return hit->second;
  }
  return std::nullopt;
}

bool writes_into(const std::vector<fs::path>& targets, const fs::path& site_dir) {
  return std::any_of(targets.begin(), targets.end(), [&](const fs::path& t) {
    return t.lexically_normal() == site_dir.lexically_normal();
  });
}

}  // namespace

InstallPlan plan_install(const PlanInputs& in) {
  InstallPlan plan;
  const resolve::Resolution& resolution = *in.resolution;
  const Installer& installer = *in.installer;
  plan.package = resolution.request.name;
  plan.interpreter = in.interpreter->executable;
  const std::vector<fs::path> targets = installer_target_dirs(*in.interpreter);
  for (const fs::path& t : targets) plan.site_dirs.push_back(t.string());
  plan.installer =
      installer.version.empty() ? std::string(to_string(installer.kind)) : installer.version;
  // Rank order; stop at the first rejected candidate (they sort last) unless
  // the user named the file, and after max_attempts.
  for (const resolve::Judged& j : resolution.candidates) {
    if ((!j.compatible() && !in.try_rejected) || plan.candidates.size() >= in.max_attempts) break;
    const resolve::Candidate& c = *j.candidate;
    PlannedCandidate p{&j, c.filename, c.url, c.source, c.sha256, known_path(c, in.cached), {}};
    p.installer_argv = install_argv(
        installer, p.wheel_path ? *p.wheel_path : fs::path("<cache entry of " + c.filename + ">"));
    plan.candidates.push_back(std::move(p));
  }
  const std::optional<InstalledDist>& before = *in.before;
  if (before) {
    plan.previous = before->version;
    plan.previous_site_dir = before->site_dir;
    plan.backup_previous = writes_into(targets, before->site_dir);
  }
  plan.uninstall_argv = uninstall_argv(installer, plan.package);
  if (in.recipe && !in.recipe->binary_module.empty())
    plan.import_modules = {in.recipe->binary_module};
  if (!before) {
    plan.restore = "remove what the tried wheels wrote (nothing was installed before)";
  } else if (plan.backup_previous) {
    plan.restore = fmt::format("copy {} {}'s backed-up files back into {}, then check them",
                               plan.package, *plan.previous, before->site_dir.string());
  } else {
    plan.restore = fmt::format(
        "remove what the tried wheels wrote; {} {} in {} is outside the installer's target and "
        "stays untouched",
        plan.package, *plan.previous, before->site_dir.string());
  }
  return plan;
}

namespace {
std::string command_line(const std::vector<std::string>& argv) {
  std::vector<std::string> words;
  for (const std::string& a : argv) words.push_back(resolve::shell_quote(a));
  return util::join(words, " ");
}
}  // namespace

std::string plan_text(const InstallPlan& plan) {
  std::string out;
  out += fmt::format("plan for {}\n", plan.package);
  out += fmt::format("  interpreter:   {}\n", plan.interpreter);
  out += fmt::format("  site-packages: {}\n", plan.site_dirs.empty()
                                                  ? std::string("unknown")
                                                  : util::join(plan.site_dirs, ", "));
  out += fmt::format("  installer:     {}\n", plan.installer);
  if (plan.previous) {
    out += fmt::format("  installed now: {} {} in {}{}\n", plan.package, *plan.previous,
                       plan.previous_site_dir->string(),
                       plan.backup_previous ? " (backed up before the first installer run)" : "");
  } else {
    out += fmt::format("  installed now: no {}\n", plan.package);
  }
  out += fmt::format("  if nothing works: {}\n", plan.restore);
  if (plan.candidates.empty()) out += "  candidates: none fits\n";
  for (std::size_t i = 0; i < plan.candidates.size(); ++i) {
    const PlannedCandidate& c = plan.candidates[i];
    out += fmt::format("  {}. {}  [{}]\n", i + 1, c.filename, c.source);
    out += fmt::format("     from:    {}\n", c.url);
    if (c.wheel_path) out += fmt::format("     cached:  {}\n", c.wheel_path->string());
    out +=
        fmt::format("     sha256:  {}\n",
                    c.sha256 ? *c.sha256 : std::string("unknown (known once it is in the cache)"));
    out += fmt::format("     command: {}\n", command_line(c.installer_argv));
    if (!c.wheel_path)
      out += "              (the last word becomes the cache's path once the wheel is in it)\n";
  }
  out += fmt::format("  import check: {}\n", plan.import_modules.empty()
                                                 ? std::string("the wheel's own modules")
                                                 : util::join(plan.import_modules, ", "));
  return out;
}

}  // namespace flashfit::install
