// The parts of elf.hpp that are not table walking: the compact symbol set,
// version tag comparison, and string search in read-only data.
#include <fmt/core.h>

#include <algorithm>
#include <cstring>

#include "binary/elf.hpp"
#include "binary/elf_handle.hpp"
#include "util/strings.hpp"

namespace flashfit::binary {

using detail::libelf_message;

// ---------------------------------------------------------------- SymbolNames

SymbolNames::SymbolNames(std::vector<std::string_view> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::size_t total = 0;
  for (auto name : names) total += name.size();
  storage_.reserve(total);
  spans_.reserve(names.size());
  for (auto name : names) {
    spans_.emplace_back(static_cast<std::uint32_t>(storage_.size()),
                        static_cast<std::uint32_t>(name.size()));
    storage_.append(name);
  }
}

bool SymbolNames::contains(std::string_view name) const {
  std::size_t lo = 0;
  std::size_t hi = spans_.size();
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if ((*this)[mid] < name) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < spans_.size() && (*this)[lo] == name;
}

std::optional<std::string_view> SymbolNames::find_containing(std::string_view fragment) const {
  for (std::size_t i = 0; i < spans_.size(); ++i) {
    if ((*this)[i].find(fragment) != std::string_view::npos) return (*this)[i];
  }
  return std::nullopt;
}

// --------------------------------------------------------- version tags

std::optional<SymbolVersion> parse_symbol_version(std::string_view tag) {
  const auto underscore = tag.rfind('_');
  if (underscore == std::string_view::npos || underscore == 0) return std::nullopt;
  SymbolVersion out{std::string(tag.substr(0, underscore)), {}};
  for (auto part : util::split(tag.substr(underscore + 1), '.')) {
    if (part.empty() || part.size() > 9) return std::nullopt;  // 9 digits always fit 32 bits
    std::uint32_t number = 0;
    for (char c : part) {
      if (c < '0' || c > '9') return std::nullopt;
      number = number * 10 + static_cast<std::uint32_t>(c - '0');
    }
    out.numbers.push_back(number);
  }
  return out;
}

std::optional<std::strong_ordering> compare_symbol_versions(std::string_view a,
                                                            std::string_view b) {
  auto left = parse_symbol_version(a);
  auto right = parse_symbol_version(b);
  if (!left || !right || left->name != right->name) return std::nullopt;
  const std::size_t n = std::max(left->numbers.size(), right->numbers.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t x = i < left->numbers.size() ? left->numbers[i] : 0;
    const std::uint32_t y = i < right->numbers.size() ? right->numbers[i] : 0;
    if (x != y) return x <=> y;
  }
  return std::strong_ordering::equal;
}

// ------------------------------------------------ strings in read-only data

util::Result<std::vector<std::string>> find_strings_with_prefix(const std::filesystem::path& path,
                                                                std::string_view prefix,
                                                                std::size_t max_results,
                                                                std::size_t max_length) {
  auto opened = detail::open_elf_sections(path);
  if (!opened) return tl::unexpected(std::move(opened.error()));
  Elf* elf = opened->elf->get();
  const std::size_t names_index = opened->section_names;
  std::vector<Elf_Scn*> rodata;
  std::vector<Elf_Scn*> fallback;
  for (Elf_Scn* section = elf_nextscn(elf, nullptr); section != nullptr;
       section = elf_nextscn(elf, section)) {
    GElf_Shdr header{};
    if (gelf_getshdr(section, &header) == nullptr || header.sh_type != SHT_PROGBITS) continue;
    const char* name = elf_strptr(elf, names_index, header.sh_name);
    if (name != nullptr && util::starts_with(name, ".rodata")) rodata.push_back(section);
    if ((header.sh_flags & SHF_ALLOC) != 0 && (header.sh_flags & SHF_EXECINSTR) == 0) {
      fallback.push_back(section);
    }
  }
  std::vector<std::string> found;
  if (prefix.empty() || max_results == 0) return found;
  for (Elf_Scn* section : rodata.empty() ? fallback : rodata) {
    // Raw data of a mapped file points into the mapping: nothing is copied.
    Elf_Data* data = elf_rawdata(section, nullptr);
    if (data == nullptr || data->d_buf == nullptr) {
      return util::input_error(
          fmt::format("cannot read read-only data (truncated?): {}", libelf_message()),
          opened->context);
    }
    const char* begin = static_cast<const char*>(data->d_buf);
    const char* end = begin + data->d_size;
    const char* at = begin;
    while (at < end) {
      const void* hit =
          ::memmem(at, static_cast<std::size_t>(end - at), prefix.data(), prefix.size());
      if (hit == nullptr) break;
      const char* start = static_cast<const char*>(hit);
      const std::size_t limit =
          std::min<std::size_t>(max_length, static_cast<std::size_t>(end - start));
      const void* nul = std::memchr(start, '\0', limit);
      const std::size_t length =
          nul != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nul) - start) : limit;
      std::string text(start, length);
      if (std::find(found.begin(), found.end(), text) == found.end()) {
        found.push_back(std::move(text));
        if (found.size() >= max_results) return found;
      }
      at = start + std::max<std::size_t>(length, 1);
    }
  }
  return found;
}

}  // namespace flashfit::binary
