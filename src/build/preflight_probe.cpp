// The two facts preflight gathers by running things: which build modules the
// interpreter can import, and which other host compilers are installed (so a
// gcc too new for nvcc can be answered with "use g++-12", not "install one").
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <system_error>

#include "build/preflight.hpp"
#include "env/toolkit.hpp"
#include "util/files.hpp"
#include "util/process.hpp"
#include "util/strings.hpp"

namespace flashfit::build {
namespace {

namespace fs = std::filesystem;

// The module names arrive as argv, never in the code, so no name can change
// what runs. find_spec locates a top-level module without importing it (a
// dotted name imports its parents); a name it rejects is "not importable".
// The marker line keeps a chatty sitecustomize from shifting the answers.
constexpr const char* kScript = R"PY(
import importlib.util, sys
out = ["flashfit-importable"]
for name in sys.argv[1:]:
    try:
        found = importlib.util.find_spec(name) is not None
    except BaseException:
        found = False
    out.append("1" if found else "0")
sys.stdout.write("\n".join(out) + "\n")
)PY";

constexpr const char* kMarker = "flashfit-importable";

struct NameMatch {
  env::CompilerKind kind;
  std::optional<int> major;  // from "-N"
};

// g++, g++-12, clang++, clang++-14; nothing else (not cross compilers, not
// g++-12-x86_64 wrappers).
std::optional<NameMatch> match_name(std::string_view name) {
  for (const auto& [prefix, kind] :
       {std::pair{std::string_view("g++"), env::CompilerKind::gcc},
        std::pair{std::string_view("clang++"), env::CompilerKind::clang}}) {
    if (!util::starts_with(name, prefix)) continue;
    std::string_view rest = name.substr(prefix.size());
    if (rest.empty()) return NameMatch{kind, std::nullopt};
    if (rest[0] != '-' || rest.size() < 2 || rest.size() > 4) return std::nullopt;
    rest.remove_prefix(1);
    if (!std::all_of(rest.begin(), rest.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      return std::nullopt;
    return NameMatch{kind, std::stoi(std::string(rest))};
  }
  return std::nullopt;
}

std::optional<env::CompilerId> ask_version(const fs::path& program) {
  util::ProcessSpec spec;
  spec.argv = {program.string(), "--version"};
  spec.timeout = std::chrono::seconds(5);
  spec.grace = std::chrono::milliseconds(500);
  spec.max_output = std::size_t{64} << 10;
  auto result = util::run_process(spec);
  if (!result || !result->succeeded()) return std::nullopt;
  return env::parse_compiler_version(result->out.empty() ? result->err : result->out);
}

}  // namespace

util::Result<std::map<std::string, bool>> probe_importable(
    const std::string& python, const std::vector<std::string>& modules) {
  util::ProcessSpec spec;
  spec.argv = {python, "-c", kScript};
  // argv cannot carry a NUL: such a name is answered "no" without asking.
  std::vector<std::string> asked;
  for (const std::string& m : modules)
    if (m.find('\0') == std::string::npos) asked.push_back(m);
  for (const std::string& m : asked) spec.argv.push_back(m);
  spec.cwd = fs::path("/");  // not the caller's directory, whose files would shadow modules
  spec.timeout = std::chrono::seconds(30);
  spec.max_output = std::size_t{1} << 20;
  auto result = util::run_process(spec);
  const std::string context =
      fmt::format("asking {} which build modules it can import", util::printable(python, 200));
  if (!result) return tl::unexpected(std::move(result.error()).with_context(context));
  if (!result->succeeded()) {
    return util::fail(
        util::ErrorKind::failed,
        fmt::format("the interpreter {}: {}", result->describe(),
                    util::printable(util::trim(result->err), 300)),
        context, "check that the interpreter runs: " + util::printable(python, 200) + " -c pass");
  }
  std::vector<std::string_view> lines;
  for (std::string_view line : util::split(result->out, '\n')) lines.push_back(util::trim(line));
  auto marker = std::find(lines.begin(), lines.end(), std::string_view(kMarker));
  if (marker == lines.end() || static_cast<std::size_t>(lines.end() - marker - 1) < asked.size()) {
    return util::fail(util::ErrorKind::failed,
                      "unexpected answer: " + util::printable(util::trim(result->out), 200),
                      context);
  }
  std::map<std::string, bool> out;
  for (const std::string& m : modules) out[m] = false;
  for (std::size_t i = 0; i < asked.size(); ++i) {
    const std::string_view answer = *(marker + 1 + static_cast<std::ptrdiff_t>(i));
    if (answer != "0" && answer != "1") {
      return util::fail(util::ErrorKind::failed,
                        "unexpected answer: " + util::printable(answer, 80), context);
    }
    out[asked[i]] = answer == "1";
  }
  return out;
}

std::vector<InstalledCompiler> find_host_compilers(const std::string& path_env) {
  std::vector<InstalledCompiler> out;
  std::vector<fs::path> seen;  // real paths, in the order of `out`
  for (std::string_view dir_text : util::split(path_env, ':')) {
    if (dir_text.empty()) continue;  // the current directory: not a place compilers are installed
    std::error_code ec;
    fs::directory_iterator it(fs::path(std::string(dir_text)), ec);
    if (ec) continue;
    std::vector<fs::path> names;
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      if (ec) break;
      if (match_name(it->path().filename().string())) names.push_back(it->path());
    }
    std::sort(names.begin(), names.end());  // directory order is arbitrary
    for (const fs::path& path : names) {
      if (!util::is_executable_file(path)) continue;
      const NameMatch match = *match_name(path.filename().string());
      const fs::path real = fs::weakly_canonical(path, ec);
      const fs::path key = ec ? path : real;
      auto same = std::find(seen.begin(), seen.end(), key);
      if (same != seen.end()) {
        // g++ -> g++-12: keep one entry, under the versioned name.
        InstalledCompiler& kept = out[static_cast<std::size_t>(same - seen.begin())];
        if (match.major && !match_name(kept.path.filename().string())->major) kept.path = path;
        continue;
      }
      InstalledCompiler compiler{path, match.kind, 0};
      if (match.major) {
        compiler.major = *match.major;
      } else if (auto id = ask_version(path); id && id->kind != env::CompilerKind::other) {
        compiler.kind = id->kind;  // a "g++" may be clang in disguise
        compiler.major = id->major;
      } else {
        continue;  // no major, nothing to recommend it by
      }
      out.push_back(compiler);
      seen.push_back(key);
    }
  }
  return out;
}

}  // namespace flashfit::build
