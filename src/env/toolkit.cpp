#include "env/toolkit.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <vector>

#include "util/files.hpp"
#include "util/process.hpp"
#include "util/strings.hpp"

namespace flashfit::env {
namespace {

namespace fs = std::filesystem;

using PathFact = Fact<fs::path>;

std::optional<int> parse_int(std::string_view text) {
  int value = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || ptr != end) return std::nullopt;
  return value;
}

// "12.2.0" -> {12, 2}; the leading "N.M" of a dotted version token.
struct DottedVersion {
  int major = 0;
  int minor = 0;
  std::string text;
};
std::optional<DottedVersion> parse_dotted(std::string_view token) {
  std::size_t end = 0;
  while (end < token.size() &&
         (std::isdigit(static_cast<unsigned char>(token[end])) || token[end] == '.'))
    ++end;
  token = token.substr(0, end);
  while (!token.empty() && token.back() == '.') token.remove_suffix(1);
  const auto parts = util::split(token, '.');
  if (parts.size() < 2) return std::nullopt;
  const auto major = parse_int(parts[0]);
  const auto minor = parse_int(parts[1]);
  if (!major || !minor) return std::nullopt;
  return DottedVersion{*major, *minor, std::string(token)};
}

std::string_view first_line(std::string_view text) {
  text = util::trim(text);
  return text.substr(0, text.find('\n'));
}

bool set(const std::optional<std::string>& value) {
  return value && !value->empty();
}

// What a `--version` run printed, or why nothing usable came out of it.
util::Result<std::string> version_output(const fs::path& tool, std::vector<std::string> args,
                                         std::chrono::milliseconds timeout) {
  util::ProcessSpec spec;
  spec.argv.push_back(tool.string());
  for (auto& arg : args) spec.argv.push_back(std::move(arg));
  spec.timeout = timeout;
  spec.grace =
      std::chrono::milliseconds(500);  // a --version that ignores SIGTERM is not worth waiting for
  spec.max_output = std::size_t{64} << 10;
  auto result = util::run_process(spec);
  if (!result) return tl::unexpected(std::move(result.error()));
  if (!result->succeeded())
    return util::fail(util::ErrorKind::failed, fmt::format("`{} {}` {}", tool.string(),
                                                           spec.argv.back(), result->describe()));
  // Some compilers print their banner on stderr.
  return result->out.empty() ? result->err : result->out;
}

std::string run_failure(const util::Error& error) {
  return error.context.empty() ? error.message : error.context + ": " + error.message;
}

// An explicitly named program: a path, or a name looked up on PATH.
std::optional<fs::path> resolve_program(std::string_view name,
                                        const std::optional<std::string>& path) {
  if (name.find('/') != std::string_view::npos) {
    fs::path p{std::string(name)};
    return util::is_executable_file(p) ? std::optional<fs::path>(p) : std::nullopt;
  }
  return util::find_on_path(name, path.value_or(""));
}

struct FoundNvcc {
  PathFact fact;
  NvccOrigin origin = NvccOrigin::none;
};

FoundNvcc find_nvcc(const ToolkitProbeOptions& options) {
  std::vector<std::string> looked;
  auto try_root = [&](const std::optional<std::string>& root,
                      const char* label) -> std::optional<PathFact> {
    if (!set(root)) {
      looked.push_back(fmt::format("{} unset", label));
      return std::nullopt;
    }
    const fs::path candidate = fs::path(*root) / "bin" / "nvcc";
    looked.push_back(fmt::format("{}: {}", label, candidate.string()));
    if (util::is_executable_file(candidate)) return PathFact::of(candidate, label);
    return std::nullopt;
  };
  if (auto f = try_root(options.cuda_home, "CUDA_HOME")) return {*f, NvccOrigin::cuda_home};
  if (auto f = try_root(options.cuda_path, "CUDA_PATH")) return {*f, NvccOrigin::cuda_path};
  if (auto p = util::find_on_path("nvcc", options.path.value_or("")))
    return {PathFact::of(*p, "PATH"), NvccOrigin::path};
  looked.push_back("PATH");
  const fs::path fallback = options.default_cuda_root / "bin" / "nvcc";
  if (util::is_executable_file(fallback))
    return {PathFact::of(fallback, options.default_cuda_root.string()), NvccOrigin::default_root};
  looked.push_back(fallback.string());
  return {PathFact::unknown(fmt::format("not found (looked in {})", util::join(looked, ", "))),
          NvccOrigin::none};
}

// CXX may carry a launcher ("ccache g++"); the compiler is the word after it.
std::string compiler_word(std::string_view value) {
  std::vector<std::string_view> words;
  for (auto w : util::split(util::trim(value), ' '))
    if (!w.empty()) words.push_back(w);
  if (words.empty()) return {};
  const auto base = fs::path(std::string(words[0])).filename().string();
  if (words.size() > 1 && (base == "ccache" || base == "sccache" || base == "distcc"))
    return std::string(words[1]);
  return std::string(words[0]);
}

PathFact find_host_compiler(const ToolkitProbeOptions& options) {
  // An explicit choice is final: nvcc (or CMake) would use it and fail rather than fall back.
  for (const auto& [value, label] :
       {std::pair{&options.cudahostcxx, "CUDAHOSTCXX"}, std::pair{&options.cxx, "CXX"}}) {
    if (!set(*value)) continue;
    const std::string word = compiler_word(**value);
    if (auto p = resolve_program(word, options.path)) return PathFact::of(*p, label);
    return PathFact::unknown(
        fmt::format("not found (looked for {}={} {})", label, util::printable(**value, 100),
                    word.find('/') == std::string::npos ? "on PATH" : "as a path"),
        label);
  }
  if (auto p = util::find_on_path("g++", options.path.value_or("")))
    return PathFact::of(*p, "PATH (g++)");
  return PathFact::unknown("not found (looked in CUDAHOSTCXX, CXX: unset; g++ on PATH)");
}

void probe_nvcc(const ToolkitProbeOptions& options, ToolkitFacts& facts) {
  auto found = find_nvcc(options);
  facts.nvcc = std::move(found.fact);
  facts.nvcc_origin = found.origin;
  if (!facts.nvcc.known()) {
    facts.cuda_version = Fact<NvccVersion>::unknown("nvcc not found");
    return;
  }
  const std::string source = facts.nvcc->string() + " --version";
  auto out = version_output(*facts.nvcc, {"--version"}, options.timeout);
  if (!out) {
    facts.cuda_version = Fact<NvccVersion>::unknown(run_failure(out.error()), source);
  } else if (auto v = parse_nvcc_version(*out)) {
    facts.cuda_version = Fact<NvccVersion>::of(*v, source);
  } else {
    facts.cuda_version = Fact<NvccVersion>::unknown(
        "no \"release N.M\" in the output: " + util::printable(util::trim(*out), 120), source);
  }
}

bool has_runtime_headers(const fs::path& root) {
  std::error_code ec;
  return fs::is_regular_file(root / "include" / "cuda_runtime_api.h", ec);
}

// nvcc's own idea of its root, from a dry run that compiles nothing.
std::optional<fs::path> nvcc_top(const fs::path& nvcc, std::chrono::milliseconds timeout) {
  util::ProcessSpec spec;
  spec.argv = {nvcc.string(), "-dryrun", "-c", "-x", "cu", "/dev/null", "-o", "/dev/null"};
  spec.timeout = timeout;
  spec.grace = std::chrono::milliseconds(500);
  spec.max_output = std::size_t{256} << 10;
  auto result = util::run_process(spec);
  if (!result) return std::nullopt;
  // The dry run prints its steps on stderr whatever its status.
  if (auto top = parse_nvcc_top(result->err)) return top;
  return parse_nvcc_top(result->out);
}

// Where torch's cpp_extension would look (CUDA_HOME, CUDA_PATH, else nvcc's
// grandparent), and when that root has no runtime headers, the root nvcc
// really runs from: its symlink target, else its dry run's TOP.
void probe_cuda_home(const ToolkitProbeOptions& options, ToolkitFacts& facts) {
  if (!facts.nvcc.known()) {
    facts.cuda_home = PathFact::unknown("nvcc not found");
    return;
  }
  const fs::path guess = facts.nvcc->parent_path().parent_path();
  const bool explicit_root = facts.nvcc_root_explicit();
  if (has_runtime_headers(guess)) {
    facts.cuda_home = PathFact::of(
        guess, explicit_root ? facts.nvcc.source : "nvcc's grandparent (as torch guesses)");
    return;
  }
  std::vector<std::string> looked{(guess / "include").string()};
  if (!explicit_root) {  // an explicit CUDA_HOME is what the build gets: never replace it
    std::error_code ec;
    const fs::path real = fs::canonical(*facts.nvcc, ec);
    if (!ec && real != *facts.nvcc) {
      const fs::path root = real.parent_path().parent_path();
      if (has_runtime_headers(root)) {
        facts.cuda_home = PathFact::of(root, facts.nvcc->string() + " -> " + real.string());
        return;
      }
      looked.push_back((root / "include").string());
    }
    if (auto top = nvcc_top(*facts.nvcc, options.timeout)) {
      if (has_runtime_headers(*top)) {
        facts.cuda_home = PathFact::of(*top, facts.nvcc->string() + " -dryrun (TOP)");
        return;
      }
      looked.push_back((*top / "include").string());
    }
  }
  facts.cuda_home = PathFact::unknown(
      fmt::format("no cuda_runtime_api.h in {}", util::join(looked, ", ")), facts.nvcc.source);
}

void probe_host_compiler(const ToolkitProbeOptions& options, ToolkitFacts& facts) {
  facts.host_compiler = find_host_compiler(options);
  if (!facts.host_compiler.known()) {
    facts.host_compiler_id = Fact<CompilerId>::unknown("host compiler not found");
    return;
  }
  const fs::path& cc = *facts.host_compiler;
  const std::string source = cc.string() + " --version";
  auto out = version_output(cc, {"--version"}, options.timeout);
  if (!out) {
    facts.host_compiler_id = Fact<CompilerId>::unknown(run_failure(out.error()), source);
    return;
  }
  auto id = parse_compiler_version(*out);
  if (!id) {
    facts.host_compiler_id = Fact<CompilerId>::unknown(
        "unrecognised --version output: " + util::printable(first_line(*out), 120), source);
    return;
  }
  facts.host_compiler_id = Fact<CompilerId>::of(*id, source);
}

void judge_host_compiler(ToolkitFacts& facts) {
  using V = HostCompilerVerdict;
  if (!facts.cuda_version.known() || !facts.host_compiler_id.known()) {
    const char* missing = !facts.cuda_version.known() ? "nvcc version" : "host compiler";
    facts.host_compiler_max_major = Fact<int>::unknown(fmt::format("{} unknown", missing));
    facts.host_compiler_check = {V::unknown, fmt::format("{} unknown", missing)};
    return;
  }
  const NvccVersion& cuda = *facts.cuda_version;
  const CompilerId& id = *facts.host_compiler_id;
  const HostCompilerLimits limits = nvcc_host_compiler_limits(cuda.major, cuda.minor, cuda.build);
  const auto& max = id.kind == CompilerKind::clang ? limits.max_clang_major : limits.max_gcc_major;
  const std::string source = fmt::format("nvcc {} host_config.h limits", cuda.text);
  if (id.kind != CompilerKind::other && max) {
    facts.host_compiler_max_major = Fact<int>::of(*max, source);
  } else {
    facts.host_compiler_max_major = Fact<int>::unknown(
        fmt::format("no {} limit recorded for nvcc {}", to_string(id.kind), cuda.text), source);
  }
  facts.host_compiler_check = check_host_compiler(limits, id.kind, id.major, id.minor);
}

void probe_ninja(const ToolkitProbeOptions& options, ToolkitFacts& facts) {
  const std::string path = options.path.value_or("");
  for (const char* name : {"ninja", "ninja-build"}) {
    if (auto p = util::find_on_path(name, path)) {
      facts.ninja = PathFact::of(*p, fmt::format("PATH ({})", name));
      break;
    }
  }
  if (!facts.ninja.known()) {
    facts.ninja = PathFact::unknown("not found (looked for ninja, ninja-build on PATH)");
    facts.ninja_version = Fact<std::string>::unknown("ninja not found");
    return;
  }
  const std::string source = facts.ninja->string() + " --version";
  auto out = version_output(*facts.ninja, {"--version"}, options.timeout);
  if (!out) {
    facts.ninja_version = Fact<std::string>::unknown(run_failure(out.error()), source);
    return;
  }
  const auto line = first_line(*out);
  if (auto v = parse_dotted(line); v && v->text.size() == line.size()) {
    facts.ninja_version = Fact<std::string>::of(v->text, source);
  } else {
    facts.ninja_version = Fact<std::string>::unknown(
        "unrecognised --version output: " + util::printable(line, 120), source);
  }
}

}  // namespace

