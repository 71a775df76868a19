#include "build/nvcc_targets.hpp"

#include <array>
#include <cctype>

namespace flashfit::build {
namespace {

using env::MajorMinor;

// One arch number's nvcc history (docs/background.md, "SM architectures per
// toolkit"). `first_known` false: the table knows it is in `first` but not
// whether an earlier release had it (sm_88 is listed by 13.0; 12.x unchecked).
struct ArchHistory {
  unsigned number;
  MajorMinor first;
  std::optional<MajorMinor> last;
  bool first_known = true;
};

constexpr MajorMinor kOldestKnownNvcc{11, 0};
constexpr int kNewestKnownMajor = 13;

const std::array<ArchHistory, 23>& histories() {
  static const std::array<ArchHistory, 23> table{{
      {35, {11, 0}, MajorMinor{11, 8}},   {37, {11, 0}, MajorMinor{11, 8}},
      {50, {11, 0}, MajorMinor{12, 9}},   {52, {11, 0}, MajorMinor{12, 9}},
      {53, {11, 0}, MajorMinor{12, 9}},   {60, {11, 0}, MajorMinor{12, 9}},
      {61, {11, 0}, MajorMinor{12, 9}},   {62, {11, 0}, MajorMinor{12, 9}},
      {70, {11, 0}, MajorMinor{12, 9}},   {72, {11, 0}, MajorMinor{12, 9}},
      {75, {11, 0}, std::nullopt},        {80, {11, 0}, std::nullopt},
      {86, {11, 1}, std::nullopt},        {87, {11, 4}, std::nullopt},
      {88, {13, 0}, std::nullopt, false}, {89, {11, 8}, std::nullopt},
      {90, {11, 8}, std::nullopt},        {100, {12, 8}, std::nullopt},
      {101, {12, 8}, MajorMinor{12, 9}},  {103, {12, 9}, std::nullopt},
      {110, {13, 0}, std::nullopt},       {120, {12, 8}, std::nullopt},
      {121, {12, 9}, std::nullopt},
  }};
  return table;
}

const ArchHistory* history_of(unsigned number) {
  for (const ArchHistory& h : histories())
    if (h.number == number) return &h;
  return nullptr;
}

}  // namespace

std::optional<env::MajorMinor> nvcc_release(const env::Environment& env) {
  if (!env.toolkit.cuda_version.known()) return std::nullopt;
  return MajorMinor{env.toolkit.cuda_version->major, env.toolkit.cuda_version->minor};
}

std::optional<NvccTarget> parse_nvcc_target(std::string_view text) {
  NvccTarget target;
  if (text.rfind("sm_", 0) == 0) {
    text.remove_prefix(3);
  } else if (text.rfind("compute_", 0) == 0) {
    target.ptx = true;
    text.remove_prefix(8);
  } else {
    return std::nullopt;
  }
  if (!text.empty() && (text.back() == 'a' || text.back() == 'f')) {
    target.suffix = text.back();
    text.remove_suffix(1);
  }
  if (text.empty() || text.size() > 3) return std::nullopt;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    target.number = target.number * 10 + static_cast<unsigned>(c - '0');
  }
  if (target.number < 10) return std::nullopt;
  return target;
}

NvccSupportVerdict nvcc_supports(MajorMinor nvcc, const NvccTarget& target) {
  // nvcc 13.0: "Unsupported gpu architecture 'compute_80a'" (and sm_90f).
  if ((target.suffix == 'a' && target.number < 90) || (target.suffix == 'f' && target.number < 100))
    return {NvccSupport::no_such_target, ""};
  const ArchHistory* h = history_of(target.number);
  if (!h || nvcc < kOldestKnownNvcc || nvcc.major > kNewestKnownMajor) return {};
  MajorMinor first = h->first;
  // The `a` forms arrived with CUDA 12.0 (sm_90a), the `f` forms with 12.9.
  if (target.suffix == 'a' && first < MajorMinor{12, 0}) first = {12, 0};
  if (target.suffix == 'f' && first < MajorMinor{12, 9}) first = {12, 9};
  if (nvcc < first) {
    if (!h->first_known) return {};
    return {NvccSupport::too_new, first.str()};
  }
  if (h->last && *h->last < nvcc) return {NvccSupport::dropped, h->last->str()};
  return {NvccSupport::supported, ""};
}

std::optional<unsigned> oldest_target(int cuda_major) {
  const MajorMinor first_release{cuda_major, 0};
  for (const ArchHistory& h : histories()) {  // in arch order
    if (nvcc_supports(first_release, NvccTarget{h.number, false, 0}).support ==
        NvccSupport::supported)
      return h.number;
  }
  return std::nullopt;
}

std::vector<unsigned> targets_of(int cuda_major) {
  std::vector<unsigned> out;
  if (!oldest_target(cuda_major)) return out;
  for (const ArchHistory& h : histories()) {
    if (h.first.major <= cuda_major && (!h.last || h.last->major >= cuda_major))
      out.push_back(h.number);
  }
  return out;
}

bool target_runs_on(const NvccTarget& target, env::ComputeCapability cc) {
  const int major = static_cast<int>(target.number / 10);
  const int minor = static_cast<int>(target.number % 10);
  if (target.suffix == 'a') return cc.major == major && cc.minor == minor;
  if (target.ptx && target.suffix == 0) return env::ComputeCapability{major, minor} <= cc;
  return cc.major == major && cc.minor >= minor;
}

}  // namespace flashfit::build
