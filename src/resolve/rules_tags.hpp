#pragma once
// The rules on a wheel's tags: pip's tags against the interpreter's, the
// platform facts the glibc, ABI and pure-wheel rules read, and a tag set's
// class for the shared verdicts (JudgeCache::tag_class). Used by rules.cpp.
#include <cstdint>
#include <string>

#include "pkg/wheel_name.hpp"
#include "resolve/candidate.hpp"
#include "resolve/judge_cache.hpp"
#include "resolve/target.hpp"

namespace flashfit::resolve::rules_detail {

// The architecture a platform tag names ("x86_64" for manylinux_2_28_x86_64);
// the tag itself when it is not a Linux one.
std::string platform_arch(const std::string& platform);
// The interpreter's tags against the wheel's (j.wheel): its rank among them,
// or why pip would not install it.
void check_tags(Judged& j, const ResolveTarget& target, JudgeCache& cache,
                std::uint32_t tag_set_id);
bool is_pure(const pkg::WheelName& wheel);               // every tag py*-none-any
bool linux_plain_platform(const pkg::WheelName& wheel);  // a linux_* tag
// What the rules read of `wheel`'s tags, against `target`; the rank and the
// rejection codes are kept in `cache` for check_tags, which asks for them next.
TagClass classify(const pkg::WheelName& wheel, std::uint32_t tag_set_id,
                  const ResolveTarget& target, JudgeCache& cache);

}  // namespace flashfit::resolve::rules_detail
