#include "resolve/rules.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pkg/name.hpp"
#include "pkg/tags.hpp"
#include "resolve/rules_record.hpp"
#include "resolve/rules_tags.hpp"
#include "resolve/torch_abi.hpp"
#include "util/strings.hpp"

namespace flashfit::resolve {
namespace {

using rules_detail::assume;
using rules_detail::check_tags;
using rules_detail::classify;
using rules_detail::is_pure;
using rules_detail::linux_plain_platform;
using rules_detail::note;
using rules_detail::platform_arch;
using rules_detail::reject;

void check_python_requirements(Judged& j, const ResolveTarget& target, const ReleaseFacts& facts,
                               JudgeCache& cache) {
  const std::optional<pkg::Version>& python = target.derived().python_version;
  if (!target.python || !python) return;
  if (j.candidate->requires_python) {
    auto spec = pkg::SpecifierSet::parse(*j.candidate->requires_python);
    if (spec && !spec->contains(*python, true)) {
      reject(j, ReasonCode::python, [&] {
        return std::string(fmt::format("requires Python {} (index metadata); this is Python {}",
                                       spec->str(), target.python->str()));
      });
    }
  }
  if (facts.python && !cache.contains(*facts.python, *python)) {
    reject(j, ReasonCode::python, [&] {
      return std::string(fmt::format("this release supports Python {}; this is Python {}",
                                     facts.python->str(), target.python->str()));
    });
  }
}

// A torch extension: the recipe's package (every recipe describes one), or a
// wheel whose label names the torch it was built for. A pure or non-torch
// wheel from an index or --find-links is not judged by the torch rules;
// `inspect` (and install) read its binaries for calls into torch.
bool torch_extension(const Judged& j, const Recipe* recipe) {
  return recipe != nullptr || j.variant.torch.has_value();
}

void check_torch(Judged& j, const ResolveTarget& target, const ReleaseFacts& facts,
                 JudgeCache& cache) {
  if (!target.torch_installed) {
    reject(j, ReasonCode::torch,
           [&] { return std::string("torch is not installed in this interpreter"); });
    return;
  }
  auto here = target.torch_minor();
  if (!here) {
    if (j.variant.torch || facts.torch) {
      assume(j, "torch", "--torch X.Y.Z", [&] {
        return j.variant.torch ? fmt::format("torch here is {}.x, as this wheel was built for",
                                             j.variant.torch->str())
                               : fmt::format("torch here is within {}", facts.torch->str());
      });
    }
    return;
  }
  if (j.variant.torch && *j.variant.torch != *here) {
    reject(j, ReasonCode::torch, [&] {
      return std::string(fmt::format("built for torch {}; torch here is {}", j.variant.torch->str(),
                                     target.torch->str()));
    });
  } else if (!j.variant.torch) {
    note(j, "the file name does not say which torch it was built for; inspect checks its symbols");
  }
  if (facts.torch && target.torch && !cache.contains(*facts.torch, *target.torch)) {
    reject(j, ReasonCode::torch, [&] {
      return std::string(fmt::format("this release supports torch {}; torch here is {}",
                                     facts.torch->str(), target.torch->str()));
    });
  }
}

void check_cuda(Judged& j, const ResolveTarget& target, const Recipe* recipe) {
  const pkg::VariantLabel& v = j.variant;
  if (target.torch_installed && !target.torch_cuda) {
    if (v.cuda || v.rocm || (recipe && recipe->needs_cuda && !v.cpu_only)) {
      assume(j, "torch-cuda", "--cuda X.Y", [&] {
        return v.cuda ? fmt::format("torch here is a CUDA {}.x build, as this wheel needs",
                                    v.cuda->major)
                      : std::string("torch here is a CUDA build");
      });
    }
    return;
  }
  if (!target.torch_cuda) return;  // no torch: the torch rule already said so
  const auto& torch_cuda = *target.torch_cuda;
  auto torch_text = [&] { return target.torch ? target.torch->str() : std::string("torch"); };
  // A torch without CUDA is a ROCm build (torch.version.hip, a +rocm label) or a CPU one.
  const std::string_view no_cuda = target.torch_rocm ? "a ROCm build" : "a CPU build";
  if (v.rocm) {
    if (target.torch_rocm) {
      // HIP's runtime comes with torch: a wheel is built against one ROCm major.minor.
      const auto& hip = target.torch_hip;
      if (hip && hip->major == v.rocm->major && hip->minor == v.rocm->minor) return;
      reject(j, ReasonCode::cuda, [&] {
        return std::string(fmt::format("a ROCm {} build; torch {} uses ROCm {}", v.rocm->str(),
                                       torch_text(),
                                       hip ? hip->str() : std::string("of a version not read")));
      });
      return;
    }
    reject(j, ReasonCode::cuda, [&] {
      return std::string(
          fmt::format("a ROCm {} build; torch here {}", v.rocm->str(),
                      torch_cuda ? "uses CUDA " + torch_cuda->str() : "is a CPU build"));
    });
    return;
  }
  if (v.cuda) {
    if (!torch_cuda) {
      reject(j, ReasonCode::cuda, [&] {
        return std::string(
            fmt::format("built for CUDA {}; torch {} is {}", v.cuda->str(), torch_text(), no_cuda));
      });
    } else if (v.cuda->major != torch_cuda->major) {
      reject(j, ReasonCode::cuda, [&] {
        return std::string(
            fmt::format("built for CUDA {}; torch {} uses CUDA {} (the major must match)",
                        v.cuda->str(), torch_text(), torch_cuda->str()));
      });
    }
    return;
  }
  if (v.cpu_only) return;
  if (!torch_cuda && recipe && recipe->needs_cuda) {
    reject(j, ReasonCode::cuda, [&] {
      return std::string(fmt::format("{} needs a CUDA build of torch; torch {} is {}", recipe->name,
                                     torch_text(), no_cuda));
    });
  }
}

// `label`: the memoised label j.variant was copied from (nullptr: a build
// record's), under which the inferred ABI is kept per tag set.
void check_abi(Judged& j, const ResolveTarget& target, const Recipe* recipe, JudgeCache& cache,
               const pkg::VariantLabel* label, std::uint32_t tag_set_id) {
  const RecipeSource* source = recipe ? recipe->source(j.candidate->source) : nullptr;
  if (j.variant.cxx11_abi) {
    j.cxx11_abi = j.variant.cxx11_abi;
    // A record's facts say where they came from in the label's place ("its variant record").
    if (!j.candidate->built_variant)
      j.abi_basis = "label";
    else
      j.abi_basis = j.variant.raw.empty() ? "recorded by flashfit build" : j.variant.raw;
  } else if (source && source->abi == AbiRule::pytorch_official && j.variant.torch) {
    const auto infer = [&] {
      return official_torch_abi(OfficialTorchBuild{*j.variant.torch, OfficialTorchBuild::Kind::cuda,
                                                   j.variant.cuda,
                                                   platform_arch(j.wheel->tags.front().platform)});
    };
    j.cxx11_abi = label ? cache.official_abi(*label, tag_set_id, infer) : infer();
    j.abi_basis =
        j.explained
            ? fmt::format("inferred: built against the official torch {}{}", j.variant.torch->str(),
                          j.variant.cuda ? " with CUDA " + j.variant.cuda->str() : "")
            : "inferred";
  }
  if (!j.cxx11_abi) {
    note(j, "the C++11 ABI of this wheel is not known from its name; inspect checks its symbols");
    if (!target.cxx11_abi && target.torch_installed) {
      assume(j, "cxx11-abi", "--cxx11-abi TRUE|FALSE", [] {
        return std::string("torch here uses the same C++11 ABI as this wheel (neither is known)");
      });
    }
    return;
  }
  if (!target.cxx11_abi) {
    if (target.torch_installed) {
      bool abi = *j.cxx11_abi;
      assume(j, "cxx11-abi", "--cxx11-abi TRUE|FALSE", [&] {
        return fmt::format("torch here uses {}, as this wheel does ({})",
                           abi ? "the C++11 ABI" : "the pre-C++11 ABI", j.abi_basis);
      });
    }
    return;
  }
  if (*j.cxx11_abi != *target.cxx11_abi) {
    auto name = [](bool abi) { return abi ? "the C++11 ABI" : "the pre-C++11 ABI"; };
    reject(j, ReasonCode::cxx11_abi, [&] {
      return std::string(fmt::format("built with {} ({}); torch here uses {}", name(*j.cxx11_abi),
                                     j.abi_basis, name(*target.cxx11_abi)));
    });
  }
}

bool arch_built(const GpuArch& arch, const std::optional<pkg::CudaVersion>& wheel_cuda) {
  if (!arch.min_cuda || !wheel_cuda) return true;
  if (wheel_cuda->major != arch.min_cuda->major) return wheel_cuda->major > arch.min_cuda->major;
  if (!wheel_cuda->minor || !arch.min_cuda->minor)
    return true;  // "cu12": cannot tell, assume the CI's
  return *wheel_cuda->minor >= *arch.min_cuda->minor;
}

// "sm_80" -> 8.0; what does not parse is left out (the cache entry is only a record).
std::vector<GpuArch> arch_numbers(const std::vector<std::string>& names) {
  std::vector<GpuArch> out;
  for (const std::string& name : names) {
    std::string_view digits(name);
    if (!util::starts_with(digits, "sm_") || digits.size() < 5) continue;
    digits.remove_prefix(3);
    int number = 0;
    bool ok = true;
    for (char ch : digits) {
      if (ch < '0' || ch > '9' || number > 1000) {
        ok = false;
        break;
      }
      number = number * 10 + (ch - '0');
    }
    if (ok) out.push_back(GpuArch{number / 10, number % 10, std::nullopt});
  }
  return out;
}

std::vector<GpuArch> built_archs(const Candidate& candidate) {
  return candidate.built_archs ? arch_numbers(*candidate.built_archs) : std::vector<GpuArch>{};
}

void check_gpus(Judged& j, const ResolveTarget& target, const Recipe* recipe,
                const JudgedFacts& judged_facts) {
  const ReleaseFacts& facts = judged_facts.facts;
  if (!recipe || !recipe->needs_cuda) return;
  if (!target.gpus) {
    assume(j, "gpu", "--gpu X.Y", [] {
      return std::string(
          "the GPUs here (not known: unreadable, or not given with --gpu) are ones this wheel has "
          "kernels for");
    });
    return;
  }
  if (target.gpus->empty()) {
    note(j, "no GPU: kernel coverage not checked");
    return;
  }
  const std::optional<env::ComputeCapability>& min_cc = judged_facts.min_compute;
  const std::optional<env::ComputeCapability>& max_cc = judged_facts.max_compute;
  static const std::vector<GpuArch> no_archs;
  // A wheel flashfit built carries exactly the SASS its build recorded.
  std::vector<GpuArch> built = built_archs(*j.candidate);
  bool known_archs = facts.gpu_archs.has_value() || j.candidate->built_archs.has_value();
  bool ptx = facts.ptx && !j.candidate->built_archs;
  const std::vector<GpuArch>& listed = j.candidate->built_archs ? built
                                       : facts.gpu_archs        ? *facts.gpu_archs
                                                                : no_archs;
  // PTX a variant record names: its code JIT-compiles on that capability and newer.
  std::vector<GpuArch> built_ptx = arch_numbers(j.candidate->built_ptx);
  auto arch_names = [&] {
    std::vector<std::string> out;
    for (const GpuArch& a : listed) {
      if (arch_built(a, j.variant.cuda)) out.push_back(a.str());
    }
    for (const GpuArch& a : built_ptx) out.push_back(a.str() + " (PTX)");
    return out;
  };
  const std::vector<env::ComputeCapability>& gpus = *target.gpus;
  for (auto it = gpus.begin(); it != gpus.end(); ++it) {
    const env::ComputeCapability& cc = *it;
    if (std::find(gpus.begin(), it, cc) != it) continue;  // said for an earlier GPU
    if (min_cc && cc < *min_cc) {
      reject(j, ReasonCode::compute_capability, [&] {
        return std::string(fmt::format("{} needs compute capability {} or newer; a GPU here has {}",
                                       recipe->summary.empty() ? recipe->name : recipe->summary,
                                       min_cc->str(), cc.str()));
      });
    } else if (max_cc && cc > *max_cc) {
      reject(j, ReasonCode::compute_capability, [&] {
        return std::string(fmt::format(
            "this release accepts compute capability up to {} at run time; a GPU here has {}",
            max_cc->str(), cc.str()));
      });
    }
    if (!known_archs) continue;
    bool covered = std::any_of(listed.begin(), listed.end(), [&](const GpuArch& a) {
      if (!arch_built(a, j.variant.cuda)) return false;
      bool sass = a.major == cc.major && a.minor <= cc.minor;
      bool jit = ptx && env::ComputeCapability{a.major, a.minor} <= cc;
      return sass || jit;
    });
    covered = covered || std::any_of(built_ptx.begin(), built_ptx.end(), [&](const GpuArch& a) {
                return env::ComputeCapability{a.major, a.minor} <= cc;
              });
    if (!covered) {
      reject(j, ReasonCode::gpu_arch, [&] {
        return std::string(
            fmt::format("no kernel image for compute capability {} (the wheel has {}{})", cc.str(),
                        arch_names().empty() ? "none" : util::join(arch_names(), ", "),
                        ptx || !built_ptx.empty() ? "" : ", no PTX"));
      });
    }
  }
  if (!known_archs) note(j, "the GPU archs inside this wheel are not known; inspect reads them");
}

void note_evidence(Judged& j) {
  const std::string& e = j.candidate->evidence;
  if (e == "workflow-matrix") {
    note(
        j,
        "known from the release workflow's build matrix, not a release listing: it may be missing");
  } else if (e == "single-third-party-mention") {
    note(j, "mentioned once by a third party, not confirmed by a release listing");
  }
}

}  // namespace

namespace {

// A wheel the rules judge by its name, source and recipe alone: no build
// record or variant record of its own, no requires-python of its own.
bool has_nothing_of_its_own(const Candidate& c) {
  return !c.built_variant && !c.built_archs && c.built_ptx.empty() && !c.record_doubt &&
         !c.requires_python;
}

}  // namespace

std::optional<Judged> judge(const Candidate& candidate, const Request& request,
                            const Recipe* recipe, const ResolveTarget& target,
                            const JudgeOptions& options) {
  Judged j;
  if (!judge_into(j, candidate, request, recipe, target, options)) return std::nullopt;
  return j;
}

bool judge_into(Judged& j, const Candidate& candidate, const Request& request, const Recipe* recipe,
                const ResolveTarget& target, const JudgeOptions& options) {
  if (!util::ends_with(candidate.filename, ".whl")) return false;
  // A cache of its own only when the caller has none (not built and torn down per wheel).
  std::optional<JudgeCache> local_cache;
  if (!options.cache) local_cache.emplace();
  JudgeCache& cache = options.cache ? *options.cache : *local_cache;
  JudgeCache::PartIds ids;
  if (candidate.name_layout) {
    if (!cache.wheel_name_into(j.wheel, candidate.filename, *candidate.name_layout, &ids))
      return false;
  } else {
    auto wheel = cache.wheel_name(candidate.filename, &ids);
    if (!wheel) return false;
    j.wheel = std::move(*wheel);
  }
  if (j.wheel->canonical_name != request.name) return false;
  j.candidate = &candidate;
  j.explained = options.explain;
  j.version_id = ids.version;
  const pkg::Version& version = j.wheel->version;
  // The version as the file name spells it, its public part and its label
  // with the '+' (the label as written keeps its case; Version::local() lower-cases it).
  const std::string_view spelled = ids.version_text;
  const std::size_t plus = std::min(spelled.find('+'), spelled.size());
  const std::string_view public_text = spelled.substr(0, plus);
  const pkg::VariantLabel* label = candidate.built_variant
                                       ? nullptr
                                       : &cache.variant(ids.version, spelled.substr(plus), version);
  j.variant = label ? *label : *candidate.built_variant;
  if (j.variant.scheme == pkg::VariantScheme::unknown) {
    note(j, fmt::format("unrecognised variant label '{}'", j.variant.raw));
  }
  const KnownBroken* broken =
      recipe ? cache.broken(*recipe, version, ids.version, public_text, candidate.source,
                            candidate.filename, j.variant.torch)
             : nullptr;
  // Codes only, with a shared cache: a wheel alike in all the rules read to
  // one judged before takes that one's verdict instead of being judged again.
  std::optional<VerdictKey> shared;
  if (!j.explained && options.cache && has_nothing_of_its_own(candidate)) {
    shared =
        VerdictKey{ids.version,
                   cache.tag_class(ids.tag_set,
                                   [&] { return classify(*j.wheel, ids.tag_set, target, cache); }),
                   cache.source_id(candidate.source),
                   broken,
                   candidate.yanked,
                   candidate.missing.has_value(),
                   candidate.source_enabled};
    if (const SharedVerdict* verdict = cache.take_verdict(*shared)) {
      j.cxx11_abi = verdict->cxx11_abi;
      j.abi_basis = verdict->abi_basis;
      j.reasons = verdict->reasons;
      j.assumptions = verdict->assumptions;
      j.tag_rank = verdict->tag_rank;
      return true;
    }
  }

  if (!request.specifier.empty() && !request.specifier.contains(version)) {
    reject(j, ReasonCode::version, [&] {
      return std::string(
          fmt::format("{} does not satisfy {}", version.public_str(), request.specifier.str()));
    });
  }
  if (candidate.yanked) {
    bool pinned = request.specifier.specifiers().size() == 1 &&
                  (request.specifier.specifiers()[0].op() == "==" ||
                   request.specifier.specifiers()[0].op() == "===");
    if (!pinned) {
      reject(j, ReasonCode::yanked, [&] {
        return std::string(candidate.yanked_reason.empty() ? "yanked by the index"
                                                           : "yanked: " + candidate.yanked_reason);
      });
    }
  }
  if (candidate.missing) {
    reject(j, ReasonCode::missing,
           [&] { return "the file does not exist: its URL answered " + *candidate.missing; });
  }
  if (!candidate.source_enabled) {
    reject(j, ReasonCode::source_disabled, [&] {
      return std::string(fmt::format("source '{}' is not enabled (--source {})", candidate.source,
                                     candidate.source));
    });
  }
  static const JudgedFacts no_facts;
  const JudgedFacts& judged_facts = recipe ? cache.facts(*recipe, version, public_text, ids.version,
                                                         candidate.source, j.variant.cuda)
                                           : no_facts;
  const ReleaseFacts& facts = judged_facts.facts;
  if (broken) {
    reject(j, ReasonCode::known_broken, [&] {
      return std::string(broken->reason +
                         (broken->reference.empty() ? "" : " (" + broken->reference + ")"));
    });
  }
  check_tags(j, target, cache, ids.tag_set);
  check_python_requirements(j, target, facts, cache);
  if (facts.min_glibc && linux_plain_platform(*j.wheel) && !target.glibc) {
    assume(j, "glibc", "--glibc X.Y",
           [&] { return fmt::format("this machine's glibc is {} or newer", *facts.min_glibc); });
  }
  if (facts.min_glibc && linux_plain_platform(*j.wheel) && target.glibc) {
    if (const auto& need = judged_facts.min_glibc; need && *target.glibc < *need) {
      reject(j, ReasonCode::glibc, [&] {
        return std::string(
            fmt::format("this release's wheels need glibc {}; this machine has glibc {}",
                        need->str(), target.glibc->str()));
      });
    }
  }
  if (torch_extension(j, recipe)) {
    if (candidate.record_doubt) {
      // Its name says nothing and no variant record said it: not known, never taken as known.
      assume(j, "variant-record", "a readable <wheel>.variant.json (flashfit publish --for-torch)",
             [&] {
               return fmt::format(
                   "this wheel was built for the torch, CUDA and C++11 ABI here ({})",
                   *candidate.record_doubt);
             });
    }
    check_torch(j, target, facts, cache);
    check_cuda(j, target, recipe);
    check_abi(j, target, recipe, cache, label, ids.tag_set);
  } else {
    note(j,
         "not known to be a torch extension (no recipe, no torch in its label): the torch rules do "
         "not apply; "
         "inspect reads its binaries");
  }
  check_gpus(j, target, recipe, judged_facts);
  if (recipe && recipe->needs_cuda && is_pure(*j.wheel)) {
    reject(j, ReasonCode::pure_wheel, [&] {
      return std::string(
          fmt::format("a py3-none-any wheel has no compiled {} module (the SKIP_CUDA_BUILD trap)",
                      recipe->binary_module.empty() ? recipe->name : recipe->binary_module));
    });
  }
  note_evidence(j);
  if (shared)
    cache.keep_verdict(
        *shared, SharedVerdict{j.cxx11_abi, j.abi_basis, j.reasons, j.assumptions, j.tag_rank});
  return true;
}

}  // namespace flashfit::resolve
