#include "binary/zip_library.hpp"

#include <fmt/core.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>

#include "util/dynamic_library.hpp"

namespace flashfit::binary::detail {
namespace {

ZipLibrary g_zip{};

// libzip.so.4 is the soname of every libzip since 1.0 (Debian's libzip4,
// which the .deb Depends on). The library stays loaded for the process's life.
std::optional<std::string> load() {
  auto lib = util::DynamicLibrary::open("libzip.so.4");
  if (!lib) return lib.error().message;
  bool complete = true;
  std::string missing;
  const auto bind = [&](auto& slot, const char* name) {
    slot = lib->symbol<std::remove_pointer_t<std::remove_reference_t<decltype(slot)>>>(name);
    if (slot == nullptr && complete) {
      complete = false;
      missing = name;
    }
  };
  bind(g_zip.open, "zip_open");
  bind(g_zip.close, "zip_close");
  bind(g_zip.discard, "zip_discard");
  bind(g_zip.get_num_entries, "zip_get_num_entries");
  bind(g_zip.stat_init, "zip_stat_init");
  bind(g_zip.stat_index, "zip_stat_index");
  bind(g_zip.compression_method_supported, "zip_compression_method_supported");
  bind(g_zip.name_locate, "zip_name_locate");
  bind(g_zip.source_buffer, "zip_source_buffer");
  bind(g_zip.source_free, "zip_source_free");
  bind(g_zip.source_buffer_create, "zip_source_buffer_create");
  bind(g_zip.open_from_source, "zip_open_from_source");
  bind(g_zip.error_init, "zip_error_init");
  bind(g_zip.error_fini, "zip_error_fini");
  bind(g_zip.file_replace, "zip_file_replace");
  bind(g_zip.file_set_mtime, "zip_file_set_mtime");
  bind(g_zip.strerror, "zip_strerror");
  bind(g_zip.fopen_index, "zip_fopen_index");
  bind(g_zip.fread, "zip_fread");
  bind(g_zip.fclose, "zip_fclose");
  bind(g_zip.get_error, "zip_get_error");
  bind(g_zip.file_get_error, "zip_file_get_error");
  bind(g_zip.error_code_zip, "zip_error_code_zip");
  if (!complete) {
    g_zip = ZipLibrary{};
    return fmt::format("libzip.so.4 has no {} (libzip 1.7 or later is needed)", missing);
  }
  lib->keep_loaded();
  return std::nullopt;
}

}  // namespace

util::Result<const ZipLibrary*> load_zip_library() {
  static std::once_flag once;
  static std::optional<std::string> error;
  std::call_once(once, [] { error = load(); });
  if (error) {
    return util::fail(util::ErrorKind::failed, "cannot read wheels: " + *error, "",
                      "install libzip (Debian/Ubuntu: apt install libzip4)");
  }
  return &g_zip;
}

const ZipLibrary& zip() {
  if (g_zip.open == nullptr) {
    // Only reachable through a zip_t, which only exists after a load: a bug.
    std::fputs("flashfit: internal error: libzip used before it was loaded\n", stderr);
    std::abort();
  }
  return g_zip;
}

}  // namespace flashfit::binary::detail
