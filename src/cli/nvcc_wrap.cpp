// Why an exec and not a child: ninja waits for this process; nvcc takes its
// place, so its exit status, output and signals are the build's, unchanged.
#include "cli/nvcc_wrap.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "build/nvcc_filter.hpp"
#include "build/nvcc_wrapper_plan.hpp"
#include "util/strings.hpp"

namespace flashfit::cli {
namespace {

util::Error usage(std::string message) {
  return util::Error{util::ErrorKind::usage, std::move(message), kNvccWrapCommand,
                     "an internal command: the build's PYTORCH_NVCC runs it"};
}

}  // namespace

util::Result<NvccWrapCall> parse_nvcc_wrap(const std::vector<std::string>& words) {
  NvccWrapCall call;
  bool have_archs = false, have_threads = false, have_nvcc = false, have_separator = false;
  std::size_t i = 0;
  for (; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "--") {
      have_separator = true;
      ++i;
      break;
    }
    bool* seen = w == "--archs"         ? &have_archs
                 : w == "--max-threads" ? &have_threads
                 : w == "--nvcc"        ? &have_nvcc
                                        : nullptr;
    if (!seen) return tl::unexpected(usage("unknown argument " + util::printable(w, 60)));
    if (*seen) return tl::unexpected(usage(w + " given twice"));
    if (i + 1 >= words.size()) return tl::unexpected(usage(w + " has no value"));
    *seen = true;
    const std::string& value = words[++i];
    if (w == "--archs") {
      call.archs.push_back(value);
    } else if (w == "--nvcc") {
      call.nvcc = value;
    } else {
      const bool digits =
          !value.empty() && value.size() <= 4 &&
          std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (!digits || std::stoul(value) == 0)
        return tl::unexpected(
            usage("--max-threads " + util::printable(value, 40) + " is not a count of 1 or more"));
      call.max_threads = static_cast<unsigned>(std::stoul(value));
    }
  }
  if (!have_archs) return tl::unexpected(usage("--archs is required"));
  if (!have_nvcc) return tl::unexpected(usage("--nvcc is required"));
  if (call.nvcc.empty() || call.nvcc.front() != '/')
    return tl::unexpected(usage("--nvcc must be the real nvcc's absolute path"));
  if (!have_separator) return tl::unexpected(usage("-- and nvcc's arguments are required"));
  call.args.assign(words.begin() + static_cast<std::ptrdiff_t>(i), words.end());
  return call;
}

int run_nvcc_wrap(const std::vector<std::string>& words) {
  auto report = [](const util::Error& error) {
    std::fprintf(stderr, "%s\n", util::render(error).c_str());
    return util::exit_code(error.kind);
  };
  auto call = parse_nvcc_wrap(words);
  if (!call) return report(call.error());
  auto numbers = build::wrapper_arch_numbers(call->archs);
  if (!numbers) return report(std::move(numbers).error().with_context(kNvccWrapCommand));
  auto filtered =
      build::filter_nvcc_args(call->args, build::NvccFilter{*numbers, call->max_threads});
  if (!filtered) return report(std::move(filtered).error().with_context(kNvccWrapCommand));

  std::vector<std::string> argv_strings{call->nvcc};
  for (std::string& a : filtered->args) argv_strings.push_back(std::move(a));
  std::vector<char*> argv;
  for (std::string& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::signal(SIGPIPE, SIG_DFL);  // flashfit ignores it; nvcc gets the default back
  ::execv(call->nvcc.c_str(), argv.data());
  return report(util::Error{
      util::ErrorKind::failed,
      fmt::format("cannot run {}: {}", util::printable(call->nvcc, 200), std::strerror(errno)),
      kNvccWrapCommand, ""});
}

}  // namespace flashfit::cli