std::optional<fs::path> parse_nvcc_top(std::string_view dryrun_output) {
  for (auto line : util::split(dryrun_output, '\n')) {
    line = util::trim(line);
    if (!util::starts_with(line, "#$ TOP=")) continue;
    std::string_view value = util::trim(line.substr(7));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.substr(1, value.size() - 2);
    if (value.empty() || value.front() != '/') return std::nullopt;
    fs::path top = fs::path(std::string(value)).lexically_normal();
    if (!top.has_filename() && top != top.root_path())
      top = top.parent_path();  // "/a/b/" -> "/a/b"
    return top;
  }
  return std::nullopt;
}

std::optional<NvccVersion> parse_nvcc_version(std::string_view output) {
  // "Cuda compilation tools, release 13.0, V13.0.88": the same "release" torch reads.
  const auto at = output.find("release ");
  if (at == std::string_view::npos) return std::nullopt;
  const auto release = parse_dotted(output.substr(at + 8));
  if (!release) return std::nullopt;
  NvccVersion v{release->major, release->minor, std::nullopt, release->text};
  const auto vat = output.find(", V", at);
  if (vat != std::string_view::npos && vat < output.find('\n', at)) {
    const auto full = parse_dotted(output.substr(vat + 3));
    const auto parts = full ? util::split(full->text, '.') : std::vector<std::string_view>{};
    if (full && full->major == v.major && full->minor == v.minor && parts.size() == 3) {
      v.build = parse_int(parts[2]);
      if (v.build) v.text = full->text;
    }
  }
  return v;
}

