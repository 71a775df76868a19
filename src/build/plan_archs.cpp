// Which GPU archs a build compiles. A recipe's arch variable accepts literal
// tokens only (FLASH_ATTN_CUDA_ARCHS ignores "86" silently, so a wrong token
// builds a wheel that fails with "no kernel image" on the GPU it was meant
// for): every --archs entry is checked here and capabilities are mapped to
// the token serving them. Without a recipe, torch's TORCH_CUDA_ARCH_LIST
// takes capabilities directly.
#include "build/plan_archs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "build/nvcc_targets.hpp"
#include "resolve/build_knobs.hpp"
#include "util/strings.hpp"

namespace flashfit::build::detail {
namespace {

using resolve::BuildKnobs;
using util::ErrorKind;

// --archs may come as one "80;90" or "8.0,9.0" string or as several entries.
std::vector<std::string> split_entries(const std::vector<std::string>& archs) {
  std::vector<std::string> out;
  for (const std::string& entry : archs) {
    std::string piece;
    for (char c : entry + ",") {
      if (c == ',' || c == ';' || std::isspace(static_cast<unsigned char>(c))) {
        if (!piece.empty()) out.push_back(piece);
        piece.clear();
      } else {
        piece += c;
      }
    }
  }
  return out;
}

std::string strip_sm(const std::string& text) {
  return util::starts_with(util::ascii_lower(text), "sm_") ? text.substr(3) : text;
}

// "86" -> 8.6, "120" -> 12.0: what a token-shaped entry would mean as a
// capability, so the error can say which token that GPU runs.
std::optional<env::ComputeCapability> capability_from_digits(const std::string& text) {
  if (text.size() < 2 || text.size() > 3) return std::nullopt;
  if (!std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return env::ComputeCapability{std::stoi(text.substr(0, text.size() - 1)), text.back() - '0'};
}

// "an 8.6", "a 12.1": numbers read aloud.
const char* article(const std::string& number) {
  return util::starts_with(number, "8") || util::starts_with(number, "11.") ||
                 util::starts_with(number, "18.")
             ? "an"
             : "a";
}

std::optional<env::ComputeCapability> capability(const std::string& text) {
  if (auto mm = env::parse_major_minor(text)) return env::ComputeCapability{mm->major, mm->minor};
  return std::nullopt;
}

const BuildKnobs::ArchToken* find_token(const BuildKnobs& build, const std::string& text) {
  for (const BuildKnobs::ArchToken& t : build.arch_tokens)
    if (t.token == text) return &t;
  return nullptr;
}

// The nvcc a token needs, when the nvcc here is older.
std::optional<std::string> needs_newer_nvcc(const BuildKnobs::ArchToken& token,
                                            const std::optional<env::MajorMinor>& nvcc) {
  if (!token.min_nvcc || !nvcc) return std::nullopt;
  auto need = env::parse_major_minor(*token.min_nvcc);
  if (need && *nvcc < *need) return *token.min_nvcc;
  return std::nullopt;
}

std::string gpu_label(const env::GpuDevice& gpu) {
  return gpu.name.known() ? *gpu.name : fmt::format("GPU {}", gpu.index);
}

// A GPU whose compute capability is unknown gets no arch: said, never guessed.
std::string unknown_capability(const env::GpuDevice& gpu) {
  return fmt::format("{}: compute capability unknown ({}); left out of the archs", gpu_label(gpu),
                     gpu.capability.unknown_reason);
}

void add_unique(std::vector<std::string>& list, const std::string& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

// Tokens in the recipe's order, whatever order they were collected in.
std::vector<std::string> in_recipe_order(const BuildKnobs& build,
                                         const std::vector<std::string>& tokens) {
  std::vector<std::string> out;
  for (const BuildKnobs::ArchToken& t : build.arch_tokens)
    if (std::find(tokens.begin(), tokens.end(), t.token) != tokens.end()) out.push_back(t.token);
  return out;
}

util::Result<std::vector<std::string>> tokens_from_request(
    const BuildKnobs& build, const std::vector<std::string>& entries) {
  std::vector<std::string> tokens;
  for (const std::string& raw : entries) {
    const std::string text = strip_sm(raw);
    const BuildKnobs::ArchToken* token = find_token(build, text);
    if (!token) {
      if (auto cc = capability(text)) {
        token = resolve::token_serving(build, *cc);
        if (!token) {
          return util::fail(
              ErrorKind::usage,
              fmt::format("no {} token serves compute capability {} (accepted: {})",
                          build.arch_variable, cc->str(), plan_accepted_tokens(build)),
              "--archs", "this package cannot be built for that GPU");
        }
      }
    }
    if (!token) {
      std::string runs;
      if (auto cc = capability_from_digits(text)) {
        if (const BuildKnobs::ArchToken* serving = resolve::token_serving(build, *cc))
          runs = fmt::format("; {} {} GPU runs {}", article(cc->str()), cc->str(), serving->token);
      }
      return util::fail(
          ErrorKind::usage,
          fmt::format("{} is not accepted by {} (accepted: {}){}", util::printable(raw, 40),
                      build.arch_variable, plan_accepted_tokens(build), runs),
          "--archs", "pass the recipe's tokens (80) or compute capabilities (8.6)");
    }
    add_unique(tokens, token->token);
  }
  return in_recipe_order(build, tokens);
}

std::vector<std::string> sass_of_tokens(const BuildKnobs& build,
                                        const std::vector<std::string>& tokens) {
  std::vector<std::string> sass;
  for (const std::string& text : tokens) {
    const BuildKnobs::ArchToken* t = find_token(build, text);
    auto range = t ? resolve::capability_range(*t) : std::nullopt;
    if (range) sass.push_back(fmt::format("sm_{}{}", range->low.major, range->low.minor));
  }
  return sass;
}

util::Result<ArchSelection> recipe_archs(const env::Environment& env, const resolve::Recipe& recipe,
                                         const std::optional<std::vector<std::string>>& request) {
  const BuildKnobs& build = recipe.build;
  ArchSelection out;
  out.plan.variable = build.arch_variable;
  const auto nvcc = nvcc_release(env);
  const std::string nvcc_text = nvcc ? nvcc->str() : "";

  if (request) {
    auto tokens = tokens_from_request(build, split_entries(*request));
    if (!tokens) return tl::unexpected(std::move(tokens.error()));
    out.plan.tokens = *tokens;
    out.plan.basis = "--archs";
    // The GPUs here no token serves at all: --archs cannot make a wheel for them.
    if (env.gpu.gpus.known()) {
      for (const env::GpuDevice& gpu : *env.gpu.gpus) {
        if (gpu.capability.known() && !resolve::token_serving(build, *gpu.capability))
          add_unique(out.plan.unserved_gpus, gpu_described(gpu));
      }
    }
    for (const std::string& text : out.plan.tokens) {
      if (auto need = needs_newer_nvcc(*find_token(build, text), nvcc))
        out.warnings.push_back(
            fmt::format("arch {} needs nvcc >= {}; nvcc here is {}", text, *need, nvcc_text));
    }
  } else {
    std::vector<std::string> served, described, unserved;
    std::string no_gpu_reason = "no GPU detected";
    if (env.gpu.gpus.known()) {
      for (const env::GpuDevice& gpu : *env.gpu.gpus) {
        if (!gpu.capability.known()) {
          out.warnings.push_back(unknown_capability(gpu));
          continue;
        }
        const env::ComputeCapability cc = *gpu.capability;
        if (const BuildKnobs::ArchToken* t = resolve::token_serving(build, cc)) {
          add_unique(served, t->token);
          add_unique(described, fmt::format("{} {} -> {}", gpu_label(gpu), cc.str(), t->token));
          if (auto need = needs_newer_nvcc(*t, nvcc))
            out.warnings.push_back(
                fmt::format("arch {} (for {} {}) needs nvcc >= {}; nvcc here is {}", t->token,
                            gpu_label(gpu), cc.str(), *need, nvcc_text));
        } else {
          const std::string label = gpu_described(gpu);
          add_unique(unserved, label);
          out.warnings.push_back(fmt::format(
              "{} is left out: no {} token serves it (accepted: {}); {} will not run on it", label,
              build.arch_variable, plan_accepted_tokens(build), recipe.name));
        }
      }
      if (!unserved.empty()) no_gpu_reason = "no GPU here is served: " + util::join(unserved, ", ");
    } else {
      no_gpu_reason = "GPUs unknown: " + env.gpu.gpus.unknown_reason;
    }
    out.plan.unserved_gpus = unserved;
    if (!served.empty()) {
      out.plan.tokens = in_recipe_order(build, served);
      out.plan.basis = "detected GPUs (" + util::join(described, ", ") + ")";
    } else {
      // setup.py skips the default tokens this nvcc cannot compile; so do we,
      // rather than fail a build nobody asked those archs of.
      std::vector<std::string> kept, dropped;
      for (const std::string& text : build.default_archs) {
        const BuildKnobs::ArchToken* t = find_token(build, text);
        (t && needs_newer_nvcc(*t, nvcc) ? dropped : kept).push_back(text);
      }
      if (kept.empty()) std::swap(kept, dropped);
      out.plan.tokens = kept;
      out.plan.basis = fmt::format("recipe default ({})", no_gpu_reason);
      if (!dropped.empty()) {
        out.plan.basis += fmt::format(" without {}: nvcc {} is too old for them",
                                      util::join(dropped, ", "), nvcc_text);
      }
    }
  }
  out.plan.sass = sass_of_tokens(build, out.plan.tokens);
  out.count = out.plan.tokens.size();
  return out;
}

// A package whose setup.py passes its own -gencode flags.
util::Result<ArchSelection> fixed_archs(const resolve::Recipe& recipe,
                                        const std::optional<std::vector<std::string>>& request) {
  if (request) {
    return util::fail(
        ErrorKind::usage,
        fmt::format("{} has no arch variable: its setup.py chooses the archs itself", recipe.name),
        "--archs", "leave --archs out");
  }
  ArchSelection out;
  out.plan.basis =
      fmt::format("fixed by {}'s setup.py (the recipe has no arch variable)", recipe.name);
  return out;
}

// A recipe naming a variable but no tokens: entries go through as given.
ArchSelection untyped_archs(const resolve::Recipe& recipe,
                            const std::optional<std::vector<std::string>>& request) {
  ArchSelection out;
  out.plan.variable = recipe.build.arch_variable;
  if (request) {
    out.plan.tokens = split_entries(*request);
    out.plan.basis = "--archs";
    out.count = out.plan.tokens.size();
    out.warnings.push_back(
        fmt::format("the {} recipe declares no arch tokens; {} gets --archs as given", recipe.name,
                    recipe.build.arch_variable));
  } else {
    out.plan.basis =
        fmt::format("{} left unset: the package's default", recipe.build.arch_variable);
  }
  return out;
}

// TORCH_CUDA_ARCH_LIST entry: "8.9", "8.9+PTX", "89", "sm_89".
std::optional<std::pair<env::ComputeCapability, bool>> torch_entry(const std::string& raw) {
  std::string text = strip_sm(raw);
  bool ptx = false;
  if (util::ends_with(util::ascii_lower(text), "+ptx")) {
    ptx = true;
    text.resize(text.size() - 4);
  }
  auto cc = capability(text);
  if (!cc) cc = capability_from_digits(text);
  if (!cc) return std::nullopt;
  return std::pair{*cc, ptx};
}

util::Result<ArchSelection> torch_archs(const env::Environment& env,
                                        const std::optional<std::vector<std::string>>& request) {
  ArchSelection out;
  out.plan.variable = kTorchArchVariable;
  std::vector<std::pair<env::ComputeCapability, bool>> list;
  auto add = [&](env::ComputeCapability cc, bool ptx) {
    for (auto& [have, have_ptx] : list) {
      if (have == cc) {
        have_ptx = have_ptx || ptx;
        return;
      }
    }
    list.emplace_back(cc, ptx);
  };
  if (request) {
    for (const std::string& raw : split_entries(*request)) {
      auto entry = torch_entry(raw);
      if (!entry) {
        return util::fail(ErrorKind::usage,
                          fmt::format("{} is not a compute capability for {} (like 8.9 or 8.9+PTX)",
                                      util::printable(raw, 40), kTorchArchVariable),
                          "--archs", "pass compute capabilities: --archs 8.0,8.9");
      }
      add(entry->first, entry->second);
    }
    out.plan.basis = "--archs";
  } else if (env.gpu.gpus.known() && !env.gpu.gpus->empty()) {
    std::vector<std::string> described;
    for (const env::GpuDevice& gpu : *env.gpu.gpus) {
      if (!gpu.capability.known()) {
        out.warnings.push_back(unknown_capability(gpu));
        continue;
      }
      add(*gpu.capability, false);
      add_unique(described, gpu_described(gpu));
    }
    out.plan.basis = "detected GPUs (" + util::join(described, ", ") + ")";
  }
  if (list.empty()) {
    const std::string why =
        env.gpu.gpus.known() ? "no GPU detected" : "GPUs unknown: " + env.gpu.gpus.unknown_reason;
    out.plan.basis = fmt::format(
        "{} left unset: torch's default ({}; torch compiles for the visible GPUs, nvcc's "
        "default arch without one)",
        kTorchArchVariable, why);
    out.warnings.push_back(
        fmt::format("{} left unset ({}): the wheel may not hold code for the GPU it runs on; "
                    "pass --archs 8.0,9.0 to choose",
                    kTorchArchVariable, why));
    return out;
  }
  std::sort(list.begin(), list.end());
  for (const auto& [cc, ptx] : list) {
    out.plan.tokens.push_back(cc.str() + (ptx ? "+PTX" : ""));
    out.plan.sass.push_back(fmt::format("sm_{}{}", cc.major, cc.minor));
    // "8.0+PTX": torch adds compute_80, which newer GPUs run through the JIT.
    if (ptx) out.plan.sass.push_back(fmt::format("compute_{}{}", cc.major, cc.minor));
  }
  out.count = list.size();
  return out;
}

}  // namespace

std::string gpu_described(const env::GpuDevice& gpu) {
  return fmt::format("{} {}", gpu_label(gpu), gpu.capability->str());
}

std::vector<std::string> gpus_no_target_runs(const env::Environment& env,
                                             const std::vector<std::string>& targets) {
  std::vector<std::string> out;
  if (!env.gpu.gpus.known()) return out;
  for (const env::GpuDevice& gpu : *env.gpu.gpus) {
    if (!gpu.capability.known()) continue;
    bool runs = false;
    for (const std::string& text : targets) {
      const auto target = parse_nvcc_target(text);
      runs = runs || (target && target_runs_on(*target, *gpu.capability));
    }
    if (!runs) add_unique(out, gpu_described(gpu));
  }
  return out;
}

std::string plan_accepted_tokens(const BuildKnobs& build) {
  std::vector<std::string> parts;
  for (const BuildKnobs::ArchToken& t : build.arch_tokens) {
    auto range = resolve::capability_range(t);
    parts.push_back(range ? fmt::format("{} ({})", t.token, range->str()) : t.token);
  }
  return util::join(parts, ", ");
}

util::Result<ArchSelection> plan_select_archs(
    const env::Environment& env, const resolve::Recipe* recipe,
    const std::optional<std::vector<std::string>>& archs) {
  if (archs && split_entries(*archs).empty()) {
    return util::fail(ErrorKind::usage, "no archs given", "--archs",
                      recipe && !recipe->build.arch_tokens.empty()
                          ? "pass one or more of: " + plan_accepted_tokens(recipe->build)
                          : "pass compute capabilities: --archs 8.0,8.9");
  }
  if (!recipe) return torch_archs(env, archs);
  if (recipe->build.arch_variable.empty()) return fixed_archs(*recipe, archs);
  if (recipe->build.arch_tokens.empty()) return untyped_archs(*recipe, archs);
  return recipe_archs(env, *recipe, archs);
}

}  // namespace flashfit::build::detail
