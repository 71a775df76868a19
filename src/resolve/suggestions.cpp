#include "resolve/suggestions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "env/torch.hpp"
#include "env/torch_releases.hpp"
#include "resolve/build_knobs.hpp"
#include "resolve/torch_abi.hpp"
#include "util/strings.hpp"

namespace flashfit::resolve {
namespace {

bool only(const Judged& j, std::initializer_list<ReasonCode> allowed) {
  return !j.reasons.empty() &&
         std::all_of(j.reasons.begin(), j.reasons.end(), [&](const Reason& r) {
           return std::find(allowed.begin(), allowed.end(), r.code) != allowed.end();
         });
}

// The flags the resolution was computed under, appended so that the pasted
// command asks the same question; `drop` leaves out the ones it replaces.
std::string with_flags(std::string command, const CommandContext& ctx,
                       std::initializer_list<std::string_view> drop = {}) {
  for (const auto& [flag, value] : ctx.flags) {
    if (std::find(drop.begin(), drop.end(), flag) != drop.end()) continue;
    command += ' ';
    command += flag;
    command += ' ';
    command += value;
  }
  return command;
}

// Whether the environment judged is described by what-if flags (anything but
// --python): then a command that installs into the interpreter acts on
// another environment than the one answered for.
bool what_if(const CommandContext& ctx) {
  return std::any_of(ctx.flags.begin(), ctx.flags.end(),
                     [](const auto& flag) { return flag.first != "--python"; });
}

// pip of the interpreter that was judged, never a bare `pip` from PATH; for an
// externally managed one (PEP 668: pip refuses) a venv that still sees its packages.
std::string pip_install(const CommandContext& ctx, const std::string& args) {
  const std::string python = ctx.python.empty() ? "python3" : shell_quote(ctx.python);
  if (ctx.externally_managed) {
    return fmt::format(
        "{} -m venv --system-site-packages .venv && .venv/bin/python -m pip install {}", python,
        args);
  }
  return fmt::format("{} -m pip install {}", python, args);
}

void suggest_version(const Resolution& r, const CommandContext& ctx, std::vector<Suggestion>& out) {
  // Candidates are sorted nearest first, newest first within a reason count.
  for (const Judged& j : r.candidates) {
    if (only(j, {ReasonCode::version})) {
      std::string pin = r.request.name + "==" + j.wheel->version.public_str();
      out.push_back(
          {SuggestionKind::version,
           fmt::format("{} {} has a wheel that fits ({}, from {})", r.request.name,
                       j.wheel->version.public_str(), j.candidate->filename, j.candidate->source),
           with_flags("flashfit resolve " + shell_quote(pin), ctx)});
      return;
    }
  }
}

void suggest_sources(const Resolution& r, const CommandContext& ctx, std::vector<Suggestion>& out) {
  std::set<std::string> said;
  for (const Judged& j : r.candidates) {
    if (!only(j, {ReasonCode::source_disabled}) || !said.insert(j.candidate->source).second)
      continue;
    std::string trust =
        j.candidate->role == SourceRole::community ? " (third-party builds: a trust decision)" : "";
    out.push_back({SuggestionKind::source,
                   fmt::format("source '{}'{} has a wheel that fits: {}", j.candidate->source,
                               trust, j.candidate->filename),
                   with_flags(fmt::format("flashfit resolve {} --source {}",
                                          shell_quote(r.request.text), j.candidate->source),
                              ctx)});
  }
}

// Another torch minor with the same CUDA major and Python: re-judge the
// candidates that fail only on torch-bound rules against that torch. A CPU
// torch is first told about the CUDA build of its own version.
void suggest_torch(const Resolution& r, const Recipe* recipe, const ResolveTarget& target,
                   const CommandContext& ctx, std::vector<Suggestion>& out) {
  if (!target.python || !target.torch_cuda) return;
  auto current = target.torch_minor();
  std::optional<env::MajorMinor> cuda = *target.torch_cuda;
  const bool cpu_torch = !cuda;
  struct Fit {
    const env::TorchRelease* release;
    std::string version;  // what to install: the release's newest, or a CPU torch's own version
    env::MajorMinor cuda;
    const Judged* example;
    std::optional<bool> cxx11_abi;  // the official build's, as judged
  };
  std::map<pkg::TorchVersion, Fit> fits;
  // The target with another torch: copied once (its supported tags are
  // hundreds of strings), its torch facts replaced for each release tried.
  ResolveTarget other = target;
  for (const Judged& j : r.candidates) {
    if (!j.variant.torch || !only(j, {ReasonCode::torch, ReasonCode::cxx11_abi, ReasonCode::cuda}))
      continue;
    if (current && *j.variant.torch == *current && !cpu_torch) continue;
    if (fits.count(*j.variant.torch)) continue;
    for (const env::TorchRelease& release : env::torch_releases()) {
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
      // Torch's own patch release when the minor is the same, unless it is a
      // pre-release or a nightly, which download.pytorch.org's CUDA indexes
      // do not keep: then the minor's latest release.
      const bool same_minor = current && release.minor == *current && target.torch &&
                              !target.torch->is_prerelease() && !target.torch->is_postrelease();
      std::string version = same_minor ? target.torch->public_str() : std::string(release.latest);
      auto as_cuda =
          pkg::Version::parse(fmt::format("{}+cu{}{}", version, pick->major, pick->minor));
      if (!as_cuda) continue;
      other.torch = *as_cuda;
      other.torch_cuda = std::optional<env::MajorMinor>{*pick};
      other.torch_installed = true;
      other.cxx11_abi = official_torch_abi({release.minor, OfficialTorchBuild::Kind::cuda,
                                            pkg::CudaVersion{pick->major, pick->minor},
                                            target.arch.empty() ? "x86_64" : target.arch});
      auto again = judge(*j.candidate, r.request, recipe, other, {false, nullptr});
      if (again && again->compatible()) {
        fits.emplace(release.minor, Fit{&release, version, *pick, &j, other.cxx11_abi});
      }
    }
  }
  std::vector<Fit> ordered;
  ordered.reserve(fits.size());
  for (const auto& [minor, fit] : fits) ordered.push_back(fit);
  // Nearest minor first (a CPU torch's own first); newer wins a tie.
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
    const bool own = cpu_torch && current && f.release->minor == *current;
    out.push_back(
        {SuggestionKind::torch,
         fmt::format("with {}torch {} (CUDA {}), {} fits", own ? "the CUDA build of " : "",
                     f.version, f.cuda.str(), f.example->candidate->filename),
         // Under what-if flags the interpreter is not the environment answered
         // for: the command asks the same question with that torch instead.
         what_if(ctx) ? with_flags(fmt::format("flashfit resolve {} --torch {}+cu{}{}{}",
                                               shell_quote(r.request.text), f.version, f.cuda.major,
                                               f.cuda.minor,
                                               !f.cxx11_abi   ? ""
                                               : *f.cxx11_abi ? " --cxx11-abi TRUE"
                                                              : " --cxx11-abi FALSE"),
                                   ctx, {"--torch", "--cuda", "--cxx11-abi"})
                      : pip_install(ctx, env::torch_cuda_requirement(f.version, f.cuda))});
  }
}

void suggest_python(const Resolution& r, const ResolveTarget& target, const CommandContext& ctx,
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
      {SuggestionKind::python,
       fmt::format("with Python 3.{} (and this torch), {} fits: an environment of that Python "
                   "with the same torch",
                   best->first, best->second->candidate->filename),
       // The same question for that Python, this torch kept (a new venv would
       // have no torch, and `.venv` may be the one judged).
       with_flags(fmt::format("flashfit resolve {} --python-version 3.{}",
                              shell_quote(r.request.text), best->first),
                  ctx, {"--python-version"})});
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

// `flashfit build SPEC` with the arch tokens the GPUs here need (the
// recipe's defaults when they are unknown) and the interpreter that was
// judged; build itself sets the recipe's switches, picks jobs from free
// memory and runs pip without build isolation.
std::string build_command(const Recipe* recipe, const ResolveTarget& target, const Request& request,
                          const CommandContext& ctx) {
  std::string command = "flashfit build " + shell_quote(request.text);
  if (recipe) {
    auto tokens = arch_tokens_for(*recipe, target);
    if (!tokens.empty()) command += " --archs " + util::join(tokens, ",");
  }
  // Every flag of the question, what-if ones included: under them `build`
  // plans for the environment described instead of building for the interpreter.
  return with_flags(command, ctx);
}

// Whether the package's own authors publish wheels (a recipe source that is not a third party's).
bool upstream_publishes_wheels(const Recipe& recipe) {
  return std::any_of(recipe.sources.begin(), recipe.sources.end(),
                     [](const RecipeSource& s) { return !s.third_party; });
}

// The highest compute capability any release runs on, when every release is
// bounded (a block for all versions sets a maximum); nullopt: unbounded.
std::optional<env::ComputeCapability> package_max_cc(const Recipe& recipe) {
  // Bounded only when a block for every version and every source the recipe
  // has sets a maximum (the merge keeps it where later blocks are silent);
  // then the highest any block sets.
  const auto every_source = [&](const ReleaseFacts& f) {
    return std::all_of(recipe.sources.begin(), recipe.sources.end(), [&](const RecipeSource& s) {
      return f.sources.empty() ||
             std::find(f.sources.begin(), f.sources.end(), s.name) != f.sources.end();
    });
  };
  const bool every_release_bounded =
      std::any_of(recipe.releases.begin(), recipe.releases.end(), [&](const ReleaseFacts& f) {
        return f.versions.empty() && every_source(f) && !f.cuda && f.max_compute_capability;
      });
  if (!every_release_bounded) return std::nullopt;
  std::optional<env::ComputeCapability> highest;
  for (const ReleaseFacts& f : recipe.releases) {
    if (!f.max_compute_capability) continue;
    auto mm = env::parse_major_minor(*f.max_compute_capability);
    if (!mm) return std::nullopt;  // unreadable: not a bound to act on
    env::ComputeCapability cc{mm->major, mm->minor};
    if (!highest || *highest < cc) highest = cc;
  }
  return highest;
}

// "8.0 or newer", "up to 9.0", "8.0 to 9.0".
std::string supported_range(const std::optional<env::ComputeCapability>& low,
                            const std::optional<env::ComputeCapability>& high) {
  if (low && high) return low->str() + " to " + high->str();
  return low ? low->str() + " or newer" : "up to " + high->str();
}

// The lowest compute capability any release of the recipe's package runs on
// (its releases' min_compute_capability); nullopt: none says.
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

}  // namespace