std::optional<CompilerId> parse_compiler_version(std::string_view output) {
  const auto line = first_line(output);
  if (const auto at = line.find("clang version "); at != std::string_view::npos) {
    const auto v = parse_dotted(line.substr(at + 14));
    if (!v) return std::nullopt;
    return CompilerId{CompilerKind::clang, v->major, v->minor, v->text};
  }
  // "g++ (Debian 12.2.0-14+deb12u1) 12.2.0", "gcc (GCC) 13.2.1 20230801": GCC
  // puts its version last among the dotted words of the first line.
  std::optional<DottedVersion> last;
  for (auto word : util::split(line, ' '))
    if (auto v = parse_dotted(word); v && v->text.size() == word.size()) last = v;
  if (!last) return std::nullopt;
  const bool gcc = output.find("Free Software Foundation") != std::string_view::npos ||
                   line.find("(GCC)") != std::string_view::npos || util::starts_with(line, "g++") ||
                   util::starts_with(line, "gcc") || line.find("-g++") != std::string_view::npos ||
                   line.find("-gcc") != std::string_view::npos;
  return CompilerId{gcc ? CompilerKind::gcc : CompilerKind::other, last->major, last->minor,
                    last->text};
}

ToolkitFacts probe_toolkit(const ToolkitProbeOptions& options) {
  ToolkitFacts facts;
  probe_nvcc(options, facts);
  probe_cuda_home(options, facts);
  probe_host_compiler(options, facts);
  judge_host_compiler(facts);
  probe_ninja(options, facts);
  return facts;
}

}  // namespace flashfit::env
