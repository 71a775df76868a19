#pragma once
// Internal to binary/wheel*.cpp: libzip RAII and error wording.

#include <memory>
#include <string>

#include "binary/zip_library.hpp"

namespace flashfit::binary::detail {

struct ZipFileCloser {
  void operator()(zip_file_t* file) const noexcept { zip().fclose(file); }
};
using ZipFile = std::unique_ptr<zip_file_t, ZipFileCloser>;

// A libzip error code in words a user can act on ("truncated", "not a zip").
std::string zip_error_words(int code);
std::string zip_error_words(zip_error_t* error);

inline constexpr std::size_t kStreamBuffer = std::size_t{1} << 20;  // 1 MiB

}  // namespace flashfit::binary::detail
