// Preflight: the failures a build would hit after minutes or hours (a CPU
// torch, an nvcc of another CUDA major, a gcc nvcc refuses, no Python.h, a
// full disk, a missing setup_requires module), found before the first
// compile, each with the command or variable that fixes it
// (docs/background.md §13, §16; docs/background.md §4, §8.3).
#include "build/preflight.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <system_error>

#include "build/nvcc_targets.hpp"
#include "build/preflight_archs.hpp"
#include "build/preflight_torch.hpp"
#include "build/toolkit_provision.hpp"
#include "resolve/build_knobs.hpp"
#include "util/strings.hpp"

namespace flashfit::build {
namespace {

namespace fs = std::filesystem;
using S = CheckStatus;

// Where a module's distribution has another name (pip install takes the
// distribution). Tiny on purpose: build requirements are nearly always
// importable under their own name.
struct ModuleDist {
  const char* module;
  const char* dist;
};
constexpr ModuleDist kModuleDists[] = {
    {"pkg_resources", "setuptools"},
    {"yaml", "pyyaml"},
};

std::string dist_for(const std::string& module) {
  std::string top = module.substr(0, module.find('.'));
  for (const ModuleDist& m : kModuleDists)
    if (top == m.module) return m.dist;
  return top;
}

std::string gib(std::uint64_t bytes) {
  return fmt::format("{:.1f} GiB",
                     static_cast<double>(bytes) / static_cast<double>(std::uint64_t{1} << 30));
}

struct Context {
  const env::Environment& env;
  const resolve::Recipe* recipe;
  const BuildPlan& plan;
  const PreflightFacts& facts;
  std::string python;   // the interpreter, as a command
  std::string package;  // "flash-attn", or "the package"
};

PreflightCheck check(std::string id, CheckStatus status, std::string message,
                     std::string fix = {}) {
  return PreflightCheck{std::move(id), status, std::move(message), std::move(fix)};
}

std::optional<env::MajorMinor> torch_cuda(const env::Environment& env) {
  if (!env.torch.cuda.known() || env.torch.cuda->none()) return std::nullopt;
  return env::parse_major_minor(*env.torch.cuda->version);
}

std::string torch_text(const env::Environment& env) {
  return env.torch.version_text.known() ? "torch " + *env.torch.version_text : "torch";
}

// A what-if torch (--torch) is not installed here; its facts still are the
// ones to plan and preflight against.
bool torch_present(const env::Environment& env) {
  return env.torch.installed() || env.torch.version.overridden;
}

PreflightCheck check_torch(const Context& c) {
  if (!c.env.torch.installed() && c.env.torch.version.overridden) {
    return check("torch", S::ok, fmt::format("{} (what-if: planning only)", torch_text(c.env)));
  }
  if (c.env.torch.installed()) {
    return check("torch", S::ok,
                 fmt::format("{} in {}", torch_text(c.env), c.env.torch.package_dir->string()));
  }
  std::string fix;
  if (c.plan.cuda) {
    auto command =
        detail::preflight_torch_command(c.env, c.python, detail::preflight_nvcc_major(c.env));
    fix = "install a CUDA build of torch first (setup.py imports it): " +
          command.value_or(c.python + " -m pip install torch");
  } else {
    fix =
        fmt::format("install torch first (setup.py imports it): {} -m pip install torch", c.python);
  }
  const std::string why = c.env.torch.package_dir.unknown_reason;
  return check(
      "torch", S::failed,
      fmt::format("torch is not installed for {}{}", c.python, why.empty() ? "" : " (" + why + ")"),
      fix);
}

PreflightCheck check_torch_cuda(const Context& c) {
  const char* id = "torch-cuda";
  if (!c.plan.cuda) return check(id, S::skipped, "not a CUDA build: a CPU torch is fine");
  if (!torch_present(c.env)) return check(id, S::skipped, "torch is not installed");
  if (!c.env.torch.cuda.known()) {
    return check(
        id, S::warning,
        fmt::format("could not tell whether torch is a CUDA build ({})",
                    c.env.torch.cuda.unknown_reason),
        fmt::format(
            "check that `{} -c 'import torch; print(torch.version.cuda)'` prints a CUDA version",
            c.python));
  }
  if (c.env.torch.cuda->none()) {
    const bool rocm = c.env.torch.hip.known() && !c.env.torch.hip->none();
    auto command =
        detail::preflight_torch_command(c.env, c.python, detail::preflight_nvcc_major(c.env));
    return check(
        id, S::failed,
        fmt::format("{} is a {} build; {} needs a CUDA torch", torch_text(c.env),
                    rocm ? "ROCm" : "CPU", c.package),
        "install a CUDA build of torch: " + command.value_or(c.python + " -m pip install torch"));
  }
  return check(
      id, S::ok,
      fmt::format("{} is built with CUDA {}", torch_text(c.env), *c.env.torch.cuda->version));
}

PreflightCheck check_nvcc(const Context& c) {
  const char* id = "nvcc";
  if (!c.plan.cuda) return check(id, S::skipped, "not a CUDA build");
  const auto& tk = c.env.toolkit;
  if (!tk.nvcc.known()) {
    const auto cuda = torch_cuda(c.env);
    return check(id, S::failed, fmt::format("nvcc {}", tk.nvcc.unknown_reason),
                 cuda ? fmt::format("install the CUDA {0} toolkit (torch's CUDA; any {1}.x works) "
                                    "and set CUDA_HOME to "
                                    "it, e.g. export CUDA_HOME=/usr/local/cuda-{0}",
                                    cuda->str(), cuda->major)
                      : "install the CUDA toolkit matching torch's CUDA version, or set CUDA_HOME "
                        "to an installed one");
  }
  if (!tk.cuda_version.known()) {
    return check(
        id, S::failed,
        fmt::format("{} did not report its version: {}", tk.nvcc->string(),
                    tk.cuda_version.unknown_reason),
        fmt::format("check that `{} --version` runs, or set CUDA_HOME to a working toolkit",
                    tk.nvcc->string()));
  }
  if (!tk.cuda_home.known()) {
    // torch's cpp_extension compiles the .cpp files with -I$CUDA_HOME/include:
    // without cuda_runtime_api.h there the first C++ unit fails.
    return check(
        id, S::failed,
        fmt::format("nvcc {} at {}, but no toolkit root with the CUDA runtime headers ({})",
                    tk.cuda_version->text, tk.nvcc->string(), tk.cuda_home.unknown_reason),
        fmt::format(
            "export CUDA_HOME=<the toolkit root whose include/ holds cuda_runtime_api.h>, e.g. "
            "/usr/local/cuda-{}.{}",
            tk.cuda_version->major, tk.cuda_version->minor));
  }
  return check(id, S::ok,
               fmt::format("nvcc {} at {} (found by {}); CUDA_HOME {}", tk.cuda_version->text,
                           tk.nvcc->string(), tk.nvcc.source, tk.cuda_home->string()));
}

PreflightCheck check_nvcc_major(const Context& c) {
  const char* id = "nvcc-cuda-major";
  if (!c.plan.cuda) return check(id, S::skipped, "not a CUDA build");
  const auto torch = torch_cuda(c.env);
  const auto nvcc = nvcc_release(c.env);
  if (!torch || !nvcc) return check(id, S::skipped, "needs both torch's CUDA version and nvcc's");
  if (torch->major != nvcc->major) {
    std::string fix = fmt::format(
        "install a CUDA {0}.x toolkit (torch's is {1}) and export CUDA_HOME=/usr/local/cuda-{1}",
        torch->major, torch->str());
    // Only for a CUDA line NVIDIA publishes toolkit wheels for (12, 13).
    if (toolkit_packages(*torch))
      fix += fmt::format(
          "; or let flashfit assemble CUDA {} from PyPI's nvidia-cuda-nvcc wheels into its cache: "
          "rerun this build with --toolkit auto",
          torch->str());
    if (auto command =
            detail::preflight_torch_command(c.env, c.python, nvcc->major, /*keep_minor=*/true))
      fix += fmt::format("; or a torch built for CUDA {}: {}", nvcc->major, *command);
    return check(
        id, S::failed,
        fmt::format(
            "nvcc {} and torch's CUDA {} differ in major: torch's cpp_extension refuses to build "
            "(\"The detected CUDA version ... mismatches the version that was used to compile "
            "PyTorch\")",
            nvcc->str(), torch->str()),
        fix);
  }
  if (torch->minor != nvcc->minor) {
    return check(
        id, S::warning,
        fmt::format(
            "nvcc {} and torch's CUDA {}: same major, so torch only warns (minor version mismatch)",
            nvcc->str(), torch->str()),
        fmt::format(
            "usually fine; for an exact match install the CUDA {} toolkit and set CUDA_HOME to it",
            torch->str()));
  }
  return check(id, S::ok,
               fmt::format("nvcc {} matches torch's CUDA {}", nvcc->str(), torch->str()));
}

// "g++-12" -> "gcc-12", "clang++" -> "clang", beside it.
fs::path c_compiler_for(const fs::path& cxx) {
  std::string name = cxx.filename().string();
  if (auto at = name.find("clang++"); at != std::string::npos) {
    name.replace(at, 7, "clang");
  } else if (auto gxx = name.find("g++"); gxx != std::string::npos) {
    name.replace(gxx, 3, "gcc");
  } else if (auto cxx_at = name.find("c++"); cxx_at != std::string::npos) {
    name.replace(cxx_at, 3, "cc");
  }
  return cxx.parent_path() / name;
}

std::string export_compiler(const fs::path& cxx) {
  return fmt::format("export CUDAHOSTCXX={0} CC={1} CXX={0}", cxx.string(),
                     c_compiler_for(cxx).string());
}

// The newest installed compiler this nvcc accepts, the current one's kind first.
const InstalledCompiler* accepted_compiler(const Context& c, env::CompilerKind prefer) {
  const auto& v = *c.env.toolkit.cuda_version;
  const env::HostCompilerLimits limits = env::nvcc_host_compiler_limits(v.major, v.minor, v.build);
  const InstalledCompiler* best = nullptr;
  for (const InstalledCompiler& candidate : c.facts.compilers) {
    if (env::check_host_compiler(limits, candidate.kind, candidate.major, 0).verdict !=
        env::HostCompilerVerdict::ok)
      continue;
    auto rank = [&](const InstalledCompiler& x) { return std::pair{x.kind == prefer, x.major}; };
    if (!best || rank(*best) < rank(candidate)) best = &candidate;
  }
  return best;
}

PreflightCheck check_host_compiler(const Context& c) {
  const char* id = "host-compiler";
  const auto& tk = c.env.toolkit;
  if (!tk.host_compiler.known()) {
    return check(id, S::failed, fmt::format("no C++ compiler: {}", tk.host_compiler.unknown_reason),
                 "install one: apt install g++ (or dnf install gcc-c++)");
  }
  const std::string compiler =
      tk.host_compiler_id.known()
          ? fmt::format("{} ({} {})", tk.host_compiler->string(),
                        to_string(tk.host_compiler_id->kind), tk.host_compiler_id->version)
          : tk.host_compiler->string();
  if (!c.plan.cuda) return check(id, S::ok, "C++ compiler " + compiler);
  const auto& verdict = tk.host_compiler_check;
  switch (verdict.verdict) {
    case env::HostCompilerVerdict::ok:
      return check(id, S::ok, fmt::format("{}: {}", compiler, verdict.reason));
    case env::HostCompilerVerdict::unknown:
      return check(id, S::warning,
                   fmt::format("{}: nvcc's acceptance unknown ({})", compiler, verdict.reason),
                   "if nvcc stops with \"unsupported GNU version\", export CUDAHOSTCXX, CC and CXX "
                   "to an older "
                   "compiler");
    case env::HostCompilerVerdict::too_new:
      break;
  }
  const std::string message =
      fmt::format("{} is too new for nvcc {}: {}", compiler,
                  tk.cuda_version.known() ? tk.cuda_version->text : "", verdict.reason);
  const env::CompilerKind kind =
      tk.host_compiler_id.known() ? tk.host_compiler_id->kind : env::CompilerKind::gcc;
  if (tk.cuda_version.known()) {
    if (const InstalledCompiler* other = accepted_compiler(c, kind))
      return check(id, S::failed, message,
                   fmt::format("use {}, which nvcc accepts: {}", other->path.filename().string(),
                               export_compiler(other->path)));
  }
  if (tk.host_compiler_max_major.known() && kind == env::CompilerKind::gcc) {
    const int max = *tk.host_compiler_max_major;
    return check(
        id, S::failed, message,
        fmt::format("install a GCC this nvcc accepts (up to {0}): apt install g++-{0}, then {1}",
                    max, export_compiler(fs::path("/usr/bin") / fmt::format("g++-{}", max))));
  }
  return check(
      id, S::failed, message,
      "install an older host compiler nvcc accepts and export CUDAHOSTCXX, CC and CXX to it");
}

PreflightCheck check_archs(const Context& c) {
  const char* id = "archs";
  if (!c.plan.cuda || !c.plan.archs) return check(id, S::skipped, "not a CUDA build");
  const ArchPlan& archs = *c.plan.archs;
  const std::string what =
      archs.tokens.empty()
          ? archs.basis
          : fmt::format("{}={} ({}): {}", archs.variable, util::join(archs.tokens, ";"),
                        util::join(archs.sass, ", "), archs.basis);
  if (auto refused = detail::archs_nvcc_refuses(c.env, c.recipe, c.plan, what)) return *refused;
  if (auto nowhere = detail::archs_run_nowhere_here(c.env, c.plan, c.package, what))
    return *nowhere;
  const std::string unknown = detail::archs_nvcc_unknown_note(c.env, c.plan);
  if (!c.recipe || c.recipe->build.arch_tokens.empty()) return check(id, S::ok, what + unknown);
  const auto nvcc = nvcc_release(c.env);
  if (!nvcc) return check(id, S::skipped, "nvcc's version is unknown: " + what);
  std::vector<std::string> too_new, others;
  std::string need_text;
  std::optional<env::MajorMinor> need;
  for (const std::string& token : archs.tokens) {
    const resolve::BuildKnobs::ArchToken* t = nullptr;
    for (const auto& known : c.recipe->build.arch_tokens)
      if (known.token == token) t = &known;
    auto min = t && t->min_nvcc ? env::parse_major_minor(*t->min_nvcc) : std::nullopt;
    if (min && *nvcc < *min) {
      auto range = resolve::capability_range(*t);
      too_new.push_back(range ? fmt::format("{} (GPUs {})", token, range->str()) : token);
      if (!need || *need < *min) {
        need = min;
        need_text = *t->min_nvcc;
      }
    } else {
      others.push_back(token);
    }
  }
  if (too_new.empty()) return check(id, S::ok, what + unknown);
  std::string fix = fmt::format(
      "install CUDA {} or newer (nvcc) and set CUDA_HOME to it (torch's CUDA major must "
      "match it)",
      need_text);
  if (!others.empty())
    fix += fmt::format("; or build without them: --archs {} (the wheel will not run on those GPUs)",
                       util::join(others, ","));
  return check(id, S::failed,
               fmt::format("{} {} nvcc >= {}; nvcc here is {}", util::join(too_new, ", "),
                           too_new.size() == 1 ? "needs" : "need", need_text, nvcc->str()),
               fix);
}

PreflightCheck check_ninja(const Context& c) {
  const auto& tk = c.env.toolkit;
  if (tk.ninja.known()) {
    return check(
        "ninja", S::ok,
        fmt::format("ninja{} at {}", tk.ninja_version.known() ? " " + *tk.ninja_version : "",
                    tk.ninja->string()));
  }
  if (c.plan.nvcc_wrapped) {
    return check("ninja", S::failed,
                 "ninja not found: --archs goes through PYTORCH_NVCC, which torch reads only in "
                 "its ninja build; without it every -gencode target of setup.py would build",
                 fmt::format("apt install ninja-build, or {} -m pip install ninja", c.python));
  }
  // The plan's estimate already counts a serial build without ninja.
  const std::string how_long =
      c.plan.time_estimate
          ? fmt::format(" (~{} min here)", (c.plan.time_estimate->count() + 59) / 60)
          : "";
  return check(
      "ninja", S::warning,
      fmt::format("ninja not found: the build will be serial, one compile at a time{}", how_long),
      fmt::format("apt install ninja-build, or {} -m pip install ninja", c.python));
}

// Under --python-version for another Python than the interpreter here, the
// headers and modules that matter are the described machine's: not checked
// against this interpreter's (which would pass or fail for the wrong Python).
std::optional<std::string> python_described_elsewhere(const Context& c) {
  if (!c.env.python.interpreter.known() || !c.env.python.version.known()) return std::nullopt;
  const env::Interpreter& py = *c.env.python.interpreter;
  const env::MajorMinor here{py.major, py.minor};
  if (*c.env.python.version == here) return std::nullopt;
  return fmt::format(
      "Python {} is described (--python-version); the interpreter here is {}, so its files say "
      "nothing about that machine's",
      c.env.python.version->str(), here.str());
}

PreflightCheck check_python_headers(const Context& c) {
  const char* id = "python-headers";
  if (auto elsewhere = python_described_elsewhere(c)) return check(id, S::skipped, *elsewhere);
  if (!c.env.python.interpreter.known()) {
    return check(id, S::failed,
                 fmt::format("no Python interpreter could be asked ({})",
                             c.env.python.interpreter.unknown_reason),
                 "pass --python with the interpreter to build for");
  }
  const env::Interpreter& py = *c.env.python.interpreter;
  const std::string dev = fmt::format("python{}.{}", py.major, py.minor);
  const std::string fix = fmt::format(
      "install the Python development headers: apt install {0}-dev (Debian, "
      "Ubuntu) or dnf install {0}-devel (Fedora)",
      dev);
  if (py.include_dir.empty())
    return check(id, S::failed, "the interpreter reports no include directory", fix);
  const fs::path header = fs::path(py.include_dir) / "Python.h";
  std::error_code ec;
  if (fs::is_regular_file(header, ec)) return check(id, S::ok, header.string());
  return check(id, S::failed,
               fmt::format("{} not found: C extensions cannot be compiled", header.string()), fix);
}

PreflightCheck check_disk(const Context& c) {
  const std::string dir =
      c.facts.build_dir.empty() ? "the build directory" : c.facts.build_dir.string();
  if (!c.facts.free_disk_bytes) {
    return check("disk", S::warning, fmt::format("free space in {} unknown", dir),
                 fmt::format("make sure about {} is free there", gib(c.plan.disk_estimate_bytes)));
  }
  const std::uint64_t free = *c.facts.free_disk_bytes;
  const std::string message = fmt::format("{} free in {}; the build needs about {}", gib(free), dir,
                                          gib(c.plan.disk_estimate_bytes));
  if (free >= c.plan.disk_estimate_bytes) return check("disk", S::ok, message);
  return check("disk", S::failed, message,
               fmt::format("free {} there, or build on a larger disk (another work directory)",
                           gib(c.plan.disk_estimate_bytes - free)));
}

PreflightCheck check_build_deps(const Context& c) {
  const char* id = "build-deps";
  if (auto elsewhere = python_described_elsewhere(c)) return check(id, S::skipped, *elsewhere);
  std::vector<std::string> missing, unknown, to_install;
  bool torch_missing = false;
  for (const std::string& module : required_build_modules(c.recipe, c.plan.setup_requires)) {
    auto found = c.facts.importable.find(module);
    if (found == c.facts.importable.end()) {
      unknown.push_back(module);
    } else if (!found->second) {
      missing.push_back(module);
      if (module == "torch") {
        torch_missing = true;
      } else if (std::find(to_install.begin(), to_install.end(), dist_for(module)) ==
                 to_install.end()) {
        to_install.push_back(dist_for(module));
      }
    }
  }
  auto fix_for = [&](const std::vector<std::string>& dists) {
    std::string fix;
    if (!dists.empty()) fix = fmt::format("{} -m pip install {}", c.python, util::join(dists, " "));
    if (torch_missing) fix += std::string(fix.empty() ? "" : "; ") + "torch: see the torch check";
    return fix;
  };
  if (!missing.empty()) {
    return check(id, S::failed,
                 fmt::format("not importable by {}: {} (a --no-build-isolation build needs them)",
                             c.python, util::join(missing, ", ")),
                 fix_for(to_install));
  }
  if (!unknown.empty()) {
    std::vector<std::string> dists;
    for (const std::string& m : unknown)
      if (m != "torch") dists.push_back(dist_for(m));
    return check(id, S::warning, fmt::format("not checked: {}", util::join(unknown, ", ")),
                 dists.empty() ? "" : "make sure they are installed: " + fix_for(dists));
  }
  return check(
      id, S::ok,
      "importable: " + util::join(required_build_modules(c.recipe, c.plan.setup_requires), ", "));
}

}  // namespace

const char* to_string(CheckStatus status) {
  switch (status) {
    case CheckStatus::ok:
      return "ok";
    case CheckStatus::warning:
      return "warning";
    case CheckStatus::failed:
      return "failed";
    case CheckStatus::skipped:
      break;
  }
  return "skipped";
}

bool PreflightReport::passed() const {
  return first_failure() == nullptr;
}

const PreflightCheck* PreflightReport::first_failure() const {
  for (const PreflightCheck& c : checks)
    if (c.status == CheckStatus::failed) return &c;
  return nullptr;
}

std::vector<std::string> required_build_modules(const resolve::Recipe* recipe,
                                                const std::vector<std::string>& setup_requires) {
  std::vector<std::string> modules = recipe && !recipe->build.build_requires.empty()
                                         ? recipe->build.build_requires
                                         : std::vector<std::string>{"torch", "setuptools", "wheel"};
  for (const std::string& requirement : setup_requires) {
    // The distribution name at the start of a PEP 508 requirement
    // ("ninja", "psutil>=5", "packaging; python_version>'3'"), imported under
    // that name with '-' as '_' unless the table above says otherwise.
    std::string name;
    for (char c : requirement) {
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) break;
      name += c == '-' || c == '.' ? '_'
                                   : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    for (const ModuleDist& m : kModuleDists) {
      if (name == m.dist) name = m.module;
    }
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) continue;
    if (std::find(modules.begin(), modules.end(), name) == modules.end()) modules.push_back(name);
  }
  return modules;
}

PreflightReport preflight(const env::Environment& env, const resolve::Recipe* recipe,
                          const BuildPlan& plan, const PreflightFacts& facts) {
  const std::string python =
      env.python.interpreter.known() ? env.python.interpreter->executable : std::string("python3");
  const Context c{env,
                  recipe,
                  plan,
                  facts,
                  python.empty() ? "python3" : python,
                  recipe ? recipe->name : std::string("the package")};
  PreflightReport report;
  report.checks.push_back(check_torch(c));
  report.checks.push_back(check_torch_cuda(c));
  report.checks.push_back(check_nvcc(c));
  report.checks.push_back(check_nvcc_major(c));
  report.checks.push_back(check_host_compiler(c));
  report.checks.push_back(check_archs(c));
  report.checks.push_back(check_ninja(c));
  report.checks.push_back(check_python_headers(c));
  report.checks.push_back(check_disk(c));
  report.checks.push_back(check_build_deps(c));
  return report;
}

}  // namespace flashfit::build