std::optional<std::string> no_gpu_runs(const Recipe& recipe,
                                       const std::vector<env::ComputeCapability>& gpus) {
  const auto lowest = package_min_cc(recipe);
  const auto highest = package_max_cc(recipe);
  if (gpus.empty() || (!lowest && !highest)) return std::nullopt;
  const bool none = std::all_of(gpus.begin(), gpus.end(), [&](const env::ComputeCapability& cc) {
    return (lowest && cc < *lowest) || (highest && *highest < cc);
  });
  if (!none) return std::nullopt;
  return fmt::format("no GPU here can run {} (it runs on compute capability {})",
                     recipe.summary.empty() ? recipe.name : recipe.summary,
                     supported_range(lowest, highest));
}

std::string_view to_string(SuggestionKind kind) {
  switch (kind) {
    case SuggestionKind::version:
      return "version";
    case SuggestionKind::source:
      return "source";
    case SuggestionKind::torch:
      return "torch";
    case SuggestionKind::python:
      return "python";
    case SuggestionKind::build:
      return "build";
    case SuggestionKind::fallback:
      return "fallback";
  }
  return "unknown";
}

std::vector<Suggestion> suggest(const Resolution& r, const Recipe* recipe,
                                const ResolveTarget& target, const BuildOutlook& build,
                                const CommandContext& commands) {
  std::vector<Suggestion> out;
  suggest_version(r, commands, out);
  suggest_sources(r, commands, out);
  const std::size_t fallback_at = out.size();  // with no GPU: before the CUDA torches
  suggest_torch(r, recipe, target, commands, out);
  suggest_python(r, target, commands, out);

  bool cpu_torch = target.torch_cuda && !*target.torch_cuda;
  // No release runs on any GPU here: each is below the lowest compute
  // capability the package supports or above the highest.
  const std::optional<std::string> none_runs = recipe && recipe->needs_cuda && target.gpus
                                                   ? no_gpu_runs(*recipe, *target.gpus)
                                                   : std::nullopt;
  const bool never_runs = none_runs.has_value();
  bool no_gpu = target.gpus && target.gpus->empty();
  if (!never_runs && !(recipe && recipe->needs_cuda && (cpu_torch || no_gpu))) {
    std::string name = recipe ? recipe->name : r.request.name;
    std::string no_wheels = recipe && !upstream_publishes_wheels(*recipe)
                                ? fmt::format("{}'s authors publish no wheels: ", name)
                                : std::string();
    auto tokens = recipe ? arch_tokens_for(*recipe, target) : std::vector<std::string>{};
    // " (arch 80 for the GPUs here; nvcc 12.x ...; ...)": one parenthesis.
    std::string needs = build_needs(recipe, target, build);
    if (!tokens.empty()) {
      std::string archs = fmt::format("arch {} for the GPUs here", util::join(tokens, ","));
      needs = needs.empty() ? " (" + archs + ")" : " (" + archs + "; " + needs.substr(2);
    }
    out.push_back(
        {SuggestionKind::build,
         fmt::format("{}build {} from source for this environment{}", no_wheels, name, needs),
         build_command(recipe, target, r.request, commands)});
  }
  if (recipe && !recipe->fallback.empty() &&
      (never_runs || (recipe->needs_cuda && (cpu_torch || no_gpu)))) {
    std::string why =
        never_runs  ? *none_runs
        : cpu_torch ? fmt::format("torch here is {}, and {} needs CUDA",
                                  target.torch_rocm ? "a ROCm build" : "a CPU build", recipe->name)
                    : fmt::format("there is no GPU here, and {} needs one", recipe->name);
    const bool module = recipe->fallback.ends_with("_attention");
    // torch 1.x has no scaled_dot_product_attention: not advised as if it had.
    const bool missing = module && recipe->fallback.ends_with("scaled_dot_product_attention") &&
                         target.torch && !env::has_sdpa(*target.torch);
    std::string advice =
        missing ? fmt::format(
                      "torch {} has no {} (it came with torch 2.0): upgrade torch, or use "
                      "flashfit_attention, which runs flash-attn's call in plain PyTorch "
                      "on this torch",
                      target.torch->public_str(), recipe->fallback)
        : module ? fmt::format(
                       "use {} instead (part of torch); flashfit_attention gives "
                       "flash-attn's own call on it",
                       recipe->fallback)
                 : fmt::format("use {} instead (part of torch)", recipe->fallback);
    Suggestion fallback{SuggestionKind::fallback, why + ": " + advice,
                        module ? std::optional<std::string>("flashfit fallback") : std::nullopt};
    if (no_gpu || never_runs) {
      out.insert(out.begin() + static_cast<std::ptrdiff_t>(fallback_at), std::move(fallback));
    } else {
      out.push_back(std::move(fallback));
    }
  }
  return out;
}

}  // namespace flashfit::resolve
