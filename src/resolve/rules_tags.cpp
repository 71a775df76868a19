#include "resolve/rules_tags.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pkg/tags.hpp"
#include "resolve/rules_record.hpp"
#include "util/strings.hpp"

namespace flashfit::resolve::rules_detail {

// The architecture a platform tag names ("x86_64" for manylinux_2_28_x86_64); the tag itself
// when it is not a Linux one.
std::string platform_arch(const std::string& platform) {
  auto linux_platform = pkg::parse_linux_platform(platform);
  return linux_platform ? linux_platform->arch : platform;
}

namespace {

// Why pip would not install a wheel none of whose tags the interpreter
// supports: the Python side, the platform side, or a manylinux tag newer than
// this glibc. Every part that fails.
void reject_unsupported_tags(Judged& j, const ResolveTarget& target,
                             const std::vector<pkg::Tag>& tags) {
  const ResolveTarget::Derived& parts = target.derived();
  bool python_ok = false, platform_ok = false;
  for (const pkg::Tag& t : tags) {
    python_ok |= parts.python.count(t.interpreter + "-" + t.abi) > 0;
    platform_ok |= parts.platforms.count(t.platform) > 0;
  }
  auto wheel_tags = [&] {
    std::vector<std::string> out;
    out.reserve(tags.size());
    for (const pkg::Tag& t : tags) out.push_back(t.str());
    return out;
  };
  if (!python_ok) {
    std::string py = target.python ? "Python " + target.python->str() : "this interpreter";
    reject(j, ReasonCode::python, [&] {
      return std::string(fmt::format("built for {} ({}); {} does not accept it",
                                     tags.front().interpreter, util::join(wheel_tags(), ", "), py));
    });
  }
  if (platform_ok) return;
  // A manylinux tag for this architecture but a newer glibc is a glibc problem.
  for (const pkg::Tag& t : tags) {
    auto ml = pkg::parse_linux_platform(t.platform);
    if (!ml || ml->kind != pkg::LinuxPlatform::Kind::manylinux || ml->arch != target.arch) continue;
    const env::MajorMinor glibc{ml->libc->major, ml->libc->minor};
    if (target.glibc && *target.glibc < glibc) {
      reject(j, ReasonCode::glibc, [&] {
        return std::string(fmt::format("needs glibc {} ({}); this machine has glibc {}",
                                       glibc.str(), t.platform, target.glibc->str()));
      });
      return;
    }
  }
  std::string arch = platform_arch(tags.front().platform);
  reject(j, ReasonCode::platform, [&] {
    return std::string(fmt::format("built for {} ({}); this machine is linux {}", arch,
                                   tags.front().platform,
                                   target.arch.empty() ? "of unknown architecture" : target.arch));
  });
}

}  // namespace

// The interpreter's tags against the wheel's: its rank among them, or why pip
// would not install it.
void check_tags(Judged& j, const ResolveTarget& target, JudgeCache& cache,
                std::uint32_t tag_set_id) {
  const auto& tags = j.wheel->tags;
  if (!target.tags) {
    assume(j, "python", "--python PATH or --python-version X.Y", [] {
      return std::string(
          "the wheel's Python and platform tags fit (no interpreter to compare them with)");
    });
    return;
  }
  if (auto rank = cache.best_rank(*target.tags, tag_set_id, tags)) {
    j.tag_rank = *rank;
    return;
  }
  // Thousands of wheels share a few dozen tag sets and the answer is the
  // target's alone: worked out once per tag set on the codes-only pass, then
  // replayed; the explaining pass words it for the wheel.
  if (!j.explained) {
    if (const std::vector<ReasonCode>* codes = cache.tag_rejections(tag_set_id)) {
      for (ReasonCode code : *codes) reject(j, code, [] { return std::string(); });
      return;
    }
  }
  const std::size_t before = j.reasons.size();
  reject_unsupported_tags(j, target, tags);
  if (!j.explained) {
    std::vector<ReasonCode> codes;
    for (std::size_t k = before; k < j.reasons.size(); ++k) codes.push_back(j.reasons[k].code);
    cache.keep_tag_rejections(tag_set_id, std::move(codes));
  }
}

bool is_pure(const pkg::WheelName& wheel) {
  return std::all_of(wheel.tags.begin(), wheel.tags.end(),
                     [](const pkg::Tag& t) { return t.abi == "none" && t.platform == "any"; });
}

bool linux_plain_platform(const pkg::WheelName& wheel) {
  return std::any_of(wheel.tags.begin(), wheel.tags.end(),
                     [](const pkg::Tag& t) { return util::starts_with(t.platform, "linux_"); });
}

// What the rules read of `wheel`'s tags (check_tags, the glibc, ABI and pure
// wheel rules), against `target`. The rank and the rejection codes are kept
// in `cache` for check_tags, which asks for them next.
TagClass classify(const pkg::WheelName& wheel, std::uint32_t tag_set_id,
                  const ResolveTarget& target, JudgeCache& cache) {
  TagClass out;
  if (target.tags) {
    out.rank = cache.best_rank(*target.tags, tag_set_id, wheel.tags);
    if (!out.rank) {
      Judged scratch;
      reject_unsupported_tags(scratch, target, wheel.tags);
      for (const Reason& reason : scratch.reasons) out.rejections.push_back(reason.code);
      cache.keep_tag_rejections(tag_set_id, out.rejections);
    }
  }
  out.linux_plain = linux_plain_platform(wheel);
  out.pure = is_pure(wheel);
  out.arch = platform_arch(wheel.tags.front().platform);
  return out;
}

}  // namespace flashfit::resolve::rules_detail
