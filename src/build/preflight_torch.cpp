// Picks the torch to suggest when the installed one cannot build a CUDA
// extension here (a CPU build, or another CUDA major than nvcc's).
#include "build/preflight_torch.hpp"

#include <cstdlib>

#include "env/torch_releases.hpp"
#include "util/strings.hpp"

namespace flashfit::build::detail {
namespace {

std::optional<pkg::TorchVersion> installed_minor(const env::Environment& env) {
  if (!env.torch.version.known()) return std::nullopt;
  const auto& release = env.torch.version->release();
  if (release.size() < 2 || release[0].size() > 4 || release[1].size() > 4) return std::nullopt;
  return pkg::TorchVersion{std::stoi(release[0]), std::stoi(release[1])};
}

}  // namespace

std::optional<int> preflight_nvcc_major(const env::Environment& env) {
  if (!env.toolkit.cuda_version.known()) return std::nullopt;
  return env.toolkit.cuda_version->major;
}

std::optional<std::string> preflight_torch_command(const env::Environment& env,
                                                   const std::string& python,
                                                   std::optional<int> cuda_major, bool keep_minor) {
  const auto py = env.python.version.known() ? std::optional<env::MajorMinor>(*env.python.version)
                                             : std::nullopt;
  const auto current = installed_minor(env);
  auto fits = [&](const env::MajorMinor& cuda) { return !cuda_major || cuda.major == *cuda_major; };

  const env::TorchRelease* best = nullptr;
  for (const env::TorchRelease& release : env::torch_releases()) {
    if (py && (*py < release.python_min || release.python_max < *py)) continue;
    bool any = false;
    for (const env::MajorMinor& c : release.cudas) any = any || fits(c);
    if (!any) continue;
    auto rank = [&](const env::TorchRelease& r) {
      return std::pair{keep_minor && current && r.minor == *current, r.minor};
    };
    if (!best || rank(*best) < rank(release)) best = &release;
  }
  if (!best) return std::nullopt;

  // nvcc's minor when its major is the one wanted; else the newest.
  std::optional<env::MajorMinor> near;
  if (env.toolkit.cuda_version.known() && fits({env.toolkit.cuda_version->major, 0}))
    near = env::MajorMinor{env.toolkit.cuda_version->major, env.toolkit.cuda_version->minor};
  // Better: nvcc's major, then nearer nvcc's minor (lower on a tie); without nvcc, newer.
  auto better = [&](const env::MajorMinor& a, const env::MajorMinor& b) {
    if (!near) return b < a;
    if ((a.major == near->major) != (b.major == near->major)) return a.major == near->major;
    const int da = std::abs(a.minor - near->minor), db = std::abs(b.minor - near->minor);
    return da != db ? da < db : a < b;
  };
  std::optional<env::MajorMinor> pick;
  for (const env::MajorMinor& c : best->cudas)
    if (fits(c) && (!pick || better(c, *pick))) pick = c;
  std::string command = env::pip_install_torch(*best, *pick);
  // Under what-if flags the environment planned for is not this interpreter's.
  if (util::starts_with(command, "pip "))
    command = (env.what_if.any() ? std::string("(on the machine described) python3") : python) +
              " -m " + command;
  return command;
}

}  // namespace flashfit::build::detail
