#include "build/toolkit_provision.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <system_error>

#include "env/toolkit.hpp"
#include "store/file_lock.hpp"
#include "util/atomic_file.hpp"
#include "util/files.hpp"
#include "util/process.hpp"
#include "util/strings.hpp"

namespace flashfit::build {
namespace {

namespace fs = std::filesystem;
using util::ErrorKind;

constexpr const char* kStamp = ".flashfit-toolkit";

std::optional<env::MajorMinor> torch_cuda(const env::Environment& env) {
  if (!env.torch.cuda.known() || env.torch.cuda->none()) return std::nullopt;
  return env::parse_major_minor(*env.torch.cuda->version);
}

// Moves everything under `from` into `to`, merging directories (CUDA 12's
// component wheels each bring an include/).
util::Result<void> merge_into(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_directories(to, ec);
  if (ec) return util::fail(ErrorKind::failed, "cannot create " + to.string(), ec.message());
  for (fs::directory_iterator it(from, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path target = to / it->path().filename();
    std::error_code type_ec;
    if (it->is_directory(type_ec) && !it->is_symlink(type_ec) &&
        fs::is_directory(target, type_ec)) {
      if (auto merged = merge_into(it->path(), target); !merged) return merged;
      continue;
    }
    if (fs::exists(fs::symlink_status(target, type_ec))) continue;  // the first root's file wins
    fs::rename(it->path(), target, type_ec);
    if (type_ec)
      return util::fail(ErrorKind::failed, "cannot move " + it->path().string(), type_ec.message());
  }
  if (ec) return util::fail(ErrorKind::failed, "cannot list " + from.string(), ec.message());
  return {};
}

// What torch's cpp_extension and nvcc.profile expect beyond the wheels'
// files: lib64 (cpp_extension links $CUDA_HOME/lib64 when it exists;
// nvcc.profile names lib64) and the unversioned libcudart.so for -lcudart.
util::Result<void> complete_layout(const fs::path& root) {
  std::error_code ec;
  const fs::path lib = root / "lib";
  if (fs::is_directory(lib, ec) && !fs::exists(fs::symlink_status(root / "lib64", ec))) {
    fs::create_directory_symlink("lib", root / "lib64", ec);
    if (ec) return util::fail(ErrorKind::failed, "cannot link lib64", ec.message());
  }
  if (!fs::exists(fs::symlink_status(lib / "libcudart.so", ec))) {
    std::vector<std::string> versioned;
    for (fs::directory_iterator it(lib, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (util::starts_with(name, "libcudart.so.")) versioned.push_back(name);
    }
    std::sort(versioned.begin(), versioned.end());
    if (!versioned.empty()) {
      fs::create_symlink(versioned.front(), lib / "libcudart.so", ec);
      if (ec) return util::fail(ErrorKind::failed, "cannot link libcudart.so", ec.message());
    }
  }
  return {};
}

// name==version of every dist-info pip left in the target.
std::vector<std::string> installed_packages(const fs::path& site) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(site, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!util::ends_with(name, ".dist-info")) continue;
    const std::string stem = name.substr(0, name.size() - 10);
    const auto dash = stem.find('-');
    if (dash == std::string::npos) continue;
    std::string dist = stem.substr(0, dash);
    std::replace(dist.begin(), dist.end(), '_', '-');
    out.push_back(dist + "==" + stem.substr(dash + 1));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The assembled nvcc must run and be the requested release.
util::Result<std::string> check_nvcc(const fs::path& root, env::MajorMinor want) {
  const fs::path nvcc = root / "bin" / "nvcc";
  if (!util::is_executable_file(nvcc)) {
    return util::fail(ErrorKind::failed, "the assembled toolkit has no bin/nvcc", root.string());
  }
  util::ProcessSpec spec;
  spec.argv = {nvcc.string(), "--version"};
  spec.timeout = std::chrono::seconds{60};
  auto run = util::run_process(spec);
  if (!run) return tl::unexpected(run.error());
  if (!run->succeeded()) {
    return util::fail(ErrorKind::failed,
                      fmt::format("{} --version {}", nvcc.string(), run->describe()),
                      util::printable(util::trim(run->err), 300));
  }
  auto version = env::parse_nvcc_version(run->out);
  if (!version)
    return util::fail(ErrorKind::failed, nvcc.string() + " --version printed no release");
  if (version->major != want.major || version->minor != want.minor) {
    return util::fail(ErrorKind::failed, fmt::format("the assembled nvcc is {}, not CUDA {}",
                                                     version->text, want.str()));
  }
  return version->text;
}

struct Stamp {
  std::string nvcc_version;
  std::vector<std::string> packages;
};

std::string stamp_text(const Stamp& s) {
  return "nvcc " + s.nvcc_version + "\n" + util::join(s.packages, "\n") + "\n";
}

std::optional<Stamp> read_stamp(const fs::path& root) {
  auto text = util::read_small_file(root / kStamp, 1 << 16);
  if (!text) return std::nullopt;
  Stamp s;
  for (auto line : util::split(*text, '\n')) {
    line = util::trim(line);
    if (util::starts_with(line, "nvcc ")) {
      s.nvcc_version = std::string(line.substr(5));
    } else if (!line.empty()) {
      s.packages.emplace_back(line);
    }
  }
  if (s.nvcc_version.empty()) return std::nullopt;
  return s;
}

}  // namespace

util::Result<ToolkitRequest> parse_toolkit_flag(std::string_view value) {
  const std::string v(util::trim(value));
  if (v == "auto") return ToolkitRequest{ToolkitMode::automatic, {}};
  if (v == "pypi") return ToolkitRequest{ToolkitMode::pypi, {}};
  if (v == "machine") return ToolkitRequest{ToolkitMode::machine, {}};
  if (v.empty() ||
      (v.front() != '/' && !util::starts_with(v, "./") && !util::starts_with(v, "../"))) {
    return util::fail(
        ErrorKind::usage,
        fmt::format("--toolkit '{}' is not auto, pypi, machine or a path", util::printable(v, 80)),
        {}, "e.g. --toolkit auto, or --toolkit /usr/local/cuda-12.8");
  }
  return ToolkitRequest{ToolkitMode::path, fs::absolute(fs::path(v)).lexically_normal()};
}

util::Result<ToolkitPackages> toolkit_packages(env::MajorMinor cuda) {
  ToolkitPackages out;
  out.cuda = cuda;
  out.key = "cuda-" + cuda.str();
  const std::string pin = fmt::format("=={}.*", cuda.str());
  if (cuda.major == 12) {
    for (const char* name :
         {"nvidia-cuda-nvcc-cu12", "nvidia-cuda-runtime-cu12", "nvidia-cuda-cccl-cu12"})
      out.requirements.push_back(name + pin);
    out.roots = {"nvidia/cuda_nvcc", "nvidia/cuda_runtime", "nvidia/cuda_cccl"};
    return out;
  }
  if (cuda.major == 13) {
    for (const char* name : {"nvidia-cuda-nvcc", "nvidia-nvvm", "nvidia-cuda-crt",
                             "nvidia-cuda-runtime", "nvidia-cuda-cccl"})
      out.requirements.push_back(name + pin);
    out.roots = {"nvidia/cu13"};
    return out;
  }
  return util::fail(
      ErrorKind::failed,
      fmt::format(
          "no PyPI toolkit layout known for CUDA {} (flashfit assembles CUDA 12.x and 13.x)",
          cuda.str()),
      {}, fmt::format("install the CUDA {} toolkit and pass --toolkit PATH", cuda.str()));
}

util::Result<ToolkitDecision> decide_toolkit(const env::Environment& env, ToolkitMode mode) {
  if (mode == ToolkitMode::machine || mode == ToolkitMode::path) return ToolkitDecision{};
  const auto torch = torch_cuda(env);
  if (!torch) {
    const std::string why = !env.torch.cuda.known() ? "torch's CUDA version is unknown (" +
                                                          env.torch.cuda.unknown_reason + ")"
                                                    : "torch is not a CUDA build";
    return util::fail(ErrorKind::failed, "cannot pick a toolkit for torch: " + why, {},
                      "install a CUDA build of torch, or pass --toolkit PATH");
  }
  if (mode == ToolkitMode::pypi) {
    return ToolkitDecision{
        *torch, fmt::format("--toolkit pypi: CUDA {} (torch's) assembled from PyPI", torch->str())};
  }
  const auto& tk = env.toolkit;
  if (!tk.nvcc.known() || !tk.cuda_version.known()) {
    return ToolkitDecision{
        *torch,
        fmt::format("no usable nvcc here: CUDA {} (torch's) assembled from PyPI", torch->str())};
  }
  if (tk.cuda_version->major != torch->major) {
    return ToolkitDecision{
        *torch, fmt::format("nvcc {} is not CUDA {} like torch: CUDA {} assembled from PyPI",
                            tk.cuda_version->text, torch->major, torch->str())};
  }
  if (!tk.cuda_home.known()) {
    return ToolkitDecision{
        *torch, fmt::format("nvcc {} has no toolkit root with the runtime headers: CUDA {} "
                            "assembled from PyPI",
                            tk.cuda_version->text, torch->str())};
  }
  return ToolkitDecision{std::nullopt, fmt::format("the machine's nvcc {} matches torch's CUDA {}",
                                                   tk.cuda_version->text, torch->str())};
}

std::string ProvisionedToolkit::describe() const {
  return fmt::format("CUDA {} assembled from PyPI ({}) in {}", nvcc_version,
                     util::join(packages, ", "), cuda_home.string());
}

std::optional<ProvisionedToolkit> cached_toolkit(const fs::path& cache_root,
                                                 const ToolkitPackages& packages) {
  const fs::path root = cache_root / "toolkits" / packages.key;
  auto stamp = read_stamp(root);
  if (!stamp) return std::nullopt;
  auto version = check_nvcc(root, packages.cuda);
  if (!version) return std::nullopt;
  return ProvisionedToolkit{root, *version, stamp->packages, true};
}

util::Result<ProvisionedToolkit> provision_toolkit(const std::string& python,
                                                   const fs::path& cache_root,
                                                   const ToolkitPackages& packages,
                                                   const ProvisionOptions& options) {
  auto say = [&](const std::string& line) {
    if (options.say) options.say(line);
  };
  const fs::path dir = cache_root / "toolkits";
  const fs::path root = dir / packages.key;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return util::fail(ErrorKind::failed, "cannot create " + dir.string(), ec.message());
  auto lock = store::FileLock::acquire(
      dir / (packages.key + ".lock"), std::chrono::minutes{30}, "the toolkit " + packages.key,
      [&] { say("waiting for another flashfit assembling " + packages.key); });
  if (!lock) return tl::unexpected(lock.error());

  if (auto cached = cached_toolkit(cache_root, packages)) return *cached;
  if (read_stamp(root))
    say(fmt::format("the cached toolkit {} does not run: assembling it again", root.string()));
  fs::remove_all(root, ec);

  const fs::path work =
      dir / fmt::format(".tmp-{}-{}", packages.key, static_cast<long>(::getpid()));
  fs::remove_all(work, ec);
  struct Cleanup {
    fs::path path;
    ~Cleanup() {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  } cleanup{work};
  const fs::path site = work / "site";
  util::ProcessSpec spec;
  spec.argv = {python,
               "-m",
               "pip",
               "install",
               "--no-deps",
               "--only-binary",
               ":all:",
               "--no-input",
               "--disable-pip-version-check",
               "--no-warn-script-location",
               "--target",
               site.string()};
  for (const auto& arg : options.pip_args) spec.argv.push_back(arg);
  for (const auto& req : packages.requirements) spec.argv.push_back(req);
  spec.timeout = options.timeout;
  say(fmt::format("assembling CUDA {} from PyPI into {}: {}", packages.cuda.str(), root.string(),
                  util::join(packages.requirements, " ")));
  auto run = util::run_process(spec);
  if (!run) return tl::unexpected(run.error());
  if (!run->succeeded()) {
    return util::fail(ErrorKind::failed,
                      fmt::format("pip could not install the CUDA {} toolkit wheels: pip {}",
                                  packages.cuda.str(), run->describe()),
                      util::printable(util::trim(run->err).substr(0, 1200), 1200),
                      "check that the index pip uses has NVIDIA's wheels (" +
                          util::join(packages.requirements, " ") +
                          "), or install the toolkit and pass --toolkit PATH");
  }
  const fs::path assembled = work / "root";
  for (const auto& relative : packages.roots) {
    if (!fs::is_directory(site / relative, ec)) {
      return util::fail(ErrorKind::failed,
                        fmt::format("the toolkit wheels have no {} directory", relative),
                        site.string());
    }
    if (auto merged = merge_into(site / relative, assembled); !merged)
      return tl::unexpected(merged.error());
  }
  if (auto done = complete_layout(assembled); !done) return tl::unexpected(done.error());
  auto version = check_nvcc(assembled, packages.cuda);
  if (!version) return tl::unexpected(version.error());
  Stamp stamp{*version, installed_packages(site)};
  if (auto written = util::write_file_atomic(assembled / kStamp, stamp_text(stamp)); !written) {
    return tl::unexpected(written.error());
  }
  fs::rename(assembled, root, ec);
  if (ec)
    return util::fail(ErrorKind::failed, "cannot move the toolkit into " + root.string(),
                      ec.message());
  // nvcc.profile finds everything relative to bin/: check again where it lives now.
  auto final_version = check_nvcc(root, packages.cuda);
  if (!final_version) return tl::unexpected(final_version.error());
  return ProvisionedToolkit{root, *final_version, stamp.packages, false};
}

}  // namespace flashfit::build
