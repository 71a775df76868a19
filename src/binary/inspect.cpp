// Reading the targets of `flashfit inspect` and running the checks over them.

#include "binary/inspect.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <system_error>

#include "binary/wheel_zip.hpp"
#include "pkg/name.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"

namespace flashfit::binary {

namespace {

std::string base_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// The version definitions of the libraries the module needs versions from,
// read from where the loader would find them.
std::vector<DefinedVersions> defined_versions(const ModuleReport& module) {
  std::vector<DefinedVersions> out;
  for (const VersionNeed& need : module.elf.version_needs) {
    auto it = std::find_if(module.resolved.begin(), module.resolved.end(),
                           [&](const NeededLibrary& lib) { return lib.name == need.file; });
    if (it == module.resolved.end() || !it->path) continue;
    auto elf = read_elf(*it->path);
    if (!elf) continue;  // unreadable: needed-libraries shows the path; nothing to compare
    out.push_back({need.file, std::move(elf->version_definitions)});
  }
  return out;
}

// One file of an installed *.dist-info directory, bounded in size.
util::Result<std::string> read_dist_info_file(const std::filesystem::path& dist_info,
                                              const char* name, std::size_t max_mb) {
  auto text = util::read_small_file(dist_info / name, max_mb << 20);
  if (!text) {
    return util::input_error(
        fmt::format("cannot read {} (missing, unreadable or over {} MB)", name, max_mb),
        dist_info.string());
  }
  return std::move(*text);
}

// Removes the temporary files a wheel inspection extracted.
struct TempFiles {
  std::vector<std::filesystem::path> paths;
  ~TempFiles() {
    for (const auto& p : paths) ::unlink(p.c_str());
  }
};

}  // namespace

util::Result<ModuleReport> inspect_module(const std::filesystem::path& file, std::string member,
                                          const std::filesystem::path& origin_dir,
                                          const LoadHost& host,
                                          const std::vector<std::string>& bundled) {
  auto elf = read_elf(file);
  if (!elf) {
    util::Error error = std::move(elf.error());
    error.context = member;
    return tl::unexpected(std::move(error));
  }
  auto fatbins = read_fatbins(file);
  if (!fatbins) {
    util::Error error = std::move(fatbins.error());
    error.context = member;
    return tl::unexpected(std::move(error));
  }
  ModuleReport module;
  module.member = std::move(member);
  module.file = file;
  module.elf = std::move(*elf);
  module.abi = classify_cxx_abi(module.elf.undefined_symbols);
  if (module.abi.abi == CxxAbi::unknown && module.abi.new_count + module.abi.old_count == 0) {
    module.abi = classify_cxx_abi(module.elf.defined_symbols);
  }
  module.fatbin = std::move(fatbins->entries);
  if (auto ids = find_strings_with_prefix(file, "__pybind11_internals_v", 4);
      ids && !ids->empty()) {
    module.pybind11_id = ids->front();
  }
  module.resolved = resolve_needed(module.elf, origin_dir, host.search);
  // A wheel's own libraries (auditwheel's <pkg>.libs/) are not installed yet;
  // the loader finds them once they are.
  for (NeededLibrary& lib : module.resolved) {
    if (lib.via != FoundVia::not_found || lib.path)
      continue;  // a path: ld.so stopped at a bad file
    auto it = std::find_if(bundled.begin(), bundled.end(),
                           [&](const std::string& m) { return base_name(m) == lib.name; });
    if (it == bundled.end()) continue;
    lib.via = FoundVia::bundled;
    lib.detail = fmt::format("shipped in the wheel as {}", *it);
  }

  module.checks.push_back(check_module_platform(module, host));
  module.checks.push_back(check_needed_libraries(module, host));
  module.checks.push_back(check_symbol_versions(module, defined_versions(module), host));
  module.checks.push_back(check_torch(module, host));
  module.checks.push_back(check_pybind11(module, host));
  module.checks.push_back(check_kernel_images(module, host));
  return module;
}

util::Result<InspectReport> inspect_wheel(const std::filesystem::path& path, const LoadHost& host,
                                          const InspectOptions& options) {
  auto wheel = open_wheel(path, options.limits);
  if (!wheel) return tl::unexpected(std::move(wheel.error()));
  InspectReport report;
  report.kind = TargetKind::wheel;
  report.path = path;
  report.name = wheel->metadata().name;
  report.version = wheel->metadata().version;
  report.tags = wheel->filename().tags;

  std::vector<std::string> modules;
  for (const WheelMember* m : wheel->extension_modules()) modules.push_back(m->name);
  auto verified = wheel->verify_records_extracting(modules, options.temp_dir);
  if (!verified) return tl::unexpected(std::move(verified.error()));
  TempFiles temps;
  for (const auto& entry : verified->extracted) temps.paths.push_back(entry.second);

  report.checks.push_back(check_record(verified->problems));
  report.checks.push_back(check_wheel_contents(*wheel, host.required_modules));
  report.checks.push_back(check_wheel_tags(
      wheel->wheel_fields().tags.empty() ? report.tags : wheel->wheel_fields().tags, host));

  std::vector<std::string> members;
  for (const WheelMember& m : wheel->members()) members.push_back(m.name);
  const std::filesystem::path install_dir = host.install_dir.value_or(options.temp_dir);
  for (const auto& [member, file] : verified->extracted) {
    const std::filesystem::path origin = (install_dir / member).parent_path();
    auto module = inspect_module(file, member, origin, host, members);
    if (!module) return tl::unexpected(std::move(module.error()));
    module->file = path / member;  // the temporary file is gone after this call
    report.modules.push_back(std::move(*module));
  }
  return report;
}

util::Result<InspectReport> inspect_library(const std::filesystem::path& library,
                                            const LoadHost& host) {
  InspectReport report;
  report.kind = TargetKind::library;
  report.path = library;
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(library, ec);
  auto module =
      inspect_module(library, library.string(), (ec ? library : absolute).parent_path(), host);
  if (!module) return tl::unexpected(std::move(module.error()));
  report.modules.push_back(std::move(*module));
  return report;
}

util::Result<InspectReport> inspect_installed(const std::filesystem::path& dist_info,
                                              const LoadHost& host) {
  InspectReport report;
  report.kind = TargetKind::installed;
  report.path = dist_info;
  auto metadata_text = read_dist_info_file(dist_info, "METADATA", 16);
  if (!metadata_text) return tl::unexpected(std::move(metadata_text.error()));
  auto metadata = parse_metadata_headers(*metadata_text);
  if (!metadata) return tl::unexpected(std::move(metadata.error()));
  report.name = metadata->name;
  report.version = metadata->version;
  auto record_text = read_dist_info_file(dist_info, "RECORD", 64);
  if (!record_text) return tl::unexpected(std::move(record_text.error()));
  auto record = parse_record(*record_text);
  if (!record) return tl::unexpected(std::move(record.error()));

  // RECORD paths are relative to the site directory, the dist-info's parent;
  // pip writes ../../bin/x for scripts, never for modules, so those are skipped.
  const std::filesystem::path site = dist_info.parent_path();
  for (const RecordRow& row : *record) {
    if (!util::ends_with(row.path, ".so") || !unsafe_member_name_reason(row.path).empty()) continue;
    const std::filesystem::path file = site / row.path;
    auto module = inspect_module(file, row.path, file.parent_path(), host);
    if (!module) return tl::unexpected(std::move(module.error()));
    report.modules.push_back(std::move(*module));
  }
  if (report.modules.empty()) {
    Check c;
    c.id = "wheel";
    c.status = CheckStatus::note;
    c.summary = "no compiled modules installed: a pure-Python distribution";
    for (const RequiredModule& required : host.required_modules) {
      if (pkg::canonicalize_name(report.name) != required.distribution) continue;
      c.status = CheckStatus::fail;
      c.summary = fmt::format("{} is installed without its compiled module {}",
                              required.distribution, required.module);
      c.fix = "reinstall a binary wheel for this environment (`flashfit install`), or build it";
    }
    report.checks.push_back(std::move(c));
  }
  return report;
}

}  // namespace flashfit::binary
