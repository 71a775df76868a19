#pragma once
// libzip, loaded at the first wheel flashfit opens (dlopen) instead of at
// every start: libzip and the OpenSSL it links cost every command about a
// millisecond of mapping and relocation (bench/README.md, process floor),
// and most commands read no wheel. Internal to binary/wheel*.cpp: its header
// still gives the types; the functions are called through this table only
// (libzip is not linked, so a direct call does not link).

#include <zip.h>

#include "util/error.hpp"

namespace flashfit::binary::detail {

struct ZipLibrary {
  decltype(&::zip_open) open = nullptr;
  decltype(&::zip_close) close = nullptr;
  decltype(&::zip_discard) discard = nullptr;
  decltype(&::zip_get_num_entries) get_num_entries = nullptr;
  decltype(&::zip_stat_init) stat_init = nullptr;
  decltype(&::zip_stat_index) stat_index = nullptr;
  decltype(&::zip_compression_method_supported) compression_method_supported = nullptr;
  decltype(&::zip_name_locate) name_locate = nullptr;
  decltype(&::zip_source_buffer) source_buffer = nullptr;
  decltype(&::zip_source_free) source_free = nullptr;
  decltype(&::zip_source_buffer_create) source_buffer_create = nullptr;
  decltype(&::zip_open_from_source) open_from_source = nullptr;
  decltype(&::zip_error_init) error_init = nullptr;
  decltype(&::zip_error_fini) error_fini = nullptr;
  decltype(&::zip_file_replace) file_replace = nullptr;
  decltype(&::zip_file_set_mtime) file_set_mtime = nullptr;
  decltype(&::zip_strerror) strerror = nullptr;
  decltype(&::zip_fopen_index) fopen_index = nullptr;
  decltype(&::zip_fread) fread = nullptr;
  decltype(&::zip_fclose) fclose = nullptr;
  decltype(&::zip_get_error) get_error = nullptr;
  decltype(&::zip_file_get_error) file_get_error = nullptr;
  decltype(&::zip_error_code_zip) error_code_zip = nullptr;
};

// The library, loaded once (thread-safe); the error, kept, says what is
// missing and how to install it. Call before the first zip_t of a process:
// the entry points that open an archive do.
util::Result<const ZipLibrary*> load_zip_library();

// The loaded table, for code that holds a zip_t (so the load succeeded).
const ZipLibrary& zip();

}  // namespace flashfit::binary::detail
