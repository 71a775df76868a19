#include "install/install_steps.hpp"

#include "binary/wheel.hpp"
#include "env/load_host.hpp"
#include "install/installer.hpp"
#include "util/strings.hpp"

namespace flashfit::install {
namespace fs = std::filesystem;

RealInstallSteps::RealInstallSteps(store::WheelCache& cache, const env::Environment& environment,
                                   const resolve::Recipe* recipe, fs::path work_dir,
                                   std::shared_ptr<PreloadedCheck> preloaded)
    : cache_(cache),
      environment_(environment),
      recipe_(recipe),
      work_dir_(std::move(work_dir)),
      preloaded_(std::move(preloaded)) {}

util::Result<store::CacheEntry> RealInstallSteps::fetch(const resolve::Candidate& candidate) {
  return cache_.fetch(candidate.url, candidate.sha256,
                      store::EntryOrigin::fetched_from(candidate.source));
}

util::Result<CachedVerdict> RealInstallSteps::inspect(store::CacheEntry& entry) {
  if (!host_) {
    // torch's libraries are read only for an inspection (below).
    host_ = env::load_host_for(environment_, false);
    // The compiled module this package must carry comes from its recipe.
    if (recipe_ && !recipe_->binary_module.empty())
      host_->required_modules = {{recipe_->name, recipe_->binary_module}};
  }
  // The cache is content-addressed: a verdict recorded for these bytes in
  // this same environment still holds, and re-reading 100+ MB proves nothing new.
  if (auto recorded = recorded_verdict(entry, environment_key(environment_, *host_)))
    return CachedVerdict{std::move(*recorded), true, std::nullopt};
  env::fill_torch_libraries(environment_, *host_);
  return inspect_cached(cache_, entry, environment_, *host_, work_dir_);
}

util::Result<Backup> RealInstallSteps::backup(const InstalledDist& dist,
                                              const fs::path& backup_dir) {
  return backup_installed(dist, backup_dir);
}

std::vector<std::string> RealInstallSteps::members(const fs::path& wheel_path) {
  std::vector<std::string> members;
  if (auto wheel = binary::open_wheel(wheel_path)) {
    for (const binary::WheelMember& m : wheel->members()) members.push_back(m.name);
  }
  return members;
}

// What proves the binary: the recipe's module, else every extension module
// and top-level package in the wheel.
std::vector<std::string> RealInstallSteps::modules(const fs::path& wheel_path) {
  if (recipe_ && !recipe_->binary_module.empty()) return {recipe_->binary_module};
  auto wheel = binary::open_wheel(wheel_path);
  if (!wheel) return {};
  std::vector<std::string> members;
  for (const binary::WheelMember& m : wheel->members()) members.push_back(m.name);
  std::vector<std::string> top_level;
  if (auto text = wheel->read_member(wheel->dist_info() + "/top_level.txt", 1 << 20)) {
    for (std::string_view line : util::split(*text, '\n')) top_level.emplace_back(util::trim(line));
  }
  return module_names(members, top_level);
}

util::Result<util::ProcessResult> RealInstallSteps::run_installer(
    const std::vector<std::string>& argv) {
  return install::run_installer(argv);
}

void RealInstallSteps::start_import_check(bool import_torch) {
  // One started earlier (install -r starts one before its installer run, or a
  // candidate whose install failed left its own) serves if it imports the same.
  if (preloaded_ && preloaded_->imports_torch() == import_torch) return;
  if (preloaded_) preloaded_->abandon();  // other copies of the handle may live on
  preloaded_.reset();
  auto started = PreloadedCheck::start(environment_, import_torch);
  // Without one the check simply runs fresh afterwards.
  if (started) preloaded_ = std::make_shared<PreloadedCheck>(std::move(*started));
}

util::Result<ImportCheck> RealInstallSteps::check_imports(const ImportCheckOptions& options) {
  std::shared_ptr<PreloadedCheck> preloaded = std::move(preloaded_);
  std::string set_aside;
  if (preloaded && (preloaded->python() != options.python ||
                    preloaded->imports_torch() != options.import_torch)) {
    set_aside = "it was started for another check";
    preloaded->abandon();
  } else if (preloaded) {
    auto answer = preloaded->finish(options);
    if (!answer && answer.error().kind == util::ErrorKind::interrupted)
      return tl::unexpected(answer.error());
    if (!answer) {
      set_aside = "it could not be asked: " + answer.error().message;
    } else {
      const bool torch_unchanged = torch_fingerprint(environment_) == preloaded->torch_before();
      auto why = preload_set_aside(*answer, options.import_torch, torch_unchanged);
      if (!why) return std::move(answer->check);
      set_aside = std::move(*why);
    }
  }
  auto fresh = install::check_imports(options);
  if (fresh) fresh->redone_because = std::move(set_aside);
  return fresh;
}

void RealInstallSteps::record_installed(store::CacheEntry& entry) {
  (void)cache_.update(entry);
}

}  // namespace flashfit::install
