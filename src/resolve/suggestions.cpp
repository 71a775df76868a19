#include "resolve/suggestions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "resolve/build_knobs.hpp"
#include "resolve/torch_abi.hpp"
#include "resolve/torch_releases.hpp"
#include "util/strings.hpp"

namespace flashfit::resolve {
namespace {

bool only(const Judged& j, std::initializer_list<ReasonCode> allowed) {
  return !j.reasons.empty() &&
         std::all_of(j.reasons.begin(), j.reasons.end(), [&](const Reason& r) {
           return std::find(allowed.begin(), allowed.end(), r.code) != allowed.end();
         });
}

std::string pin_command(const Request& request, const Judged& j, const std::string& extra = {}) {
  return fmt::format("flashfit resolve '{}=={}'{}", request.name, j.wheel->version.public_str(),
                     extra);
}

void suggest_version(const Resolution& r, std::vector<Suggestion>& out) {
  // Candidates are sorted nearest first, newest first within a reason count.
  for (const Judged& j : r.candidates) {
    if (only(j, {ReasonCode::version})) {
      out.push_back(
          {"version",
           fmt::format("{} {} has a wheel that fits ({}, from {})", r.request.name,
                       j.wheel->version.public_str(), j.candidate->filename, j.candidate->source),
           pin_command(r.request, j)});
      return;
    }
  }
}

void suggest_sources(const Resolution& r, std::vector<Suggestion>& out) {
  std::set<std::string> said;
  for (const Judged& j : r.candidates) {
    if (!only(j, {ReasonCode::source_disabled}) || !said.insert(j.candidate->source).second)
      continue;
    std::string trust =
        j.candidate->role == SourceRole::community ? " (third-party builds: a trust decision)" : "";
    out.push_back(
        {"source",
         fmt::format("source '{}'{} has a wheel that fits: {}", j.candidate->source, trust,
                     j.candidate->filename),
         fmt::format("flashfit resolve '{}' --source {}", r.request.text, j.candidate->source)});
  }
}

// Another torch minor with the same CUDA major and Python: re-judge the
// candidates that fail only on torch-bound rules against that torch.
void suggest_torch(const Resolution& r, const Recipe* recipe, const ResolveTarget& target,
                   std::vector<Suggestion>& out) {
  if (!target.python || !target.torch_cuda) return;
  auto current = target.torch_minor();
  std::optional<env::MajorMinor> cuda = *target.torch_cuda;
  struct Fit {
    const TorchRelease* release;
    env::MajorMinor cuda;
    const Judged* example;
  };
  std::map<pkg::TorchVersion, Fit> fits;
  for (const Judged& j : r.candidates) {
    if (!j.variant.torch || !only(j, {ReasonCode::torch, ReasonCode::cxx11_abi, ReasonCode::cuda}))
      continue;
    if (current && *j.variant.torch == *current) continue;
    if (fits.count(*j.variant.torch)) continue;
    for (const TorchRelease& release : torch_releases()) {
      if (release.minor != *j.variant.torch) continue;
      if (*target.python < release.python_min || release.python_max < *target.python) continue;
      // The CUDA build of that torch: the same major as torch's now (nearest
      // minor); a CPU torch today takes the newest the wheel's major allows.
      std::optional<env::MajorMinor> pick;
      for (const env::MajorMinor& c : release.cudas) {
        if (cuda && c.major != cuda->major) continue;
        if (!cuda && j.variant.cuda && c.major != j.variant.cuda->major) continue;
        if (!pick || (cuda ? std::abs(c.minor - cuda->minor) < std::abs(pick->minor - cuda->minor)
                           : *pick < c))
          pick = c;
      }
      if (!pick) continue;
      ResolveTarget other = target;
      other.torch =
          *pkg::Version::parse(fmt::format("{}+cu{}{}", release.latest, pick->major, pick->minor));
      other.torch_cuda = std::optional<env::MajorMinor>{*pick};
      other.torch_installed = true;
      other.cxx11_abi = official_torch_abi({release.minor, OfficialTorchBuild::Kind::cuda,
                                            pkg::CudaVersion{pick->major, pick->minor},
                                            target.arch.empty() ? "x86_64" : target.arch});
      auto again = judge(*j.candidate, r.request, recipe, other, {false, nullptr});
      if (again && again->compatible()) fits.emplace(release.minor, Fit{&release, *pick, &j});
    }
  }
  std::vector<Fit> ordered;
  for (const auto& [minor, fit] : fits) ordered.push_back(fit);
  // Nearest minor first; newer wins a tie.
  auto distance = [&](const Fit& f) {
    if (!current) return 0;
    return std::abs((f.release->minor.major * 100 + f.release->minor.minor) -
                    (current->major * 100 + current->minor));
  };
  std::sort(ordered.begin(), ordered.end(), [&](const Fit& a, const Fit& b) {
    if (distance(a) != distance(b)) return distance(a) < distance(b);
    return b.release->minor < a.release->minor;
  });
  for (std::size_t i = 0; i < ordered.size() && i < 2; ++i) {
    const Fit& f = ordered[i];
    out.push_back({"torch",
                   fmt::format("with torch {} (CUDA {}), {} fits", f.release->latest, f.cuda.str(),
                               f.example->candidate->filename),
                   pip_install_torch(*f.release, f.cuda)});
  }
}

void suggest_python(const Resolution& r, const ResolveTarget& target,
                    std::vector<Suggestion>& out) {
  std::map<int, const Judged*> by_minor;  // 3.X -> a wheel that fails only on Python
  for (const Judged& j : r.candidates) {
    if (!only(j, {ReasonCode::python})) continue;
    for (const pkg::Tag& tag : j.wheel->tags) {
      if (tag.interpreter.size() >= 4 && tag.interpreter.compare(0, 3, "cp3") == 0) {
        try {
          by_minor.emplace(std::stoi(tag.interpreter.substr(3)), &j);
        } catch (...) {
        }
      }
    }
  }
  if (by_minor.empty()) return;
  int here = target.python ? target.python->minor : 0;
  auto best = std::min_element(by_minor.begin(), by_minor.end(), [&](const auto& a, const auto& b) {
    return std::abs(a.first - here) < std::abs(b.first - here);
  });
  out.push_back(
      {"python",
       fmt::format("with Python 3.{}, {} fits", best->first, best->second->candidate->filename),
       fmt::format("python3.{} -m venv .venv && flashfit resolve '{}' --python .venv/bin/python",
                   best->first, r.request.text)});
}

std::optional<env::ComputeCapability> package_min_cc(const Recipe& recipe) {
  std::optional<env::ComputeCapability> lowest;
  for (const ReleaseFacts& f : recipe.releases) {
    if (!f.min_compute_capability) continue;
    if (auto mm = env::parse_major_minor(*f.min_compute_capability)) {
      env::ComputeCapability cc{mm->major, mm->minor};
      if (!lowest || cc < *lowest) lowest = cc;
    }
  }
  return lowest;
}

// The recipe's arch tokens that serve the GPUs here (an 8.6 GPU builds "80"
// for FlashAttention-2, whose "86" token does nothing): a build for these GPUs only.
std::vector<std::string> arch_tokens_for(const Recipe& recipe, const ResolveTarget& target) {
  if (!target.gpus) return {};
  return tokens_serving(recipe.build, *target.gpus);
}

// One compile job's peak for the build the command below runs: the GPUs'
// tokens (else the recipe's defaults) at the recipe's default nvcc threads.
std::optional<double> job_gib(const Recipe& recipe, const ResolveTarget& target) {
  std::size_t archs = arch_tokens_for(recipe, target).size();
  if (archs == 0) archs = recipe.build.default_archs.size();
  return memory_per_job_gib(recipe.build, static_cast<unsigned>(recipe.build.default_threads),
                            archs);
}

std::string build_needs(const Recipe* recipe, const ResolveTarget& target,
                        const BuildOutlook& build) {
  std::vector<std::string> parts;
  bool cuda = !recipe || recipe->needs_cuda;
  if (cuda && target.torch_cuda && *target.torch_cuda) {
    std::string want = fmt::format("nvcc {}.x (torch's CUDA major)", (*target.torch_cuda)->major);
    if (build.toolkit && build.toolkit->cuda_version.known()) {
      const auto& v = *build.toolkit->cuda_version;
      bool same = v.major == (*target.torch_cuda)->major;
      want += fmt::format(": found nvcc {}{}", v.text, same ? "" : ", a different major");
    } else if (build.toolkit) {
      want += ": no nvcc found";
    }
    parts.push_back(want);
  }
  if (build.toolkit) {
    parts.push_back(build.toolkit->ninja.known() ? "ninja: found"
                                                 : "ninja: missing (the build would be serial)");
  }
  if (recipe) {
    if (auto gib = job_gib(*recipe, target)) {
      parts.push_back(fmt::format("about {:.1f} GiB of memory per parallel compile", *gib));
    }
  }
  return parts.empty() ? "" : " (" + util::join(parts, "; ") + ")";
}

// Until `flashfit build` exists: the pip command that builds it here, with
// the recipe's switches and the GPUs' arch tokens, without build isolation
// (setup.py imports torch) and without touching torch (--no-deps).
std::string build_command(const Recipe* recipe, const ResolveTarget& target,
                          const Request& request) {
  std::vector<std::string> env;
  if (recipe) {
    for (const auto& [name, value] : recipe->build.env) env.push_back(name + "=" + value);
    auto tokens = arch_tokens_for(*recipe, target);
    if (!recipe->build.arch_variable.empty() && !tokens.empty()) {
      env.push_back(fmt::format("{}=\"{}\"", recipe->build.arch_variable,
                                util::join(tokens, recipe->build.arch_separator)));
    }
    if (!recipe->build.jobs_variable.empty()) env.push_back(recipe->build.jobs_variable + "=2");
  }
  return fmt::format("{}{}pip install --no-build-isolation --no-deps '{}'", util::join(env, " "),
                     env.empty() ? "" : " ", request.text);
}

}  // namespace

std::vector<Suggestion> suggest(const Resolution& r, const Recipe* recipe,
                                const ResolveTarget& target, const BuildOutlook& build) {
  std::vector<Suggestion> out;
  suggest_version(r, out);
  suggest_sources(r, out);
  suggest_torch(r, recipe, target, out);
  suggest_python(r, target, out);

  bool cpu_torch = target.torch_cuda && !*target.torch_cuda;
  bool never_runs = false;
  if (recipe && recipe->needs_cuda && target.gpus && !target.gpus->empty()) {
    if (auto min_cc = package_min_cc(*recipe)) {
      never_runs = std::all_of(target.gpus->begin(), target.gpus->end(),
                               [&](const env::ComputeCapability& cc) { return cc < *min_cc; });
    }
  }
  bool no_gpu = target.gpus && target.gpus->empty();
  if (!never_runs && !(recipe && recipe->needs_cuda && (cpu_torch || no_gpu))) {
    std::string name = recipe ? recipe->name : r.request.name;
    std::string jobs;
    if (recipe && !recipe->build.jobs_variable.empty()) {
      if (auto gib = job_gib(*recipe, target)) {
        jobs = fmt::format("; raise {} to (free memory / {:.0f} GiB) if you have more",
                           recipe->build.jobs_variable, *gib);
      }
    }
    out.push_back({"build",
                   fmt::format("build {} from source for this environment{}{}", name,
                               build_needs(recipe, target, build), jobs),
                   build_command(recipe, target, r.request)});
  }
  if (recipe && !recipe->fallback.empty() &&
      (never_runs || (recipe->needs_cuda && (cpu_torch || no_gpu)))) {
    std::string why =
        never_runs  ? fmt::format("no GPU here can run {} (compute capability below {})",
                                 recipe->summary.empty() ? recipe->name : recipe->summary,
                                  package_min_cc(*recipe)->str())
        : cpu_torch ? fmt::format("torch here is a CPU build, and {} needs CUDA", recipe->name)
                    : fmt::format("there is no GPU here, and {} needs one", recipe->name);
    out.push_back(
        {"fallback",
         fmt::format("{}: use {} instead; it needs no extra package", why, recipe->fallback),
         std::nullopt});
  }
  return out;
}

}  // namespace flashfit::resolve
